#!/bin/sh
# make selftests-v1: the series' own KRSI selftests, each the reproducer of
# a defect the review of v1 found, run on v1 itself, the series as it was
# at 6dbe1e6 (git show 6dbe1e6:kernel/patches/).  make test runs them on
# the series as it is now, where every one passes; here each must fail,
# or the test does not show what it claims to.
#
# v1 is built as make test builds the series: the appliance's
# configuration with kernel/debug.config (KASAN, lockdep, userfaultfd) for
# the selftests, with kernel/audit-only.config for krsi_audit_only and for
# the ACPI table that lockdown=integrity must refuse.  The tests are v2's
# sources built against v1's tree and libbpf: v1 has the same ways to
# attach (BPF_PROG_ATTACH on a hook file, bpf_program__attach_krsi(), a
# link on a hook file's descriptor) but not BPF_F_KRSI_HOOK, which v1
# never asked for (tests/selftests/v1-compat.h).
#
# usage: v1.sh KERNEL_TREE APPLIANCE_CONFIG GEN_INIT_CPIO BPFTOOL \
#	ACPI_CPIO WORK_DIR	(ACPI_CPIO: make test's ACPI table, tests/sessions/ssdt.dsl)
set -u
. tests/lib/boot.sh
v1=6dbe1e6
tree=$(realpath "$1")
config=$(realpath "$2")
gen_init_cpio=$(realpath "$3")
bpftool=$(realpath "$4")
acpi=$(realpath "$5")
work=$6
here=$(pwd)
mkdir -p "$work"
work=$(realpath "$work")
log=$work/build.log
src=$work/linux-v1

die() { echo "selftests-v1: $*" >&2; exit 1; }
step() { echo "  $*"; }

kmake() {
	out=$1
	shift
	"$here/tools/build/kmake.sh" "$src" "$out" "$@" >>"$log" 2>&1
}

: >"$log"
start=$(date +%s)

# v1's tree: a worktree of the kernel tree at its pristine tag, with the
# patches of v1's series (once: a second run rebuilds nothing), and v2's
# KRSI selftests beside v1's code.
if [ ! -d "$src" ]; then
	git -C "$tree" worktree add -q --detach "$src" pristine ||
		die "cannot make a worktree of $tree at pristine"
fi
if [ "$(cat "$work/v1.stamp" 2>/dev/null)" != "$v1" ]; then
	step "PATCH    $src (the series at $v1)"
	rm -f "$work/v1.stamp"
	git -C "$src" checkout -q -f --detach pristine && git -C "$src" clean -q -fdx
	git -C "$here" show "$v1:kernel/patches/series" | grep -v -e '^#' -e '^[[:space:]]*$' |
	while read -r patch; do
		git -C "$here" show "$v1:kernel/patches/$patch" |
			git -C "$src" apply --whitespace=nowarn ||
			die "$v1's $patch does not apply"
	done || exit 1
	echo "$v1" >"$work/v1.stamp"
fi
st=tools/testing/selftests/bpf
git -C "$src" ls-files --error-unmatch "$st/prog_tests/krsi_*.c" >/dev/null 2>&1 &&
	die "v1 has KRSI selftests of its own: is $v1 v1?"
cp -p "$tree/$st"/prog_tests/krsi_*.c "$src/$st/prog_tests/"
cp -p "$tree/$st"/progs/krsi_*.c "$src/$st/progs/"
tests=$(cd "$src/$st/prog_tests" && ls krsi_*.c | sed 's/\.c$//')

# build NAME CONFIG: v1's kernel with the appliance's configuration and
# CONFIG merged in, in $work/kernel-NAME.
build() {
	out=$work/kernel-$1
	step "KERNEL   $out"
	mkdir -p "$out"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$config" "$2" >>"$log" 2>&1 &&
	kmake "$out" olddefconfig &&
	"$here/tools/build/check-config.sh" "$2" "$out/.config" &&
	grep -q '^CONFIG_SECURITY_BPF=y' "$out/.config" &&
	kmake "$out" bzImage || die "v1's $1 kernel does not build (see $log)"
}
build debug "$here/kernel/debug.config"
build audit-only "$here/kernel/audit-only.config"

# v1's libbpf, and the selftests built against it and v1's UAPI.
step "SELFTEST $work/selftests/test_progs"
mkdir -p "$work/libbpf" "$work/sysroot"
make -s -C "$src/tools/lib/bpf" OUTPUT="$work/libbpf/" "$work/libbpf/libbpf.a" \
	>>"$log" 2>&1 &&
make -s -C "$src/tools/lib/bpf" OUTPUT="$work/libbpf/" DESTDIR="$work/sysroot" \
	prefix= install_headers >>"$log" 2>&1 ||
	die "v1's libbpf does not build (see $log)"
make -s -f "$here/tests/selftests/krsi.mk" KSRC="$src" \
	VMLINUX="$work/kernel-debug/vmlinux" SYSROOT="$work/sysroot" \
	LIBBPF_A="$work/libbpf/libbpf.a" BPFTOOL="$bpftool" OUT="$work/selftests/" \
	EXTRA_CFLAGS="-include $here/tests/selftests/v1-compat.h" >>"$log" 2>&1 ||
	die "the KRSI selftests do not build against v1 (see $log)"
echo "built in $(( $(date +%s) - start )) s" >"$work/build-time.txt"

# The image: the appliance's, and the runner of make test's guests with
# the selftests, each test in a script and a list of its own, for a boot
# of its own: a test that takes v1 down must not hide the next one's
# result, and a kernel report in a console is that test's.  Each on the
# debug kernel, krsi_audit_only on the audit-only kernel.
mkdir -p "$work/run"
for t in $tests; do
	printf '#!/bin/sh\nexec /tests/selftests.sh %s\n' "$t" >"$work/run/$t.sh"
	echo "$t.sh" >"$work/run/LIST.$t"
done
{
	echo "/mnt - 0755"
	echo "/tests/check.sh $here/tests/lib/check.sh 0755"
	echo "/tests/run-suite.sh $here/tests/lib/run-suite.sh 0755"
	echo "/tests/test_progs.sh $here/tests/lib/test_progs.sh 0755"
	echo "/tests/selftests.sh $here/tests/suites/selftests/selftests.sh 0755"
	for t in $tests; do
		echo "/tests/$t.sh $work/run/$t.sh 0755"
		echo "/tests/LIST.$t $work/run/LIST.$t 0644"
	done
	echo "/tests/test_progs $work/selftests/test_progs 0755"
} | "$here/tests/lib/append-image.sh" "$gen_init_cpio" "$work/initramfs.cpio.gz" \
	"$here/image/initramfs.cpio.gz"

# The ACPI table of make test's lockdown check, before the image.
cat "$acpi" "$work/initramfs.cpio.gz" >"$work/lockdown.cpio"

# boot TEST KERNEL: make test's guest runner, TEST alone, on v1's KERNEL
# (tests/lib/boot.sh).
boot() {
	step "BOOT     $1 ($work/$1.console.log)"
	boot_guest "$1" "$work" --kernel "$work/kernel-$2/arch/x86/boot/bzImage" \
		--initrd "$work/initramfs.cpio.gz" --timeout 600 --append "krsi.tests=$1"
	grep -e '^ok ' -e '^not ok ' "$work/$1.results" >"$work/$1.txt"
}
for t in $tests; do
	if [ $t = krsi_audit_only ]; then
		boot $t audit-only
	else
		boot $t debug
	fi
done
step "BOOT     lockdown=integrity ($work/lockdown.console.log)"
probe_boot "$work/lockdown.console.log" --initrd "$work/lockdown.cpio" \
	--kernel "$work/kernel-audit-only/arch/x86/boot/bzImage" --append lockdown=integrity

# The report: each item of the review, its reproducer's result on v1:
# the test's own, and any report the kernel made while it ran.
report() {
	item=$1 test=$2
	console=$work/$test.console.log
	kernel=$(tr -d '\r' <"$console" | sed -n "/^=== $test.sh\$/,\$p" |
		grep -m1 -E "$KERNEL_REPORTS" |
		sed 's/^\[[^]]*\] //')
	if grep -q "^not ok selftests: $test\( \|\$\|:\)" "$work/$test.txt"; then
		result="fails on v1"
	elif grep -q "^ok selftests: $test\$" "$work/$test.txt"; then
		result="passes on v1"
	else
		result="no result"
	fi
	if [ -n "$kernel" ]; then
		result="$result, and the kernel reports: $kernel"
	elif [ "$result" != "fails on v1" ]; then
		# Neither the test nor the kernel shows the defect.
		result="$result (see $console)"
		: >"$work/not-shown"
	fi
	printf '%-3s %-20s %s\n' "$item" "$test" "$result"
}
rm -f "$work/not-shown"
{
	echo "The reproducers of v1's review, on v1 ($v1):"
	report 1 krsi_sleepable_uaf
	case $(acpi_table "$work/lockdown.console.log") in
	refused) result="passes on v1: the ACPI table was refused" ;;
	taken) result="fails on v1: the ACPI table was taken" ;;
	*) result="no result (see $work/lockdown.console.log)" ;;
	esac
	case $result in
	fails*) ;;
	*) : >"$work/not-shown" ;;
	esac
	printf '%-3s %-20s %s\n' 2 lockdown=integrity "$result"
	report 3 krsi_hook_defaults
	report 4 krsi_retval
	report 5 krsi_privileges
	report 5 krsi_tail_calls
	report 6 krsi_audit_only
	report 7 krsi_uapi
	echo
	echo "Each subtest:"
	for t in $tests; do
		cat "$work/$t.txt"
	done
	echo
	echo "$(cat "$work/build-time.txt"); in all $(( $(date +%s) - start )) s"
} | tee "$work/report.txt"
# Every reproducer must show its defect on v1.
if [ -e "$work/not-shown" ]; then
	echo "selftests-v1: a reproducer does not show its defect on v1 (above)" >&2
	exit 1
fi
