#!/bin/sh
# Make a test image: the archives BASE... as they are (the kernel unpacks
# concatenated cpio archives in order, a later file over an earlier one),
# then one archive of the files listed on standard input, made by the
# kernel's gen_init_cpio.  Every harness's image is made here: make
# test's suites and sessions (tests/tests.mk), make bench's, and make
# selftests' and selftests-v1's (tests/selftests/).
#
# usage: append-image.sh GEN_INIT_CPIO OUT BASE... <LIST
# LIST: "PATH SOURCE MODE" lines: SOURCE at PATH in the image, with MODE,
# owned by root, and every directory above PATH made (0755); SOURCE "-"
# makes PATH a directory.
set -eu
gen_init_cpio=$1 out=$2
shift 2
while read -r path source mode; do
	dir=
	for part in $(dirname "$path" | tr / ' '); do
		dir=$dir/$part
		echo "dir $dir 0755 0 0"
	done
	if [ "$source" = - ]; then
		echo "dir $path $mode 0 0"
	else
		echo "file $path $source $mode 0 0"
	fi
done | awk '!seen[$0]++' >"$out.list"
# (No pipe from gen_init_cpio: its failure must stop the script.)
"$gen_init_cpio" "$out.list" >"$out.cpio"
gzip -n -f "$out.cpio"
{ [ $# -eq 0 ] || cat "$@"; cat "$out.cpio.gz"; } >"$out.tmp"
rm -f "$out.cpio.gz"
mv "$out.tmp" "$out"
