#!/bin/sh
# In-guest test runner, started by /init with krsi.mode=test.
#
# Runs every test of the suite krsi.tests=SUITE names on the kernel
# command line (tests/suites.tab), listed in /tests/LIST.SUITE, shows its
# output on the console and sends its result lines, plus one "exit NAME
# STATUS" line per test and a final "done" line, to the results port,
# which the host harness (tests/lib/boot.sh) reads back from a file: the
# second serial port (/dev/ttyS1) on x86_64, the virtio serial port named
# krsi.results on arm64 and s390x (run-qemu.sh --results). The host counts a test
# without its "exit" line, or a run without "done", as failed.
# krsi.test_timeout=SECONDS: how long one test may run (300 s unless
# given; make bench gives its benchmark more).
list= limit=300
for arg in $(cat /proc/cmdline); do
	case $arg in
	krsi.tests=*) list=/tests/LIST.${arg#krsi.tests=} ;;
	krsi.test_timeout=*) limit=${arg#krsi.test_timeout=} ;;
	esac
done
# (Not /dev/ttyS1 elsewhere: an 8250 driver has its nodes without a UART.)
results=/dev/console
[ "$(uname -m)" = x86_64 ] && results=/dev/ttyS1
for port in /sys/class/virtio-ports/*; do
	[ "$(cat "$port/name" 2>/dev/null)" = krsi.results ] &&
		results=/dev/${port##*/}
done
[ -c "$results" ] || results=/dev/console

{
	echo "begin"
	[ -r "$list" ] || echo "not ok runner: no suite (krsi.tests=${list#/tests/LIST.}: ${list:-not given})"
	while read -r name; do
		echo "=== $name" >/dev/console
		out=/tmp/test-$name.out
		( cd /tmp && timeout "$limit" "/tests/$name" ) >"$out" 2>&1
		status=$?
		cat "$out" >/dev/console
		grep -e '^ok ' -e '^not ok ' -e '^bench ' -e '^curve ' -e '^policy ' "$out"
		echo "exit $name $status"
	done <"$list"
	# The audit log as the guest has it: its first and last record, how
	# many, and their digest, for the host to compare with the copy it
	# received (run-qemu.sh --log; tests/suites/boot/host/stream.sh).  Read
	# once, through a pipe: the appliance's log (100,000 records and
	# more) does not fit in /tmp (32 MB).
	if [ -d /var/log/krsi ] && mkfifo /tmp/log.fifo; then
		sha256sum </tmp/log.fifo >/tmp/log.sum &
		digest=$!
		{ krsi events --json 2>/dev/null; echo $? >/tmp/log.status; } |
			tee /tmp/log.fifo |
			awk -F'[:,]' 'NR == 1 { first = $2 } { last = $2 }
				      END { print first, last, NR }' >/tmp/log.summary
		wait $digest
		[ "$(cat /tmp/log.status)" = 0 ] &&
			echo "log $(cat /tmp/log.summary) $(cut -d' ' -f1 /tmp/log.sum)"
		rm -f /tmp/log.fifo /tmp/log.sum /tmp/log.status /tmp/log.summary
	fi
	echo "done"
} >"$results"
