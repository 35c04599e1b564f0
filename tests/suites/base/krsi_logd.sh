#!/bin/sh
# The audit reader (krsi logd) on the appliance's kernel, booted with no
# policy attached, so that nothing guards the reader and it can be killed:
# it runs from boot; a second one is refused; a policy attached later is
# read; killed, krsi status and krsi events say so, and what is reported
# meanwhile waits in the buffers for the next reader.  audit_exec fails
# closed: with nobody reading, a user's execs are refused (EAGAIN) once
# its buffer is short of room, root's later, every refusal counted per
# user, logged and explained to the user.  1,050 records waiting with
# nobody reading, all logged once the reader is back.  And 100,000
# records: none lost, and krsi events -n 1 over them prints one and takes
# nothing.
. /tests/check.sh

as_demo() { su demo -c "$*"; }
reader_pid() { sed -n 's/^pid \([0-9]*\) .*/\1/p' /var/log/krsi/reader; }
last_seq() { krsi events --json -n 1 | sed -n 's/^{"seq":\([0-9]*\),.*/\1/p'; }

check "logd: the reader runs from boot, unguarded here" \
	sh -c 'krsi status | grep -q "^reader: *running (pid [0-9]*), not known to protect_init, not known to protect_log, not known to krsi_lock$"'
check_fails "logd: a second reader is refused" krsi logd
check "logd: and says why" sh -c 'krsi logd 2>&1 | grep -q "the reader runs already (pid [0-9]*)"'

# A policy attached after the reader started is read.
krsi attach protect_secret >/dev/null
as_demo "cat /etc/krsi/secret" 2>/dev/null
sleep 0.5
check "logd: a policy attached later is read" \
	sh -c 'krsi events -n 5 | grep -q "uid 1000 cat: protect_secret denied EACCES: file_open /etc/krsi/secret$"'

# Killed: nobody is told everything is fine.
pid=$(reader_pid)
last=$(last_seq)
kill -KILL "$pid"
sleep 0.5
check_fails "logd: killed, krsi status exits 1" krsi status
check "logd: and says the reader is not running" \
	sh -c "krsi status | grep -q '^reader: *NOT RUNNING: it ended without stopping (pid $pid): nothing is logged$'"
check "logd: krsi status --json says so" \
	sh -c "krsi status --json | grep -q '\"reader\":{\"state\":\"dead\",\"pid\":$pid}'"
check "logd: krsi events says so" \
	sh -c 'krsi events -n 1 2>&1 | grep -q "the audit reader is NOT RUNNING: it ended without stopping: nothing is logged any more"'
as_demo "cat /etc/krsi/secret; echo while-dead" >/dev/null 2>&1
# Started with protect_log attached and not protect_init: the reader
# marks itself for the one, and krsi status names which guards it.
krsi attach protect_log >/dev/null
check "logd: started again" krsi logd
sleep 0.5
check "logd: krsi status names protect_log alone as guarding it" \
	sh -c 'krsi status | grep -q "^reader: *running (pid [0-9]*), guarded by protect_log, not known to protect_init, not known to krsi_lock$"'
check "logd: detach protect_log" krsi detach protect_log
krsi events --seq $((last + 1)) >/tmp/krsi_logd.events 2>&1
check "logd: the numbers go on where they were" \
	sh -c "krsi events --json --seq $((last + 1)) --policy reader | grep -q '\"event\":\"start\"'"
check "logd: what was denied meanwhile waited in its buffer, and is logged" \
	grep -q "uid 1000 cat: protect_secret denied EACCES: file_open /etc/krsi/secret$" \
	/tmp/krsi_logd.events
krsi detach protect_secret >/dev/null

# Fail-closed: audit_exec with nobody reading.  Records of some 4 KB
# (a long argument) fill its 4 MB buffer in about 850 execs.
krsi attach audit_exec >/dev/null
sleep 0.5
last=$(last_seq)
kill -KILL "$(reader_pid)"
sleep 0.5
as_demo 'arg=$(head -c 3900 /dev/zero | tr "\0" a)
	 i=0
	 while [ $i -lt 2000 ] && /bin/true fill-$i $arg; do i=$((i + 1)); done
	 echo "ran $i"
	 /bin/true refused-now 2>&1' >/tmp/krsi_logd.fill 2>&1
ran=$(sed -n 's/^ran \([0-9]*\)$/\1/p' /tmp/krsi_logd.fill)
check "fail-closed: demo's execs are refused once the buffer is short of room (after $ran)" \
	sh -c "[ ${ran:-2000} -gt 500 ] && [ ${ran:-2000} -lt 2000 ]"
check "fail-closed: with EAGAIN" grep -q "Resource temporarily unavailable" /tmp/krsi_logd.fill
check "fail-closed: root's still run, from the room kept for root" /bin/true root-still-runs
check "logd: started again, it drains the buffer" krsi logd
sleep 1
krsi events --json --seq $((last + 1)) >/tmp/krsi_logd.json 2>&1
check "fail-closed: every exec that ran is recorded" \
	sh -c "[ \$(grep -c '\"args\":\[\"/bin/true\",\"fill-[0-9]*\",\"aaa' /tmp/krsi_logd.json) -eq $ran ]"
check "fail-closed: root's too" grep -q '"args":\["/bin/true","root-still-runs"\]' /tmp/krsi_logd.json
check "fail-closed: the refusals are counted, per user" \
	grep -q '"uid":1000,"comm":"","policy":"audit_exec","event":"refused","count":[1-9]' /tmp/krsi_logd.json
check "fail-closed: and reported as audit_exec's denials" \
	grep -q '"uid":1000,.*"policy":"audit_exec","event":"deny","verdict":"EAGAIN","hook":"bprm_check_security","what":"no room for its record: the reader is behind","load":"[0-9a-f]*","version":1,"prog_id":[0-9]*,"link_id":[0-9]*}' \
	/tmp/krsi_logd.json
check "fail-closed: the demo user learns why" \
	sh -c 'su demo -c "krsi why" | grep -q "^audit_exec: each exec is recorded as it ran, or refused"'
check "fail-closed: once the reader has read, the demo user's execs run" \
	as_demo /bin/true after-the-reader
# 1,050 records waiting in a buffer with nobody reading (krsi events -n 1
# used to write past a 1024-entry array over as many, in a root process):
# the demo user's execs, the reader killed.  krsi events -n 1 meanwhile
# prints one record and takes nothing; the reader, started again, logs
# every one of them, in order, and -n 1 over them takes nothing either.
last=$(last_seq)
kill -KILL "$(reader_pid)"
sleep 0.5
as_demo 'i=0
	 while [ $i -lt 1050 ]; do /bin/true waiting-$i || echo refused $i; i=$((i + 1)); done' \
	>/tmp/krsi_logd.wait 2>&1
krsi events -n 1 >/tmp/krsi_logd.n1 2>/dev/null
check "1,050 waiting: none refused" [ ! -s /tmp/krsi_logd.wait ]
check "1,050 waiting: krsi events -n 1 prints one record" \
	sh -c '[ "$(wc -l </tmp/krsi_logd.n1)" = 1 ] && grep -q "^ *[0-9]*\.[0-9]* pid " /tmp/krsi_logd.n1'
check "1,050 waiting: the reader starts again" krsi logd
sleep 1
krsi events -n 1 >/dev/null 2>&1
krsi events --json --seq $((last + 1)) --policy audit_exec >/tmp/krsi_logd.waited 2>&1
sed -n 's/.*"args":\["\/bin\/true","waiting-\([0-9]*\)"\].*/\1/p' /tmp/krsi_logd.waited \
	>/tmp/krsi_logd.nums
check "1,050 waiting: every one logged, once, in order ($(wc -l </tmp/krsi_logd.nums))" \
	sh -c '[ "$(wc -l </tmp/krsi_logd.nums)" = 1050 ] &&
	       [ "$(seq 0 1049 | cmp -s - /tmp/krsi_logd.nums && echo same)" = same ]'
check "1,050 waiting: krsi events -n 1 took nothing away" \
	sh -c "[ \$(krsi events --json --seq $((last + 1)) --policy audit_exec --uid 1000 | wc -l) -eq \$(grep -c '\"uid\":1000,' /tmp/krsi_logd.waited) ]"
krsi detach audit_exec >/dev/null
check "logd: the reader runs" sh -c 'krsi status | grep -q "^reader: *running"'

# 100,000 records (20,000 on the debug kernel), which used to be waiting
# records krsi events -n 1 crashed on (a 1024-entry array): every policy
# the demo user can reach, denying as fast as it can.  None lost, -n 1
# prints one, and every record is still there after it.
records=100000
grep -q panic_on_warn=1 /proc/cmdline && records=20000
all="no_module_load protect_init no_tmp_exec wx protect_secret"
krsi attach $all >/dev/null
sleep 0.5
first=$(( $(last_seq) + 1 ))
t0=$(cut -d' ' -f1 /proc/uptime)
su demo -c "/tests/flood_denials $records" >/dev/null
t1=$(cut -d' ' -f1 /proc/uptime)
sleep 1
# Counted as they are read: 100,000 records do not fit in /tmp (32 MB).
count_records() {
	krsi events --json --seq "$first" --uid 1000 2>/dev/null |
		awk '/"event":"deny"/ { d++ } /"event":"lost"/ { l++ }
		     END { print NR, d + 0, l + 0 }'
}
counts=$(count_records)
set -- $counts
check "logd: $records denials in $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s, every one in the log ($2)" \
	[ "$2" -eq "$records" ]
check "logd: none lost" [ "$3" -eq 0 ]
krsi events -n 1 >/tmp/krsi_logd.last 2>&1
check "krsi events -n 1 over them: exactly one" sh -c '[ "$(wc -l </tmp/krsi_logd.last)" = 1 ]'
check "krsi events -n 1 took nothing away ($1 records)" [ "$(count_records)" = "$counts" ]
krsi detach $all >/dev/null
rm -f /tmp/krsi_logd.*
check_exit
