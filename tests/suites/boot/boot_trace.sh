#!/bin/sh
# Booted with krsi.tests=boot, locked: krsi trace still shows every hook a
# command reaches, each program that ran with its policy and value, and
# who decided; the demo user may not trace.
. /tests/check.sh

trace_out=/tmp/trace.out

expect 0 "trace: krsi trace -- cat /etc/krsi/secret, as root after the lock" \
	krsi trace -o "$trace_out" -- cat /etc/krsi/secret
check "trace: cat's own output is cat's" says "^The launch code"
check "trace: the exec, with audit_exec's program among no_tmp_exec's and wx's" \
	grep -q "^[0-9]* [a-z]* bprm_check_security /bin/cat = 0 by none; krsi#[0-9]* no_tmp_exec/no_tmp_exec 0, krsi#[0-9]* wx/wx_exec 0, krsi#[0-9]* audit_exec/audit_exec_file 0$" "$trace_out"
check "trace: the open, each file_open program in run order, root allowed" \
	grep -q "^[0-9]* cat file_open /etc/krsi/secret = 0 by none; .*krsi#[0-9]* protect_secret/secret_open 0" "$trace_out"
check "trace: the reads" grep -q "^[0-9]* cat file_permission /etc/krsi/secret = 0 by none$" "$trace_out"

expect 1 "trace: the demo user's cat, through su, refused" \
	krsi trace -o "$trace_out" -- su demo -c 'cat /etc/krsi/secret'
check "trace: su's child is traced, and protect_secret decided" \
	grep -q "^[0-9]* cat file_open /etc/krsi/secret = -13 EACCES by krsi; .*krsi#[0-9]* protect_secret/secret_open -13 EACCES" "$trace_out"

expect 0 "trace: --json" krsi trace --json --hook file_open -o "$trace_out" -- cat /etc/krsi/secret
check "trace: --json gives the open, its program with its policy" \
	grep -q '^{"pid":[0-9]*,"tid":[0-9]*,"comm":"cat","hook":"file_open","object":"/etc/krsi/secret","ret":0,"decided_by":null,"lsms":\["krsi"\],"programs":\[.*{"lsm":"krsi","id":[0-9]*,"name":"secret_open","policy":"protect_secret","ret":0}.*\],"more_programs":0}$' "$trace_out"
check "trace: --hook file_open: no other hook" \
	sh -c "test -s $trace_out && ! grep -qv '\"hook\":\"file_open\"' $trace_out"

sh -c 'sleep 3; cat /etc/krsi/secret >/dev/null' &
expect 0 "trace: -p PID, until it ends" krsi trace --hook file_open -o "$trace_out" -p $!
check "trace: -p traces the process's child" \
	grep -q "^[0-9]* cat file_open /etc/krsi/secret = 0 by none" "$trace_out"

expect 1 "trace: the demo user may not trace" su demo -c 'krsi trace -- true'
check "trace: the demo user is told why" says "tracing needs root (CAP_MAC_ADMIN)"
expect 2 "trace: an unknown hook" krsi trace --hook no_such_hook -- true
check "trace: the unknown hook is named" says "no hook 'no_such_hook' that KRSI can trace"
check_exit
