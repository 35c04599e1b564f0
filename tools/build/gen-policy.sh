#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the krsi tool needs to know about one policy and cannot get from its
# light skeleton: which hook each program is for (its SEC("lsm/<hook>")),
# which maps to pin, the one-line summary that opens its source, and the
# function that fills in what the policy declares it needs from the system
# before load (KRSI_CONFIG_DEV/INO/INOS lines, progs/krsi_policy.h).
# Written as X-macros over the skeleton's field names, so that a program
# renamed in the source without this table following fails to compile.
#
# usage: gen-policy.sh NAME NAME.bpf.c NAME.bpf.o >NAME.policy.h
set -eu
name=$1
src=$2
obj=$3
# Bytes, not characters: the summary is checked and escaped byte by byte.
export LC_ALL=C

# refuse WHERE MESSAGE: one message, naming the file (and the line), and
# no header.
refuse() {
	echo "$1: $2" >&2
	exit 1
}

# The name goes into C identifiers (KRSI_ABOUT_NAME, the skeleton's struct).
case $name in
'' | [0-9]* | *[!A-Za-z0-9_]*)
	refuse "$src" "the policy's name '$name' is not a C identifier (letters, digits and _): rename the file" ;;
esac

# The summary, ' * NAME: what it guarantees', whatever the newcomer wrote
# in it: printable text and UTF-8 become a C string below; anything the
# terminal would not show as written is refused.
line=$(grep -n -m 1 "^ \* $name: " "$src") ||
	refuse "$src" "does not open with the summary line ' * $name: what it guarantees'"
lineno=${line%%:*}
about=${line#*:}
about=${about#" * $name: "}
[ -n "$about" ] || refuse "$src:$lineno" "the summary after '$name: ' is empty"
if printf '%s' "$about" | grep -q '[[:cntrl:]]'; then
	refuse "$src:$lineno" "the summary has a control character (a tab, or a carriage return from DOS line endings?)"
fi
printf '%s' "$about" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 ||
	refuse "$src:$lineno" "the summary is not valid UTF-8"
# `krsi status`, and the boot banner, show it on one line of 80 columns,
# after the name (in a column of 16), the state and the mode: 21 columns
# and the name's ("  %-16s %-9s %-7s %s", tools/krsi/main.c).  Characters
# are counted, not bytes: UTF-8 continuation bytes are left out.
column=16
[ ${#name} -le $column ] || column=${#name}
fit=$((80 - 21 - column))
chars=$(printf '%s' "$about" | tr -d '\200-\277' | wc -c)
[ "$chars" -le "$fit" ] ||
	refuse "$src:$lineno" "the summary is $chars characters; after the name, state and mode of krsi status, $fit fit in 80 columns"

# The summary as a C string literal: printable ASCII as it is, except the
# characters C gives a meaning in a string (" and \, and ? of a trigraph),
# and every other byte as an octal escape, so that UTF-8 stays UTF-8.
about_c=$(printf '%s' "$about" | od -An -v -tu1 | awk '{
	for (i = 1; i <= NF; i++) {
		c = $i + 0
		if (c >= 32 && c < 127 && c != 34 && c != 92 && c != 63)
			printf("%c", c)
		else
			printf("\\%03o", c)
	}
}')
syms=$(llvm-objdump --syms "$obj")

echo "/* Generated from $name.bpf.o by tools/build/gen-policy.sh: do not edit. */"
echo "#include \"$name.lskel.h\""
echo
# (printf: dash's echo would turn the escapes back into bytes.)
printf '#define KRSI_ABOUT_%s "%s"\n' "$name" "$about_c"
echo
echo "#define KRSI_PROGS_$name(P) \\"
echo "$syms" | awk -v name="$name" '$2 == "g" && $3 == "F" && $4 ~ /^lsm\// {
	# The kernel keeps 15 characters of a program name: the hook files
	# list that, and krsi matches it against this table.
	if (length($6) > 15) {
		printf("gen-policy: %s: program name %s is longer than 15\n",
		       name, $6) > "/dev/stderr"
		exit 1
	}
	sub(/^lsm\//, "", $4)
	printf("\tP(%s, %s, %s) \\\n", name, $6, $4)
	n++
}
END { if (!n) { print "gen-policy: no lsm/ program" > "/dev/stderr"; exit 1 } }'
echo
echo
echo "#define KRSI_MAPS_$name(M) \\"
echo "$syms" | awk -v name="$name" '$2 == "g" && $3 == "O" && $4 == ".maps" {
	printf("\tM(%s, %s) \\\n", name, $6)
}'
echo

# The values the policy declares with KRSI_CONFIG_*(name, "path"...): one
# krsi_config_dev() or krsi_config_ino() call each (tools/krsi/policy.c).
calls=$(awk '/^KRSI_CONFIG_(DEV|INO|INOS)\(/ {
	kind = $0; sub(/\(.*/, "", kind); sub(/^KRSI_CONFIG_/, "", kind)
	var = $0; sub(/^[^(]*\([ \t]*/, "", var); sub(/[ \t]*,.*/, "", var)
	rest = $0; i = 0
	while (match(rest, /"[^"]*"/)) {
		path = substr(rest, RSTART, RLENGTH)
		rest = substr(rest, RSTART + RLENGTH)
		field = kind == "INOS" ? var "[" i "]" : var
		fn = kind == "DEV" ? "krsi_config_dev" : "krsi_config_ino"
		printf("\tif (!err)\n\t\terr = %s(%s, &s->rodata->%s);\n",
		       fn, path, field)
		i++
	}
	if (!i) {
		printf("gen-policy: %s: no path in %s\n", FILENAME, $0) > "/dev/stderr"
		exit 1
	}
}' "$src")
# Every policy learns its load's id (krsi_policy.h), and tells its
# version, before it is loaded; then the values of its KRSI_CONFIG_ lines.
# The krsi tool fills them in (tools/krsi/policy.c); krsi-pack says where
# the kernel does (tools/pack/krsi-pack.c).
echo "int krsi_config_version(__u32 *version);"
echo "int krsi_config_load_id(__u64 *load_id);"
echo "int krsi_config_dev(const char *path, __u32 *dev);"
echo "int krsi_config_ino(const char *path, __u64 *ino);"
echo
echo "static inline int krsi_configure_$name(void *skel)"
echo "{"
echo "	struct $name *s = skel;"
echo "	int err;"
echo
echo "	err = krsi_config_version(&s->rodata->krsi_policy_version);"
echo "	if (!err)"
echo "		err = krsi_config_load_id(&s->rodata->krsi_load_id);"
[ -z "$calls" ] || echo "$calls"
echo "	return err;"
echo "}"
echo "#define KRSI_CONFIGURE_$name krsi_configure_$name"
