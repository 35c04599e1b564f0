#!/bin/sh
# The audit reader's memory against root after the lock (docs/audit-trail.md,
# "What the reader's memory depends on"): the red team's route, a
# vm.max_map_count of 16 and then one exec whose record makes a line
# larger than any the reader had made (4,000 bytes of \x01, 24 KB of
# JSON), which starved a reader that grew its buffers as it went.  The
# knob is refused (boot_bypass tries every vm.* knob), and the record is
# logged with no memory the reader did not take before the lock: its
# address space is the same size before and after, and locked.
. /tests/check.sh

read -r _ reader _ </var/log/krsi/reader
# status FIELD: the reader's /proc/PID/status field, in kB.
status() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$reader/status"; }

size=$(status VmSize)
locked=$(status VmLck)
check "reader: its memory is locked, 2 MB at least (VmLck $locked kB)" \
	test "${locked:-0}" -ge 2048
check_fails "reader: root cannot set vm.max_map_count to 16" \
	sh -c 'echo 16 >/proc/sys/vm/max_map_count'

arg=$(head -c 4000 /dev/zero | tr '\0' '\001')
/bin/true krsi-largest-line "$arg"
sleep 2
# The record's line, as the log has it: 4,000 escaped bytes in one argument.
line=$(grep -h '"args":\["/bin/true","krsi-largest-line"' /var/log/krsi/log.* | tail -n 1)
check "reader: the exec with 4,000 bytes of \\x01 is in the log" test -n "$line"
escaped=$(printf '%s' "$line" | grep -o '\\u0001' | wc -l)
check "reader: its argument whole, 4,000 bytes escaped ($escaped)" test "$escaped" -eq 4000
check "reader: no memory taken for it (VmSize $size kB, then $(status VmSize) kB)" \
	test "$(status VmSize)" -eq "$size"
check "reader: nothing held back" sh -c '! grep -q "^held " /var/log/krsi/reader'
check "reader: krsi status exits 0, the reader running and not stalled" \
	sh -c 'krsi status >/tmp/status.out && grep -q "^reader: *running" /tmp/status.out &&
		! grep -q STALLED /tmp/status.out'
check_exit
