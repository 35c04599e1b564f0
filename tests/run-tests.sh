#!/bin/sh
# The test suite: host unit tests, checks of the kernel patch series, then
# the in-guest suite in a QEMU boot of the appliance in test mode, again with
# the boot policies attached, both again on the debug kernel (KASAN,
# lockdep), the audit-only tests in a boot of the kernel built without
# CONFIG_SECURITY_BPF_ENFORCE, the demo, and the appliance's own boot with
# the demo user exhausting what it can. Prints every result, then "N passed, N failed",
# and exits non-zero on any failed check, on a test without its result, on a
# guest that did not finish in time and on any kernel oops, BUG, WARNING,
# lockdep or KASAN report on the console.
#
# Then the s390x appliance (make ARCH=s390x: big-endian, no BPF
# trampoline in 6.1), booted under qemu-system-s390x: its image checks,
# the guest suite, the boot policies' suites, the demo and its shells
# (s390x_suite below).  `--arch s390x` runs those alone (make ARCH=s390x
# test).
#
# Run through `make test`, which builds what this needs first.
set -u

build=${BUILD:-build}
dir=$build/test
timeout=${KRSI_TEST_TIMEOUT:-1200}
passed=0
failed=0
# The architecture of the appliance that boot() and demo_checks() boot
# (s390x_suite sets it).
arch=x86_64
only=
[ "${1:-}" = --arch ] && only=${2:-}

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "not ok $*"; }

# count FILE: tally the "ok"/"not ok" lines of FILE and print the failures.
count() {
	while IFS= read -r line; do
		case $line in
		"ok "*) pass; echo "$line" ;;
		"not ok "*) fail "${line#not ok }" ;;
		esac
	done <"$1"
}

# boot NAME KERNEL LIST [QEMU ARGS...]: boot KERNEL with the test initramfs,
# run the tests of LIST in the guest and check what came back.  The console
# goes to $dir/NAME.console.log, the results to $dir/NAME.results.txt.
boot() {
	name=$1 kernel=$2 list=$3
	shift 3
	console=$dir/$name.console.log
	results=$dir/$name.results.txt

	echo "--- guest tests on the $name kernel (console: $console)"
	rm -f "$results"
	start=$(date +%s)
	./run-qemu.sh --arch "$arch" --mode test --kernel "$kernel" \
		--initrd "$dir/initramfs.cpio.gz" --results "$results" \
		--timeout "$timeout" "$@" </dev/null >"$console" 2>&1
	qemu_status=$?
	echo "guest ran $(( $(date +%s) - start )) s, qemu exit status $qemu_status"

	touch "$results"
	tr -d '\r' <"$results" >"$results.clean"
	count "$results.clean"

	case $qemu_status in
	0) ;;
	124) fail "$name guest: timed out after $timeout s" ;;
	*) fail "$name guest: qemu exit status $qemu_status" ;;
	esac
	grep -qx begin "$results.clean" ||
		fail "$name guest: the test runner never started"
	grep -qx done "$results.clean" ||
		fail "$name guest: the test runner did not finish"

	# Every test of the list must have reported, and exited 0.
	while read -r test; do
		status=$(sed -n "s/^exit $test \([0-9]*\)$/\1/p" "$results.clean")
		if [ -z "$status" ]; then
			fail "$name guest $test: no result (did it hang or crash?)"
		elif [ "$status" -ne 0 ]; then
			fail "$name guest $test: exit status $status"
		fi
	done <"$list"

	kernel_reports "$name" "$console"
}

# stream_check NAME HOSTLOG: the host's copy of the guest's audit log,
# streamed on its third serial port (run-qemu.sh --log), is the guest's
# log: its records numbered from 0 without a gap, and those the guest's
# log holds at the end of its tests (its results' "log FIRST LAST COUNT
# DIGEST" line) the same bytes, in the same order.
stream_check() {
	name=$1 hostlog=$2
	summary=$(sed -n 's/^log //p' "$dir/$name.results.txt.clean")
	set -- $summary
	if [ $# -ne 4 ]; then
		fail "$name guest: no summary of its audit log in the results"
		return
	fi
	if awk -F'[:,]' '$1 != "{\"seq\"" || $2 != n++ { exit 1 }' "$hostlog" &&
		[ -s "$hostlog" ]; then
		pass; echo "ok $name: the host's copy of the audit log has" \
			"$(wc -l <"$hostlog") records, numbered from 0, none missing"
	else
		fail "$name: the host's copy of the audit log ($hostlog) misses records"
	fi
	host=$(awk -F'[:,]' -v f="$1" -v l="$2" '$2 >= f && $2 <= l' "$hostlog" |
		sha256sum | cut -d' ' -f1)
	if [ "$host" = "$4" ] && [ "$3" -eq $(($2 - $1 + 1)) ]; then
		pass; echo "ok $name: it holds the guest's log, records $1 to $2," \
			"byte for byte, in order"
	else
		fail "$name: the host's copy of records $1 to $2 differs from the guest's log"
	fi
}

# kernel_reports NAME CONSOLE: the kernel must not have complained, whatever
# the tests said.
kernel_reports() {
	reports=$(grep -E -e 'Oops|BUG:|WARNING:|Kernel panic|general protection fault' \
		-e 'KASAN|UBSAN|possible (circular|recursive) locking|suspicious RCU usage' \
		-e 'INFO: task .* blocked|hung_task|soft lockup|hard LOCKUP|Call Trace:' \
		"$2")
	if [ -n "$reports" ]; then
		echo "$reports" | head -n 20
		fail "$1 guest: kernel reports on the console (see $2)"
	fi
}

# demo_checks NAME IMAGES: the demo (./run-qemu.sh --demo) of the
# appliance in IMAGES runs to its end and shows, for each policy, a denial
# and the event it produced.  The console goes to $dir/NAME.console.log.
demo_checks() {
	name=$1 images=$2
	shift 2
	echo "--- the demo on $arch (console: $dir/$name.console.log)"
	./run-qemu.sh --arch "$arch" --demo --kernel "$images/bzImage" \
		--initrd "$images/initramfs.cpio.gz" --timeout "$timeout" "$@" </dev/null \
		>"$dir/$name.console.log" 2>&1
	demo_status=$?
	tr -d '\r' <"$dir/$name.console.log" >"$dir/$name.clean"
	if [ "$demo_status" -eq 0 ] && grep -q "^KRSI demo done.$" "$dir/$name.clean"; then
		pass; echo "ok $name: runs to its end"
	else
		fail "$name: did not finish (qemu exit status $demo_status)"
	fi
	for policy in no_tmp_exec wx protect_secret protect_init no_module_load krsi_lock; do
		if grep -q "^    event .* $policy denied E[A-Z]*: " "$dir/$name.clean"; then
			pass; echo "ok $name: shows a $policy denial and its event"
		else
			fail "$name: no $policy denial event"
		fi
	done
	if grep -q "^    event .* audit_exec allowed exec /bin/busybox: sh -c ls /etc/krsi" "$dir/$name.clean"; then
		pass; echo "ok $name: shows an audited exec with its arguments"
	else
		fail "$name: no audit_exec event"
	fi
	if grep -q "^    event .* audit_exec allowed exec /usr/bin/krsi-secret: /tmp/innocent" "$dir/$name.clean"; then
		pass; echo "ok $name: shows the real program run through a symlink"
	else
		fail "$name: no audit_exec event naming krsi-secret behind /tmp/innocent"
	fi
	# Each main policy's attacker's try, denied.
	for denied in "can't create '/busybox': Read-only file system" \
		"/mem': Permission denied (exit 1)" \
		"mount: permission denied (are you root?) (exit 1)" \
		"renice: setpriority: Operation not permitted" \
		"rm: can't remove '/sys/fs/bpf/krsi/wx/wx_mmap': Operation not permitted"; do
		if grep -q -F "$denied" "$dir/$name.clean"; then
			pass; echo "ok $name: attacker's try denied: $denied"
		else
			fail "$name: attacker's try not shown denied: $denied"
		fi
	done
	if grep -q "^    event .* protect_secret denied EACCES: file_open /etc/krsi/secret" "$dir/$name.clean" &&
		grep -q "^        protect_secret: one file only root and one program may read" \
			"$dir/$name.clean"; then
		pass; echo "ok $name: the demo user learns why (krsi why)"
	else
		fail "$name: no krsi why of the demo user's denial"
	fi
	kernel_reports "$name" "$dir/$name.console.log"
}

# s390x_suite: the s390x appliance (make ARCH=s390x: big-endian, no BPF
# trampoline in Linux 6.1) under qemu-system-s390x: its image checked as
# x86_64's, the guest suite (LIST), the boot policies' suites with
# boot_bypass and the flood, audit_exec's records on their own, the demo,
# and the appliance as `make ARCH=s390x run` boots it, typed at.  What runs where, and why, is in README ("Architectures").
s390x_suite() {
	arch=s390x dir=$build/s390x/test
	echo "--- the s390x image"
	tests/check-image.sh image/s390x/initramfs.cpio.gz >"$dir/image.out" 2>&1
	count "$dir/image.out"
	boot s390x image/s390x/bzImage "$dir/LIST"
	# The proof: one program, trampoline refused, KRSI link enforcing.
	proof=$(sed -n 's/^ok \(s390x: trampoline attach .*\)/\1/p' "$dir/s390x.results.txt")
	if [ -n "$proof" ]; then
		pass; echo "ok proof: $proof"
	else
		fail "proof: no krsi_arch summary line from the s390x boot"
	fi
	boot s390x-policies image/s390x/bzImage "$dir/LIST.boot" --append krsi.tests=boot
	boot s390x-records image/s390x/bzImage "$dir/LIST.records" \
		--append "krsi.tests=records krsi.policies=protect_init,protect_log,audit_exec,krsi_lock"
	demo_checks s390x-demo image/s390x
	# The appliance as `make ARCH=s390x run` boots it, typed at.
	echo "--- the s390x appliance's shells (console: $dir/s390x-shell.console.log)"
	tests/shell-session.sh s390x s390x-shell "$dir" "$timeout" >"$dir/s390x-shell.out" 2>&1
	count "$dir/s390x-shell.out"
	kernel_reports s390x-shell "$dir/s390x-shell.console.log"
	arch=x86_64 dir=$build/test
}

# summary CONSOLE: the counts, and the end of CONSOLE if anything failed.
summary() {
	if [ "$failed" -ne 0 ]; then
		echo "--- last lines of the console"
		tail -n 40 "$1"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
	exit
}

if [ "$only" = s390x ]; then
	s390x_suite
	summary "$build/s390x/test/s390x.console.log"
fi

echo "--- host unit tests"
for t in "$dir"/host/*; do
	[ -x "$t" ] || continue
	"$t" >"$t.out" 2>&1
	status=$?
	count "$t.out"
	[ "$status" -eq 0 ] || fail "host $(basename "$t"): exit status $status"
done

echo "--- kernel series"
tests/check-patches.sh "$build/linux" kernel/patches >"$dir/patches.out" 2>&1
count "$dir/patches.out"
tests/check-pack.sh "$build/linux" >"$dir/pack.out" 2>&1
count "$dir/pack.out"

echo "--- the build"
tests/check-gen-policy.sh "$build" >"$dir/gen-policy.out" 2>&1
count "$dir/gen-policy.out"
tests/check-selftests-compare.sh >"$dir/selftests-compare.out" 2>&1
count "$dir/selftests-compare.out"

echo "--- the image"
tests/check-image.sh image/initramfs.cpio.gz >"$dir/image.out" 2>&1
count "$dir/image.out"

boot appliance image/bzImage "$dir/LIST"
# The boot policies' boot streams its audit log to the host.
rm -f "$dir/policies.log"
boot policies image/bzImage "$dir/LIST.boot" --append krsi.tests=boot \
	--log "$dir/policies.log"
stream_check policies "$dir/policies.log"
# audit_exec without no_tmp_exec: its guarantee on programs from anywhere.
boot records image/bzImage "$dir/LIST.records" \
	--append "krsi.tests=records krsi.policies=protect_init,protect_log,audit_exec,krsi_lock"
# The same suites on the debug kernel (KASAN, lockdep, PROVE_RCU,
# DEBUG_ATOMIC_SLEEP), where any warning is a panic.
boot debug "$build/kernel-debug/arch/x86/boot/bzImage" "$dir/LIST" \
	--append panic_on_warn=1
boot debug-policies "$build/kernel-debug/arch/x86/boot/bzImage" "$dir/LIST.boot" \
	--append "panic_on_warn=1 krsi.tests=boot"
# The debug kernel's fault injection (tests/guest-debug/).
boot debug-nomem "$build/kernel-debug/arch/x86/boot/bzImage" "$dir/LIST.nomem" \
	--append "panic_on_warn=1 krsi.tests=nomem"
boot audit-only "$build/kernel-audit/arch/x86/boot/bzImage" "$dir/LIST.audit" \
	--append "krsi.tests=audit krsi.policies=protect_init,no_such_policy"
# The kernel's own KRSI selftests (tests/selftests/), under KASAN.
boot debug-selftests "$build/kernel-debug/arch/x86/boot/bzImage" "$dir/LIST.selftests" \
	--append "panic_on_warn=1 krsi.tests=selftests"

# lockdown=integrity is in force while setup_arch() runs: the ACPI table
# the initrd carries (tests/lockdown/) is refused, as on Linux 6.1 without
# the series; booted without lockdown=, the same kernel takes it, which
# shows that the check can see a table taken.  The audit-only kernel has
# ACPI and the lockdown LSM (kernel/audit-only.config).
lockdown_boot() {
	./run-qemu.sh --verbose --mode probe --timeout 120 \
		--kernel "$build/kernel-audit/arch/x86/boot/bzImage" \
		--initrd "$dir/lockdown/initramfs.cpio" --append "$1" </dev/null 2>&1 |
		tr -d '\r' >"$2"
}
echo "--- ACPI table upgrade, with and without lockdown (consoles: $dir/lockdown.*.log)"
lockdown_boot "lockdown=integrity" "$dir/lockdown.integrity.log"
lockdown_boot "" "$dir/lockdown.none.log"
taken="Table Upgrade: install \[SSDT- *KRSI *-LOCKDOWN\]"
if grep -q "kernel is locked down, ignoring table override" "$dir/lockdown.integrity.log" &&
   ! grep -q "$taken" "$dir/lockdown.integrity.log"; then
	pass; echo "ok lockdown: lockdown=integrity refuses the initrd's ACPI table in setup_arch()"
else
	fail "lockdown: lockdown=integrity did not refuse the initrd's ACPI table"
fi
if grep -q "$taken" "$dir/lockdown.none.log"; then
	pass; echo "ok lockdown: without lockdown= the kernel takes the initrd's ACPI table"
else
	fail "lockdown: without lockdown= the initrd's ACPI table was not taken (is the test blind?)"
fi
for log in "$dir/lockdown.integrity.log" "$dir/lockdown.none.log"; do
	if grep -q "init: probe ok" "$log"; then
		pass; echo "ok lockdown: $(basename "$log") booted to /init"
	else
		fail "lockdown: $(basename "$log") did not reach /init"
	fi
	kernel_reports lockdown "$log"
done

# The demo's audit log goes to the host, after a trail the last boot left
# without its reader's stop record, which run-qemu.sh and the banner must
# report.
echo '{"seq":0,"time_ns":1,"pid":1,"uid":0,"comm":"","policy":"reader","event":"start","what":""}' \
	>"$dir/demo.log"
demo_checks demo image --log "$dir/demo.log"
if grep -q "run-qemu.sh: .*demo.log: the last boot's audit trail ends without the reader's stop record" \
		"$dir/demo.clean" &&
	grep -q "^!!! the last boot's audit trail (run-qemu.sh --log) ends without" "$dir/demo.clean"; then
	pass; echo "ok demo: a trail left without its stop record is reported, and the next boot says so"
else
	fail "demo: an unterminated trail was not reported"
fi
if tail -n 1 "$dir/demo.log" | grep -q '"policy":"reader","event":"stop"' &&
	[ "$(grep -c '"event":"start"' "$dir/demo.log")" = 2 ]; then
	pass; echo "ok demo: its trail follows the last one on the host, and ends with the stop record"
else
	fail "demo: its trail on the host does not end with the reader's stop record"
fi

# The appliance's own boot, typed at as an attacker would: the demo user
# exhausts what it can, then root's shell checks /init and the policies.
echo "--- the demo user exhausts the machine (console: $dir/exhaust.console.log)"
tests/exhaust-session.sh "$dir" "$timeout" >"$dir/exhaust.out" 2>&1
count "$dir/exhaust.out"
kernel_reports exhaust "$dir/exhaust.console.log"

# A quiet console: the kernel's informational messages (init/main.c's
# pr_info() naming the init it runs, say) stay in dmesg, unless
# run-qemu.sh --verbose.
if grep -q "Run /init as init process" "$dir/demo.clean"; then
	fail "demo: kernel messages below warning level on the console"
else
	pass; echo "ok demo: the console shows no kernel message below warning level"
fi
./run-qemu.sh --verbose --mode probe --timeout 60 </dev/null >"$dir/verbose.console.log" 2>&1
if grep -q "Run /init as init process" "$dir/verbose.console.log"; then
	pass; echo "ok run-qemu.sh --verbose shows every kernel message"
else
	fail "run-qemu.sh --verbose: informational kernel messages missing"
fi

s390x_suite

summary "$dir/appliance.console.log"
