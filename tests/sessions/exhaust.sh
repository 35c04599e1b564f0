#!/bin/sh
# arches: x86_64
# kernel: appliance
# The appliance as an attacker gets it: booted as ./run-qemu.sh boots it
# (the demo user's shell, then root's), with the test image, and typed at
# on its console.  At the demo prompt, /tests/exhaust.sh: the demo user
# fills every place it can write and leaves memory hogs and a fork bomb
# running; then `exit`.  At root's prompt, /tests/after_exhaust.sh: /init
# went on, the attack is held to its limits, the policies are attached,
# locked, denying and recording.  Prints the guest's "ok"/"not ok" lines
# and its own; the console goes to DIR/exhaust.console.log.
#
# usage: exhaust.sh (tests/run-tests.sh sets DIR and TIMEOUT)
set -u

dir=$DIR
timeout=$TIMEOUT
console=$dir/exhaust.console.log

. tests/lib/boot.sh
. tests/lib/console.sh
console_boot exhaust "$console" "$timeout" --initrd "$dir/initramfs.cpio.gz" ||
	{ echo "not ok exhaust: no FIFO for the console at $console.input"; exit 1; }

asked=
step "the demo user's prompt" 'demo$ ' /tests/exhaust.sh &&
	step "the demo user's attack" "exhaust: the demo user's attack runs" \
		exit 5 &&
	step "root's shell after the demo user's attack" 'root@krsi:/# ' \
		/tests/after_exhaust.sh &&
	step "the end of root's checks" "after_exhaust: done" 'reboot -f' &&
	asked=1
console_end
status=$?

tr -d '\r' <"$console" | grep -e '^ok ' -e '^not ok '
# What the shell says when fork() fails with EAGAIN: the fork bomb ran into
# the process limit (the kernel's own limits are far above 32 processes).
if grep -q "can't fork: Resource temporarily unavailable" "$console"; then
	echo "ok exhaust: the fork bomb ran into the demo user's process limit"
else
	echo "not ok exhaust: no sign that the fork bomb ran into the process limit"
fi
if [ -n "$asked" ] && [ "$status" -eq 0 ]; then
	echo "ok exhaust: the guest rebooted when root asked"
elif [ -n "$asked" ]; then
	echo "not ok exhaust: qemu exit status $status"
fi
kernel_reports exhaust "$console"
