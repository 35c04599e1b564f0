# Shell side of the in-guest test library (see tests/lib/check.h for the C
# side): one "ok NAME" or "not ok NAME: why" line per check, and a non-zero
# exit status from check_exit when any check failed.
check_failed=0

# check NAME COMMAND...: passes when COMMAND exits 0.  Like the C side's
# check(), its status says whether it passed, for what to show on failure.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		echo "ok $name"
	else
		echo "not ok $name: '$*' failed: $(echo "$out" | tail -n 1)"
		check_failed=1
		return 1
	fi
}

# check_fails NAME COMMAND...: passes when COMMAND exits non-zero.
check_fails() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		echo "not ok $name: '$*' succeeded: $(echo "$out" | tail -n 1)"
		check_failed=1
		return 1
	else
		echo "ok $name"
	fi
}

# expect STATUS NAME COMMAND...: passes when COMMAND exits with STATUS;
# its output (stdout and stderr) is kept in $expect_out, for says.
expect_out=/tmp/expect.out
expect() {
	want=$1 name=$2
	shift 2
	"$@" >"$expect_out" 2>&1
	status=$?
	if [ "$status" -eq "$want" ]; then
		echo "ok $name"
	else
		echo "not ok $name: '$*' exited $status, not $want: $(head -n 1 "$expect_out")"
		check_failed=1
	fi
}

# says PATTERN: the output of the last expect has a line PATTERN matches.
says() { grep -q -e "$1" "$expect_out"; }

check_exit() {
	exit "$check_failed"
}
