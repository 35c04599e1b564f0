#!/bin/sh
# Debian 12's systemd, built from Debian's own source package for ARCH
# with its BPF framework (-Dbpf-framework=true, which Debian's binary
# package is built without), and the series' libbpf as libbpf.so.1, the
# library systemd dlopen()s: what a user would build to run systemd's
# RestrictFileSystems= on a KRSI kernel.  No systemd source is changed.
#
# Into OUT: src/ (the source, fetched once), sysroot/ (ARCH's libraries
# and headers, from Debian's packages, as tools/build/fetch-debs.sh
# unpacks them), build/ (meson's), and the targets PID 1, systemctl,
# systemd-run, journald and journalctl need; libbpf/ (the series').
#
# usage: systemd.sh ARCH KSRC OUT
set -eu

arch=$1 ksrc=$2 out=$3

die() { echo "systemd: $*" >&2; exit 1; }

case $arch in
arm64) triplet=aarch64-linux-gnu cpu_family=aarch64 kernel_arch=arm64 ;;
x86_64) triplet=x86_64-linux-gnu cpu_family=x86_64 kernel_arch=x86 ;;
*) die "ARCH=$arch: arm64 or x86_64" ;;
esac
mkdir -p "$out"
out=$(realpath "$out")

# The source: Debian's systemd for bookworm, fetched with an apt of its
# own (deb-src lines of its own, lists of its own), so that the host's
# apt configuration is not touched.
src=$out/src
if [ ! -d "$src/tree" ]; then
	echo "  FETCH   systemd source (bookworm)"
	rm -rf "$src"
	mkdir -p "$src/apt/lists/partial" "$src/apt/cache/archives/partial"
	cat >"$src/apt/sources.list" <<-EOF
	deb-src http://deb.debian.org/debian bookworm main
	deb-src http://deb.debian.org/debian bookworm-updates main
	deb-src http://deb.debian.org/debian-security bookworm-security main
	EOF
	set -- -q=2 -o Dir::Etc::SourceList="$src/apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$src/apt/lists" \
		-o Dir::Cache="$src/apt/cache" -o Debug::NoLocking=1
	apt-get "$@" update >/dev/null || die "apt-get update of the deb-src lines failed"
	(cd "$src" && apt-get "$@" source systemd >/dev/null 2>&1) ||
		die "apt-get source systemd failed"
	mv "$src"/systemd-*/ "$src/tree"
	echo "$(cd "$src" && ls ./*.dsc | sed 's|^\./||')" >"$src/dsc"
fi

# ARCH's libraries and headers: what systemd links with, what it needs
# at run time, and libbpf's headers, which its build reads; and Debian's
# D-Bus daemon with what it loads, which systemd-run --wait talks to PID 1
# through (the image takes it from here too).
sysroot=$out/sysroot
packages="libc6 libc6-dev libgcc-s1 linux-libc-dev libcap2 libcap-dev
	libmount1 libmount-dev libblkid1 libblkid-dev libselinux1
	libselinux1-dev libsepol2 libsepol-dev libpcre2-8-0 libpcre2-dev
	libcrypt1 libcrypt-dev libbpf1 libbpf-dev libelf1 libelf-dev
	zlib1g zlib1g-dev
	dbus dbus-daemon dbus-bin dbus-system-bus-common dbus-session-bus-common
	libdbus-1-3 libexpat1 libapparmor1 libaudit1 libcap-ng0 libsystemd0
	liblzma5 libzstd1 liblz4-1 libgcrypt20 libgpg-error0"
if [ "$(cat "$sysroot.packages" 2>/dev/null)" != "$packages" ]; then
	echo "  DEBS    $sysroot"
	# shellcheck disable=SC2086 # the list is meant to split
	tools/build/fetch-debs.sh "$arch" "$sysroot" $packages
	echo "$packages" >"$sysroot.packages"
fi

# The series' libbpf, built for ARCH as a shared library with its
# soname, libbpf.so.1: a drop-in for Debian 12's libbpf1 (both 1.1).
echo "  LIBBPF  $out/libbpf/libbpf.so"
mkdir -p "$out/libbpf"
make -s -C "$ksrc/tools/lib/bpf" ARCH="$kernel_arch" CROSS_COMPILE="$triplet-" \
	CC="ccache $triplet-gcc --sysroot=$sysroot" \
	OUTPUT="$out/libbpf/" "$out/libbpf/libbpf.so" >"$out/libbpf.log" 2>&1 ||
	{ tail -n 20 "$out/libbpf.log" >&2; die "libbpf failed (see $out/libbpf.log)"; }

# 252's src/core/bpf/meson.build gives clang the target's multiarch
# headers (asm/types.h) only in a native build: a wrapper adds them.
cat >"$out/clang-bpf" <<EOF
#!/bin/sh
exec clang -isystem $sysroot/usr/include/$triplet "\$@"
EOF
chmod +x "$out/clang-bpf"
cat >"$out/cross.ini" <<EOF
[binaries]
c = ['ccache', '$triplet-gcc', '--sysroot=$sysroot']
ar = '$triplet-ar'
strip = '$triplet-strip'
pkgconfig = 'pkg-config'
clang = '$out/clang-bpf'
llvm-strip = 'llvm-strip'
bpftool = 'bpftool'

[properties]
sys_root = '$sysroot'
pkg_config_libdir = '$sysroot/usr/lib/$triplet/pkgconfig:$sysroot/usr/share/pkgconfig'

[host_machine]
system = 'linux'
cpu_family = '$cpu_family'
cpu = '$cpu_family'
endian = 'little'
EOF

# As little as PID 1, systemctl, systemd-run and the journal need: 252
# has no meson features, so every optional part is turned off by name.
off=
for o in acl apparmor audit blkid bzip2 dbus elfutils fdisk gcrypt glib \
	gnutls gnu-efi homed html importd kmod libcryptsetup \
	libcryptsetup-plugins libcurl libfido2 libidn libidn2 libiptc lz4 man \
	microhttpd nss-mymachines nss-resolve openssl p11kit pam pcre2 polkit \
	pwquality qrencode remote repart seccomp selinux sysupdate tpm2 \
	xkbcommon xz zlib zstd analyze backlight binfmt coredump efi \
	environment-d firstboot hibernate hostnamed hwdb idn ima kernel-install \
	ldconfig localed logind machined networkd nss-myhostname nss-systemd \
	oomd portabled pstore quotacheck randomseed resolve rfkill smack sysext \
	sysusers timedated timesyncd tmpfiles tpm userdb utmp vconsole \
	xdg-autostart translations nscd create-log-dirs; do
	off="$off -D$o=false"
done
options="--cross-file $out/cross.ini -Dbpf-framework=true -Dtests=false -Dmode=release$off"
if [ "$(cat "$out/build.options" 2>/dev/null)" != "$options" ]; then
	echo "  MESON   $out/build"
	rm -rf "$out/build"
	# shellcheck disable=SC2086 # the options are meant to split
	meson setup "$out/build" "$src/tree" $options >"$out/meson.log" 2>&1 ||
		{ tail -n 20 "$out/meson.log" >&2; die "meson setup failed (see $out/meson.log)"; }
	grep -q "^ *bpf-framework *: true" "$out/meson.log" ||
		die "meson did not turn the BPF framework on (see $out/meson.log)"
	echo "$options" >"$out/build.options"
fi
echo "  NINJA   systemd, systemctl, systemd-run, journald, journalctl"
ninja -C "$out/build" systemd systemctl systemd-run systemd-journald journalctl \
	systemd-shutdown units/systemd-journald.service >"$out/ninja.log" 2>&1 ||
	{ tail -n 20 "$out/ninja.log" >&2; die "ninja failed (see $out/ninja.log)"; }
