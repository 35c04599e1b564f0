#!/bin/sh
# The host's side of the stream cut under its reader (stream_cut.c):
# while the port's output was stopped (x86_64), run-qemu.sh said the
# stream went silent, and said it again when it spoke; after the boot, its check of
# the host's copy found the lines lost in the write that failed, as
# dropped, at the line of the reader's record that the port is open
# again, the records logged while it was closed, as missing, and the
# line root wrote into the port, as forged, which it had said while the
# guest ran; and nothing else: the stream not cut (it ends with the
# reader's stop record).
#
# usage: stream.sh BOOT DIR
set -u
name=$1 dir=$2
hostlog=$dir/$name.log
console=$dir/$name.clean
tr -d '\r' <"$dir/$name.console.log" >"$console"

# The silence is made on an 8250 port alone (stream_cut.c).
if [ "$ARCH" != x86_64 ]; then
	echo "# $name: no silence made on $ARCH's virtio console (no flow control to stop)"
elif grep -q "^run-qemu.sh: .*$name.log: the audit stream has been silent for [0-9]* s while the guest runs" "$console" &&
	grep -q "^run-qemu.sh: .*$name.log: the audit stream speaks again after [0-9]* s of silence" "$console"; then
	echo "ok $name: run-qemu.sh said the stream was silent while the guest ran, and when it spoke again"
else
	echo "not ok $name: run-qemu.sh did not say the stream went silent, and came back"
fi

verdict=$(grep "^  this boot: NOT VERIFIED" "$console")
# The silence of the port's stopped output is counted against it on
# x86_64; the heartbeats while the log was full say records were held back.
silent=0 also=
[ "$ARCH" = x86_64 ] && silent=1 also=", the port's silence"
case $verdict in
*": 1 forged, "[1-9]*" dropped, 0 replayed or reordered, "[1-9]*" records missing, 0 cut, 0 begun unexpectedly, "[1-9]*" saying records held back, 0 run on after the stop, $silent silent while running")
	echo "ok $name: the host's check found lines dropped, records missing, root's line forged, the heartbeats saying records were held back$also, and nothing else (${verdict#*: NOT VERIFIED: })" ;;
*)
	echo "not ok $name: the host's check did not find the dropped lines, the missing records, the forged one and the held-back records alone: '$verdict'" ;;
esac
held=$(sed -n 's/^  this boot:\([0-9]*\): withheld: .*HELD BACK for [0-9]* s: [0-9]* bytes of records in their buffers: write \/var\/log\/krsi: ENOSPC.*/\1/p' "$console" | head -n 1)
if [ -n "$held" ] && sed -n "${held}p" "$hostlog" | grep -q '"event":"beat"' &&
	grep -q "^run-qemu.sh: .*$name.log: this boot's line $held: withheld" "$console"; then
	echo "ok $name: the heartbeat at line $held said records were held back (the log full), while the guest ran and after"
else
	echo "not ok $name: no heartbeat said records were held back, with the reason (line '$held')"
fi
forged=$(sed -n 's/^  this boot:\([0-9]*\): forged: a line without a seal.*/\1/p' "$console")
if [ -z "$forged" ]; then
	forged=$(sed -n 's/^  this boot:\([0-9]*\): forged: position .*/\1/p' "$console")
fi
if [ -n "$forged" ] && sed -n "${forged}p" "$hostlog" | grep -q '"comm":"forged-by-root"' &&
	grep -q "^run-qemu.sh: .*$name.log: this boot's line $forged: forged" "$console"; then
	echo "ok $name: root's line, $forged of the host's copy, called forged while the guest ran, and after"
else
	echo "not ok $name: root's line was not called forged at its line (line '$forged') while the guest ran"
fi
line=$(sed -n 's/^  this boot:\([0-9]*\): dropped: .*/\1/p' "$console")
if [ -n "$line" ] && sed -n "${line}p" "$hostlog" | grep -q '"event":"stream","what":"/dev/[a-zA-Z0-9]* open again: records'; then
	echo "ok $name: at line $line of the host's copy, the reader's record that the port is open again"
else
	echo "not ok $name: the dropped lines were not said at the reader's record of the port open again (line '$line')"
fi
