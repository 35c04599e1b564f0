#!/bin/sh
# The kernel series, kept as commits on top of the tag "pristine" in a
# git tree of Debian's linux-source (one made by prepare-kernel.sh, cloned,
# with the series applied: git am kernel/patches/*), written back into
# kernel/patches as git format-patch files.  --zero-commit gives every
# patch the same "From 0000..." line, so that a change to one patch
# changes that patch's file alone; the cover letter (0000) is written by
# hand and kept.
#
# usage: export-series.sh TREE [PATCHDIR]	(PATCHDIR: kernel/patches)
#   e.g. git clone -q build/linux /tmp/series && cd /tmp/series &&
#        git checkout -q -b series pristine &&
#        for p in $(grep -v '^#' "$OLDPWD/kernel/patches/series"); do
#                git am -q "$OLDPWD/kernel/patches/$p"; done
#        ... edit, git commit --fixup, git rebase -i --autosquash pristine ...
#        cd "$OLDPWD" && tools/build/export-series.sh /tmp/series
set -eu

tree=${1:?usage: export-series.sh TREE [PATCHDIR]}
patchdir=${2:-kernel/patches}
version=v2

die() { echo "export-series: $*" >&2; exit 1; }

git -C "$tree" rev-parse -q --verify pristine >/dev/null ||
	die "$tree has no tag 'pristine' (a tree of prepare-kernel.sh, cloned)"
[ -n "$(git -C "$tree" rev-list pristine..HEAD)" ] ||
	die "$tree has no commit after pristine"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
git -C "$tree" format-patch -q --zero-commit --subject-prefix="PATCH $version" \
	-o "$out" pristine..HEAD
for f in "$patchdir"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $f in */0000-cover-letter.patch) continue ;; esac
	rm -f "$f"
done
cp "$out"/*.patch "$patchdir"/
{
	echo "# The KRSI series, $version, against Debian's linux-source-6.1 (6.1.192), applied in this order."
	(cd "$out" && ls ./*.patch | sed 's|^\./||')
} >"$patchdir/series"
echo "export-series: $(ls "$out" | wc -l) patches written to $patchdir"
