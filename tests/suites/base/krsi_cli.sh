#!/bin/sh
# The krsi command: every subcommand and its error paths, on the appliance's
# kernel with no policy attached at boot.
. /tests/check.sh

cli_out=$expect_out

expect 0 "cli: help" krsi help
for cmd in list attach enforce audit detach replace events why logd status lock hooks hook \
	   stats policies doctor; do
	check "cli: help describes $cmd" says "^  $cmd"
done
expect 0 "cli: --help" krsi --help
expect 2 "cli: unknown command exits 2" krsi frobnicate
check "cli: unknown command named" says "unknown command 'frobnicate'"
# Each command checks its own arguments, and says what it takes.
for cmd in policies hooks lock why logd; do
	expect 2 "cli: $cmd refuses an argument" krsi $cmd stray
	check "cli: $cmd says it takes none" says "^krsi: $cmd takes no argument$"
done
for cmd in list status; do
	expect 2 "cli: $cmd refuses an argument but --json" krsi $cmd --yaml
	check "cli: $cmd says it takes only --json" says "^krsi: $cmd takes only --json$"
done
expect 2 "cli: hook wants one argument" krsi hook
check "cli: hook says so" says "^krsi: hook takes one argument$"
expect 2 "cli: events --uid beyond 32 bits" krsi events --uid 4294967296
check "cli: events says which uids there are" says "uid up to 4294967295, not '4294967296'"

expect 0 "cli: policies" krsi policies
for p in no_module_load protect_init no_tmp_exec wx protect_secret protect_log audit_exec \
	 krsi_lock no_setuid; do
	check "cli: policies lists $p" says "^$p "
done

expect 0 "cli: list with nothing attached" krsi list
check "cli: list says so" says "no program attached"
expect 0 "cli: status" krsi status
check "cli: status says enforcing" says "^KRSI: *enforcing"
check "cli: status says no lock" says "no lock"
check "cli: status shows wx not attached" says "^  wx  *- "

expect 2 "cli: a typo in a policy name exits 2" krsi attach wxx
check "cli: the typo is named and the valid names listed" \
	says "no policy 'wxx'; the policies are:.* wx"
check "cli: every valid name is listed" says "the policies are:.* krsi_lock"
expect 2 "cli: attach without a policy" krsi attach
expect 2 "cli: replace takes one policy" krsi replace wx protect_init

expect 0 "cli: attach wx" krsi attach wx
expect 0 "cli: list after attach" krsi list
check "cli: list shows wx on mmap_file, with its program and link ids" \
	says "^mmap_file: wx_mmap (wx, prog [0-9][0-9]*, link [0-9][0-9]*)$"
check "cli: list shows wx on file_mprotect" \
	says "^file_mprotect: wx_mprotect (wx, prog [0-9][0-9]*, link [0-9][0-9]*)$"
wx_link=$(sed -n 's/^mmap_file: wx_mmap (wx, prog [0-9]*, link \([0-9]*\))$/\1/p' "$cli_out")
wx_prog=$(sed -n 's/^mmap_file: wx_mmap (wx, prog \([0-9]*\), link [0-9]*)$/\1/p' "$cli_out")
expect 0 "cli: list --json" krsi list --json
check "cli: list --json gives the ids" \
	says "{\"name\":\"wx_mmap\",\"policy\":\"wx\",\"prog_id\":$wx_prog,\"link_id\":$wx_link}"
expect 0 "cli: status after attach" krsi status
check "cli: status shows wx attached" says "^  wx  *attached"
check "cli: status shows the links of wx, as list does" \
	says "^  *links: .*mmap_file $wx_link (prog $wx_prog)"
check "cli: the link is pinned in the policy's directory" \
	test -e /sys/fs/bpf/krsi/wx/wx_mmap
check "cli: wx denies" sh -c 'krsi-wx rwx | grep -q "mmap: EACCES"'
expect 1 "cli: attach wx twice exits 1" krsi attach wx
check "cli: and names the policy and the errno" says "attach wx: already attached: EEXIST"

expect 0 "cli: replace wx" krsi replace wx
check "cli: replaced in place, not doubled" \
	test "$(cat /sys/kernel/security/bpf/mmap_file)" = wx_mmap
check "cli: wx still denies after replace" sh -c 'krsi-wx rwx | grep -q "mmap: EACCES"'
expect 0 "cli: list after replace" krsi list
check "cli: replace put a new program in the same link (BPF_LINK_UPDATE)" \
	says "^mmap_file: wx_mmap (wx, prog [0-9]*, link $wx_link)$"
check_fails "cli: and the program is not the old one" says "prog $wx_prog,"

expect 0 "cli: detach wx" krsi detach wx
check "cli: nothing on mmap_file after detach" \
	test -z "$(cat /sys/kernel/security/bpf/mmap_file)"
check "cli: the pins are gone" test ! -e /sys/fs/bpf/krsi/wx
check "cli: rwx allowed again" sh -c 'krsi-wx rwx | grep -q ok'
expect 1 "cli: detach wx twice exits 1" krsi detach wx
check "cli: and says it is not attached" says "detach wx: not attached: ENOENT"

expect 1 "cli: lock without krsi_lock exits 1" krsi lock
check "cli: and says why" says "krsi_lock is not attached: ENOENT"
expect 0 "cli: events reads the audit log, which the reader writes from boot on" krsi events
check "cli: and shows the reader's start" says "reader: start: krsi logd: log /var/log/krsi, stream"
# Records it could not write are not "printed": a full file system fails.
check_fails "cli: events fails when its records cannot be written" \
	sh -c 'krsi events >/dev/full 2>/dev/null'
check "cli: and says so" \
	sh -c 'krsi events 2>&1 >/dev/full | grep -q "events: write the records: ENOSPC"'

expect 1 "cli: attach as the demo user exits 1" su demo -c "krsi attach wx"
check "cli: and names the errno" says "attach wx: .*EPERM"

# events: a denial, live, with the policy's name.
expect 0 "cli: attach protect_init" krsi attach protect_init
krsi events -n 1 -t 3 >/tmp/krsi_cli.events 2>&1 &
reader=$!
sleep 1
kill -USR1 1 2>/dev/null
wait $reader
check "cli: events shows the denial with its policy" \
	grep -q "protect_init denied EPERM: task_kill signal to PID 1" /tmp/krsi_cli.events
expect 0 "cli: detach protect_init" krsi detach protect_init

# Audit mode: the dry run of a policy.  renice -n 0 -p 1 changes nothing,
# and protect_init denies it (task_setnice on PID 1) unless in audit mode.
expect 0 "cli: attach --audit protect_init" krsi attach --audit protect_init
check "cli: status shows it attached in audit mode" \
	sh -c 'krsi status | grep -q "^  protect_init *attached *audit "'
check "cli: status --json says so" \
	sh -c 'krsi status --json | grep -q "{\"name\":\"protect_init\",\"state\":\"attached\",\"mode\":\"audit\",\"links\":\[{\"program\":"'
check "cli: a policy in audit mode denies nothing" renice -n 0 -p 1
# The reader writes the record after the call has returned, and other
# records may follow it: the policy's records, until it is there (20 s).
for i in $(seq 20); do
	krsi events --policy protect_init >/tmp/krsi_cli.events 2>&1
	grep -q "protect_init would deny EPERM: task_setnice" /tmp/krsi_cli.events && break
	sleep 1
done
check "cli: and reports what it would have denied" \
	grep -q "protect_init would deny EPERM: task_setnice" /tmp/krsi_cli.events
# The switch under load: every call made after enforce returns is denied,
# none allowed once one was denied, and the policy never left the hooks.
rm -f /tmp/krsi_cli.stop
while [ ! -e /tmp/krsi_cli.stop ]; do
	if renice -n 0 -p 1 >/dev/null 2>&1; then echo a; else echo d; fi
done >/tmp/krsi_cli.modes &
loop=$!
sleep 1
expect 0 "cli: krsi enforce protect_init" krsi enforce protect_init
check "cli: denied once enforce has returned" sh -c '! renice -n 0 -p 1 2>/dev/null'
sleep 1
touch /tmp/krsi_cli.stop
wait $loop
check "cli: the switch under load: allowed, then denied, never back" \
	sh -c 'tr -d "\n" </tmp/krsi_cli.modes | grep -qx "a\{1,\}d\{1,\}"'
check "cli: status shows it enforcing" \
	sh -c 'krsi status | grep -q "^  protect_init *attached *enforce "'
expect 0 "cli: krsi audit protect_init switches back" krsi audit protect_init
check "cli: allowed again" renice -n 0 -p 1
expect 0 "cli: replace keeps the mode" krsi replace protect_init
check "cli: still in audit mode after replace" \
	sh -c 'krsi status | grep -q "^  protect_init *attached *audit "'
expect 0 "cli: detach protect_init in audit mode" krsi detach protect_init
expect 1 "cli: enforce of a policy not attached exits 1" krsi enforce protect_init
check "cli: and says it is not attached" says "enforce protect_init: not attached: ENOENT"
expect 2 "cli: enforce of no such policy is a usage error" krsi enforce no_such_policy

# krsi hooks / hook / stats: what a hook is and how hot it is.
expect 0 "cli: hooks" krsi hooks
check "cli: hooks lists file_open, its default and its programs" \
	says "^file_open  *default 0  *0 programs$"
check "cli: hooks gives task_prctl's default from lsm_hook_defs.h" \
	says "^task_prctl  *default -ENOSYS "
expect 0 "cli: hook task_prctl" krsi hook task_prctl
check "cli: hook prints the prototype from the kernel's BTF" \
	says "^int task_prctl(int option, long unsigned int arg2, "
check "cli: hook prints the default" says "^default:  -ENOSYS$"
expect 2 "cli: hook of no such hook exits 2" krsi hook no_such_hook
check "cli: and says so" says "no LSM hook 'no_such_hook'"
expect 0 "cli: stats on" krsi stats on
check "cli: the kernel keeps run-time statistics" grep -qx 1 /proc/sys/kernel/bpf_stats_enabled
expect 0 "cli: attach wx to count its runs" krsi attach wx
for i in 1 2 3; do krsi-wx rw >/dev/null 2>&1; done
expect 0 "cli: hook mmap_file" krsi hook mmap_file
check "cli: hook shows wx's program, its policy and its runs" \
	says "^  wx_mmap  *wx  *prog [0-9]*, link [0-9]*  *runs: [1-9][0-9]*, [0-9]* ns each on average$"
expect 0 "cli: detach wx" krsi detach wx
expect 0 "cli: stats off" krsi stats off
check "cli: statistics off again" grep -qx 0 /proc/sys/kernel/bpf_stats_enabled
expect 2 "cli: stats takes on or off" krsi stats maybe

# README's "Write your first policy": progs/no_setuid.bpf.c, a file dropped
# into progs/ with no other edit, is built in, listed and attached.
check "cli: the tutorial's policy is listed" sh -c 'krsi policies | grep -q "^no_setuid  *no file is made set-user-ID"'
expect 0 "cli: attach no_setuid" krsi attach no_setuid
touch /tmp/krsi_cli.suid
check_fails "no_setuid: chmod u+s denied" chmod u+s /tmp/krsi_cli.suid
check "no_setuid: chmod 755 allowed" chmod 755 /tmp/krsi_cli.suid
check_fails "no_setuid: mknod with the set-user-ID bit denied" mknod -m 4755 /tmp/krsi_cli.fifo p
check "no_setuid: the file is not set-user-ID" sh -c '[ ! -u /tmp/krsi_cli.suid ]'
krsi events -t 1 --policy no_setuid >/tmp/krsi_cli.events 2>&1
check "no_setuid: krsi events shows the denial" \
	grep -q "no_setuid denied EPERM: path_chmod set-user-ID bit" /tmp/krsi_cli.events
expect 0 "cli: detach no_setuid" krsi detach no_setuid
check "no_setuid: chmod u+s allowed once detached" chmod u+s /tmp/krsi_cli.suid
rm -f /tmp/krsi_cli.suid /tmp/krsi_cli.fifo

# Every policy loads, attaches and detaches on this kernel, several at once.
all="no_module_load protect_init no_tmp_exec wx protect_secret protect_log audit_exec krsi_lock"
expect 0 "cli: attach every policy at once" krsi attach $all
check "cli: status shows all attached" \
	sh -c "[ \$(krsi status | grep -c ' attached ') -eq 8 ]"
expect 0 "cli: detach every policy at once" krsi detach $all
expect 0 "cli: list after detaching all" krsi list
check "cli: nothing left attached" says "no program attached"

check_exit
