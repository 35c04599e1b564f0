#!/bin/sh
# make test: the host checks (tests/checks/), the boots of tests/suites.tab
# and the sessions (tests/sessions/), kernel by kernel; every
# "ok"/"not ok" line, then "N passed, N failed".  Exits non-zero on any
# failure; a missing result, an unfinished guest and a kernel report on a
# console are failures (tests/lib/boot.sh).
#
# The boots go by kernel, in the order the table first names each
# (architecture, kernel); a kernel's sessions follow its suites.  It
# builds what the first kernel's boots need (make test-build-KERNEL),
# then, while they run, the next kernels behind them at the lowest
# priority (the guests keep their speed), each logged to its test
# directory's build-KERNEL.log.
#
# It ends with where the time went: each check, boot, session and build
# behind, in seconds (also in build/test/times.txt).  BUILD in the
# environment: the build directory, as make's BUILD.
#
# usage: run-tests.sh [--arch ARCH]	(make test; make ARCH=arm64 test)
set -u
. tests/lib/boot.sh
. tests/lib/harness.sh

export TIMEOUT=${KRSI_TEST_TIMEOUT:-1200}
only=
[ "${1:-}" = --arch ] && only=${2:?"usage: run-tests.sh [--arch ARCH]"}
passed=0 failed=0
top=${BUILD:-build}
times=$top/test/times.txt
mkdir -p "$top/test" && : >"$times"
run_start=$(date +%s)

groups | while read -r arch kernel; do
	where "$arch"
	rm -f "$DIR/built.$kernel" "$DIR/failed.$kernel"
done
# The first group's build, then the others behind its boots.
set -- $(groups | head -n 1)
echo "--- building for the $1 $2 kernel's boots"
if ! build "$1" "$2"; then
	tail -n 20 "$DIR/build-$2.log"
	echo "not ok $1 $2 kernel: its build failed (see $DIR/build-$2.log)"
	echo "0 passed, 1 failed"
	exit 1
fi
build_behind &
builder=$!
checked= waits= ran=
groups >"${TMPDIR:-/tmp}/krsi-groups.$$"
while read -r arch kernel; do
	where "$arch"
	if [ -n "$waits" ] && ! ready "$kernel"; then
		failed=$((failed + 1))
		echo "not ok $arch $kernel kernel: its build failed (see $DIR/build-$kernel.log)"
		continue
	fi
	waits=1
	host_checks
	boots
	sessions
done <"${TMPDIR:-/tmp}/krsi-groups.$$"
rm -f "${TMPDIR:-/tmp}/krsi-groups.$$"
wait "$builder"
not_run

echo "--- where the time went (s; the builds behind ran beside the boots)"
cat "$times"
# A whole run's figures are what the documents show (figures.sh): the
# table in docs/measurements.md, how long the build and the run took on
# README's first screen.
if [ -z "$only" ]; then
	total=$(($(date +%s) - run_start))
	{ cat "$times"; echo "$total s in all; $passed passed, $failed failed"; } |
		tools/build/figures.sh docs/measurements.md make-test-times "make test" ||
		failed=$((failed + 1))
	{
		awk '$2 == "build:" && $3 == "x86_64" && $4 == "appliance" {
			print "make, the x86_64 appliance (with what ccache had): " $1 " s" }' "$times"
		echo "make test, every architecture: $total s ($((total / 60)) min)," \
			"$passed passed, $failed failed"
	} | tools/build/figures.sh README.md make-test-summary "make test" ||
		failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
