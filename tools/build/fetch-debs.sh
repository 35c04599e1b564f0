#!/bin/sh
# Unpack Debian packages of another architecture into a directory, for
# their files alone: a static busybox to put in an image, static libraries
# to link with a cross compiler.  They are not installed (a library of
# another architecture installs only at exactly the host's version, which
# a host with security updates seldom has); `make deps` has already added
# the architecture to dpkg, so that apt knows these packages.
#
# usage: fetch-debs.sh ARCH DIR PACKAGE...
set -eu

arch=$1
dir=$2
shift 2

die() { echo "fetch-debs: $*" >&2; exit 1; }

rm -rf "$dir" "$dir.debs"
mkdir -p "$dir" "$dir.debs"
for pkg in "$@"; do
	# A package of every architecture (Architecture: all) has no :ARCH.
	want=$pkg:$arch
	[ "$(apt-cache show --no-all-versions "$pkg" 2>/dev/null |
		sed -n 's/^Architecture: //p' | head -n 1)" = all ] && want=$pkg
	# apt-get download writes into the current directory.
	(cd "$dir.debs" && apt-get download -q=2 "$want" 2>/dev/null) ||
		die "cannot download $want (run 'make ARCH=$arch deps')"
done
for deb in "$dir.debs"/*.deb; do
	dpkg-deb -x "$deb" "$dir"
done
