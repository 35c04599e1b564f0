#!/bin/sh
# The kernel's own KRSI selftests (tools/testing/selftests/bpf/prog_tests/
# krsi_*.c, patch 0020), run by the kernel's harness, test_progs: one
# "ok"/"not ok" line per test and subtest for the host's count.  Here
# every test must run: a skipped one (no userfaultfd, no cgroups, no
# crash_kexec()) means the kernel lacks what the test needs, and counts
# as a failure.
#
# usage: selftests.sh [TEST...]
# Without a TEST, those of krsi.selftests=TEST,TEST on the kernel command
# line (tests/suites.tab: krsi_audit_only on arm64's mainline-audit kernel), else
# every test test_progs has.  On an architecture with a deny list
# (/tests/DENYLIST.ARCH: what needs a trampoline on a kernel function,
# tests/suites/selftests/mainline/limits.sh checks each), not those,
# unless krsi.denylist=none (make ARCH=arm64 selftests-debian).
. /tests/test_progs.sh
out=/tmp/selftests.out

set -f
names= nodeny=
for arg in $(cat /proc/cmdline); do
	case $arg in
	krsi.selftests=*) names=${arg#krsi.selftests=} ;;
	krsi.denylist=none) nodeny=1 ;;
	esac
done
[ $# -eq 0 ] || names=
for t in "$@"; do
	names="${names:+$names,}$t"
done
denied=
list=/tests/DENYLIST.$(uname -m)
[ -r "$list" ] && [ -z "$nodeny" ] && denied=$(denied_tests "$list" | paste -sd,)
# test_local_storage binds a socket on loopback.
ip link set dev lo up 2>/dev/null
# krsi_policies/signed: a policy signed by the build's key as versions 1,
# 2 and 3 (without its latch), and version 2 signed by another key
# (tests/tests.mk), under the names the test reads in KRSI_POLICY_DIR.
policies=/tmp/krsi-policies
mkdir -p "$policies"
ln -sf /tests/no_module_load-v1.krsi "$policies/v1.krsi"
ln -sf /tests/no_module_load-v2.krsi "$policies/v2.krsi"
ln -sf /tests/no_module_load-v2.other-key "$policies/other-key.krsi"
ln -sf /tests/no_module_load-v3-nolatch.krsi "$policies/v3-nolatch.krsi"
KRSI_POLICY_DIR=$policies /tests/test_progs ${names:+-t "$names"} ${denied:+-d "$denied"} >"$out" 2>&1
status=$?
cat "$out"
test_progs_results "$out" | while read -r result name; do
	case $result in
	OK) echo "ok selftests: $name" ;;
	SKIP) echo "not ok selftests: $name: skipped (see the console)" ;;
	*) echo "not ok selftests: $name (see the console)" ;;
	esac
done
grep -q '^Summary: ' "$out" ||
	echo "not ok selftests: test_progs did not finish (exit status $status)"
exit "$status"
