#!/bin/sh
# The appliance as an attacker gets it: booted as ./run-qemu.sh boots it
# (the demo user's shell, then root's), with the test image, and typed at
# on its console.  At the demo prompt, /tests/exhaust.sh: the demo user
# fills every place it can write and leaves memory hogs and a fork bomb
# running; then `exit`.  At root's prompt, /tests/after_exhaust.sh: /init
# went on, the attack is held to its limits, the policies are attached,
# locked, denying and recording.  Prints the guest's "ok"/"not ok" lines
# and its own; the console goes to DIR/exhaust.console.log.
#
# usage: exhaust-session.sh DIR TIMEOUT
set -u

dir=$1
timeout=$2
console=$dir/exhaust.console.log
input=$dir/exhaust.input

rm -f "$input" && mkfifo "$input"
: >"$console"
./run-qemu.sh --initrd "$dir/initramfs.cpio.gz" --timeout "$timeout" \
	<"$input" >"$console" 2>&1 &
qemu=$!
# QEMU's input stays open between the lines typed.
exec 3>"$input"

# await TEXT: wait until the console has shown TEXT; fails when QEMU has
# ended, or after TIMEOUT seconds.
await() {
	waited=0
	until tr -d '\r' <"$console" | grep -q -F -- "$1"; do
		kill -0 "$qemu" 2>/dev/null && [ "$waited" -lt "$timeout" ] || return 1
		sleep 1
		waited=$((waited + 1))
	done
}

# type LINE, as typed on the serial console.
type_line() {
	printf '%s\r' "$1" >&3
}

# step WHAT TEXT LINE [WAIT]: once the console shows TEXT (and WAIT more
# seconds), type LINE; else say that WHAT did not happen.
step() {
	if await "$2"; then
		sleep "${4:-0}"
		type_line "$3"
	else
		echo "not ok exhaust: $1 (see $console)"
		return 1
	fi
}

asked=
step "the demo user's prompt" 'demo$ ' /tests/exhaust.sh &&
	step "the demo user's attack" "exhaust: the demo user's attack runs" \
		exit 5 &&
	step "root's shell after the demo user's attack" 'root@krsi:/# ' \
		/tests/after_exhaust.sh &&
	step "the end of root's checks" "after_exhaust: done" 'reboot -f' &&
	asked=1
exec 3>&-
wait "$qemu"
status=$?
rm -f "$input"

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
