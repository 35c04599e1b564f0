#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where a cold build's time goes: build everything `make test` needs in a
# scratch build directory with an empty ccache, as on a fresh machine, and
# report each stage (extraction and patching, configuration, the
# appliance's kernel by top-level directory, its link and BTF, user space,
# the debug kernel, then the rest of what x86_64's boots need).  Slow: a whole cold build.
#
# usage: build-times.sh SCRATCH_DIR
set -eu

scratch=$1
build=$scratch/build
export CCACHE_DIR="$scratch/ccache"
rm -rf "$scratch"
mkdir -p "$build" "$CCACHE_DIR"

now() { date +%s.%N; }
# stage NAME TARGET...: make TARGET... in the scratch build, timed.
stage() {
	name=$1
	shift
	t0=$(now)
	make -s BUILD="$build" "$@" >"$scratch/$name.log" 2>&1 ||
		{ echo "build-times: $name failed (see $scratch/$name.log)" >&2; exit 1; }
	echo "$name $t0 $(now)" >>"$scratch/stages"
}

: >"$scratch/stages"
stage kernel "$build/kernel.stamp"
stage userspace all
stage debug-kernel "$build/kernel-debug.stamp"
stage test-build test-build

# The kernel stage from its own log lines and the files it left: the
# tree's extraction and patching ends when build/linux/.git/index was last
# written, configuration when kernel/.config was; every object is dated
# by its last write, and the time between one object and the one before
# it goes to the later one's top-level directory (two compilers run at
# once, so this is a share of wall time, not CPU time).
kout=$build/kernel
{
	echo "stages (s, wall):"
	awk '{ printf "  %-14s %7.1f\n", $1, $3 - $2 }' "$scratch/stages"
	echo "kernel stage:"
	printf "  %-14s %7d\n" extract+patch \
		$(( $(stat -c %Y "$build/linux/.git/index") - $(cat "$build/kernel.start") ))
	printf "  %-14s %7d\n" config \
		$(( $(stat -c %Y "$kout/.config") - $(stat -c %Y "$build/linux/.git/index") ))
	find "$kout" -name '*.o' -printf '%T@ %P\n' | sort -n |
	awk -v cfg="$(stat -c %Y "$kout/.config")" '
	{
		t = $1; split($2, p, "/")
		# Host programs built while configuring: counted there.
		if (t <= cfg) next
		dir = (p[2] == "" ? "(top)" : p[1])
		if ($2 ~ /^\.tmp_vmlinux|btf|kallsyms|^vmlinux\.o$/) dir = "(link, BTF)"
		if (last == "") last = cfg
		took[dir] += t - last; last = t
	}
	END { for (d in took) printf "  %-14s %7.0f\n", d, took[d] }' | sort -k2 -n -r
	printf "  %-14s %7d\n" "bzImage after" \
		$(( $(stat -c %Y "$kout/arch/x86/boot/bzImage") - $(find "$kout" -name '*.o' -printf '%T@\n' | sort -n | tail -1 | cut -d. -f1) ))
} | tee "$scratch/build-times.txt"
