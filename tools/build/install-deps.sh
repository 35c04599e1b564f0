#!/bin/sh
# Install the Debian 12 packages the appliance is built and tested with.
# Idempotent: when every package is present, nothing is installed and
# apt is not even asked.
set -eu

PACKAGES="
	linux-source-6.1
	build-essential bc bison flex cpio kmod rsync xz-utils python3 git
	libelf-dev zlib1g-dev libssl-dev dwarves
	clang llvm lld bpftool libbpf-dev
	musl-tools busybox-static
	qemu-system-x86
	ccache acpica-tools bash-static
	gcc-s390x-linux-gnu libc6-dev-s390x-cross musl-dev:s390x qemu-system-misc
	qemu-user-static
"
# s390x (make ARCH=s390x, and the s390x boots of make test): the cross
# compiler and its glibc headers (only a recommendation of the compiler,
# which apt leaves out here; bpftool's cross build needs them), musl for
# s390x (with its s390x-linux-musl-gcc), QEMU's s390x system emulator and
# qemu-user, which runs the s390x bpftool that makes the light skeletons.  musl-dev:s390x, and the s390x packages the build
# unpacks (tools/build/fetch-debs.sh), need dpkg to know the architecture.
FOREIGN_ARCH=s390x

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
dpkg --print-foreign-architectures | grep -qx "$FOREIGN_ARCH" ||
	dpkg --add-architecture "$FOREIGN_ARCH"
apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split
apt-get install -y -qq --no-install-recommends $missing >/dev/null
