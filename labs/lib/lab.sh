# What every lab's checker shares (labs/N-SLUG/check.sh, run as root in
# the lab's boot, make lab N): the routes it knows, each tried first
# without the policy, where it must work (so that a refusal later is the
# policy's, not the kernel's), then with the policy attached, where it
# must be refused; one "ok"/"not ok" line per route, and a last line for
# the learner: which routes got through.
. /tests/check.sh

lab=${0##*/lab-}
nr_routes=0
through=

# as_demo COMMAND: COMMAND run by the demo user, its output dropped.
as_demo() { su demo -c "$1" >/dev/null 2>&1; }

# route NAME COMMAND: a route to what the policy protects, as a shell
# command line the demo user runs.
route() {
	nr_routes=$((nr_routes + 1))
	eval "route_name_$nr_routes=\$1 route_cmd_$nr_routes=\$2"
}

# try_routes WANT [WHEN]: every route, each of which must work (WANT 0;
# WHEN says when, "without the policy" by default) or be refused (WANT
# refused).
try_routes() {
	when=${2:-without the policy}
	i=1
	while [ "$i" -le "$nr_routes" ]; do
		eval "name=\$route_name_$i cmd=\$route_cmd_$i"
		as_demo "$cmd"
		status=$?
		if [ "$1" = 0 ]; then
			check "lab $lab: $when, $name works" [ "$status" -eq 0 ]
		elif [ "$status" -ne 0 ]; then
			echo "ok lab $lab: $name: refused (exit $status)"
		else
			echo "not ok lab $lab: $name: GOT THROUGH"
			check_failed=1
			through="$through; $name"
		fi
		i=$((i + 1))
	done
}

# attach POLICY [--audit]: attach it for the second round, or fail the lab.
attach() {
	if out=$(krsi attach $2 "$1" 2>&1); then
		echo "ok lab $lab: $1 attaches"
	else
		echo "not ok lab $lab: $1 does not attach: $(echo "$out" | tail -n 1)"
		check_failed=1
		verdict
	fi
}

# reported POLICY N: the policy reported at least N denials.
reported() {
	sleep 1		# the reader logs within a round
	n=$(krsi events --policy "$1" 2>/dev/null | grep -c " $1 denied ")
	check "lab $lab: $1 reported $n denials (krsi events --policy $1), at least $2" \
		[ "$n" -ge "$2" ]
}

# The learner's line, and the exit status.
verdict() {
	if [ "$check_failed" = 0 ]; then
		echo "# lab $lab: PASSED: every one of the $nr_routes routes refused"
	elif [ -n "$through" ]; then
		echo "# lab $lab: NOT YET: got through: ${through#; }"
	else
		echo "# lab $lab: NOT YET: see the \"not ok\" lines above"
	fi
	check_exit
}
