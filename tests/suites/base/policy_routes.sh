#!/bin/sh
# The hooks that the read-only image hides in the boot suite: booted with
# no policy attached, each policy is attached alone here, so that what it
# refuses is refused by it (and reported), not by EROFS or another policy.
. /tests/check.sh

events=/tmp/policy_routes.events
reported() { grep -q -e "$1" "$events"; }
# What the log records from here on (not the whole log: /tmp is 32 MB).
last=$(krsi events --json -n 1 | sed -n 's/^{"seq":\([0-9]*\),.*/\1/p')
from=$(( ${last:--1} + 1 ))


# no_tmp_exec alone keeps the image read-only.
krsi attach no_tmp_exec >/dev/null
check_fails "no_tmp_exec: mount -o remount,rw / refused" mount -o remount,rw /
check "no_tmp_exec: / still read-only" grep -q "^rootfs / rootfs ro" /proc/mounts
# A policy's events go with its pins: read them before detaching it.
krsi events --seq "$from" -t 1 >"$events" 2>&1
krsi detach no_tmp_exec >/dev/null

# protect_secret alone, on a writable /.
mount -o remount,rw /
krsi attach protect_secret >/dev/null
check_fails "protect_secret: root appends to it" sh -c 'echo x >>/etc/krsi/secret'
check_fails "protect_secret: root truncates it by open" sh -c ': >/etc/krsi/secret'
check_fails "protect_secret: root renames /etc/krsi" mv /etc/krsi /etc/krsi_old
check_fails "protect_secret: root renames /etc" mv /etc /etc_old
check_fails "protect_secret: root removes /etc/krsi" rmdir /etc/krsi
check "protect_secret: the secret is still in place" test -s /etc/krsi/secret
check "protect_secret: other files of /etc/krsi can still be made" \
	sh -c 'echo y >/etc/krsi/other && rm /etc/krsi/other'
krsi events --seq "$from" -t 1 >"$events" 2>&1
krsi detach protect_secret >/dev/null
mount -o remount,ro /
check "/ is read-only again" grep -q "^rootfs / rootfs ro" /proc/mounts

check "reported: no_tmp_exec refused the remount" \
	reported "no_tmp_exec denied EPERM: sb_remount"
check "reported: protect_secret refused opening it for writing" \
	reported "protect_secret denied EPERM: file_open /etc/krsi/secret for writing"
check "reported: protect_secret refused renaming its directories" \
	reported "protect_secret denied EPERM: inode_rename"
check "reported: protect_secret refused removing its directory" \
	reported "protect_secret denied EPERM: inode_rmdir"
# krsi status believes the hook files, not a directory in bpffs.
mkdir -p /sys/fs/bpf/krsi/wx
check "status: an empty pin directory is not an attached policy" \
	sh -c 'krsi status | grep -q "^  wx  *pins only"'
rmdir /sys/fs/bpf/krsi/wx
rm -f "$events"
check_exit
