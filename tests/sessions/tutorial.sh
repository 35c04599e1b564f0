#!/bin/sh
# arches: x86_64
# kernel: appliance
# README's tutorial is a test: every command block of README.md that an
# HTML comment marks as <!-- tutorial: BOOT [ARGUMENTS] --> (the indented
# lines after it, up to a blank line) is typed, as
# README shows it, on that boot (learn: ./run-qemu.sh --learn, with
# ARGUMENTS appended to the kernel command line; appliance: the locked
# appliance, ./run-qemu.sh), the demo user's lines ("$ ") in the demo
# user's shell, root's ("# ") in root's, in README's order; every line of
# output README shows (not "...") must be printed, its numbers (times,
# pids, ids) free.  A change to the appliance that breaks a step, or a
# step that no longer matches what the appliance prints, fails here.
# Then krsi.boot=learn on the appliance's kernel, which holds its
# policies: ignored, and the banner says so.  Consoles in
# DIR/tutorial-BOOT.console.log.
#
# usage: tutorial.sh (tests/run-tests.sh sets ARCH, DIR and TIMEOUT)
set -u
dir=$DIR
timeout=$TIMEOUT
steps=$dir/tutorial.steps

. tests/lib/boot.sh
. tests/lib/console.sh

# The marked blocks as "BOOT<TAB>KIND<TAB>TEXT" lines, KIND demo, root or
# out, in README's order.
awk '
	match($0, /<!-- tutorial: .* -->/) {
		boot = substr($0, RSTART + 15, RLENGTH - 19); indent = ""; want = 1; next
	}
	want && /^[ \t]*$/ { if (indent != "") want = 0; next }
	want && indent == "" { match($0, /^ +/); indent = substr($0, 1, RLENGTH) }
	want && index($0, indent) == 1 {
		line = substr($0, length(indent) + 1)
		if (line ~ /^\$ /) print boot "\tdemo\t" substr(line, 3)
		else if (line ~ /^# /) print boot "\troot\t" substr(line, 3)
		else print boot "\tout\t" line
		next
	}
	want { want = 0 }
' README.md >"$steps"
if [ ! -s "$steps" ]; then
	echo "not ok tutorial: README.md marks no tutorial block"
	exit 1
fi

# pattern LINE: LINE as an extended regular expression, its numbers free.
pattern() {
	printf '%s\n' "$1" | sed -e 's/^ *//' -e 's/ *$//' \
		-e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/[0-9][0-9]*/[0-9]+/g'
}

# type_step LINE: type LINE, then a line whose output says it is done,
# and wait for it (its echo on the console shows the $((...)) unexpanded;
# the count is kept in a file, the loops being subshells).
counter=$dir/tutorial.count
echo 0 >"$counter"
type_step() {
	n=$(($(cat "$counter") + 1))
	echo "$n" >"$counter"
	type_line "$1"
	type_line "echo tutorial-done-\$((0 + $n))"
	await "tutorial-done-$n"
}

cut -f1 "$steps" | awk '!seen[$0]++' | while IFS= read -r boot; do
	name=tutorial-$(echo "$boot" | cut -d' ' -f1)
	console=$dir/$name.console.log
	set -- --arch "$ARCH"
	case $boot in
	learn*) set -- "$@" --learn --append "${boot#learn}" ;;
	appliance) ;;
	*) echo "not ok tutorial: README.md names a boot '$boot' this test does not know"; continue ;;
	esac
	console_boot "$name" "$console" "$timeout" "$@" ||
		{ echo "not ok tutorial: no FIFO for the console at $console.input"; continue; }
	session=$name
	exited=
	if await 'demo$ '; then
		awk -F'\t' -v b="$boot" '$1 == b && $2 == "demo" { print $3 }' "$steps" |
			while IFS= read -r line; do
				case $line in exit*) type_line "$line"; break ;; esac
				type_step "$line" || break
			done
		awk -F'\t' -v b="$boot" '$1 == b && $2 == "demo" && $3 ~ /^exit/' "$steps" |
			grep -q . || type_line exit
		if await 'root@krsi:/# '; then
			awk -F'\t' -v b="$boot" '$1 == b && $2 == "root" { print $3 }' "$steps" |
				while IFS= read -r line; do
					type_step "$line" || break
				done
			type_line "reboot -f"
			exited=1
		fi
	fi
	console_end
	tr -d '\r' <"$console" >"$dir/$name.clean"
	[ -n "$exited" ] || echo "not ok tutorial: $boot: no root shell (see $console)"
	awk -F'\t' -v b="$boot" '$1 == b && $2 == "out" { print $3 }' "$steps" |
		while IFS= read -r line; do
			case $line in ...|"") continue ;; esac
			if grep -E -q -- "$(pattern "$line")" "$dir/$name.clean"; then
				echo "ok tutorial: $boot: README's '$line' is what it prints"
			else
				echo "not ok tutorial: $boot: README shows '$line', the appliance did not print it (see $console)"
			fi
		done
	kernel_reports "$name" "$console"
done

# The learning boot is the kernel that holds nothing: krsi.boot=learn on
# the appliance's kernel, which locked before /init, must not make the
# banner say LEARNING, and says it was ignored.
name=tutorial-learn-on-appliance
console=$dir/$name.console.log
session=$name
if console_boot "$name" "$console" "$timeout" --arch "$ARCH" --append krsi.boot=learn &&
	await 'demo$ '; then
	type_line exit
	await 'root@krsi:/# ' && type_line "reboot -f"
fi
console_end
tr -d '\r' <"$console" >"$dir/$name.clean"
if grep -q '^!!! krsi.boot=learn ignored: this kernel holds its boot policies' "$dir/$name.clean" &&
	grep -q '^lock: *locked until reboot' "$dir/$name.clean" &&
	! grep -q '^boot: *LEARNING' "$dir/$name.clean"; then
	echo "ok tutorial: krsi.boot=learn on the appliance's kernel is ignored, and the banner says so"
else
	echo "not ok tutorial: krsi.boot=learn on the appliance's kernel: no '!!! ... ignored' line, or LEARNING, or not locked (see $console)"
fi
kernel_reports "$name" "$console"
