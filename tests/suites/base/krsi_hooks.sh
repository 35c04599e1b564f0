#!/bin/sh
# KRSI is an active LSM with one file per attachable hook in securityfs.
. /tests/check.sh

dir=/sys/kernel/security/bpf

check "hooks: krsi is an active LSM" grep -qw krsi /sys/kernel/security/lsm
check "hooks: mainline bpf LSM active beside it" grep -qw bpf /sys/kernel/security/lsm
check "hooks: the LSM announces it enforces" \
	sh -c 'dmesg | grep -q "krsi: [0-9]* hooks, enforcing"'
check "hooks: $dir is a directory" test -d $dir
check "hooks: /sys/kernel/security/krsi/mode says enforcing" \
	sh -c 'test "$(cat /sys/kernel/security/krsi/mode)" = enforcing'
check "hooks: and everyone may read it" \
	sh -c 'test "$(stat -c %a /sys/kernel/security/krsi/mode)" = 444'

# The files are exactly the hooks that an LSM program may attach to, as
# worked out on the host from the kernel's sources and BTF.
ls $dir >/tmp/hooks.present
check "hooks: one file per attachable hook ($(wc -l </tmp/hooks.present) of $(wc -l </tests/expected-hooks))" \
	cmp -s /tmp/hooks.present /tests/expected-hooks
check "hooks: the count in dmesg matches" \
	sh -c "dmesg | grep -q \"krsi: $(wc -l </tests/expected-hooks) hooks\""
check "hooks: every file is 0600 root:root" \
	sh -c "test -z \"\$(find $dir -type f ! -perm 600)\" &&
	       test -z \"\$(find $dir -type f ! -user 0)\" &&
	       test -z \"\$(find $dir -type f ! -group 0)\""
for hook in file_open bprm_check_security file_mprotect mmap_file task_kill \
	    kernel_read_file task_prctl file_set_fowner; do
	check "hooks: $hook has a file" test -f $dir/$hook
done
# Refused by bpf_lsm_verify_prog(): no file, and not registered at all.
for hook in vm_enough_memory inode_getsecurity inode_listsecurity \
	    getprocattr setprocattr ismaclabel; do
	check_fails "hooks: $hook has no file" test -e $dir/$hook
done
check "hooks: a hook file reads empty with no program" \
	sh -c "test -z \"\$(cat $dir/file_open)\""
check_fails "hooks: a hook file cannot be written" \
	sh -c "echo x >$dir/file_open"

check_exit
