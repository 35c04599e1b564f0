#!/bin/sh
# arches: x86_64 arm64 s390x
# kernel: appliance
# The demo (./run-qemu.sh --demo) runs to its end and shows, for each
# policy, a denial and the event it produced, each main policy's attacker
# denied, and `krsi why`.  On x86_64 and arm64 its audit log streams to the host
# after a trail whose last line nobody sealed, which run-qemu.sh and the
# banner must report, and this boot's own trail verifies; the console
# shows no kernel message below warning level.  The console goes to
# DIR/demo.console.log.
#
# usage: demo.sh (tests/run-tests.sh sets ARCH, DIR and TIMEOUT)
set -u
. tests/lib/boot.sh

console=$DIR/demo.console.log
clean=$DIR/demo.clean
stream=
if [ "$ARCH" != s390x ]; then
	echo '{"seq":0,"time_ns":1,"pid":1,"uid":0,"comm":"","policy":"reader","event":"start","what":""}' \
		>"$DIR/demo.log"
	stream="--log $DIR/demo.log"
fi
# shellcheck disable=SC2086 # $stream is two words or none
./run-qemu.sh --arch "$ARCH" --demo --timeout "$TIMEOUT" $stream \
	</dev/null >"$console" 2>&1
status=$?
tr -d '\r' <"$console" >"$clean"

# shown WHAT PATTERN: ok when the demo's console has a line PATTERN
# (grep's options before it) matches.
shown() {
	what=$1
	shift
	if grep -q "$@" "$clean"; then
		echo "ok demo: $what"
	else
		echo "not ok demo: $what: not shown"
	fi
}

if [ "$status" -eq 0 ] && grep -q "^KRSI demo done.$" "$clean"; then
	echo "ok demo: runs to its end"
else
	echo "not ok demo: did not finish (qemu exit status $status)"
fi
for policy in no_tmp_exec wx protect_secret protect_init no_module_load krsi_lock; do
	shown "shows a $policy denial and its event" \
		"^    event .* $policy denied E[A-Z]*: "
done
shown "shows an audited exec with its arguments" \
	"^    event .* audit_exec allowed exec /bin/busybox: sh -c ls /etc/krsi"
shown "shows the real program run through a symlink" \
	"^    event .* audit_exec allowed exec /usr/bin/krsi-secret: /tmp/innocent"
# Each main policy's attacker's try, denied.
for denied in "can't create '/busybox': Read-only file system" \
	"/mem': Permission denied (exit 1)" \
	"mount: permission denied (are you root?) (exit 1)" \
	"renice: setpriority: Operation not permitted" \
	"umount: can't unmount /sys/kernel/security: Operation not permitted"; do
	shown "attacker's try denied: $denied" -F "$denied"
done
# Signed updates: version 2 replaces the boot policy, version 1 (the
# image's) does not roll it back, a changed copy is refused.
shown "a signed version 2 replaces protect_secret after the lock" \
	-F "krsi: protect_secret version 2, signed, held by the kernel (exit 0)"
shown "the policies file says version 2" -F -e "-> protect_secret 2 (exit 0)"
shown "a rollback to version 1 is refused, with both versions" \
	-F "the kernel holds version 2 of protect_secret; this is version 1"
shown "a changed update is refused" -F "it was changed after it was signed"
if grep -q "^    event .* protect_secret denied EACCES: file_open /etc/krsi/secret" "$clean" &&
	grep -q "^        protect_secret: one file only root and one program may read" "$clean"; then
	echo "ok demo: the demo user learns why (krsi why)"
else
	echo "not ok demo: no krsi why of the demo user's denial"
fi
kernel_reports demo "$console"
[ "$ARCH" != s390x ] || exit 0

if grep -q "run-qemu.sh: .*demo.log: the trail of the boots before does not verify:" "$clean" &&
	grep -q "demo.log:1: forged: a line without a seal" "$clean" &&
	grep -q "^!!! the host's copy of the boots before (run-qemu.sh --log) does not" "$clean"; then
	echo "ok demo: a trail with a line nobody sealed is reported, at its line, and the next boot says so"
else
	echo "not ok demo: a trail that does not verify was not reported"
fi
if grep -q "^  this boot: verified: .* 1 streams, .* every stream ends with the reader's stop record" "$clean" &&
	tail -n 1 "$DIR/demo.log" | grep -q '"policy":"reader","event":"stop"' &&
	[ "$(grep -c '"event":"start"' "$DIR/demo.log")" = 2 ]; then
	echo "ok demo: its trail follows the last one on the host, verified, ending with the stop record"
else
	echo "not ok demo: its trail on the host does not verify"
fi
# A quiet console: the kernel's informational messages (init/main.c's
# pr_info() naming the init it runs, say) stay in dmesg, unless
# run-qemu.sh --verbose (tests/sessions/verbose.sh).
if grep -q "Run /init as init process" "$clean"; then
	echo "not ok demo: kernel messages below warning level on the console"
else
	echo "ok demo: the console shows no kernel message below warning level"
fi
