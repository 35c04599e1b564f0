#!/bin/sh
# arches: x86_64
# kernel: appliance
# krsi doctor where the base suite cannot ask it: the appliance as it
# boots (locked at boot), with the BPF LSM left out of the active list
# (lsm=capability,krsi).  Root asks it; it must say that the BPF LSM is
# not active and what that means, that the system is locked and what the
# lock refuses, and that it did not try a trampoline on a locked system.
# Then root traces the tutorial's chmod (README, "Write your first
# policy") with no_setuid attached: the hook that refuses it, with the
# program and the LSM that decided.
# Prints "ok"/"not ok" lines; the console goes to DIR/NAME.console.log.
#
# usage: doctor.sh (tests/run-tests.sh sets ARCH, DIR and TIMEOUT)
set -u

name=doctor
dir=$DIR
timeout=$TIMEOUT
console=$dir/$name.console.log

. tests/lib/boot.sh
. tests/lib/console.sh
console_boot "$name" "$console" "$timeout" --arch "$ARCH" \
	--append "lsm=capability,krsi krsi.policies=no_setuid,krsi_lock" ||
	{ echo "not ok $name: no FIFO for the console at $console.input"; exit 1; }

asked=
step "the demo user's prompt" 'demo$ ' 'exit' &&
	step "root's prompt" 'root@krsi:/# ' \
		'krsi doctor | sed "s/^/doctor: /"; echo "doctor status=$?"; touch /tmp/x; krsi trace -o /tmp/t -- chmod u+s /tmp/x; grep -e path_chmod -e inode_setattr /tmp/t | sed "s/^/trace: /"; reboot -f' &&
	asked=1
console_end
status=$?

tr -d '\r' <"$console" >"$dir/$name.clean"
ok() { echo "ok $name: $1"; }
no() { echo "not ok $name: $1 (see $console)"; }
expect() {
	if grep -q -e "$2" "$dir/$name.clean"; then ok "$1"; else no "$1"; fi
}

expect "KRSI is active without the BPF LSM" \
	'^doctor: ok       KRSI is an active LSM (capability,krsi)$'
expect "the BPF LSM is not active, and what that means" \
	'^doctor: note     the BPF LSM is not in the active LSM list: a program attached by trampoline never runs'
expect "locked, and what the lock refuses" \
	'^doctor: note     locked until reboot (krsi_lock): nobody, root included, loads, attaches or detaches a BPF program'
expect "no trampoline tried on a locked system" \
	'^doctor: ok       x86_64 (not tried: locked, krsi_lock refuses the load)'
expect "an attach would fail anyway" 'locked, so no attach succeeds anyway'
expect "nothing is a problem" '^doctor status=0$'
expect "trace: chmod u+s reaches path_chmod, where no_setuid refuses it" \
	'^trace: [0-9]* chmod path_chmod /tmp/x = -1 EPERM by krsi; krsi#[0-9]* no_setuid/setuid_chmod -1 EPERM$'
if [ -n "$asked" ] && [ "$status" -eq 0 ]; then
	ok "the guest rebooted when root asked"
else
	no "the guest did not end with root's reboot -f (qemu exit status $status)"
fi
kernel_reports "$name" "$console"
