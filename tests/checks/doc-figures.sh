#!/bin/sh
# arches: x86_64
# The figures of README.md and docs/ that a run writes (tools/build/
# figures.sh: make bench's tables, make test's time table) are there,
# each block with the command and commit that made it: a block left empty
# or without its stamp was typed over, or never run.
#
# usage: doc-figures.sh
set -u
for f in README.md docs/*.md; do
	awk -v f="$f" '
	/^<!-- figures: [a-z0-9_-]+ -->$/ {
		name = $3; inside = 1; lines = 0; stamp = ""; next
	}
	inside && $0 == "<!-- /figures: " name " -->" {
		if (!lines)
			print "not ok figures: " f ": block " name " is empty (run the command that writes it)"
		else if (stamp == "")
			print "not ok figures: " f ": block " name " does not say which command and commit made it"
		else
			print "ok figures: " f ": " name ", " stamp
		inside = 0; next
	}
	inside && /^    / { lines++ }
	inside && match($0, /^\(`[^`]+` at [0-9a-f]+\+?, [0-9-]+;/) {
		stamp = substr($0, 2, RLENGTH - 2)
	}
	END { if (inside) print "not ok figures: " f ": block " name " has no end" }
	' "$f"
done
