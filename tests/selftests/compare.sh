#!/bin/sh
# Compare the results of the kernel's BPF selftests on Linux 6.1 without
# the series (UNPATCHED) and with it (PATCHED), each a sorted list of
# "ok NAME", "ok NAME # SKIP" and "not ok NAME" lines: every test that
# passes without the series must pass with it, unless EXPECTED, a list of
# "NAME reason" lines (NAME as in the results, "test_progs lsm_cgroup";
# the intended changes the cover letter names), says otherwise.  Prints
# the counts and every difference; exits 1 on a regression.
#
# usage: compare.sh UNPATCHED PATCHED EXPECTED
set -u
unpatched=$1 patched=$2 expected=$3

# status FILE: "NAME<TAB>pass|skip|fail" for every result of FILE.
status() {
	sed -e 's/^ok \(.*\) # SKIP$/\1\tskip/' -e 's/^not ok \(.*\)$/\1\tfail/' \
	    -e 's/^ok \(.*\)$/\1\tpass/' "$1" | sort -t "$(printf '\t')" -k1,1
}

status "$unpatched" >"$unpatched.status"
status "$patched" >"$patched.status"
join -t "$(printf '\t')" -a 1 -a 2 -e missing -o 0,1.2,2.2 \
	"$unpatched.status" "$patched.status" >"$patched.joined"

count() { awk -F '\t' "$1" "$patched.joined" | wc -l; }
echo "tests and subtests: $(wc -l <"$patched.joined")"
echo "  unpatched: $(count '$2 == "pass"') passed, $(count '$2 == "fail"') failed, $(count '$2 == "skip"') skipped"
echo "  patched:   $(count '$3 == "pass"') passed, $(count '$3 == "fail"') failed, $(count '$3 == "skip"') skipped"
echo "  new with the series: $(count '$2 == "missing"')"

regressions=0
while IFS="$(printf '\t')" read -r name before after; do
	[ "$before" = pass ] && [ "$after" != pass ] || continue
	# A run cut short: selftests.sh reports the unfinished guest.
	if [ "$after" = missing ]; then
		echo "  not run with the series: $name"
		continue
	fi
	reason=$(awk -v n="$name" 'index($0, n " ") == 1 { print substr($0, length(n) + 1); exit }' \
		"$expected" 2>/dev/null)
	if [ -n "$reason" ]; then
		echo "  intended: $name: $before -> $after:$reason"
	else
		echo "  REGRESSION: $name: passes without the series, $after with it"
		regressions=$((regressions + 1))
	fi
done <"$patched.joined"
awk -F '\t' '$2 != "pass" && $2 != "missing" && $3 == "pass" { print "  fixed by the series: " $1 }' \
	"$patched.joined"
awk -F '\t' '$2 == "missing" && $3 != "pass" { print "  new and not passing: " $1 " (" $3 ")" }' \
	"$patched.joined"
echo "$regressions regressions"
[ "$regressions" -eq 0 ]
