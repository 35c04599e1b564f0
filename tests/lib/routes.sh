# The route language, sourced after /tests/check.sh.  A route is one way
# the kernel offers to what a policy protects, as a shell command line
# the demo user runs.  A test lists the routes it knows, tries each
# without the policy, where it must work (so that a refusal later is the
# policy's, not the kernel's), then with the policy attached, where each
# must be refused; one "ok"/"not ok" line per route, named
# "$routes_of: ROUTE" (routes_of is the caller's: "lab 1").
#
#   route NAME COMMAND		a route, for try_routes
#   try_routes WANT [WHEN]	each route works (WANT 0; WHEN says when,
#				"without the policy" by default) or is
#				refused (WANT refused); those that got
#				through are in $through
#   attach POLICY [--audit]	attach it for the second round; if it does
#				not attach, routes_stop (the caller's) runs
#   reported POLICY N		the policy reported at least N denials
#   as_demo COMMAND		COMMAND as the demo user, its output dropped
#
# The labs' checkers (labs/lib/lab.sh) are written in it.
routes_of=${routes_of:-routes}
nr_routes=0
through=

as_demo() { su demo -c "$1" >/dev/null 2>&1; }

route() {
	nr_routes=$((nr_routes + 1))
	eval "route_name_$nr_routes=\$1 route_cmd_$nr_routes=\$2"
}

try_routes() {
	when=${2:-without the policy}
	i=1
	while [ "$i" -le "$nr_routes" ]; do
		eval "name=\$route_name_$i cmd=\$route_cmd_$i"
		as_demo "$cmd"
		status=$?
		if [ "$1" = 0 ]; then
			check "$routes_of: $when, $name works" [ "$status" -eq 0 ]
		elif [ "$status" -ne 0 ]; then
			echo "ok $routes_of: $name: refused (exit $status)"
		else
			echo "not ok $routes_of: $name: GOT THROUGH"
			check_failed=1
			through="$through; $name"
		fi
		i=$((i + 1))
	done
}

attach() {
	if out=$(krsi attach $2 "$1" 2>&1); then
		echo "ok $routes_of: $1 attaches"
	else
		echo "not ok $routes_of: $1 does not attach: $(echo "$out" | tail -n 1)"
		check_failed=1
		routes_stop
	fi
}

reported() {
	sleep 1		# the reader logs within a round
	n=$(krsi events --policy "$1" 2>/dev/null | grep -c " $1 denied ")
	check "$routes_of: $1 reported $n denials (krsi events --policy $1), at least $2" \
		[ "$n" -ge "$2" ]
}

# What stops a run whose policy did not attach; a caller may define its own.
routes_stop() { check_exit; }
