#!/bin/sh
# Pack the initramfs from a list given to the kernel's own gen_init_cpio, so
# that device nodes and ownership are set without needing root on the host.
#
# usage: mkinitramfs.sh GEN_INIT_CPIO OUT.cpio.gz BUSYBOX ROOTFS INIT BINDIR \
#	MUSL_LOADER [SBIN_FILE...]
#
# Every file of BINDIR goes to /usr/bin, every SBIN_FILE to /usr/sbin, and
# every file of KRSI_PACKS (in the environment: the signed policies) to
# /usr/lib/krsi, and of KRSI_UPDATES (the demo's newer versions) to
# /usr/lib/krsi/updates.
# BUSYBOX is the target's: for another architecture, TARGET_RUN in the
# environment is how the host runs it (qemu-s390x-static), to list its
# applets.
set -eu

gen_init_cpio=$1
out=$2
busybox=$3
rootfs=$4
init=$5
bindir=$6
musl_loader=$7
shift 7

list=$(mktemp)
trap 'rm -f "$list" "$list.cpio"' EXIT

{
	# Every directory once, parents before children (sort puts a path
	# before its own subdirectories): the fixed ones and those of rootfs/.
	{
		printf '%s\n' /bin /sbin /lib /usr /usr/bin /usr/sbin /usr/lib \
			/usr/lib/krsi /usr/lib/krsi/updates /dev /proc /sys /tmp /run /root /home \
			/home/demo /etc /var
		(cd "$rootfs" && find . -mindepth 1 -type d | sed 's|^\.||')
	} | sort -u | while read -r d; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $busybox 0755 0 0"
	# One symlink per applet, as `busybox --install -s` would make.
	${TARGET_RUN:-} "$busybox" --list-full | while read -r applet; do
		[ "/$applet" = /bin/busybox ] || echo "slink /$applet /bin/busybox 0777 0 0"
	done
	echo "file /init $init 0755 0 0"
	# musl's dynamic loader: every tool is static, but the loader is how a
	# program is run without execve() (the ld.so route no_tmp_exec closes).
	echo "file $musl_loader $(realpath "$musl_loader") 0755 0 0"
	for tool in "$bindir"/*; do
		[ -f "$tool" ] && echo "file /usr/bin/$(basename "$tool") $tool 0755 0 0"
	done
	for tool in "$@"; do
		echo "file /usr/sbin/$(basename "$tool") $tool 0755 0 0"
	done
	for pack in ${KRSI_PACKS:-}; do
		echo "file /usr/lib/krsi/$(basename "$pack") $pack 0644 0 0"
	done
	for pack in ${KRSI_UPDATES:-}; do
		echo "file /usr/lib/krsi/updates/$(basename "$pack") $pack 0644 0 0"
	done
	# rootfs/ files keep their executable bit; everything else is
	# read-only for others.
	(cd "$rootfs" && find . -type f | sort) | while read -r f; do
		mode=0644
		[ -x "$rootfs/$f" ] && mode=0755
		echo "file ${f#.} $rootfs/${f#./} $mode 0 0"
	done
} >"$list"

"$gen_init_cpio" "$list" >"$list.cpio"
gzip -9 -n <"$list.cpio" >"$out"
