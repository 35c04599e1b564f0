#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The hooks that must have a file in /sys/kernel/security/bpf/, worked out
# independently of the KRSI code: every hook of lsm_hook_defs.h that the
# built kernel has (its bpf_lsm_<hook> is in the BTF), minus those that
# mainline's BPF LSM refuses (bpf_lsm_disabled_hooks in kernel/bpf/bpf_lsm.c).
#
# usage: expected-hooks.sh KERNEL_SOURCE VMLINUX
set -eu
src=$1
vmlinux=$2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed -n 's/^LSM_HOOK([^,]*,[^,]*, *\([a-z0-9_]*\).*/\1/p' \
	"$src/include/linux/lsm_hook_defs.h" | sort -u >"$tmp/defs"
bpftool btf dump file "$vmlinux" |
	sed -n "s/^\[[0-9]*\] FUNC 'bpf_lsm_\([a-z0-9_]*\)'.*/\1/p" |
	sort -u >"$tmp/btf"
sed -n '/^BTF_SET_START(bpf_lsm_disabled_hooks)/,/^BTF_SET_END/ s/^BTF_ID(func, bpf_lsm_\([a-z0-9_]*\))/\1/p' \
	"$src/kernel/bpf/bpf_lsm.c" | sort -u >"$tmp/disabled"

[ -s "$tmp/defs" ] && [ -s "$tmp/btf" ] && [ -s "$tmp/disabled" ] || {
	echo "expected-hooks.sh: could not read the hook lists" >&2
	exit 1
}
comm -12 "$tmp/defs" "$tmp/btf" | comm -23 - "$tmp/disabled"
