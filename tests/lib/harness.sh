# Sourced by tests/run-tests.sh: the pieces of make test's loop.
#
#   took WHAT START		a line of the time table ($times)
#   count FILE			tally and show FILE's "ok"/"not ok" lines
#   table, header WHAT FILE, groups	tests/suites.tab, a script's header,
#				the (arch, kernel) pairs in table order
#   where ARCH			set ARCH, BUILD, DIR, karch, kname, images
#   unsaid WHAT STATUS OUT	a "not ok" for a silent failure
#   build ARCH KERNEL [NICE], build_behind, ready KERNEL
#				the builds, the first one's and behind the boots
#   run WHAT SCRIPT		a host check or session, counted
#   boot_suite SUITE KERNEL LIMIT HOST CMDLINE	one line of the table
#   host_checks, boots, sessions	the current kernel's, in that order
#   not_run			what the loop could not run, each a failure
#
# They read and set the loop's variables: passed, failed, top, times,
# only, builder, arch, kernel, checked, ran; where() sets ARCH, BUILD,
# DIR, karch, kname and images.

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

# where ARCH: the build directory of ARCH and its test directory, the
# kernel's name of the architecture, of its image, and where that is.
where() {
	export ARCH=$1 BUILD=$top/$1 images=image/$1 kname=bzImage
	case $ARCH in
	x86_64) karch=x86 BUILD=$top images=image ;;
	arm64) karch=arm64 kname=Image ;;
	s390x) karch=s390 ;;
	esac
	export DIR=$BUILD/test
}

# unsaid WHAT STATUS OUT: a script that failed without a "not ok" line
# in OUT failed all the same: the line for it.
unsaid() {
	[ "$2" -eq 0 ] || grep -q '^not ok ' "$3" || echo "not ok $1: exit status $2"
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
	unsaid "$1" "$status" "$out" >>"$out"
	count "$out"
}

# boot_suite SUITE KERNEL LIMIT HOST CMDLINE: boot KERNEL with SUITE's image.
boot_suite() {
	name=$1
	[ "$2" = appliance ] || name=$1-$2
	kimage=$BUILD/kernel-$2/arch/$karch/boot/$kname
	[ "$2" = appliance ] && kimage=$images/$kname
	set -- "$@" --arch "$ARCH" --kernel "$kimage" --initrd "$DIR/$1.initramfs.cpio.gz" \
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
		unsaid "$name: host check $check" "$status" "$DIR/$name.$check.out"
	done >>"$DIR/$name.out"
	count "$DIR/$name.out"
}

# host_checks: the current architecture's host checks, once, when its
# first kernel is built (the image is one of the things they check).
host_checks() {
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
}

# boots: the table's boots of the current kernel and architecture.
boots() {
	table | while read -r s k a limit host cmdline; do
		[ "$k $a" = "$kernel $arch" ] && echo "$s $k $limit $host $cmdline"
	done >"$DIR/boots.$kernel"
	while read -r s k limit host cmdline; do
		boot_suite "$s" "$k" "$limit" "$host" "$cmdline"
	done <"$DIR/boots.$kernel"
}

# sessions: the sessions of the current kernel and architecture.
sessions() {
	for session in tests/sessions/*.sh; do
		case " $(header arches "$session") " in *" $arch "*) ;; *) continue ;; esac
		case " $(header kernel "$session") " in *" $kernel "*) ;; *) continue ;; esac
		echo "--- session $(basename "$session" .sh) ($arch)"
		run "session-$(basename "$session" .sh)" "$session"
		ran="$ran $arch:$session"
	done
}

# not_run: what a header or the table leaves out is said, not skipped in
# silence.
not_run() {
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
}
