#!/bin/sh
# Booted with the appliance's kernel, which carries the boot policies
# (make KRSI_BOOT_POLICIES, patch 0024): attached by the kernel before
# /init ran, held by it (no pins), and everything works as for a policy
# /init attaches: the reader has their buffers from their first record,
# /init's own exec included, and says who loaded them.
. /tests/check.sh

policies=/sys/kernel/security/krsi/policies
boot="no_module_load protect_init no_tmp_exec wx protect_secret audit_exec krsi_lock"

# A kernel without boot policies (the debug kernel, tests/suites.tab):
# /init attached every one, pinned, and the kernel holds none.
if [ -z "$(cat "$policies")" ]; then
	for p in $boot; do
		check "held: none held; /init attached $p, pinned" test -e "/sys/fs/bpf/krsi/$p"
	done
	check "held: none held; setup/before_lock found no held link" \
		sh -c 'test -e /run/held_links.txt && test ! -s /run/held_links.txt'
	check_fails "held: none held; nor does the kernel log say any was attached before init" \
		sh -c 'dmesg | grep -q "attached before init"'
	check "held: none held; unlocked until /init's krsi lock" \
		grep -q "^lock: *unlocked" /run/status_before_lock.txt
	check_exit
fi

# make KRSI_BOOT_LOCK=1: the kernel's krsi_lock came signed with its lock
# frozen, so the lock held from the first instruction of /init, which
# sealed it once it had mounted and started the reader.
check "held: locked since boot: krsi status before /init's krsi lock" \
	grep -q "^lock: *locked, not yet sealed (krsi lock)$" /run/status_before_lock.txt
check "held: and the reader guarded and known to krsi_lock then" \
	grep -q "^reader: *running (pid [0-9]*), guarded by protect_init, protect_log, krsi_lock$" \
	/run/status_before_lock.txt

check "held: the kernel log says how many programs it attached before init" \
	sh -c 'dmesg | grep -q "krsi: [1-9][0-9]* programs of 7 policies attached before init"'
n=$(dmesg | sed -n 's/.*krsi: \([0-9]*\) programs of 7 policies attached before init.*/\1/p')
# No user-mode helper ran before them, though their first signature check
# asks modprobe for its crypto template: the image's /sbin/modprobe
# (setup/modprobe) notes each run in /modprobe.log.
check "held: the image's modprobe notes its runs" grep -q "/modprobe.log" /sbin/modprobe
check_fails "held: no user-mode helper ran before the boot policies (modprobe)" \
	test -e /modprobe.log
sum=0
for p in $boot; do
	check "held: the kernel holds $p, version 1, loaded by itself (pid 0)" \
		grep -q "^$p 1 [0-9a-f]* [0-9]* 0 0 " "$policies"
	links=$(sed -n "s/^$p 1 [0-9a-f]* [0-9]* 0 0 //p" "$policies" | wc -w)
	sum=$((sum + links))
done
check "held: in the order it attached them, then protect_log, /init's" \
	test "$(cut -d' ' -f1 "$policies" | tr '\n' ' ')" = "$boot protect_log "
check "held: the log line's count is the sum of their links ($n)" test "$n" = "$sum"
# protect_log, which /init attached after the kernel had locked: through
# the kernel too, signed, with links the kernel holds and no pin.
check "held: protect_log, version 1, loaded for /init (uid 0) after the lock" \
	grep -q "^protect_log 1 [0-9a-f]* [0-9]* [1-9][0-9]* 0 " "$policies"
all=$(sed 's/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* [^ ]* //' "$policies" | wc -w)
# Before the seal (setup/before_lock), on every held link.
check "held: before the seal, BPF_LINK_DETACH of each of their $all links gave EPERM" \
	sh -c "[ \$(wc -l </run/held_links.txt) = $all ] && ! grep -qv '^[0-9]* -1 ' /run/held_links.txt"
check "held: and BPF_LINK_UPDATE EPERM" \
	sh -c "[ \$(wc -l </run/held_links.txt) = $all ] && ! grep -qv ' -1\$' /run/held_links.txt"
check_fails "held: no pins at all" sh -c 'ls -A /sys/fs/bpf | grep -q .'
check "held: krsi status says the kernel holds audit_exec" \
	sh -c 'krsi status | grep -A1 "^  audit_exec " | grep -q "held by the kernel: signed, version 1"'

# The reader had audit_exec's buffer from its first record: /init's own
# exec, which the kernel ran, by PID 1.
krsi events --json >/tmp/held.events
check "held: /init's own exec is in the audit log, by PID 1" \
	grep -q '"pid":1,.*"event":"exec","file":"/init"' /tmp/held.events
t_load=$(sed -n 's/^audit_exec 1 [0-9a-f]* \([0-9]*\) .*/\1/p' "$policies")
t_exec=$(grep -m 1 '"event":"exec","file":"/init"' /tmp/held.events |
	sed -n 's/.*"time_ns":\([0-9]*\),.*/\1/p')
check "held: audit_exec was loaded ($t_load ns) before /init's exec ($t_exec ns)" \
	test "${t_load:-x}" -lt "${t_exec:-0}"
check "held: and it is the first exec audit_exec recorded" \
	sh -c 'grep "\"event\":\"exec\"" /tmp/held.events | head -n 1 | grep -q "\"file\":\"/init\""'
check "held: the reader says the kernel loaded audit_exec" \
	sh -c 'grep "\"event\":\"origin\"" /tmp/held.events | grep "\"policy\":\"audit_exec\"" |
		grep -q "the kernel, at boot"'
check_exit
