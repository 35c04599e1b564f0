#!/bin/sh
# arches: x86_64
# Every bad argument to every krsi command gets a message: the krsi tool
# of the image, run on the host, exits 2 (EXIT_USAGE) and says on stderr,
# in a line of its own that names the command, what is wrong, before it
# touches anything of the system (the commands read their arguments
# first, so none of these needs a guest).
#
# usage: cli-args.sh (tests/run-tests.sh sets BUILD)
set -u
krsi=$BUILD/bin/krsi
[ -x "$krsi" ] || { echo "not ok cli-args: $krsi not built"; exit 0; }

# bad WORDS...: the command line, which must be refused with a message.
bad() {
	err=$("$krsi" "$@" 2>&1 >/dev/null)
	status=$?
	if [ "$status" -eq 2 ] && echo "$err" | grep -q '^krsi: '; then
		echo "ok cli-args: krsi $*: $(echo "$err" | grep -m 1 '^krsi: ')"
	else
		echo "not ok cli-args: krsi $*: exit $status, said '$err'"
	fi
}
bad nosuchcommand
bad list extra
bad attach
bad attach --audit
bad attach no_such_policy
bad detach
bad detach protect_init no_such_policy
bad enforce no_such_policy
bad audit
bad replace
bad replace protect_init wx
bad replace no_such_policy
bad events extra
bad events --bogus
bad events -n
bad events -n 0
bad events -n 1.5
bad events -n 1e16
bad events -n x
bad events -t 0
bad events -t 1e9
bad events --since -1
bad events --since 1e11
bad events --uid x
bad events --uid -1
bad events --uid 4294967296
bad events --seq x
bad events --policy no_such_policy
bad events --one-boot
bad events --verify FILE --ran 10
bad events --verify FILE --one-boot --ran x
bad events --verify FILE --one-boot --ran -1
bad events --verify FILE --silent 30
bad events --verify
bad events --verify FILE -n 3
bad why extra
bad logd extra
bad status --yaml
bad status --json extra
bad lock extra
bad hooks extra
bad hook
bad hook no_such_hook
bad hook file_open extra
bad hook ../file_open
bad stats
bad stats maybe
bad policies extra
bad doctor --bogus
bad doctor no_such_policy
bad doctor protect_init wx
bad trace --bogus
bad trace --hook
bad trace -o
bad trace -p
bad trace -p 0
bad trace -p 12x
bad trace -p 1 -- true
bad trace --
