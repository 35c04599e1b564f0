#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the krsi tool needs to know about one policy and cannot get from its
# light skeleton: which hook each program is for (its SEC("lsm/<hook>")),
# which maps to pin, and the one-line summary that opens its source.
# Written as X-macros over the skeleton's field names, so that a program
# renamed in the source without this table following fails to compile.
#
# usage: gen-policy.sh NAME NAME.bpf.c NAME.bpf.o >NAME.policy.h
set -eu
name=$1
src=$2
obj=$3

about=$(sed -n "s/^ \* $name: \(.*\)\$/\1/p" "$src" | head -n 1)
[ -n "$about" ] || {
	echo "gen-policy: $src does not open with ' * $name: what it does'" >&2
	exit 1
}
syms=$(llvm-objdump --syms "$obj")

echo "/* Generated from $name.bpf.o by tools/build/gen-policy.sh: do not edit. */"
echo "#include \"$name.lskel.h\""
echo
echo "#define KRSI_ABOUT_$name \"$about\""
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
