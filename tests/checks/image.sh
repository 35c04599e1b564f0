#!/bin/sh
# What the boot policies assume of the image, checked on the host: no
# program in it asks for an executable stack (PT_GNU_STACK RWE) or a
# writable and executable segment, which the kernel would give it without
# any LSM hook seeing (progs/wx.bpf.c, known limits), and no file in it is
# writable by anyone but root, nor set-user-ID.
#
# arches: x86_64 arm64 s390x
# usage: image.sh [INITRAMFS.cpio.gz] (default: the image of $ARCH)
set -u

image=${1:-image/initramfs.cpio.gz}
[ "${ARCH:-x86_64}" = x86_64 ] || image=${1:-image/$ARCH/initramfs.cpio.gz}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

(cd "$dir" && gzip -dc | cpio -id --quiet --no-absolute-filenames 2>/dev/null) <"$image"
elves=0
for f in $(cd "$dir" && find . -type f | sort); do
	readelf -h "$dir/$f" >/dev/null 2>&1 || continue
	elves=$((elves + 1))
	if readelf -lW "$dir/$f" | grep -q -e "GNU_STACK.* RWE " -e "LOAD.* RWE "; then
		echo "not ok image: ${f#.} asks for writable and executable memory"
	fi
done
if [ "$elves" -gt 0 ]; then
	echo "ok image: none of its $elves programs asks for an executable stack or segment"
else
	echo "not ok image: no program found in $image"
fi
# none WHAT AWK: ok when no entry of the archive's listing (cpio -tv)
# matches AWK, else not ok naming the files that do.
none() {
	found=$(gzip -dc "$image" | cpio -tv --quiet 2>/dev/null |
		awk "$2 { print \$NF }")
	if [ -z "$found" ]; then
		echo "ok image: nothing in it is $1"
	else
		echo "not ok image: $1: $(echo $found)"
	fi
}
# gen_init_cpio sets every mode: no file or directory writable by others.
none "writable by others" '$1 ~ /^[-d]/ && substr($1, 9, 1) == "w"'
# No set-user-ID file: no_setuid stops new ones, not those the image brings
# (progs/no_setuid.bpf.c, known limits).
none "set-user-ID" '$1 ~ /^-/ && substr($1, 4, 1) ~ /[sS]/'
