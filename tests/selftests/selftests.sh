#!/bin/sh
# The kernel's own KRSI selftests (tools/testing/selftests/bpf/prog_tests/
# krsi_*.c), run by the kernel's harness, test_progs: one "ok"/"not ok"
# line per test and subtest for the host's count.  Here every test must
# run: a skipped one (no userfaultfd, no cgroups, no crash_kexec()) means
# the kernel lacks what the test needs, and counts as a failure.
#
# usage: selftests.sh [TEST...]	(default: every test test_progs has)
out=/tmp/selftests.out

names=
for t in "$@"; do
	names="${names:+$names,}$t"
done
/tests/test_progs ${names:+-t "$names"} >"$out" 2>&1
status=$?
cat "$out"
# "#12/3    krsi_uapi/fd_zero:OK", "#12      krsi_uapi:FAIL", ...; a
# failed test's lines come again in test_progs' closing error log: once.
sed -n 's/^#[0-9/]* *\([^ :]*\):\(OK\|FAIL\|SKIP\).*/\2 \1/p' "$out" | awk '!seen[$0]++' |
while read -r result name; do
	case $result in
	OK) echo "ok selftests: $name" ;;
	SKIP) echo "not ok selftests: $name: skipped (see the console)" ;;
	*) echo "not ok selftests: $name (see the console)" ;;
	esac
done
grep -q '^Summary: ' "$out" ||
	echo "not ok selftests: test_progs did not finish (exit status $status)"
exit "$status"
