#!/bin/sh
# make selftests: the kernel's own BPF selftests, test_progs and
# test_verifier, built from the patched tree, run on the patched kernel
# and on Linux 6.1 without the series built with the same configuration,
# and compared: every test that passes without the series must pass with
# it.  Two more kernels, 500 BPF programs and two guest runs (about 50 min
# from nothing, 10 once built), so it is a target of its own, not part of
# `make test`.
#
# usage: full.sh KERNEL_TREE APPLIANCE_CONFIG GEN_INIT_CPIO WORK_DIR
#
# With SELFTESTS=NAME,NAME... (and RUNS=N, default 10) in the environment,
# only those tests of test_progs run, N times on each kernel, and the
# report counts how often each passed.
set -u
. tests/lib/boot.sh
tree=$(realpath "$1")
config=$(realpath "$2")
gen_init_cpio=$(realpath "$3")
work=$4
here=$(pwd)
mkdir -p "$work"
work=$(realpath "$work")
log=$work/build.log
timeout=${KRSI_SELFTESTS_TIMEOUT:-7200}
# A repeated run's files have names of their own (NAME.repeat...), beside
# the full run's.
tag=${SELFTESTS:+.repeat}

die() { echo "selftests: $*" >&2; exit 1; }
step() { echo "  $*"; }

kmake() {
	src=$1 out=$2
	shift 2
	"$here/tools/build/kmake.sh" "$src" "$out" "$@" >>"$log" 2>&1
}

# configure SRC OUT: the appliance's configuration, the kernel's list for
# its BPF selftests, and kernel/selftests.config.  Not the debug kernel's
# KASAN and lockdep: under QEMU's emulation on two cores they would make
# the two runs of every test take most of a day.
configure() {
	src=$1 out=$2
	mkdir -p "$out"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$config" \
		"$tree/tools/testing/selftests/bpf/config" \
		"$here/kernel/selftests.config" >>"$log" 2>&1 &&
	kmake "$src" "$out" olddefconfig &&
	"$here/tools/build/check-config.sh" "$here/kernel/selftests.config" \
		"$out/.config"
}

: >"$log"
start=$(date +%s)

# Linux 6.1 without the series: a worktree of the tree at its pristine tag.
pristine=$work/linux-6.1
if [ ! -d "$pristine" ]; then
	git -C "$tree" worktree add -q --detach "$pristine" pristine ||
		die "cannot make a worktree of $tree at pristine"
fi
git -C "$pristine" checkout -q -f --detach pristine && git -C "$pristine" clean -q -fdx

for k in patched unpatched; do
	src=$tree
	[ $k = unpatched ] && src=$pristine
	step "KERNEL   $work/kernel-$k"
	configure "$src" "$work/kernel-$k" || die "configuration of the $k kernel (see $log)"
	# Module.symvers and the module linker script, for bpf_testmod.ko.
	kmake "$src" "$work/kernel-$k" bzImage modules ||
		die "the $k kernel does not build (see $log)"
done
grep -q '^CONFIG_SECURITY_BPF=y' "$work/kernel-patched/.config" ||
	die "the patched kernel has no CONFIG_SECURITY_BPF"
# The list's options the configuration could not take (TEST_BPF=y, which
# exists only as a module), for the report.
"$here/tools/build/check-config.sh" "$tree/tools/testing/selftests/bpf/config" \
	"$work/kernel-patched/.config" >"$work/config-dropped.txt" 2>&1

# The tests, from the patched tree, linked as the selftests Makefile links
# them, against the host's shared libraries, which the image carries (a
# static build cannot be asked for: LDFLAGS=-static reaches libbpf's
# shared library too).  The Makefile links urandom_read against a
# relative liburandom_read.so, found from the source directory.
st=$tree/tools/testing/selftests/bpf
out=$work/out
mkdir -p "$out"
# Mainline's later fixes of 6.1's tests that the comparison needs
# (kernel/selftests-fixes/), in the tree while the tests build and taken
# out after: they are not the series'.  One a run cut short left is
# taken out first.
fixed=
unfix() {
	for p in $fixed; do
		git -C "$tree" apply -R "$p" || echo "selftests: cannot take $p out of $tree" >&2
	done
	fixed=
}
trap unfix EXIT
for p in "$here"/kernel/selftests-fixes/*.patch; do
	git -C "$tree" apply --check -R "$p" 2>/dev/null && git -C "$tree" apply -R "$p"
	git -C "$tree" apply "$p" || die "$p does not apply to $tree"
	fixed="$p $fixed"
done
ln -sf "$out/liburandom_read.so" "$st/liburandom_read.so"
step "SELFTEST $out/test_progs $out/test_verifier"
make -s -C "$st" -j"$(nproc)" OUTPUT="$out" \
	VMLINUX_BTF="$work/kernel-patched/vmlinux" KDIR="$work/kernel-patched" \
	"$out/test_progs" "$out/test_verifier" >>"$log" 2>&1 ||
	die "the selftests do not build (see $log)"
# bpf_testmod.ko again, for the unpatched kernel.
make -s -C "$pristine/tools/testing/selftests/bpf/bpf_testmod" \
	KDIR="$work/kernel-unpatched" >>"$log" 2>&1 ||
	die "bpf_testmod.ko does not build for the unpatched kernel (see $log)"
unfix
gcc -O2 -Wall -Werror -static -o "$work/rm" "$here/tests/selftests/rm.c" ||
	die "tests/selftests/rm.c"
echo "built in $(( $(date +%s) - start )) s" >"$work/build-time$tag.txt"

# The guest's /tests/selftests: the tests and what they read or run
# (the selftests' bpftool, ima_setup.sh), bash (for test_bprm_opts and
# ima_setup.sh), and glibc's loader and the libraries the tests use, on
# the appliance's image (tests/lib/append-image.sh).
image() {
	k=$1 testmod=$2
	{
		echo "/mnt - 0755"
		echo "/bin/bash /bin/bash-static 0755"
		echo "/tests/run-suite.sh $here/tests/selftests/guest-full.sh 0755"
		echo "/tests/test_progs.sh $here/tests/lib/test_progs.sh 0755"
		echo "/tests/selftests/rm $work/rm 0755"
		echo "/tests/selftests/bpf_testmod.ko $testmod 0644"
		for f in "$out"/*.bpf.o "$out"/test_progs "$out"/test_verifier \
			 "$out"/urandom_read "$out"/liburandom_read.so "$out"/xdp_synproxy \
			 "$out"/tools/sbin/bpftool "$st"/ima_setup.sh \
			 "$st"/progs/btf_dump_test_case_*.c; do
			[ -f "$f" ] || continue
			mode=0644
			[ -x "$f" ] && mode=0755
			echo "/tests/selftests/$(basename "$f") $f $mode"
		done
		for f in test_progs test_verifier urandom_read xdp_synproxy tools/sbin/bpftool; do
			ldd "$out/$f"
		done | sed -n 's|.*[> \t]\(/lib[^ ]*\) (.*|\1|p' | sort -u |
		while read -r lib; do
			echo "$lib $(realpath "$lib") 0755"
		done
	} | "$here/tests/lib/append-image.sh" "$gen_init_cpio" "$work/initramfs-$k.cpio.gz" \
		"$here/image/initramfs.cpio.gz"
}
image patched "$out/bpf_testmod.ko"
image unpatched "$pristine/tools/testing/selftests/bpf/bpf_testmod/bpf_testmod.ko"

# boot KERNEL: run the tests in a guest of the patched or unpatched kernel
# (tests/lib/boot.sh).
boot() {
	k=$1
	boot_guest "$k$tag" "$work" --kernel "$work/kernel-$k/arch/x86/boot/bzImage" \
		--initrd "$work/initramfs-$k.cpio.gz" --memory 2G --timeout "$timeout" $repeat
	echo "$k: qemu exit status $guest_status, $guest_seconds s" >>"$work/boot-times$tag.txt"
	grep -e '^ok ' -e '^not ok ' "$work/$k$tag.results" | sort >"$work/$k$tag.txt"
	kernel_reports "$k" "$work/$k$tag.console.log" >"$work/$k$tag.reports"
}
repeat=
[ -n "$tag" ] &&
	repeat="--append krsi.selftests=$SELFTESTS --append krsi.selftests_runs=${RUNS:-10}"
# Both guests at once: test_progs and test_verifier run one test at a
# time, so each keeps about one of the two cores busy.
: >"$work/boot-times$tag.txt"
for k in patched unpatched; do
	step "BOOT     $k ($work/$k$tag.console.log)"
	boot $k &
done
wait

unfinished=
for k in patched unpatched; do
	grep -q '^done$' "$work/$k$tag.results" && continue
	echo "selftests: the $k guest did not finish (see $work/$k$tag.console.log)"
	unfinished=1
done
if [ -n "$tag" ]; then
	# How often each test passed, of how many runs, on each kernel.
	for k in patched unpatched; do
		grep -e '^ok test_progs [^/]*$' -e '^not ok test_progs [^/]*$' \
			"$work/$k$tag.txt" | sed 's/^not ok /fail /; s/^ok /pass /' |
			uniq -c | sed "s/^/$k: /"
	done | tee "$work/repeat-report.txt"
	[ -z "$unfinished" ]
	exit
fi
"$here/tests/selftests/compare.sh" "$work/unpatched.txt" "$work/patched.txt" \
	"$here/kernel/selftests-expected" >"$work/report.txt"
compared=$?
# What the kernels said meanwhile, for the reader (some tests make the
# kernel warn on purpose: not a verdict).
for k in patched unpatched; do
	[ -s "$work/$k.reports" ] || continue
	echo "kernel reports on the $k kernel's console ($work/$k.console.log):"
	cat "$work/$k.reports"
done >>"$work/report.txt"
cat "$work/report.txt"
echo "$(cat "$work/build-time.txt"); in all $(( $(date +%s) - start )) s"
[ "$compared" -eq 0 ] && [ -z "$unfinished" ]
