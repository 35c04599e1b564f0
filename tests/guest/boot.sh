#!/bin/sh
# The appliance boots into a kernel with what KRSI needs.
. /tests/lib.sh

check "boot: procfs mounted" grep -q '^proc /proc proc' /proc/mounts
check "boot: securityfs mounted" grep -q ' /sys/kernel/security securityfs ' /proc/mounts
check "boot: bpffs mounted" grep -q ' /sys/fs/bpf bpf ' /proc/mounts
check "boot: kernel BTF present" test -s /sys/kernel/btf/vmlinux
check "boot: mainline bpf LSM active" grep -qw bpf /sys/kernel/security/lsm
check "boot: krsi-check finds everything" krsi-check
check "boot: demo user exists" grep -q '^demo:x:1000:' /etc/passwd
check "boot: ran as the test mode" grep -qw krsi.mode=test /proc/cmdline

check_exit
