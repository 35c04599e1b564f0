#!/bin/sh
# In-guest test runner, started by /init with krsi.mode=test.
#
# Runs every test listed in /tests/LIST (/tests/LIST.NAME with krsi.tests=NAME
# on the kernel command line), shows its output on the console and
# sends its result lines, plus one "exit NAME STATUS" line per test and a
# final "done" line, to the second serial port (/dev/ttyS1), which the host
# harness (tests/run-tests.sh) reads back from a file. The host counts a
# test without its "exit" line, or a run without "done", as failed.
list=/tests/LIST
for arg in $(cat /proc/cmdline); do
	case $arg in
	krsi.tests=*) list=/tests/LIST.${arg#krsi.tests=} ;;
	esac
done
results=/dev/ttyS1
[ -c "$results" ] || results=/dev/console

{
	echo "begin"
	while read -r name; do
		echo "=== $name" >/dev/console
		out=/tmp/test-$name.out
		( cd /tmp && timeout 300 "/tests/$name" ) >"$out" 2>&1
		status=$?
		cat "$out" >/dev/console
		grep -e '^ok ' -e '^not ok ' -e '^bench ' "$out"
		echo "exit $name $status"
	done <"$list"
	# The audit log as the guest has it: its first and last record, how
	# many, and their digest, for the host to compare with the copy it
	# received (run-qemu.sh --log; run-tests.sh, stream_check).
	if [ -d /var/log/krsi ] && krsi events --json >/tmp/log.all 2>/dev/null; then
		echo "log $(sed -n '1s/^{"seq":\([0-9]*\),.*/\1/p' /tmp/log.all)" \
			"$(sed -n '$s/^{"seq":\([0-9]*\),.*/\1/p' /tmp/log.all)" \
			"$(wc -l </tmp/log.all) $(sha256sum </tmp/log.all | cut -d' ' -f1)"
	fi
	echo "done"
} >"$results"
