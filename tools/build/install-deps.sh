#!/bin/sh
# Install the Debian 12 packages the appliance is built and tested with.
# Idempotent: when every package is present, nothing is installed and
# apt is not even asked.
set -eu

PACKAGES="
	linux-source-6.1
	build-essential bc bison flex cpio kmod rsync xz-utils python3 git
	libelf-dev zlib1g-dev libssl-dev openssl dwarves
	clang llvm lld bpftool libbpf-dev
	musl-tools busybox-static
	qemu-system-x86
	ccache acpica-tools bash-static
	gnuplot-nox
	gcc-s390x-linux-gnu libc6-dev-s390x-cross musl-dev:s390x qemu-system-misc
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross musl-dev:arm64 qemu-system-arm
	qemu-efi-aarch64
	qemu-user-static
	meson ninja-build gperf python3-jinja2 pkgconf dpkg-dev
"
# gnuplot-nox draws make bench's curve (an SVG, no X libraries).
# s390x and arm64 (make ARCH=..., and their boots in make test): the cross
# compiler and its glibc headers (only a recommendation of the compiler,
# which apt leaves out here; bpftool's cross build needs them), musl for
# the architecture (with its ARCH-linux-musl-gcc), QEMU's system emulator
# (qemu-system-misc has s390x's, qemu-system-arm aarch64's; qemu-efi-aarch64
# the UEFI firmware of the arm64 lockdown boots) and qemu-user,
# which runs the s390x bpftool that makes the light skeletons there.
# meson, ninja, gperf, jinja2 and pkg-config build Debian's systemd from
# its source package (apt-get source, which dpkg-dev's dpkg-source
# unpacks) for arm64's systemd image (tools/build/systemd.sh).
# musl-dev:ARCH, and the packages the build unpacks
# (tools/build/fetch-debs.sh), need dpkg to know the architecture.
FOREIGN_ARCHES="s390x arm64"

missing=""
for pkg in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing="$missing $pkg"
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing:$missing; run 'make deps' as root" >&2
	exit 1
fi

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
for arch in $FOREIGN_ARCHES; do
	dpkg --print-foreign-architectures | grep -qx "$arch" ||
		dpkg --add-architecture "$arch"
done
apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split
apt-get install -y -qq --no-install-recommends $missing >/dev/null
