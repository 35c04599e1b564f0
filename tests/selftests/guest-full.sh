#!/bin/sh
# `make selftests`, in the guest: every test of the kernel's test_verifier
# and test_progs (built from the patched tree, tests/selftests/full.sh),
# in /tests/selftests/, with what they expect of a distribution's system
# set up first.  The image has it as /tests/run-suite.sh, in place of
# the appliance suites' runner, whose 300 s per test is for those suites.
#
# One "ok"/"not ok" line per test, subtest and verifier case, named
# "test_progs NAME" or "test_verifier NAME", goes to the results port as
# soon as its test ends, so that a run cut short keeps what it did; the
# host compares them between the patched and the unpatched kernel.
# Skipped ones are "ok ... # SKIP"; "done" ends a finished run.
. /tests/test_progs.sh
results=/dev/ttyS1
[ -c "$results" ] || results=/dev/console
exec 3>"$results"
cd /tests/selftests || exit 1

mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# The root file system writable, as a distribution's is (the tests write
# beside themselves), and an rm that is not busybox: test_local_storage
# copies /bin/rm and runs the copy under another name
# (tests/selftests/rm.c).  /bin/rm is a symbolic link to busybox, which
# a bind mount or the initramfs would follow and overwrite.
mount -o remount,rw /
busybox rm /bin/rm && busybox cp /tests/selftests/rm /bin/rm
ip link set lo up
ulimit -l unlimited

# "ok test_progs NAME" for each test and subtest (tests/lib/test_progs.sh).
progs_results() {
	test_progs_results "$1" | while read -r result name; do
		case $result in
		OK) echo "ok test_progs $name" ;;
		SKIP) echo "ok test_progs $name # SKIP" ;;
		*) echo "not ok test_progs $name" ;;
		esac
	done
}

# "#512/p some case OK" -> "ok test_verifier #512/p some case"
verifier_results() {
	sed -n 's/^\(#[0-9]*\/[a-z]* .*\) \(OK\|FAIL\|SKIP\)$/\2 \1/p' "$1" |
	while read -r result name; do
		case $result in
		OK) echo "ok test_verifier $name" ;;
		SKIP) echo "ok test_verifier $name # SKIP" ;;
		*) echo "not ok test_verifier $name" ;;
		esac
	done
}

# test_progs one test at a time, each within its own time: 6.1's
# test_progs has no watchdog, and a test that hangs would stop the rest.
# The N-th name of its list is test number N.  The tests of LSM programs
# come first (the series' own, krsi_*, and the BPF LSM's), then
# test_verifier, then every other test in order.
lsm_tests=' (krsi_.*|test_lsm|lsm_cgroup|test_local_storage|task_local_storage|test_bprm_opts|deny_namespace)$'
progs() {
	while read -r n name; do
		timeout 600 ./test_progs -n "$n" </dev/null >/tmp/test_progs.out 2>&1
		status=$?
		cat /tmp/test_progs.out
		progs_results /tmp/test_progs.out >&3
		[ "$status" -eq 124 ] &&
			echo "not ok test_progs $name # timed out after 600 s" >&3
	done
}

echo begin >&3
./test_progs -l 2>/dev/null | awk '{ print NR, $0 }' >/tmp/test_progs.names
[ -s /tmp/test_progs.names ] || echo "not ok test_progs cannot list its tests" >&3

# krsi.selftests=NAME,NAME... krsi.selftests_runs=N (make selftests
# SELFTESTS=... RUNS=N): only those tests of test_progs, N times over, to
# tell a test that fails on one kernel from one that fails now and then.
only= runs=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	krsi.selftests=*) only=${arg#krsi.selftests=} ;;
	krsi.selftests_runs=*) runs=${arg#krsi.selftests_runs=} ;;
	esac
done
if [ -n "$only" ]; then
	names=" ($(echo "$only" | tr ',' '|'))$"
	while [ "$runs" -gt 0 ]; do
		grep -E "$names" /tmp/test_progs.names | progs
		runs=$((runs - 1))
	done
	echo done >&3
	exit 0
fi
grep -E "$lsm_tests" /tmp/test_progs.names | progs

# Without -v: the verbose mode prints every program's verifier log.
timeout 1800 ./test_verifier </dev/null >/tmp/test_verifier.out 2>&1
echo "test_verifier exit status $?"
grep -v ' OK$' /tmp/test_verifier.out
verifier_results /tmp/test_verifier.out >&3
rm -f /tmp/test_verifier.out

grep -v -E "$lsm_tests" /tmp/test_progs.names | progs
echo done >&3
