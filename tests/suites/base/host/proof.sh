#!/bin/sh
# The proof, on its own line: krsi_arch's summary of one program attached
# both ways, by trampoline (refused where 6.1 has none) and as a KRSI
# link, which enforces (docs/architectures.md, "The proof").
#
# usage: proof.sh BOOT DIR
set -u
name=$1 dir=$2
proof=$(sed -n 's/^ok \([a-z0-9_]*: trampoline attach .*\)/\1/p' "$dir/$name.results")
if [ -n "$proof" ]; then
	echo "ok proof: $proof"
else
	echo "not ok proof: no krsi_arch summary line from the $name boot"
fi
