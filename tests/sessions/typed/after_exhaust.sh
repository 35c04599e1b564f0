#!/bin/sh
# Typed at root's prompt by tests/sessions/exhaust.sh, once the demo user's
# shell has ended with its attack still running (exhaust.sh): /init went
# on to root's shell, the attack is held to the session's limits, and the
# policies are attached, locked, denying and recording.  /tmp is full:
# what this writes goes to root's own /root.
. /tests/check.sh

# The demo user's processes, one "PID" line each.
demo_pids() {
	for status in /proc/[0-9]*/status; do
		grep -q '^Uid:[[:space:]]*1000[[:space:]]' "$status" 2>/dev/null &&
			basename "${status%/status}"
	done
}
demo_pids >/root/demo.pids
n=$(wc -l </root/demo.pids)
echo "# the demo user has $n processes"
check "exhaust: the attack still runs (the 20 memory hogs at least)" [ "$n" -ge 20 ]
check "exhaust: within the process limit" [ "$n" -le 32 ]

# demo_all CHECK: CHECK PID holds for every demo process still there.
demo_all() {
	while read -r pid; do
		[ -d "/proc/$pid" ] || continue
		"$1" "$pid" || { [ -d "/proc/$pid" ] && return 1; }
	done </root/demo.pids
}
oom_first() { grep -qx 1000 "/proc/$1/oom_score_adj"; }
nice_19() { [ "$(cut -d' ' -f19 "/proc/$1/stat")" = 19 ]; }
limited() {
	grep -q '^Max processes  *32  *32 ' "/proc/$1/limits" &&
	grep -q '^Max address space  *8388608  *8388608 ' "/proc/$1/limits" &&
	grep -q '^Max open files  *64  *64 ' "/proc/$1/limits"
}
check "exhaust: every demo process is the OOM killer's first choice" demo_all oom_first
check "exhaust: every demo process runs at nice 19" demo_all nice_19
check "exhaust: every demo process has the session's limits" demo_all limited
check "exhaust: root's shell is never the OOM killer's choice" \
	grep -qx -- -1000 /proc/self/oom_score_adj

for dir in /tmp /dev/shm /home/demo; do
	check "exhaust: $dir is still full" sh -c "df -P $dir | awk 'NR == 2 { exit \$4 != 0 }'"
done
avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
echo "# MemAvailable with the attack running: $avail MB"
check "exhaust: at least 64 MB of memory left" [ "$avail" -ge 64 ]
check_fails "exhaust: the OOM killer never had to run" sh -c 'dmesg | grep -q "invoked oom-killer"'

# The policies: every one of boot.conf attached, enforcing, locked.
krsi status >/root/status 2>&1
check "exhaust: krsi status reads everything" [ $? -eq 0 ]
check "exhaust: KRSI enforcing" grep -q "^KRSI: *enforcing" /root/status
check "exhaust: locked until reboot" grep -q "^lock: *locked until reboot" /root/status
for p in $(grep -v -e '^#' -e '^$' /etc/krsi/boot.conf); do
	check "exhaust: $p attached and enforcing" grep -q "^  $p  *attached  *enforce " /root/status
done

# A denied call is still denied, and recorded.
krsi events -t 1 >/dev/null 2>&1
check_fails "exhaust: a signal to PID 1 is denied" kill -USR1 1
chmod +x /tmp/fill
check_fails "exhaust: the demo user's file in /tmp does not run" /tmp/fill
krsi events -t 2 >/root/events 2>&1
check "exhaust: the signal's denial is recorded" \
	grep -q "protect_init denied EPERM: task_kill signal to PID 1" /root/events
check "exhaust: the exec's denial is recorded" \
	grep -q "no_tmp_exec denied EACCES: bprm_check_security fill" /root/events
echo "after_exhaust: done"
check_exit
