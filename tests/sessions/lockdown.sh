#!/bin/sh
# arches: x86_64
# kernel: audit-only
# lockdown=integrity is in force while setup_arch() runs: the ACPI table
# the initrd carries (tests/sessions/ssdt.dsl, an uncompressed cpio archive
# before the image) is refused, as on Linux 6.1 without the series;
# booted without lockdown=, the same kernel takes it, which shows that
# the check can see a table taken.  The audit-only kernel has ACPI and
# the lockdown LSM (kernel/audit-only.config).  Consoles:
# DIR/lockdown.integrity.log and DIR/lockdown.none.log.
#
# usage: lockdown.sh (tests/run-tests.sh sets BUILD and DIR)
set -u
. tests/lib/boot.sh

kernel=$BUILD/kernel-audit-only/arch/x86/boot/bzImage
initrd=$DIR/lockdown/initramfs.cpio
probe_boot "$DIR/lockdown.integrity.log" --kernel "$kernel" --initrd "$initrd" \
	--append lockdown=integrity
probe_boot "$DIR/lockdown.none.log" --kernel "$kernel" --initrd "$initrd"
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
