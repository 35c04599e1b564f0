#!/bin/sh
# Booted with krsi.policies=protect_init,no_such_policy: the kernel command
# line replaces /etc/krsi/boot.conf, and a policy that cannot be attached is
# reported loudly while the boot goes on with the others.
. /tests/check.sh

check "override: protect_init attached from the command line" \
	grep -q "^  protect_init *attached" /run/krsi/banner
check_fails "override: boot.conf's wx not attached" \
	grep -q "^  wx *attached" /run/krsi/banner
check "override: the failed policy is reported loudly" \
	grep -q "NOT ENFORCED, failed to attach: no_such_policy" /run/krsi/banner
check "override: the boot went on (this test runs)" test -d /tests
check "override: the banner says audit only on this kernel" \
	grep -q "KRSI: *audit only" /run/krsi/banner
check "override: /sys/kernel/security/krsi/mode says audit-only" \
	sh -c 'test "$(cat /sys/kernel/security/krsi/mode)" = audit-only'

check_exit
