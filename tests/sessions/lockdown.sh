#!/bin/sh
# arches: arm64
# kernel: mainline
# lockdown=integrity is in force while setup_arch() runs: the ACPI table
# the initrd carries (tests/sessions/ssdt.dsl, an uncompressed cpio archive
# before the image) is refused, as on Linux 6.1 without the series;
# booted without lockdown=, the same kernel takes it, which shows that
# the check can see a table taken.  The kernel with ACPI and the lockdown
# LSM is arm64's mainline variant (kernel/mainline.config), booted
# through QEMU's UEFI firmware, which gives it the ACPI tables.  The
# series calls early_security_init() from each architecture's
# setup_arch(), so this boot checks arm64's call; x86_64's
# (arch/x86/kernel/setup.c) is booted by no kernel of `make test`, whose
# x86_64 kernels have neither ACPI nor the lockdown LSM: the kernel that
# had them cost a quarter of the budget (docs/measurements.md).  Consoles:
# DIR/lockdown.integrity.log and DIR/lockdown.none.log.
#
# usage: lockdown.sh (tests/run-tests.sh sets BUILD and DIR)
set -u
. tests/lib/boot.sh

set -- --arch arm64 --efi --kernel "$BUILD/kernel-mainline/arch/arm64/boot/Image"
set -- "$@" --initrd "$DIR/lockdown/initramfs.cpio"
probe_boot "$DIR/lockdown.integrity.log" "$@" --append lockdown=integrity
probe_boot "$DIR/lockdown.none.log" "$@"
if [ "$(acpi_table "$DIR/lockdown.integrity.log")" = refused ]; then
	echo "ok lockdown: lockdown=integrity refuses the initrd's ACPI table in setup_arch()"
else
	echo "not ok lockdown: lockdown=integrity did not refuse the initrd's ACPI table"
fi
if [ "$(acpi_table "$DIR/lockdown.none.log")" = taken ]; then
	echo "ok lockdown: without lockdown= the kernel takes the initrd's ACPI table"
else
	echo "not ok lockdown: without lockdown= the initrd's ACPI table was not taken (is the test blind?)"
fi
for log in "$DIR/lockdown.integrity.log" "$DIR/lockdown.none.log"; do
	if grep -q "init: probe ok" "$log"; then
		echo "ok lockdown: $(basename "$log") booted to /init"
	else
		echo "not ok lockdown: $(basename "$log") did not reach /init"
	fi
	kernel_reports lockdown "$log"
done
