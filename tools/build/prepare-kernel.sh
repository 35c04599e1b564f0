#!/bin/sh
# Give the build a kernel tree: Debian's linux-source tarball, extracted once
# into a git repository (tag "pristine"), then reset to pristine and patched
# with kernel/patches/series on every call. Resetting through git rewrites
# only the files the old series touched, so kbuild recompiles only those.
#
# usage: prepare-kernel.sh TARBALL TREE PATCHDIR
set -eu

tarball=$1
tree=$2
patchdir=$3

die() { echo "prepare-kernel: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball not found (install linux-source-6.1: make deps)"

# The tarball's identity: its size and modification time.
id=$(stat -c '%s-%Y' "$tarball")
if [ ! -d "$tree/.git" ] || [ "$(cat "$tree/.git/krsi-tarball" 2>/dev/null)" != "$id" ]; then
	echo "  EXTRACT $tarball"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xf "$tarball" -C "$tree" --strip-components=1
	git -C "$tree" init -q
	git -C "$tree" add -A -f .
	git -C "$tree" -c user.name=krsi -c user.email=krsi@localhost \
		commit -q -m "pristine $(basename "$tarball")"
	git -C "$tree" tag pristine
	echo "$id" >"$tree/.git/krsi-tarball"
fi

git -C "$tree" checkout -q -f --detach pristine
git -C "$tree" clean -q -fdx

grep -v -e '^#' -e '^[[:space:]]*$' "$patchdir/series" | while read -r patch; do
	echo "  PATCH   $patch"
	git -C "$tree" apply --whitespace=nowarn "$(realpath "$patchdir/$patch")" ||
		die "patch $patch does not apply"
done
