# Sourced by what boots Debian 12's own arm64 kernel, Linux 6.1 without
# the series (tests/selftests/debian.sh, tests/sessions/systemd.sh):
#
#   debian_kernel WORKDIR
#	The kernel package linux-image-arm64 stands for, downloaded and
#	unpacked into WORKDIR once: its image in $debian_kernel, the
#	package and its version in $debian_package.  Fails, saying why,
#	when apt cannot give it (make ARCH=arm64 deps).
debian_kernel() {
	_pkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1[^ :]*\).*/\1/p' | head -n 1)
	if [ -z "$_pkg" ]; then
		echo "debian-kernel: no linux-image-arm64:arm64 in apt (make ARCH=arm64 deps)" >&2
		return 1
	fi
	mkdir -p "$1"
	if [ ! -e "$1/$_pkg.unpacked" ]; then
		rm -rf "$1/root" "$1"/*.deb
		(cd "$1" && apt-get download -q=2 "$_pkg:arm64") ||
			{ echo "debian-kernel: cannot download $_pkg:arm64" >&2; return 1; }
		dpkg-deb -x "$1"/*.deb "$1/root" ||
			{ echo "debian-kernel: cannot unpack $_pkg" >&2; return 1; }
		: >"$1/$_pkg.unpacked"
	fi
	debian_kernel=$(echo "$1"/root/boot/vmlinuz-*)
	debian_package="$_pkg ($(dpkg-deb -f "$1"/*.deb Version))"
	[ -r "$debian_kernel" ] ||
		{ echo "debian-kernel: no kernel in $_pkg" >&2; return 1; }
}
