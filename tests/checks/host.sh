#!/bin/sh
# arches: x86_64
# The host unit tests of tools/lib (tests/host/, built with ASan and
# UBSan): each one's lines, and a "not ok" for one that exits non-zero.
#
# usage: host.sh (tests/run-tests.sh sets DIR, the test build directory)
set -u
found=
for t in "$DIR"/host/test_*; do
	[ -x "$t" ] || continue
	found=1
	"$t" >"$t.out" 2>&1
	status=$?
	cat "$t.out"
	[ "$status" -eq 0 ] || echo "not ok host $(basename "$t"): exit status $status"
done
[ -n "$found" ] || echo "not ok host: no unit test in $DIR/host"
