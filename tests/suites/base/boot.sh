#!/bin/sh
# The appliance boots into a kernel with what KRSI needs.
. /tests/check.sh

check "boot: procfs mounted" grep -q '^proc /proc proc' /proc/mounts
check "boot: securityfs mounted" grep -q ' /sys/kernel/security securityfs ' /proc/mounts
check "boot: bpffs mounted" grep -q ' /sys/fs/bpf bpf ' /proc/mounts
check "boot: bpffs is root's alone (mode 0700, and the sticky bit bpffs sets): nobody else pins a link" \
	sh -c '[ "$(stat -c %a /sys/fs/bpf)" = 1700 ]'
check_fails "boot: the demo user cannot even look into /sys/fs/bpf" \
	su demo -c 'ls /sys/fs/bpf'
check "boot: kernel BTF present" test -s /sys/kernel/btf/vmlinux
check "boot: mainline bpf LSM active" grep -qw bpf /sys/kernel/security/lsm
check "boot: krsi-kernel-check finds everything" krsi-kernel-check
check "boot: demo user exists" grep -q '^demo:x:1000:' /etc/passwd
check "boot: ran as the test mode" grep -qw krsi.mode=test /proc/cmdline

check_exit
