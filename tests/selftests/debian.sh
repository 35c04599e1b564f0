#!/bin/sh
# make ARCH=arm64 selftests-debian: mainline's own tests of the BPF LSM on
# Linux 6.1 without the series, for arm64, with no kernel to build: Debian
# 12's own arm64 kernel (linux-image-arm64's, CONFIG_BPF_LSM=y, "bpf" in
# its LSM list), booted with the arm64 selftests image, the same
# test_progs, no deny list.  Each test's result and every attach its
# programs were refused with 524 (ENOTSUPP), for docs/architectures.md
# beside the same tests on the patched kernel (tests/suites.tab's arm64
# selftests boot).
# Debian's kernel has its virtio console as a module, which the image
# does not load: the results come back on the console.
#
# usage: debian.sh IMAGE WORKDIR
set -u
image=$1 work=$2
tests=test_lsm,test_local_storage,test_bprm_opts,deny_namespace,bpf_cookie/lsm

die() { echo "selftests-debian: $*" >&2; exit 1; }

. tests/lib/debian-kernel.sh
debian_kernel "$work" || exit 1
kernel=$debian_kernel

console=$work/console.log
echo "--- $debian_package, booted with $image"
./run-qemu.sh --arch arm64 --kernel "$kernel" --initrd "$image" --mode test \
	--timeout 900 --memory 1G \
	--append "krsi.tests=selftests krsi.selftests=$tests krsi.denylist=none" \
	</dev/null 2>&1 | tr -d '\r' >"$console"
grep -q "^exit selftests.sh " "$console" || die "the guest did not finish (see $console)"
# test_progs' run, up to its summary of the errors again: each test's
# result, each failed assertion, each program refused at load (with the
# verifier's reason) or at attach (-524).
awk '/^=== selftests.sh/ { on = 1; next } /^All error logs:/ { on = 0 }
	on && (/^#[0-9]/ || /:FAIL:/ || /strerror_r\(-524\)/ || / is not [a-z]*$/)' "$console"
grep -q "^All error logs:" "$console" || die "test_progs did not finish (see $console)"
