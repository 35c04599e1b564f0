#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel series is worth sending: every file of kernel/patches/ is in
# the series (or is the cover letter), every patch passes checkpatch.pl
# --strict, and has a Signed-off-by and a commit message, and the series
# adds no kernel-doc warning to the files it touches.
#
# arches: x86_64
# usage: patches.sh (tests/run-tests.sh sets BUILD)
set -u
tree=$BUILD/linux
patchdir=kernel/patches

series=$(grep -v -e '^#' -e '^[[:space:]]*$' "$patchdir/series")
for f in "$patchdir"/*.patch; do
	name=$(basename "$f")
	case $name in
	0000-cover-letter.patch) continue ;;
	esac
	if echo "$series" | grep -qx "$name"; then
		echo "ok patches: $name is in the series"
	else
		echo "not ok patches: $name is not in the series"
	fi
done
for name in $series; do
	# checkpatch.pl misreads a relative path that starts with kernel/
	# (a directory of the kernel tree); give it an absolute one.
	f=$(realpath "$patchdir/$name")
	# checkpatch asks "does MAINTAINERS need updating?" of every new
	# file.  It does not for a file in a directory that an entry of
	# MAINTAINERS lists as a whole (security/krsi/ for KRSI,
	# tools/testing/selftests/bpf/ for BPF; checked here), so only when
	# every new file is in one is that one question taken as answered.
	ignore=
	new=$(awk '/^diff --git / { file = $4; sub(/^b\//, "", file) }
		   /^new file mode / { print file }' "$f")
	if [ -n "$new" ] && echo "$new" | while read -r file; do
		dir=${file%/*}
		while ! grep -qx "F:	$dir/" "$tree/MAINTAINERS"; do
			[ "$dir" = "${dir%/*}" ] && exit 1
			dir=${dir%/*}
		done
	done; then
		ignore="--ignore FILE_PATH_CHANGES"
	fi
	# The message types kernel/patches/checkpatch-exceptions gives, with
	# its reasons, for this patch.
	types=$(awk -v n="$name" '$1 == n { print $2 }' \
		"$patchdir/checkpatch-exceptions" 2>/dev/null)
	[ -z "$types" ] || ignore="$ignore --ignore $types"
	# shellcheck disable=SC2086 # $ignore is empty, or --ignore TYPES pairs
	if out=$("$tree/scripts/checkpatch.pl" --strict --no-tree -q $ignore "$f" 2>&1); then
		echo "ok patches: $name passes checkpatch.pl --strict"
	else
		echo "not ok patches: $name: $(echo "$out" | head -n 1)"
	fi
	# The body is what is between the headers and the "---" line.
	body=$(sed -n '/^$/,/^---$/p' "$f" | grep -v -e '^---$' -e '^Signed-off-by:' -e '^$' | wc -l)
	if grep -q '^Signed-off-by: ' "$f" && [ "$body" -ge 2 ]; then
		echo "ok patches: $name has a commit message and a Signed-off-by"
	else
		echo "not ok patches: $name lacks a commit message or a Signed-off-by"
	fi
done

# kernel-doc: the series adds no warning to what scripts/kernel-doc
# -none says of the sources it touches.  Each .c and .h file a patch of
# the series adds or changes is read in the applied tree and as 6.1 has
# it (the commit "pristine"; a file the series adds has no warning
# there), from the tree, as the kernel's own doc build runs it.  Not
# tools/: libbpf documents its API in its own (doxygen) style, which
# kernel-doc reads as warnings already on 6.1, and the series' libbpf
# function follows libbpf.  A warning is new when its file and text, the
# line number left out, are not among 6.1's (as many times).
kdoc_warnings() { # FILE NAME: kernel-doc's warnings for FILE, as NAME's
	(cd "$tree" && scripts/kernel-doc -none "$1" 2>&1) |
		sed -n "s|^[^ :]*:[0-9]*: \(warning: .*\)|$2: \1|p"
}
kdoc=$(mktemp -d)
for name in $series; do
	awk '/^diff --git / { f = $4; sub(/^b\//, "", f); print f }' \
		"$patchdir/$name"
done | grep -E '\.[ch]$' | grep -v '^tools/' | LC_ALL=C sort -u |
while read -r file; do
	[ -f "$tree/$file" ] && kdoc_warnings "$file" "$file" >>"$kdoc/after"
	if git -C "$tree" cat-file -e "pristine:$file" 2>/dev/null; then
		mkdir -p "$(dirname "$kdoc/pristine/$file")"
		git -C "$tree" show "pristine:$file" >"$kdoc/pristine/$file"
		kdoc_warnings "$kdoc/pristine/$file" "$file" >>"$kdoc/before"
	fi
done
touch "$kdoc/after" "$kdoc/before"
LC_ALL=C sort -o "$kdoc/after" "$kdoc/after"
LC_ALL=C sort -o "$kdoc/before" "$kdoc/before"
n=$(wc -l <"$kdoc/after")
m=$(wc -l <"$kdoc/before")
new=$(LC_ALL=C comm -13 "$kdoc/before" "$kdoc/after")
if [ -n "$new" ]; then
	echo "not ok patches: kernel-doc warns $n times on the series' files, unpatched 6.1 $m times; new: $(echo "$new" | head -n 1)"
	echo "$new" | sed 's/^/# kernel-doc: /'
elif [ "$n" -eq "$m" ]; then
	echo "ok patches: kernel-doc warns $n times on the series' files, as many as unpatched 6.1 ($m)"
else
	echo "ok patches: kernel-doc warns $n times on the series' files, fewer than unpatched 6.1 ($m)"
fi
rm -rf "$kdoc"

f=$patchdir/0000-cover-letter.patch
if [ -f "$f" ] && ! grep -q -e '\*\*\* SUBJECT HERE' -e '\*\*\* BLURB HERE' "$f"; then
	echo "ok patches: the cover letter is written"
else
	echo "not ok patches: the cover letter is missing or a template"
fi
