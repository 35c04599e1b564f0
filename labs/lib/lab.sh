# What every lab's checker shares (labs/N-SLUG/check.sh, run as root in
# the lab's boot, make lab N): the routes it knows, in the tests' route
# language (tests/lib/routes.sh), each tried first without the policy,
# where it must work (so that a refusal later is the policy's, not the
# kernel's), then with the policy attached, where it must be refused; one
# "ok"/"not ok" line per route, and a last line for the learner: which
# routes got through.
. /tests/check.sh

lab=${0##*/lab-}
routes_of="lab $lab"
# The route language (tests/lib/routes.sh): route, try_routes, attach,
# reported, as_demo.  A policy that does not attach ends the lab with its
# verdict.
. /tests/routes.sh
routes_stop() { verdict; }

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
