#!/bin/sh
# arches: arm64 s390x
# kernel: appliance
# The appliance as `make ARCH=ARCH run` boots it (./run-qemu.sh --arch
# ARCH, the image itself, not the test image), typed at on its console:
# the banner with every policy of boot.conf attached, enforcing and
# locked, the demo user's shell (uid 1000, no exec from /tmp),
# then root's, where `krsi status` still says locked, and `reboot -f`.
# Prints "ok"/"not ok" lines; the console goes to DIR/NAME.console.log.
# A lighter cousin of exhaust.sh, for the architectures where that
# one does not run (docs/architectures.md, "What runs where").
#
# usage: shell.sh (tests/run-tests.sh sets ARCH, DIR and TIMEOUT)
set -u

arch=$ARCH
name=shell
dir=$DIR
timeout=$TIMEOUT
console=$dir/$name.console.log

. tests/lib/boot.sh
. tests/lib/console.sh
console_boot "$name" "$console" "$timeout" --arch "$arch" ||
	{ echo "not ok $name: no FIFO for the console at $console.input"; exit 1; }

asked=
step "the demo user's prompt" 'demo$ ' \
	'echo "uid=$(id -u)"; cp /bin/busybox /tmp/b; /tmp/b true || echo "tmp exec: $?"; exit' &&
	step "root's prompt after the demo user's exit" 'root@krsi:/# ' \
		'krsi status | sed "s/^/status: /"; reboot -f' &&
	asked=1
console_end
status=$?

tr -d '\r' <"$console" >"$dir/$name.clean"
ok() { echo "ok $name: $1"; }
no() { echo "not ok $name: $1 (see $console)"; }
expect() {
	if grep -q -e "$2" "$dir/$name.clean"; then ok "$1"; else no "$1"; fi
}

expect "the banner says KRSI is enforcing" '^KRSI: *enforcing$'
expect "the banner says locked" '^lock: *locked until reboot$'
policies=$(grep -v -e '^#' -e '^[[:space:]]*$' rootfs/etc/krsi/boot.conf)
for p in $policies; do
	expect "the banner shows $p attached, enforcing" "^  $p  *attached  enforce "
	expect "root's krsi status shows $p attached, enforcing" \
		"^status:   $p  *attached  enforce "
done
if grep -q 'NOT ENFORCED' "$dir/$name.clean"; then
	no "a policy failed to attach at boot"
else
	ok "no policy failed to attach at boot"
fi
expect "the demo user's shell is uid 1000" '^uid=1000'
expect "the demo user cannot run a program copied to /tmp (no_tmp_exec)" '^tmp exec: 126$'
expect "root's krsi status still says locked" '^status: lock: *locked until reboot$'
if [ -n "$asked" ] && [ "$status" -eq 0 ]; then
	ok "the guest rebooted when root asked"
else
	no "the guest did not end with root's reboot -f (qemu exit status $status)"
fi
kernel_reports "$name" "$console"
