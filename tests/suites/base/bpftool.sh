#!/bin/sh
# bpftool, built from the patched tree, is in the image and knows KRSI: it
# lists the policies' LSM programs, and their KRSI links with the hook each
# runs on (plain and JSON), and that agrees with what the hook files say.
#
# This suite boots with no policy attached, so the policies /init attaches
# at boot (/etc/krsi/boot.conf) are attached here, and detached at the end;
# all but krsi_lock, whose lock would outlast this test (until reboot) and
# refuse the detach.
. /tests/check.sh

bpftool=/usr/sbin/bpftool
hooks=/sys/kernel/security/bpf
pins=/sys/fs/bpf/krsi
tmp=/tmp/bpftool

pass() { echo "ok $1"; }
fail() {
	echo "not ok $1: $2"
	check_failed=1
}

# Program names are compared on their first 15 characters (BPF_OBJ_NAME_LEN
# less the NUL): bpftool shows the full name from the program's BTF, and a
# hook file the kernel's name, full or cut there.
short() { echo "$1" | cut -c1-15; }

# "HOOK NAME" for every program of every hook file, sorted.
hook_entries() {
	for f in "$hooks"/*; do
		while read -r prog; do
			[ "$prog" = - ] || echo "${f##*/} $(short "$prog")"
		done <"$f"
	done | sort
}

# The lines of file $2 that are not in file $1 (no line twice in either).
added() { sort "$1" "$1" "$2" | uniq -u; }

# "HOOK NAME" for every KRSI link of `bpftool link show`, NAME the name that
# `bpftool prog show` gives its program.
bpftool_entries() {
	sed -n 's/^[0-9]*: krsi  prog \([0-9]*\)  hook \([a-z0-9_]*\) *$/\1 \2/p' \
		"$tmp.links" | while read -r id hook; do
		prog=$(sed -n "s/^$id: [a-z_]*  name \([^ ]*\)  .*/\1/p" "$tmp.progs")
		echo "$hook $(short "$prog")"
	done | sort
}

check "bpftool: $bpftool is there" test -f $bpftool
check "bpftool: and executable" test -x $bpftool
check "bpftool: it is the one in PATH" sh -c "test \"\$(command -v bpftool)\" = $bpftool"
check "bpftool: version runs" sh -c "$bpftool version | grep -q 'bpftool v[0-9]'"
# libbpf's table of link types, in bpftool itself: no kernel support needed.
check "bpftool: it knows the krsi link type (the series' bpftool patch)" \
	sh -c "$bpftool feature list_builtins link_types | grep -qx krsi"

policies=$(grep -v -e '^#' -e '^[[:space:]]*$' /etc/krsi/boot.conf |
	sed 's/:audit$//' | grep -vx krsi_lock | tr '\n' ' ')
check "bpftool: boot.conf lists policies" test -n "$policies"
hook_entries >"$tmp.before"
# shellcheck disable=SC2086 # one argument per policy
check "bpftool: attach the boot policies ($policies)" krsi attach $policies
hook_entries >"$tmp.after"
# What the policies added to the hook files: what bpftool must show.
added "$tmp.before" "$tmp.after" >"$tmp.expected"
check "bpftool: the policies put programs on hooks ($(wc -l <"$tmp.expected"))" \
	test -s "$tmp.expected"

# Programs.
check "bpftool: prog show runs" sh -c "$bpftool prog show >$tmp.progs 2>$tmp.err"
while read -r hook prog; do
	# A name of 15 characters may be cut: bpftool shows it in full.
	if [ ${#prog} -ge 15 ]; then
		re="^[0-9]*: lsm  name ${prog}[a-z0-9_]*  "
	else
		re="^[0-9]*: lsm  name $prog  "
	fi
	check "bpftool: prog show lists $prog as an lsm program" grep -q "$re" "$tmp.progs"
done <"$tmp.expected"

# Links.
check "bpftool: link show runs" sh -c "$bpftool link show >$tmp.links 2>$tmp.err"
if grep -q '^[0-9]*: type 10 ' "$tmp.links"; then
	fail "bpftool: link show names the KRSI link type" \
		"it prints 'type 10': this bpftool lacks BPF_LINK_TYPE_KRSI (the bpftool patch of the series)"
elif ! grep -q '^[0-9]*: krsi ' "$tmp.links"; then
	fail "bpftool: link show names the KRSI link type" \
		"no krsi link at all: does the kernel make BPF_LINK_TYPE_KRSI links, and krsi pin them? $(head -n 3 "$tmp.links" "$tmp.err" | tr '\n' ' ')"
else
	pass "bpftool: link show names the KRSI link type"
fi
if grep '^[0-9]*: krsi ' "$tmp.links" | grep -qv '  hook [a-z0-9_]* *$'; then
	fail "bpftool: every attached KRSI link shows its hook" \
		"$(grep '^[0-9]*: krsi ' "$tmp.links" | grep -v '  hook [a-z0-9_]* *$' | head -n 1)"
else
	pass "bpftool: every attached KRSI link shows its hook"
fi
bpftool_entries >"$tmp.shown"
while read -r hook prog; do
	check "bpftool: link show has $prog's krsi link with hook $hook" \
		grep -qx "$hook $prog" "$tmp.shown"
done <"$tmp.expected"
added "$tmp.after" "$tmp.shown" >"$tmp.unknown"
check "bpftool: each KRSI link it shows is in its hook's file" \
	test ! -s "$tmp.unknown"
# The example of the bpftool patch, with the hook of a boot policy.
hook=$(head -n 1 "$tmp.expected" | cut -d' ' -f1)
check "bpftool: link show prints 'N: krsi  prog M  hook $hook'" \
	grep -q "^[0-9][0-9]*: krsi  prog [0-9][0-9]*  hook $hook *$" "$tmp.links"

check "bpftool: -j link show runs" sh -c "$bpftool -j link show >$tmp.json 2>$tmp.err"
check "bpftool: -j link show is a JSON array" grep -q '^\[.*\]$' "$tmp.json"
check "bpftool: -j link show has \"type\":\"krsi\"" grep -q '"type":"krsi"' "$tmp.json"
check "bpftool: -j link show has \"hook\"" grep -q '"hook":"' "$tmp.json"
cut -d' ' -f1 "$tmp.expected" | sort -u >"$tmp.hooks"
while read -r hook; do
	check "bpftool: -j link show has \"hook\":\"$hook\"" \
		grep -q "\"type\":\"krsi\",\"prog_id\":[0-9]*,\"hook\":\"$hook\"" "$tmp.json"
done <"$tmp.hooks"

# The links krsi pinned: bpftool opens them by path, whatever their names.
npins=0
for p in $policies; do
	n=0
	for f in "$pins/$p"/*; do
		$bpftool link show pinned "$f" >"$tmp.pin" 2>/dev/null || continue
		n=$((n + 1))
		check "bpftool: $f is a krsi link with its hook" \
			grep -q '^[0-9]*: krsi  prog [0-9]*  hook [a-z0-9_]' "$tmp.pin"
	done
	if [ "$n" -gt 0 ]; then
		pass "bpftool: $p has its links pinned in $pins/$p ($n)"
	else
		fail "bpftool: $p has its links pinned in $pins/$p" \
			"no pin there that bpftool opens as a link: $(ls "$pins/$p" 2>&1 | tr '\n' ' ')"
	fi
	npins=$((npins + n))
done
check "bpftool: one pinned link per program on a hook ($npins)" \
	test "$npins" -eq "$(wc -l <"$tmp.expected")"

# shellcheck disable=SC2086 # one argument per policy
check "bpftool: detach the policies" krsi detach $policies
$bpftool link show >"$tmp.links" 2>&1
check_fails "bpftool: no KRSI link left once they are detached" \
	grep -q '^[0-9]*: krsi ' "$tmp.links"
hook_entries >"$tmp.end"
check "bpftool: the hook files are as before" cmp -s "$tmp.before" "$tmp.end"
rm -f "$tmp".*

check_exit
