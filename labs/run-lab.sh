#!/bin/sh
# make lab N: boot the lab's image (labs/labs.mk) in test mode, where the
# checker runs as the suite "lab", and show what it found: every route's
# line, and whether the lab passes.  The console goes to DIR.console.log.
#
# It boots KERNEL, the appliance's kernel without its boot policies: the
# checker tries each route without the lab's policy first, and the lab's
# programs may share names with the boot policies'.
#
# usage: run-lab.sh ARCH IMAGE DIR KERNEL
set -u
arch=$1 image=$2 dir=$3 kernel=$4
mkdir -p "$dir"
echo "Booting the appliance with the lab's policy and its checker (console: $dir.console.log)..."
./run-qemu.sh --arch "$arch" --mode test --kernel "$kernel" --initrd "$image" \
	--append krsi.tests=lab \
	--results "$dir.results.txt" --timeout 600 </dev/null >"$dir.console.log" 2>&1
status=$?
tr -d '\r' <"$dir.results.txt" >"$dir.results"
grep -e '^ok ' -e '^not ok ' "$dir.results"
if [ "$status" -ne 0 ] || ! grep -qx done "$dir.results"; then
	echo "The boot did not finish (qemu exit status $status): see $dir.console.log" >&2
	exit 1
fi
# The learner's verdict: every route refused, or which got through.
through=$(sed -n 's/^not ok lab [^:]*: \(.*\): GOT THROUGH$/\1/p' "$dir.results")
refused=$(grep -c '^ok lab [^:]*: .*: refused' "$dir.results")
if grep -q '^exit lab-[^ ]* 0$' "$dir.results" && ! grep -q '^not ok ' "$dir.results"; then
	echo "PASSED: all $refused routes refused, and reported"
elif [ -n "$through" ]; then
	echo "NOT YET: $(echo "$through" | wc -l) routes got through:"
	echo "$through" | sed 's/^/  - /'
	exit 1
else
	echo "NOT YET: see the \"not ok\" lines above"
	exit 1
fi
