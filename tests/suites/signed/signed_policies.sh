#!/bin/sh
# Booted with the appliance's kernel, which attached its boot policies,
# protect_secret among them, before /init; /init attached protect_log and
# locked (tests/suites.tab).  After the lock a policy changes only through
# the kernel's loader of signed policies (patch 0023), and only for a
# newer one signed by the build's key; every other is refused with its
# own errno and a kernel log line.  The image has every policy signed as
# version 1 (/usr/lib/krsi); /tests has protect_secret as versions 2 to
# 6, version 2 unsigned and signed by another key (tests/tests.mk).
. /tests/check.sh

as_demo() { su demo -c "$*"; }
policies=/sys/kernel/security/krsi/policies
held() { grep "^protect_secret $1 " "$policies"; }
held_by_kernel() { grep -q "^$1 " "$policies"; }
logged() { dmesg | grep -q "krsi: policy $1"; }
links() { sed -n 's/^protect_secret [0-9]* [0-9a-f]* [0-9]* [0-9]* [0-9]* //p' "$policies"; }

check "signed: locked" sh -c 'krsi status | grep -q "^lock: *locked until reboot"'
if [ -n "$(cat "$policies")" ]; then
	# The appliance's kernel, which carries the boot policies.
	check "signed: the kernel holds protect_secret version 1, since boot" \
		held "1 [0-9a-f]* [0-9]* 0 0"
	check "signed: the kernel log says it attached its 12 programs" \
		logged "protect_secret version 1 from the kernel (pid 1 uid 0 [^)]*): 12 programs attached"
	# krsi.policies=wx (tests/suites.tab) adds to boot.conf's: protect_log,
	# which only /init attaches, is attached all the same, and /init
	# sealed (above), though the command line names neither.
	check "signed: krsi.policies=wx took nothing away: protect_log attached, by /init" \
		grep -q "^protect_log 1 [0-9a-f]* [0-9]* [1-9][0-9]* 0 " "$policies"
	check "signed: the kernel's own are attached" \
		sh -c 'for p in no_module_load protect_init no_tmp_exec wx audit_exec krsi_lock; do
			krsi status | grep -q "^  $p *attached" || exit 1; done'
else
	# A kernel without boot policies (the debug kernel, under KASAN and
	# lockdep): protect_secret attached after the lock, signed.
	check "signed: the demo user reads the secret without protect_secret" \
		as_demo cat /etc/krsi/secret
	expect 0 "signed: krsi attach protect_secret after the lock" \
		krsi attach protect_secret
	check "signed: the kernel holds protect_secret version 1, written by root" \
		held "1 [0-9a-f]* [0-9]* [1-9][0-9]* 0"
	check "signed: the kernel log says it attached its 12 programs" \
		logged "protect_secret version 1 from user space (pid [0-9]* uid 0 krsi): 12 programs attached"
fi
check_fails "signed: the demo user cannot read the secret" as_demo cat /etc/krsi/secret
check "signed: the hook file lists its program" grep -qx secret_open /sys/kernel/security/bpf/file_open
check "signed: krsi status says the kernel holds it" \
	sh -c 'krsi status | grep -q "held by the kernel: signed, version 1"'
check "signed: krsi status reads its mode after the lock" \
	sh -c 'krsi status | grep -q "^  protect_secret *attached *enforce"'
check "signed: bpftool shows its links with their hooks" \
	sh -c 'bpftool link show | grep -q "hook file_open"'
before=$(links)

# A policy nobody attached, attached after the lock: signed, through the
# kernel.  no_setuid refuses a set-user-ID bit, root's too.
touch /tmp/suid
check "signed: before no_setuid, root may set a set-user-ID bit" chmod u+s /tmp/suid
expect 0 "signed: krsi attach no_setuid after the lock" krsi attach no_setuid
says "through the kernel" || echo "not ok signed: attach says it goes through the kernel"
check "signed: the kernel holds no_setuid, written by root" \
	grep -q "^no_setuid 1 [0-9a-f]* [0-9]* [1-9][0-9]* 0 " "$policies"
check_fails "signed: after, root may not" chmod u+s /tmp/suid

# Refused, each with its errno and a kernel log line, which the audit
# reader copies into the audit log (it reads /dev/kmsg, which dmesg -C
# does not clear); version 1 stays.
in_log() { cat /var/log/krsi/log.* | grep -q "$1"; }
dmesg -C
cp /tests/protect_secret-v2.krsi /tmp/tampered.krsi
printf 'KRSI' | dd of=/tmp/tampered.krsi bs=1 seek=4096 conv=notrunc 2>/dev/null
for c in "unsigned:ENODATA:not signed:-61" \
	 "tampered:EKEYREJECTED:changed since it was signed:-129" \
	 "other-key:ENOKEY:a key the builtin keyring does not have:-126"; do
	what=${c%%:*} rest=${c#*:}
	errno=${rest%%:*} rest=${rest#*:}
	why=${rest%%:*} code=${rest#*:}
	case $what in
	unsigned) file=/tests/protect_secret-v2.unsigned ;;
	tampered) file=/tmp/tampered.krsi ;;
	other-key) file=/tests/protect_secret-v2.other-key ;;
	esac
	expect 1 "signed: a $what version 2 is refused" krsi replace "$file"
	says "$errno" || echo "not ok signed: $what: krsi says $errno: $(cat "$expect_out")"
	check "signed: the kernel log says why ($what)" \
		logged "protect_secret version 2 (unverified) from user space (pid [0-9]* uid 0 krsi) refused: .*$why.*($code)"
	dmesg -C
	sleep 1
	check "signed: and so does the audit log, after dmesg -C ($what)" \
		in_log "\"event\":\"kernel\",\"what\":\"krsi: policy protect_secret version 2 (unverified) from user space (pid [0-9]* uid 0 krsi) refused: .*$why.*($code)\""
done
check "signed: after the refusals the kernel still holds version 1" held 1
check_fails "signed: and the demo user still cannot read the secret" \
	as_demo cat /etc/krsi/secret

# Replaced by version 2 in place, while the demo user tries to open the
# secret as fast as a shell can: no attempt gets through.
rm -f /tmp/hammer.stop
su demo -c 'n=0; while [ ! -e /tmp/hammer.stop ]; do
	{ read -r x </etc/krsi/secret; } 2>/dev/null && echo LEAK
	n=$((n + 1))
done; echo "tries $n"' >/tmp/hammer.out 2>&1 &
hammer=$!
sleep 1
expect 0 "signed: version 2 replaces version 1" krsi replace /tests/protect_secret-v2.krsi
sleep 1
touch /tmp/hammer.stop
wait "$hammer"
check "signed: the kernel holds version 2, written by root" held "2 [0-9a-f]* [0-9]* [1-9][0-9]* 0"
check "signed: the demo user tried during the replacement" \
	grep -q "^tries [1-9]" /tmp/hammer.out
check_fails "signed: no attempt read the secret" grep -q LEAK /tmp/hammer.out
check "signed: replaced in place: the same links" test "$(links)" = "$before"
check "signed: the kernel log says version 2 attached" \
	logged "protect_secret version 2 from user space (pid [0-9]* uid 0 krsi): 12 programs attached"

# No rollback, not even to the same version.
expect 1 "signed: version 1 (the image's) does not roll version 2 back" \
	krsi replace protect_secret
says "holds version 2 of protect_secret; this is version 1" ||
	echo "not ok signed: the rollback's refusal names both versions: $(cat "$expect_out")"
check "signed: the kernel log says a rollback was refused" \
	logged "protect_secret version 1 from user space (pid [0-9]* uid 0 krsi) refused: .*no higher.*(-116)"
sleep 1
check "signed: and the audit log" \
	in_log '"event":"kernel","what":"krsi: policy protect_secret version 1 from user space (pid [0-9]* uid 0 krsi) refused: .*no higher.*(-116)"'
check "signed: the audit log has the kernel's line of version 2's load too" \
	in_log '"event":"kernel","what":"krsi: policy protect_secret version 2 from user space (pid [0-9]* uid 0 krsi): 12 programs attached"'
if held_by_kernel krsi_lock; then
	check "signed: and the boot's, before the reader started" \
		in_log '"event":"kernel","what":"krsi: policy krsi_lock version 1 from the kernel'
fi
check_fails "signed: nor a kernel line that begins with a name root chose" \
	sh -c 'printf "krsi: policy pr" >/proc/self/comm; echo 3 >/proc/sys/vm/drop_caches
		sleep 1; cat /var/log/krsi/log.* | grep -q "\"what\":\"krsi: policy pr "'
check "signed: though the kernel printed it" \
	sh -c 'dmesg | grep -q "krsi: policy pr ([0-9]*): drop_caches: 3"'
check_fails "signed: a line written to /dev/kmsg is not taken for the kernel's" \
	sh -c 'echo "krsi: policy forged version 9 from the kernel: 1 programs attached" >/dev/kmsg
		sleep 1; cat /var/log/krsi/log.* | grep -q "\"what\":\"krsi: policy forged"'
expect 1 "signed: version 2 again is refused" krsi replace /tests/protect_secret-v2.krsi
says ESTALE || echo "not ok signed: version 2 again: ESTALE: $(cat "$expect_out")"
expect 0 "signed: version 3 replaces version 2" krsi replace /tests/protect_secret-v3.krsi
check "signed: the kernel holds version 3" held 3

# What version 3 refuses reaches the audit log, as version 1's did: the
# reader, which krsi_lock knows, takes the ring buffers of a policy loaded
# after the lock (it looks once a second).
as_demo cat /etc/krsi/secret 2>/dev/null
sleep 2
check "signed: version 3's denial is in the audit log" \
	in_log '"policy":"protect_secret".*"event":"deny".*"version":3,'

# The policies that know the reader, replaced after the lock: the kernel
# gives each new version the reader's claim (progs/krsi_reader.h) and
# krsi_lock's latches, all frozen, before its first program runs: the
# reader stays guarded and known, and the machine locked.
denials3() { cat /var/log/krsi/log.* | grep -c '"policy":"protect_secret".*"event":"deny".*"version":3,'; }
if held_by_kernel krsi_lock && held_by_kernel protect_init; then
	# Root stops the reader as fast as a shell can while protect_init is
	# replaced: the new version knows it from its first program on.
	reader=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' /var/log/krsi/reader)
	rm -f /tmp/kill.stop
	(n=0 through=0
	while [ ! -e /tmp/kill.stop ]; do
		kill -STOP "$reader" 2>/dev/null && through=$((through + 1))
		n=$((n + 1))
	done
	echo "tries $n through $through") >/tmp/kill.out 2>&1 &
	killer=$!
	sleep 1
	for p in protect_init krsi_lock; do
		expect 0 "signed: $p version 2 replaces version 1 after the lock" \
			krsi replace "/tests/$p-v2.krsi"
	done
	sleep 1
	touch /tmp/kill.stop
	wait "$killer"
	check "signed: root tried to stop the reader during the replacement" \
		grep -q "^tries [1-9]" /tmp/kill.out
	check "signed: and never did" grep -q " through 0$" /tmp/kill.out
	check "signed: the reader is not stopped" \
		sh -c "! grep -q '^State:.*T' /proc/$reader/status"
	# A version that leaves out the reader's claim would leave the reader
	# unguarded: the kernel refuses it.
	expect 1 "signed: protect_init version 3 without the map reader is refused" \
		krsi replace /tests/protect_init-v3-noreader.krsi
	check "signed: the kernel log says why" \
		logged "protect_init version 3 from user space (pid [0-9]* uid 0 krsi) refused: .*without a latch the policy it replaces closed.*(-22)"
	check "signed: the kernel holds protect_init version 2 still" \
		grep -q "^protect_init 2 " "$policies"
	check "signed: the reader is known to each new version" \
		sh -c 'krsi status | grep -q "^reader: *running (pid [0-9]*), guarded by protect_init, protect_log, krsi_lock$"'
	check_fails "signed: and guarded: root may not signal it" kill -CONT "$reader"
	before=$(denials3)
	as_demo cat /etc/krsi/secret 2>/dev/null
	sleep 2
	check "signed: and it still writes the log" test "$(denials3)" -gt "$before"
	check "signed: still locked after krsi_lock's replacement" \
		sh -c 'krsi status | grep -q "^lock: *locked until reboot"'
	check_fails "signed: no mount after krsi_lock's replacement" mount -t tmpfs tmpfs /mnt
	check_fails "signed: no writable map descriptor either" \
		bpftool map dump pinned /sys/fs/bpf/krsi/protect_log/policy_mode
fi

# Versions replaced back to back are each read: the kernel's line about
# a load sends the reader to the new version's buffers at once (when it
# waited for its next look, s390x lost version 5's denial).
for v in 4 5 6; do
	expect 0 "signed: version $v replaces the one before at once" \
		krsi replace "/tests/protect_secret-v$v.krsi"
	as_demo cat /etc/krsi/secret 2>/dev/null
done
sleep 2
for v in 4 5 6; do
	check "signed: version $v's denial is in the audit log" \
		in_log "\"policy\":\"protect_secret\".*\"event\":\"deny\".*\"version\":$v,"
done

# A policy signed elsewhere, under a name the tools' build does not know
# (audit_exec packed as "stranger", tests/tests.mk): the kernel holds it,
# and what cannot read its records says so, rather than show nothing.
expect 0 "signed: a policy the tools do not know attaches after the lock" \
	krsi attach /tests/stranger.krsi
check "signed: krsi status shows it, held and unknown to the build" \
	sh -c 'krsi status | grep -q "^  stranger  *held .*version 1, signed, held by the kernel: not a policy of this build"'
check "signed: and krsi status --json" \
	sh -c 'krsi status --json | grep -q "{\"name\":\"stranger\",\"state\":\"held\",\"mode\":null,\"version\":1,\"unknown\":true}"'
sleep 2
check "signed: the audit reader logs that it does not read its records" \
	in_log '"event":"error","what":"stranger version 1 (load [0-9a-f]*) is held by the kernel, but this reader.s build does not know it: its records are not read"'
check "signed: once" sh -c '[ "$(cat /var/log/krsi/log.* | grep -c "\"what\":\"stranger version 1 ")" = 1 ]'

# Nothing detaches it.
expect 1 "signed: krsi detach protect_secret is refused" krsi detach protect_secret
says "held by the kernel" || echo "not ok signed: detach says the kernel holds it: $(cat "$expect_out")"
id=$(links | cut -d' ' -f1)
check_fails "signed: bpftool link detach of its link is refused" bpftool link detach id "$id"
# What pidfd_getfd() and /proc/PID/fd/N of a kernel thread ask (a
# ptrace_access_check, PTRACE_MODE_ATTACH), asked by /proc/PID/personality.
check_fails "signed: nobody may ptrace-access a kernel thread" cat /proc/2/personality
check "signed: a kernel thread's /proc/PID/stat stays readable" cat /proc/2/stat

# The file is root's.
check_fails "signed: the demo user cannot read the held policies" as_demo cat "$policies"
check_fails "signed: nor write a policy" \
	as_demo "cat /usr/lib/krsi/protect_secret.krsi >$policies"
check_exit
