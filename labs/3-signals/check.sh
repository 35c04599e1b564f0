#!/bin/sh
# Lab 3's checker (README.md): no signal reaches the lab's service.  The
# demo user starts the service (/tests/lab_service, in a process group of
# its own) and signals it by every route the checker knows; a route got
# through when the service is gone after it.
. /tests/lab.sh

# service ATTEMPT: exit 0 when ATTEMPT ($pid is the service) ended it.
service() {
	echo "setsid /tests/lab_service & pid=\$!; sleep 0.2; $1; sleep 0.3; ! kill -0 \$pid"
}
route "kill() of its pid" "$(service 'kill -TERM $pid')"
route "kill() of its process group" "$(service 'kill -TERM -- -$pid')"
route "tgkill()" "$(service '/tests/lab_try tgkill $pid')"
route "pidfd_send_signal()" "$(service '/tests/lab_try pidfd-kill $pid')"
route "SIGIO: a pipe it owns (F_SETOWN, F_SETSIG SIGTERM), written to" \
	"$(service '/tests/lab_try sigio $pid')"

try_routes 0
attach no_signal
try_routes refused
check "lab $lab: the null signal still tells whether it runs" \
	as_demo 'setsid /tests/lab_service & pid=$!; sleep 0.2; kill -0 $pid'
reported no_signal "$nr_routes"
krsi detach no_signal >/dev/null
killall lab_service 2>/dev/null
verdict
