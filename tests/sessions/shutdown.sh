#!/bin/sh
# arches: x86_64 arm64
# kernel: appliance
# A stop record only when the machine stops: the appliance as `make run`
# boots it, its trail streamed to the host (--log), typed at as the red
# team did.  Root leaves behind four busy loops reniced to -20, which starve
# /init (nice 0) as it shuts down, and a watcher that waits for the
# reader's stop record in the log to stop /init's children, run forty
# more loops and say on the console that it ran after the stop; then
# exits.  The reader, asked by /init, ends every other process before its
# stop record and powers the machine off right after it: the watcher
# never gets to speak, the busy loops' execs are in the host's copy,
# which ends with the stop record, and run-qemu.sh verifies it, QEMU's
# life included (no "ran on").  The console goes to DIR/shutdown.console.log.
#
# usage: shutdown.sh (tests/run-tests.sh sets ARCH, DIR and TIMEOUT)
set -u

name=shutdown
dir=$DIR
timeout=$TIMEOUT
console=$dir/$name.console.log
hostlog=$dir/$name.log
rm -f "$hostlog"

. tests/lib/boot.sh
. tests/lib/console.sh
console_boot "$name" "$console" "$timeout" --arch "$ARCH" --log "$hostlog" ||
	{ echo "not ok $name: no FIFO for the console at $console.input"; exit 1; }

# The watcher: what the red team left to run once the stop record is in
# the log (it stopped /init's shutdown child, and took its time).
watcher='until grep -qs "\"event\":\"stop\"" /var/log/krsi/log.*; do sleep 0.05; done; echo AFTER-THE-STOP-RECORD >/dev/console; for p in /proc/[0-9]*; do [ "${p#/proc/}" != $$ ] && [ "$(cut -d" " -f4 "$p/stat" 2>/dev/null)" = 1 ] && kill -STOP "${p#/proc/}"; done; i=0; while [ $i -lt 40 ]; do sh -c "renice -n -20 -p \$\$ >/dev/null; while :; do :; done" & i=$((i + 1)); done; sleep 20; echo STILL-RUNNING-AFTER-THE-STOP-RECORD >/dev/console'
started=
step "the demo user's prompt" 'demo$ ' 'exit' &&
	step "root's prompt" 'root@krsi:/# ' \
		"i=0; while [ \$i -lt 4 ]; do sh -c 'renice -n -20 -p \$\$ >/dev/null; while :; do :; done' & i=\$((i + 1)); done; sh -c 'renice -n -20 -p \$\$ >/dev/null; $watcher' & sleep 1; echo busy-loops-started; exit" &&
	started=1
console_end
status=$?

tr -d '\r' <"$console" >"$dir/$name.clean"
ok() { echo "ok $name: $1"; }
no() { echo "not ok $name: $1 (see $console)"; }

if [ -n "$started" ] && [ "$status" -eq 0 ] && grep -q '^busy-loops-started' "$dir/$name.clean"; then
	ok "root left its busy loops and watcher, exited, and the machine stopped"
else
	no "the machine did not stop by itself after root's exit (qemu exit status $status)"
fi
if grep -q '^\(STILL-RUNNING-\)\?AFTER-THE-STOP-RECORD' "$dir/$name.clean"; then
	no "root's watcher ran after the stop record"
else
	ok "nothing of root's ran after the stop record: the watcher never spoke"
fi
if grep -q '"event":"stop","what":"krsi logd stops: SIGTERM from PID 1; every other process ended, the machine powers off now"' "$hostlog" &&
	tail -n 1 "$hostlog" | grep -q '"event":"stop"'; then
	ok "the host's copy ends with the stop record, every other process ended before it"
else
	no "the host's copy does not end with the reader's stop record"
fi
if grep -q '"args":\["sh","-c","renice -n -20 -p \$\$ >/dev/null; while :; do :; done"\]' "$hostlog"; then
	ok "the busy loops' execs are in the host's copy"
else
	no "the busy loops' execs are not in the host's copy"
fi
verdict=$(grep "^  this boot: \(verified\|NOT VERIFIED\)" "$dir/$name.clean")
case $verdict in
*": verified: "*" 1 streams, "*"every stream ends with the reader's stop record")
	ok "run-qemu.sh verified the trail, QEMU's life against the stop record included ($verdict)" ;;
*)
	no "run-qemu.sh did not verify the trail: '$verdict'"
	grep "^  this boot" "$dir/$name.clean" | head -n 5 | sed 's/^/# /' ;;
esac
kernel_reports "$name" "$console"
