#!/bin/sh
# arches: x86_64
# kernel: appliance
# The appliance's kernel carries its boot policies (patch 0024) and does
# not run without them: a command line may add policies (the signed and
# boot suites add protect_log with krsi.policies=), but one whose lsm=
# leaves KRSI out, whose initcall_blacklist= skips the initcall that
# attaches them, or whose init= or rdinit= names another init, stops the
# boot before init.  The blacklist is not looked at by name (under LTO
# the initcall is a stub of another name): the kernel finds, before the
# first exec, that the policies are not attached.  An initramfs whose
# /init cannot run (a directory, appended as a second archive over the
# image's) stops it too, rather than let the kernel run /sbin/init from
# it.  Booted as it is, it says how many programs it attached before
# init.  Consoles: DIR/cmdline.NAME.log.
#
# usage: cmdline.sh (tests/run-tests.sh sets DIR)
set -u
. tests/lib/boot.sh

probe_boot "$DIR/cmdline.plain.log"
probe_boot "$DIR/cmdline.lsm.log" --append lsm=capability
probe_boot "$DIR/cmdline.blacklist.log" --append initcall_blacklist=krsi_boot_policies_load
probe_boot "$DIR/cmdline.rdinit.log" --append rdinit=/bin/sh
# The image's initramfs, then an archive that makes /init a directory.
echo "dir /init 0755 0 0" | "$BUILD/gen_init_cpio" - | gzip -n >"$DIR/cmdline.noinit.cpio.gz" &&
	cat image/initramfs.cpio.gz "$DIR/cmdline.noinit.cpio.gz" >"$DIR/cmdline.badinit.cpio.gz"
probe_boot "$DIR/cmdline.badinit.log" --initrd "$DIR/cmdline.badinit.cpio.gz"

log=$DIR/cmdline.plain.log
if grep -q "init: probe ok" "$log" &&
	grep -q "krsi: [1-9][0-9]* programs of 7 policies attached before init" "$log"; then
	echo "ok cmdline: as built, the kernel attaches its 7 boot policies, then runs init"
else
	echo "not ok cmdline: the plain boot did not attach 7 policies and reach init (see $log)"
fi
kernel_reports cmdline "$log"
for what in lsm blacklist rdinit badinit; do
	log=$DIR/cmdline.$what.log
	if grep -q "init: probe ok\|reached /init\|^/ # " "$log"; then
		echo "not ok cmdline: $what: init ran without the boot policies (see $log)"
	else
		echo "ok cmdline: $what: the boot stops before init"
	fi
done
if grep -q "krsi: this kernel carries boot policies, and KRSI is not enabled (lsm=, or CONFIG_LSM, leaves it out)" \
	"$DIR/cmdline.lsm.log"; then
	echo "ok cmdline: lsm=capability: the panic says why"
else
	echo "not ok cmdline: lsm=capability: no panic naming lsm= (see $DIR/cmdline.lsm.log)"
fi
if grep -q "krsi: this kernel carries boot policies, and would run another init than its initramfs.s /init (init=, rdinit=, or no /init)" \
	"$DIR/cmdline.rdinit.log"; then
	echo "ok cmdline: rdinit=/bin/sh: the panic says why"
else
	echo "not ok cmdline: rdinit=/bin/sh: no panic naming init= (see $DIR/cmdline.rdinit.log)"
fi
if grep -q "krsi: this kernel carries boot policies, and its init /init failed (error -13): no other runs" \
	"$DIR/cmdline.badinit.log"; then
	echo "ok cmdline: /init a directory: the panic says why, and /sbin/init never ran"
else
	echo "not ok cmdline: /init a directory: no panic naming /init (see $DIR/cmdline.badinit.log)"
fi
if grep -q "krsi: this kernel carries boot policies, and they were not attached before init (initcall_blacklist=, or their initcall did not run)" \
	"$DIR/cmdline.blacklist.log"; then
	echo "ok cmdline: initcall_blacklist=krsi_boot_policies_load: the panic says why"
else
	echo "not ok cmdline: initcall_blacklist=: no panic naming it (see $DIR/cmdline.blacklist.log)"
fi
