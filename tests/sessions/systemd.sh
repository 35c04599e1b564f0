#!/bin/sh
# arches: arm64
# kernel: mainline
# Real BPF LSM software through KRSI, unmodified: Debian 12's systemd 252,
# built from Debian's source package with its BPF framework
# (tools/build/systemd.sh), as PID 1 of an image of its own
# (tests/sessions/systemd/), with the series' libbpf as libbpf.so.1.
# Its unit krsi-proof.service runs `systemd-run --wait --pipe -p
# RestrictFileSystems=~proc cat /proc/version`, and the same without the
# property, reads what PID 1 logged of its BPF LSM program from the journal,
# and lists the KRSI hook file of file_open.  Booted twice on arm64:
#  - on the series' kernel (mainline: cgroups, KRSI, no trampoline that
#    attaches, as on every arm64 6.1): the restricted cat is refused
#    EPERM, the other reads, PID 1's journal says the program attached,
#    and file_open's hook file lists systemd's restrict_filesystems;
#  - on Debian's own arm64 6.1 kernel, unpatched: systemd finds no way to
#    link the program ("assuming BPF LSM is not available") and the
#    restricted cat reads /proc/version all the same.
# One line states the contrast.  Consoles in DIR/systemd-krsi.console.log
# and DIR/systemd-debian.console.log.
#
# usage: systemd.sh (tests/run-tests.sh sets ARCH, DIR and TIMEOUT)
set -u
. tests/lib/boot.sh
. tests/lib/debian-kernel.sh

image=$DIR/systemd.initramfs.cpio.gz
kernel=$BUILD/kernel-mainline/arch/arm64/boot/Image
[ -r "$image" ] || { echo "not ok systemd: no image $image (make ARCH=arm64 test-build-mainline)"; exit 1; }

# boot NAME KERNEL: the image on KERNEL, its console cleaned into
# DIR/systemd-NAME.clean; fails if the proof did not run to its end.
boot() {
	console=$DIR/systemd-$1.console.log
	./run-qemu.sh --arch arm64 --kernel "$2" --initrd "$image" \
		--timeout "$TIMEOUT" --memory 1G \
		--append "systemd.unit=krsi-proof.service systemd.show_status=0" \
		</dev/null >"$console" 2>&1
	status=$?
	tr -d '\r' <"$console" >"$DIR/systemd-$1.clean"
	if grep -q '^krsi-proof: end$' "$DIR/systemd-$1.clean"; then
		echo "ok systemd: $1: the image booted, systemd ran the proof and powered off (qemu exit status $status)"
	else
		echo "not ok systemd: $1: the proof did not run to its end (qemu exit status $status; see $console)"
		return 1
	fi
}

# said NAME WHAT PATTERN: the proof's line on NAME's console that PATTERN
# (an extended regular expression) matches.
said() {
	if grep -E -q "^krsi-proof: $3" "$DIR/systemd-$1.clean"; then
		echo "ok systemd: $1: $2"
		return 0
	fi
	echo "not ok systemd: $1: $2: not said (see $DIR/systemd-$1.console.log)"
	grep '^krsi-proof: ' "$DIR/systemd-$1.clean" | sed 's/^/# /'
	return 1
}

krsi=
if boot krsi "$kernel"; then
	said krsi "KRSI is active, bpf in the LSM list" 'lsm .*krsi.*bpf|lsm .*bpf.*krsi' &&
	said krsi "PID 1's journal: the LSM BPF program attached" \
		'journal: bpf-lsm: LSM BPF program attached$' &&
	said krsi "file_open's KRSI hook file lists systemd's restrict_filesystems" \
		'file_open: .*restrict_filesy' &&
	said krsi "RestrictFileSystems=~proc: cat /proc/version refused, EPERM" \
		"restricted: exit 1: cat: can't open '/proc/version': Operation not permitted$" &&
	said krsi "without the property, cat /proc/version reads it" \
		'unrestricted: exit 0: Linux version 6\.1\.' &&
	krsi=1
fi
kernel_reports systemd-krsi "$DIR/systemd-krsi.console.log"

debian=
if debian_kernel "$DIR/debian-kernel" && boot debian "$debian_kernel"; then
	said debian "the kernel is Debian's own, with the BPF LSM" 'lsm .*bpf' &&
	said debian "PID 1's journal: no BPF LSM link, not available" \
		'journal: bpf-lsm: Failed to link program; assuming BPF LSM is not available$' &&
	said debian "no KRSI hook file" 'file_open: cat: can.t open' &&
	said debian "RestrictFileSystems=~proc: cat /proc/version reads it all the same" \
		'restricted: exit 0: Linux version 6\.1\.' &&
	debian=1
fi

if [ -n "$krsi" ] && [ -n "$debian" ]; then
	echo "ok systemd: arm64 6.1: systemd 252's RestrictFileSystems=~proc, unmodified, refuses /proc (EPERM) through KRSI; on Debian's unpatched $debian_package the same unit reads it (no BPF LSM link)"
else
	echo "not ok systemd: the contrast between KRSI and Debian's kernel was not shown"
fi
