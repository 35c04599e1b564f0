#!/bin/sh
# Put the figures a run produced into the documents that show them, so
# that no figure is typed: in FILE, the lines between
#
#	<!-- figures: NAME -->
#	<!-- /figures: NAME -->
#
# are replaced by standard input, indented four spaces (a Markdown code
# block), and a line saying which command made them, at which commit
# (with "+" when the tree had changes), on which date.  A FILE without
# the block is left as it is and said, so that a renamed block fails
# loudly rather than going stale.  make bench and make test call it.
#
# usage: figures.sh FILE NAME COMMAND <FIGURES
set -eu

file=$1 name=$2 command=$3

die() { echo "figures: $*" >&2; exit 1; }

grep -q "^<!-- figures: $name -->\$" "$file" ||
	die "$file has no block '<!-- figures: $name -->'"
grep -q "^<!-- /figures: $name -->\$" "$file" ||
	die "$file has no end '<!-- /figures: $name -->'"
# "+" when what was measured may differ from the commit: a change to
# anything but the documents and figures this writes (a run writes
# several blocks, and the first would mark the others).
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no -- . \
	':(exclude)*.md' ':(exclude)*.svg' 2>/dev/null)" ] || commit=$commit+
body=$(mktemp)
trap 'rm -f "$body" "$body.new"' EXIT
{
	echo
	sed 's/^/    /; s/^    $//'
	echo
	echo "(\`$command\` at $commit, $(date -u +%Y-%m-%d); written by"
	echo "\`tools/build/figures.sh\`, not by hand.)"
	echo
} >"$body"
awk -v name="$name" -v body="$body" '
	$0 == "<!-- figures: " name " -->" {
		print; while ((getline line < body) > 0) print line; skip = 1; next
	}
	$0 == "<!-- /figures: " name " -->" { skip = 0 }
	!skip
' "$file" >"$body.new"
cat "$body.new" >"$file"
