#!/bin/sh
# arches: x86_64
# kernel: appliance
# The labs (labs/): each checker, booted with the lab's solution
# (labs/solutions/), must pass, every route it knows refused; booted with
# the lab's policy as given, its TODO undone, it must fail, naming a
# route that got through.  One boot each, every lab in it
# (labs/labs.mk), on the kernel without boot policies, as make lab boots
# it; the consoles go to DIR/labs-solutions.console.log and
# DIR/labs-given.console.log.
#
# usage: labs.sh (tests/run-tests.sh sets ARCH, DIR, BUILD and TIMEOUT)
set -u
. tests/lib/boot.sh

labs=$(ls -d labs/[0-9]*-*/ | sed 's|labs/\(.*\)/|\1|')
for image in solutions given; do
	name=labs-$image
	boot_guest "$name" "$DIR" --arch "$ARCH" --initrd "$BUILD/labs/$image.cpio.gz" \
		--kernel "$BUILD/kernel-bare/arch/x86/boot/bzImage" \
		--append krsi.tests=lab --timeout "$TIMEOUT"
	[ "$guest_status" -eq 0 ] || echo "not ok $name: qemu exit status $guest_status"
	grep -qx done "$DIR/$name.results" || echo "not ok $name: the checkers did not finish"
	kernel_reports "$name" "$DIR/$name.console.log"
	for lab in $labs; do
		status=$(sed -n "s/^exit lab-$lab \([0-9]*\)$/\1/p" "$DIR/$name.results")
		passed=$(grep -c "^ok lab $lab: .*: refused" "$DIR/$name.results")
		through=$(grep -m 1 "^not ok lab $lab: " "$DIR/$name.results")
		if [ -z "$status" ]; then
			echo "not ok labs: lab $lab ($image): its checker gave no result"
		elif [ "$image" = solutions ]; then
			if [ "$status" -eq 0 ] && [ "$passed" -gt 0 ]; then
				echo "ok labs: lab $lab: the solution passes its checker, $passed routes refused"
			else
				echo "not ok labs: lab $lab: the solution fails its checker: $through"
			fi
		elif [ "$status" -ne 0 ] && [ -n "$through" ]; then
			echo "ok labs: lab $lab: the policy as given fails its checker: '${through#not ok lab $lab: }'"
		else
			echo "not ok labs: lab $lab: the policy as given passes its checker (exit $status)"
		fi
	done
done
