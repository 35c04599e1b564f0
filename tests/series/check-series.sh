#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Check that every patch of kernel/patches/series builds on its own: apply
# the patches one by one to a pristine copy of the kernel tree and build
# bzImage after each, with the appliance's configuration; then build once
# more with CONFIG_SECURITY_BPF off.  Slow (one kernel build per step, with
# ccache), so it is `make check-series`, not part of `make test`.
#
# usage: check-series.sh KERNEL_TREE CONFIG PATCH_DIR WORK_DIR
set -eu
tree=$1
config=$2
patchdir=$3
work=$4

src=$work/linux
out=$work/kernel
log=$work/build.log
mkdir -p "$work"

# A detached worktree of the pristine tree, shared objects and all.
if [ ! -d "$src" ]; then
	git -C "$tree" worktree add -q --detach "$(realpath "$src")" pristine
fi
git -C "$src" checkout -q -f --detach pristine
git -C "$src" clean -q -fdx
mkdir -p "$out"

kmake() {
	tools/build/kmake.sh "$src" "$out" "$@"
}

# build WHAT [scripts/config ARGS...]: olddefconfig drops the options a step
# does not know yet, so every step starts again from the full configuration.
build() {
	what=$1
	shift
	start=$(date +%s)
	cp "$config" "$out/.config"
	[ $# -eq 0 ] || "$src/scripts/config" --file "$out/.config" "$@"
	if ! kmake olddefconfig >"$log.step" 2>&1 ||
	   ! kmake bzImage >>"$log.step" 2>&1; then
		echo "not ok series: does not build with $what (see $log)"
		status=1
	elif grep -q 'warning:' "$log.step"; then
		echo "not ok series: warnings with $what (see $log)"
		status=1
	else
		echo "ok series: builds with $what ($(( $(date +%s) - start )) s)"
	fi
	cat "$log.step" >>"$log"
}

status=0
: >"$log"
for patch in $(grep -v -e '^#' -e '^[[:space:]]*$' "$patchdir/series"); do
	git -C "$src" apply "$(realpath "$patchdir/$patch")"
	build "$patch"
done
build "CONFIG_SECURITY_BPF off" -d SECURITY_BPF
# Every other LSM of the tree still builds on the static calls of patches
# 0001-0003: without KRSI, with Landlock, Yama, AppArmor and SELinux (and
# what they depend on).  olddefconfig would drop one silently if a
# dependency were missing, so the configuration is checked too.
others="SECURITY_LANDLOCK SECURITY_YAMA SECURITY_APPARMOR SECURITY_SELINUX"
# shellcheck disable=SC2046 # one -e per option, split on purpose
build "CONFIG_SECURITY_BPF off, Landlock, Yama, AppArmor and SELinux on" \
	-d SECURITY_BPF -e AUDIT -e SECURITY_PATH -e SECURITY_NETWORK \
	$(for o in $others; do printf -- "-e %s " "$o"; done)
for o in $others; do
	if ! grep -qx "CONFIG_$o=y" "$out/.config"; then
		echo "not ok series: CONFIG_$o is not in the configuration built"
		status=1
	fi
done
exit $status
