#!/bin/sh
# `make selftests`, in the guest: every test of the kernel's test_progs and
# test_verifier (built from the patched tree, tools/build/selftests.sh),
# in /tests/selftests/, with what they expect of a distribution's system
# set up first.  One "ok"/"not ok" line per test, subtest and verifier
# case, named "test_progs NAME" or "test_verifier NAME", for the host to
# compare between the patched and the unpatched kernel; skipped ones are
# "ok ... # SKIP".
cd /tests/selftests || exit 1

mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# The image's rm is busybox, which test_local_storage cannot copy and run
# under another name (tests/selftests/rm.c).
mount --bind /tests/selftests/rm /bin/rm
ip link set lo up
ulimit -l unlimited

# "#12/3    krsi_uapi/fd_zero:OK" -> "ok test_progs krsi_uapi/fd_zero"
progs_results() {
	sed -n 's/^#[0-9/]* *\([^ :]*\):\(OK\|FAIL\|SKIP\).*/\2 \1/p' "$1" |
	while read -r result name; do
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

timeout 3600 ./test_progs >/tmp/test_progs.out 2>&1
echo "test_progs exit status $?"
tail -n 5 /tmp/test_progs.out
progs_results /tmp/test_progs.out
timeout 1200 ./test_verifier -v >/tmp/test_verifier.out 2>&1
echo "test_verifier exit status $?"
tail -n 3 /tmp/test_verifier.out
verifier_results /tmp/test_verifier.out
exit 0
