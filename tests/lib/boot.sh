# Sourced by every host harness that boots the appliance to run tests in
# it (tests/run-tests.sh, tests/bench/run-bench.sh, tests/selftests/):
# one way to boot a guest, read back what it said, and look for what the
# kernel said.
#
#   boot_guest NAME DIR [RUN-QEMU-OPTION]...
#	Boot in test mode; the console goes to DIR/NAME.console.log, the
#	results port to DIR/NAME.results.txt, which is read back into
#	DIR/NAME.results (carriage returns gone).  Sets guest_status
#	(QEMU's, 124 on --timeout) and guest_seconds.
#   guest_verdict NAME DIR LIST
#	"ok"/"not ok" lines: the guest's own, then a "not ok" for each way
#	the boot went wrong: QEMU failed or timed out, the runner never
#	started or never finished, a test of LIST without its "exit" line
#	or with a non-zero one, a policy /init could not attach (its
#	banner's "NOT ENFORCED" line), a kernel report on the console.
#   probe_boot CONSOLE [RUN-QEMU-OPTION]...
#	Boot to /init and no further (krsi.mode=probe), every kernel message
#	on the console, which goes to CONSOLE.
#   acpi_table CONSOLE
#	What the kernel of a probe boot did with the ACPI table its initrd
#	carried (tests/sessions/ssdt.dsl): "refused" (locked down),
#	"taken" or "unknown" (a refusal that a table taken belies is
#	"taken").
#   kernel_reports NAME CONSOLE
#	A "not ok" (after the reports themselves, as "# " lines) when the
#	kernel complained on CONSOLE: an oops, BUG, WARNING, panic, KASAN,
#	UBSAN or lockdep report, an RCU splat, a hung task or lockup.

KERNEL_REPORTS='Oops|BUG:|WARNING:|Kernel panic|general protection fault'
KERNEL_REPORTS=$KERNEL_REPORTS'|KASAN|UBSAN|possible (circular|recursive) locking'
KERNEL_REPORTS=$KERNEL_REPORTS'|suspicious RCU usage|INFO: task .* blocked|hung_task'
KERNEL_REPORTS=$KERNEL_REPORTS'|soft lockup|hard LOCKUP|Call Trace:'

boot_guest() {
	_name=$1 _dir=$2
	shift 2
	rm -f "$_dir/$_name.results.txt"
	_start=$(date +%s)
	./run-qemu.sh --mode test --results "$_dir/$_name.results.txt" "$@" \
		</dev/null >"$_dir/$_name.console.log" 2>&1
	guest_status=$?
	guest_seconds=$(( $(date +%s) - _start ))
	touch "$_dir/$_name.results.txt"
	tr -d '\r' <"$_dir/$_name.results.txt" >"$_dir/$_name.results"
	return "$guest_status"
}

guest_verdict() {
	_name=$1 _dir=$2 _list=$3
	_results=$_dir/$_name.results
	grep -e '^ok ' -e '^not ok ' "$_results"
	case $guest_status in
	0) ;;
	124) echo "not ok $_name guest: timed out" ;;
	*) echo "not ok $_name guest: qemu exit status $guest_status" ;;
	esac
	grep -qx begin "$_results" ||
		echo "not ok $_name guest: the test runner never started"
	grep -qx done "$_results" ||
		echo "not ok $_name guest: the test runner did not finish"
	[ -s "$_list" ] || echo "not ok $_name guest: no test in its list $_list"
	while read -r _test; do
		_status=$(sed -n "s/^exit $_test \([0-9]*\)$/\1/p" "$_results")
		if [ -z "$_status" ]; then
			echo "not ok $_name guest $_test: no result (did it hang or crash?)"
		elif [ "$_status" -ne 0 ]; then
			echo "not ok $_name guest $_test: exit status $_status"
		fi
	done <"$_list"
	# /init's banner: a policy it could not attach is a failure, but the
	# one the audit suite names to see it fail (tests/suites.tab).
	for _p in $(tr -d '\r' <"$_dir/$_name.console.log" |
		sed -n 's/^!!! NOT ENFORCED, failed to attach://p'); do
		[ "$_p" = no_such_policy ] ||
			echo "not ok $_name guest: /init could not attach $_p (its banner: NOT ENFORCED)"
	done
	kernel_reports "$_name" "$_dir/$_name.console.log"
}

probe_boot() {
	_console=$1
	shift
	./run-qemu.sh --verbose --mode probe --timeout 120 "$@" </dev/null 2>&1 |
		tr -d '\r' >"$_console"
}

acpi_table() {
	if grep -q "Table Upgrade: install \[SSDT- *KRSI *-LOCKDOWN\]" "$1"; then
		echo taken
	elif grep -q "kernel is locked down, ignoring table override" "$1"; then
		echo refused
	else
		echo unknown
	fi
}

kernel_reports() {
	_reports=$(grep -E -e "$KERNEL_REPORTS" "$2")
	[ -n "$_reports" ] || return 0
	echo "$_reports" | head -n 20 | sed 's/^/# /'
	echo "not ok $1 guest: kernel reports on the console (see $2)"
}
