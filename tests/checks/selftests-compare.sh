#!/bin/sh
# make selftests' verdict (tests/selftests/compare.sh): a test that
# passes without the series and fails or is skipped with it is a
# regression, unless the expected list names it; one the patched run did
# not reach is reported as not run; the exit status says whether there
# was a regression.
#
# arches: x86_64
# usage: selftests-compare.sh
set -u

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
compare=tests/selftests/compare.sh

printf '%s\n' 'ok test_progs a' 'ok test_progs b' 'not ok test_progs c' \
	'ok test_progs d' 'ok test_progs e' 'ok test_progs f' >"$dir/unpatched"
printf '%s\n' 'test_progs e  the cover letter says why' >"$dir/expected"

# verdict NAME WANT_STATUS PATTERN PATCHED_LINE...: compare, then check the
# exit status and that the report has a line matching PATTERN.
verdict() {
	name=$1 want=$2 pattern=$3
	shift 3
	printf '%s\n' "$@" >"$dir/patched"
	"$compare" "$dir/unpatched" "$dir/patched" "$dir/expected" >"$dir/report" 2>&1
	status=$?
	if [ "$status" -eq "$want" ] && grep -q -e "$pattern" "$dir/report"; then
		echo "ok selftests-compare: $name"
	else
		echo "not ok selftests-compare: $name (status $status, want $want):"
		sed 's/^/#   /' "$dir/report"
	fi
}

all_pass='ok test_progs a'
verdict "the same results: no regression" 0 '^0 regressions$' \
	'ok test_progs a' 'ok test_progs b' 'not ok test_progs c' \
	'ok test_progs d' 'ok test_progs e' 'ok test_progs f'
verdict "a test that passed fails: a regression" 1 \
	'REGRESSION: test_progs b: passes without the series, fail with it' \
	"$all_pass" 'not ok test_progs b' 'not ok test_progs c' \
	'ok test_progs d' 'ok test_progs e' 'ok test_progs f'
verdict "a test that passed is skipped: a regression" 1 \
	'REGRESSION: test_progs d: passes without the series, skip with it' \
	"$all_pass" 'ok test_progs b' 'ok test_progs d # SKIP' \
	'ok test_progs e' 'ok test_progs f'
verdict "an expected change is named, not counted" 0 \
	'intended: test_progs e: pass -> fail: *the cover letter says why' \
	"$all_pass" 'ok test_progs b' 'ok test_progs d' 'not ok test_progs e' \
	'ok test_progs f'
verdict "a test the patched run did not reach: not run" 0 \
	'not run with the series: test_progs f' \
	"$all_pass" 'ok test_progs b' 'ok test_progs d' 'ok test_progs e'
verdict "a failing test that now passes is counted as fixed" 0 \
	'fixed by the series: test_progs c' \
	"$all_pass" 'ok test_progs b' 'ok test_progs c' 'ok test_progs d' \
	'ok test_progs e' 'ok test_progs f'
verdict "a new test that fails is listed" 0 \
	'new and not passing: test_progs krsi_x (fail)' \
	"$all_pass" 'ok test_progs b' 'ok test_progs d' 'ok test_progs e' \
	'ok test_progs f' 'not ok test_progs krsi_x'
verdict "the counts" 1 '^  patched:   4 passed, 1 failed, 1 skipped$' \
	"$all_pass" 'ok test_progs b' 'not ok test_progs c' \
	'ok test_progs d # SKIP' 'ok test_progs e' 'ok test_progs f'
