#!/bin/sh
# The image whose PID 1 is Debian's systemd (tools/build/systemd.sh's
# build), for tests/sessions/systemd.sh: systemd, systemctl, systemd-run,
# journald and journalctl where Debian installs them, the libraries they
# load from Debian's packages (the build's sysroot), the series' libbpf as
# libbpf.so.1, a static busybox for the proof's shell and cat, and the
# units: journald's as systemd ships them, and the proof's
# (krsi-proof.service, which the kernel command line names).  gen_init_cpio
# makes the device nodes and ownership.
#
# usage: image.sh GEN_INIT_CPIO OUT.cpio.gz SYSTEMD_OUT BUSYBOX TRIPLET
set -eu

gen_init_cpio=$1 out=$2 sd=$3 busybox=$4 triplet=$5
here=$(dirname "$0")
build=$sd/build
sysroot=$sd/sysroot
src=$sd/src/tree
libdir=/usr/lib/$triplet

list=$(mktemp)
trap 'rm -f "$list" "$list.cpio"' EXIT

# A shared library of the sysroot, and the name ld.so looks it up by.
lib() {
	for name in "$@"; do
		f=$(ls "$sysroot"/lib/$triplet/$name "$sysroot"/usr/lib/$triplet/$name \
			2>/dev/null | head -n 1)
		[ -n "$f" ] || { echo "image: no $name in $sysroot" >&2; exit 1; }
		echo "file $libdir/$name $(realpath "$f") 0755 0 0"
	done
}

{
	for d in /bin /sbin /lib /usr /usr/bin /usr/sbin /usr/lib $libdir /usr/lib/systemd \
		/usr/lib/systemd/system /etc /etc/systemd /etc/systemd/system /dev /proc \
		/sys /run /tmp /var /var/log /root; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $busybox 0755 0 0"
	# The shell and what the proof and its units run, in /bin and in
	# /usr/bin, which is on systemd's own PATH for units.
	for applet in sh cat grep sed echo uname mkdir ls; do
		echo "slink /bin/$applet /bin/busybox 0777 0 0"
		echo "slink /usr/bin/$applet /bin/busybox 0777 0 0"
	done
	# PID 1, as the kernel runs an initramfs's /init.
	echo "slink /init /usr/lib/systemd/systemd 0777 0 0"
	for f in systemd systemd-journald systemd-shutdown; do
		echo "file /usr/lib/systemd/$f $build/$f 0755 0 0"
	done
	for f in systemctl systemd-run journalctl; do
		echo "file /usr/bin/$f $build/$f 0755 0 0"
	done
	# Found where ld.so looks by default: the build's own RUNPATH points
	# into the build tree, which the image does not have.
	echo "file $libdir/libsystemd-shared-252.so $build/src/shared/libsystemd-shared-252.so 0755 0 0"
	echo "file $libdir/libsystemd-core-252.so $build/src/core/libsystemd-core-252.so 0755 0 0"
	echo "file $libdir/libbpf.so.1 $sd/libbpf/libbpf.so.1 0755 0 0"
	lib libc.so.6 libm.so.6 libmount.so.1 libblkid.so.1 libselinux.so.1 \
		libpcre2-8.so.0 libcap.so.2 libcrypt.so.1 libelf.so.1 libz.so.1 \
		libgcc_s.so.1
	# The system bus, which systemd-run --wait needs (a direct link to
	# PID 1 does not take its references): Debian's dbus-daemon.
	lib libdbus-1.so.3 libexpat.so.1 libaudit.so.1 libcap-ng.so.0 \
		libapparmor.so.1 libsystemd.so.0 liblzma.so.5 libzstd.so.1 \
		liblz4.so.1 libgcrypt.so.20 libgpg-error.so.0
	echo "dir /usr/share 0755 0 0"
	echo "dir /usr/share/dbus-1 0755 0 0"
	echo "file /usr/bin/dbus-daemon $sysroot/usr/bin/dbus-daemon 0755 0 0"
	echo "file /usr/share/dbus-1/system.conf $sysroot/usr/share/dbus-1/system.conf 0644 0 0"
	# What lets PID 1 own its name on the bus, as systemd ships it.
	echo "dir /usr/share/dbus-1/system.d 0755 0 0"
	echo "file /usr/share/dbus-1/system.d/org.freedesktop.systemd1.conf $src/src/core/org.freedesktop.systemd1.conf 0644 0 0"
	for u in dbus.service dbus.socket; do
		echo "file /usr/lib/systemd/system/$u $sysroot/lib/systemd/system/$u 0644 0 0"
	done
	ld=$(basename "$(ls "$sysroot"/lib/$triplet/ld-linux-*.so.* | head -n 1)")
	echo "file $libdir/$ld $(realpath "$sysroot/lib/$triplet/$ld") 0755 0 0"
	echo "slink /lib/$ld $libdir/$ld 0777 0 0"
	# The targets every unit with default dependencies orders itself
	# by (sysinit, basic, sockets, shutdown, poweroff...), as systemd
	# ships them, and journald's units.
	for u in "$src"/units/*.target; do
		echo "file /usr/lib/systemd/system/$(basename "$u") $u 0644 0 0"
	done
	echo "file /usr/lib/systemd/system/systemd-journald.service $build/units/systemd-journald.service 0644 0 0"
	for u in systemd-journald.socket systemd-journald-dev-log.socket \
		systemd-journald-audit.socket; do
		echo "file /usr/lib/systemd/system/$u $src/units/$u 0644 0 0"
	done
	echo "file /etc/systemd/system/krsi-proof.service $here/krsi-proof.service 0644 0 0"
	echo "file /usr/bin/krsi-proof $here/proof.sh 0755 0 0"
	echo "file /etc/os-release $here/os-release 0644 0 0"
	echo "file /etc/passwd $here/passwd 0644 0 0"
	echo "file /etc/group $here/group 0644 0 0"
} >"$list"

"$gen_init_cpio" "$list" >"$list.cpio"
gzip -9 -n <"$list.cpio" >"$out"
