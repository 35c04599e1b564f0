#!/bin/sh
# The test suite: host unit tests, then the in-guest suite in a QEMU boot of
# the appliance in test mode. Prints every result, then "N passed, N failed",
# and exits non-zero on any failed check, on a test without its result, on a
# guest that did not finish in time and on any kernel oops, BUG, WARNING,
# lockdep or KASAN report on the console.
#
# Run through `make test`, which builds what this needs first.
set -u

build=${BUILD:-build}
dir=$build/test
timeout=${KRSI_TEST_TIMEOUT:-1200}
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "not ok $*"; }

# count FILE: tally the "ok"/"not ok" lines of FILE and print the failures.
count() {
	while IFS= read -r line; do
		case $line in
		"ok "*) pass; echo "$line" ;;
		"not ok "*) fail "${line#not ok }" ;;
		esac
	done <"$1"
}

echo "--- host unit tests"
for t in "$dir"/host/*; do
	[ -x "$t" ] || continue
	"$t" >"$t.out" 2>&1
	status=$?
	count "$t.out"
	[ "$status" -eq 0 ] || fail "host $(basename "$t"): exit status $status"
done

echo "--- guest tests (console: $dir/console.log)"
rm -f "$dir/results.txt"
start=$(date +%s)
./run-qemu.sh --mode test --initrd "$dir/initramfs.cpio.gz" \
	--results "$dir/results.txt" --timeout "$timeout" \
	</dev/null >"$dir/console.log" 2>&1
qemu_status=$?
echo "guest ran $(( $(date +%s) - start )) s, qemu exit status $qemu_status"

touch "$dir/results.txt"
tr -d '\r' <"$dir/results.txt" >"$dir/results.clean"
count "$dir/results.clean"

case $qemu_status in
0) ;;
124) fail "guest: timed out after $timeout s" ;;
*) fail "guest: qemu exit status $qemu_status" ;;
esac
grep -qx begin "$dir/results.clean" || fail "guest: the test runner never started"
grep -qx done "$dir/results.clean" || fail "guest: the test runner did not finish"

# Every test in the image must have reported, and exited 0.
while read -r name; do
	status=$(sed -n "s/^exit $name \([0-9]*\)$/\1/p" "$dir/results.clean")
	if [ -z "$status" ]; then
		fail "guest $name: no result (did it hang or crash?)"
	elif [ "$status" -ne 0 ]; then
		fail "guest $name: exit status $status"
	fi
done <"$dir/LIST"

# The kernel must not have complained, whatever the tests said.
reports=$(grep -E -e 'Oops|BUG:|WARNING:|Kernel panic|general protection fault' \
	-e 'KASAN|UBSAN|possible (circular|recursive) locking|suspicious RCU usage' \
	-e 'INFO: task .* blocked|hung_task|soft lockup|hard LOCKUP|Call Trace:' \
	"$dir/console.log")
if [ -n "$reports" ]; then
	echo "$reports" | head -n 20
	fail "guest: kernel reports on the console (see $dir/console.log)"
fi

if [ "$failed" -ne 0 ]; then
	echo "--- last lines of the console"
	tail -n 40 "$dir/console.log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
