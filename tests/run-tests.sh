#!/bin/sh
# make test: the host checks (tests/checks/), the boots of tests/suites.tab
# and the sessions (tests/sessions/), architecture by architecture; every
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
# usage: run-tests.sh [--arch ARCH]	(make test; make ARCH=s390x test)
set -u
. tests/lib/boot.sh

export TIMEOUT=${KRSI_TEST_TIMEOUT:-1200}
only=
[ "${1:-}" = --arch ] && only=${2:?"usage: run-tests.sh [--arch ARCH]"}
passed=0 failed=0
top=${BUILD:-build}
times=$top/test/times.txt
mkdir -p "$top/test" && : >"$times"

# took WHAT START: a line of the time table.
took() { echo "$(( $(date +%s) - $2 )) $1" >>"$times"; }

# count FILE: show and tally the "ok"/"not ok" lines of FILE, and show
# its "# " lines.
count() {
	while IFS= read -r line; do
		case $line in
		"ok "*) passed=$((passed + 1)) ;;
		"not ok "*) failed=$((failed + 1)) ;;
		"# "*) ;;
		*) continue ;;
		esac
		echo "$line"
	done <"$1"
}

# The table without its comments, and a check's or session's header.
table() { grep -v -e '^#' -e '^[[:space:]]*$' tests/suites.tab; }
header() { sed -n "s/^# $1: //p" "$2"; }
# The (arch, kernel) pairs in the order the table first names them.
groups() {
	table | awk -v only="$only" '(only == "" || $3 == only) && !seen[$3 " " $2]++ { print $3, $2 }'
}

# where ARCH: the build directory of ARCH and its test directory.
where() {
	export ARCH=$1 BUILD=$top
	[ "$ARCH" = x86_64 ] || BUILD=$top/$ARCH
	export DIR=$BUILD/test
}

# build ARCH KERNEL [NICE]: make what the boots of KERNEL on ARCH need
# (make test-build-KERNEL; make derives ARCH's directory from BUILD),
# logged to its test directory's build-KERNEL.log, timed.
build() {
	where "$1"
	mkdir -p "$DIR"
	start=$(date +%s)
	env -u BUILD nice -n "${3:-0}" make -s ARCH="$1" BUILD="$top" "test-build-$2" \
		</dev/null >"$DIR/build-$2.log" 2>&1 || return
	took "build: $1 $2${3:+, behind the boots}" "$start"
}

# Build the groups after the first, one after the other, behind the boots,
# at the lowest priority: DIR/built.KERNEL or DIR/failed.KERNEL says how
# it went.
build_behind() {
	groups | tail -n +2 | while read -r arch kernel; do
		if build "$arch" "$kernel" 19; then
			: >"$DIR/built.$kernel"
		else
			: >"$DIR/failed.$kernel"
		fi
	done
}

# ready KERNEL: wait until the current architecture's KERNEL is built
# by build_behind; fails when its build failed.
ready() {
	echo "--- waiting for the $ARCH $1 kernel ($DIR/build-$1.log)"
	start=$(date +%s)
	while [ ! -e "$DIR/built.$1" ]; do
		[ -e "$DIR/failed.$1" ] && return 1
		# A builder gone without a word is a failed build too.
		kill -0 "$builder" 2>/dev/null || [ -e "$DIR/built.$1" ] || return 1
		sleep 5
	done
	took "waiting for $ARCH $1" "$start"
}

# run WHAT COMMAND...: COMMAND's lines counted, into DIR/WHAT.out; a
# command that fails without saying what is a failure too.
run() {
	out=$DIR/$1.out
	start=$(date +%s)
	"$2" </dev/null >"$out" 2>&1
	status=$?
	took "$ARCH $1" "$start"
	[ "$status" -eq 0 ] || grep -q '^not ok ' "$out" ||
		echo "not ok $1: exit status $status" >>"$out"
	count "$out"
}

# boot_suite SUITE KERNEL LIMIT HOST CMDLINE: boot KERNEL with SUITE's image.
boot_suite() {
	name=$1
	[ "$2" = appliance ] || name=$1-$2
	bzimage=$BUILD/kernel-$2/arch/$karch/boot/bzImage
	[ "$2" = appliance ] && bzimage=$images/bzImage
	set -- "$@" --arch "$ARCH" --kernel "$bzimage" --initrd "$DIR/$1.initramfs.cpio.gz" \
		--timeout "${KRSI_TEST_TIMEOUT:-$3}" --append "krsi.tests=$1"
	[ "$5" = - ] || set -- "$@" --append "$5"
	case ,$4, in *,stream,*) rm -f "$DIR/$name.log"; set -- "$@" --log "$DIR/$name.log" ;; esac
	echo "--- the $1 suite on the $ARCH $2 kernel (console: $DIR/$name.console.log)"
	suite_name=$1 host=$4
	shift 5
	boot_guest "$name" "$DIR" "$@"
	echo "guest ran $guest_seconds s, qemu exit status $guest_status"
	echo "$guest_seconds $ARCH boot $name" >>"$times"
	guest_verdict "$name" "$DIR" "$DIR/LIST.$suite_name" >"$DIR/$name.out"
	# The boot's host checks: one that is missing or fails without a
	# word is a failure.
	for check in $(echo "$host" | tr , ' '); do
		[ "$check" = - ] && continue
		"tests/suites/$suite_name/host/$check.sh" "$name" "$DIR" </dev/null \
			>"$DIR/$name.$check.out" 2>&1
		status=$?
		cat "$DIR/$name.$check.out"
		[ "$status" -eq 0 ] || grep -q '^not ok ' "$DIR/$name.$check.out" ||
			echo "not ok $name: host check $check: exit status $status"
	done >>"$DIR/$name.out"
	count "$DIR/$name.out"
}

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
	karch=x86 images=image
	[ "$arch" = x86_64 ] || karch=s390 images=image/$arch
	if [ -n "$waits" ] && ! ready "$kernel"; then
		failed=$((failed + 1))
		echo "not ok $arch $kernel kernel: its build failed (see $DIR/build-$kernel.log)"
		continue
	fi
	waits=1
	# The architecture's host checks, once its first kernel is built (the
	# image is one of them).
	case " $checked " in
	*" $arch "*) ;;
	*)
		echo "--- host checks ($arch)"
		# They read the appliance's build (tests/tests.mk).
		if [ "$kernel" != appliance ]; then
			failed=$((failed + 1))
			echo "not ok tests/suites.tab: the first $arch line boots $kernel, not the appliance"
		fi
		for check in tests/checks/*.sh; do
			case " $(header arches "$check") " in
			*" $arch "*) run "check-$(basename "$check" .sh)" "$check" ;;
			esac
		done
		checked="$checked $arch"
		;;
	esac
	table | while read -r s k a limit host cmdline; do
		[ "$k $a" = "$kernel $arch" ] && echo "$s $k $limit $host $cmdline"
	done >"$DIR/boots.$kernel"
	while read -r s k limit host cmdline; do
		boot_suite "$s" "$k" "$limit" "$host" "$cmdline"
	done <"$DIR/boots.$kernel"
	for session in tests/sessions/*.sh; do
		case " $(header arches "$session") " in *" $arch "*) ;; *) continue ;; esac
		[ "$(header kernel "$session")" = "$kernel" ] || continue
		echo "--- session $(basename "$session" .sh) ($arch)"
		run "session-$(basename "$session" .sh)" "$session"
		ran="$ran $arch:$session"
	done
done <"${TMPDIR:-/tmp}/krsi-groups.$$"
rm -f "${TMPDIR:-/tmp}/krsi-groups.$$"
wait "$builder"

# What a header or the table leaves out is said, not skipped in silence.
for file in tests/checks/*.sh tests/sessions/*.sh; do
	arches=$(header arches "$file")
	if [ -z "$arches" ]; then
		failed=$((failed + 1))
		echo "not ok $file: no '# arches:' line"
		continue
	fi
	case $file in tests/checks/*) continue ;; esac
	for a in $arches; do
		[ -z "$only" ] || [ "$a" = "$only" ] || continue
		case " $ran " in *" $a:$file "*) continue ;; esac
		failed=$((failed + 1))
		echo "not ok $file ($a): not run (tests/suites.tab boots no $(header kernel "$file") kernel on $a)"
	done
done

echo "--- where the time went (s; the builds behind ran beside the boots)"
cat "$times"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
