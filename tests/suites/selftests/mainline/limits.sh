#!/bin/sh
# What the deny list (/tests/DENYLIST.ARCH) keeps out of the selftests
# run, run here one by one: each must fail, and every assertion it fails
# must be an attach refused with -524 (ENOTSUPP), 6.1's answer to a BPF
# trampoline on a kernel function wherever it has none.  Anything else
# would be a failure the deny list hides.
. /tests/test_progs.sh
set -f
status=0
# On an audit-only kernel (kernel/mainline-audit.config) KRSI denies
# nothing, so a test that compares KRSI's EPERM with the trampoline's
# fails there for that reason too: the deny list is the enforcing
# kernel's, and its boot checks it.
mode=$(cat /sys/kernel/security/krsi/mode 2>&1)
if [ "$mode" != enforcing ]; then
	echo "# limits: not checked here (krsi/mode: $mode): the enforcing kernel's boot checks the deny list"
	exit 0
fi
list=/tests/DENYLIST.$(uname -m)
[ -r "$list" ] || { echo "not ok limits: no $list"; exit 1; }
ip link set dev lo up 2>/dev/null
for name in $(denied_tests "$list"); do
	out=/tmp/limits.out
	/tests/test_progs -t "$name" >"$out" 2>&1
	cat "$out"
	fails=$(grep -c ':FAIL:' "$out")
	others=$(grep ':FAIL:' "$out" | grep -v -c -e '-524')
	if [ "$fails" -gt 0 ] && [ "$others" -eq 0 ]; then
		echo "ok limits: $name fails on $(uname -m), only with -524 ($fails assertion(s))"
	else
		echo "not ok limits: $name: $fails failed assertion(s), $others not -524"
		status=1
	fi
done
exit "$status"
