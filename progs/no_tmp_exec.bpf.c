// SPDX-License-Identifier: GPL-2.0
/*
 * no_tmp_exec: nothing runs from writable temporary places.
 *
 * Enforces: no file on a tmpfs or ramfs other than the root filesystem
 * (so /tmp, /dev/shm, memfds and any tmpfs mounted later) is executed or
 * mapped executable.
 *
 * Hooks, and why each:
 *  - bprm_check_security: execve() and execveat() of such a file, a memfd
 *    passed by descriptor included, and of a script there (the script is
 *    checked before its interpreter).
 *  - mmap_file: PROT_EXEC mappings of such a file, which is how the dynamic
 *    loader runs a program it is given (/lib/ld-musl-x86_64.so.1 /tmp/x)
 *    without any execve() of it.
 *  - file_mprotect: adding PROT_EXEC to an existing mapping of such a file.
 *
 * Known limits: the root filesystem of the appliance is itself a writable
 * tmpfs (the initramfs) and is trusted; an interpreter that reads a script
 * (sh /tmp/x.sh) executes nothing the kernel can see.
 */
#define POLICY "no_tmp_exec"
#include "krsi_policy.h"

/* The root filesystem's device, set by the loader before load. */
const volatile __u32 root_dev;

static bool is_temporary(struct file *file)
{
	struct super_block *sb;
	unsigned long magic;

	if (!file)
		return false;
	sb = BPF_CORE_READ(file, f_inode, i_sb);
	magic = BPF_CORE_READ(sb, s_magic);
	if (magic != TMPFS_MAGIC && magic != RAMFS_MAGIC)
		return false;
	return BPF_CORE_READ(sb, s_dev) != root_dev;
}

static const unsigned char *name_of(struct file *file)
{
	return BPF_CORE_READ(file, f_path.dentry, d_name.name);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(no_tmp_exec, struct linux_binprm *bprm, int ret)
{
	struct file *file = BPF_CORE_READ(bprm, file);

	if (ret)
		return ret;
	if (is_temporary(file))
		return deny("bprm_check_security", (const char *)name_of(file),
			    EACCES);
	return 0;
}

SEC("lsm/mmap_file")
int BPF_PROG(no_tmp_mmap, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	if (ret)
		return ret;
	if ((prot & PROT_EXEC) && is_temporary(file))
		return deny("mmap_file", (const char *)name_of(file), EACCES);
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(no_tmp_mprotect, struct vm_area_struct *vma,
	     unsigned long reqprot, unsigned long prot, int ret)
{
	struct file *file = BPF_CORE_READ(vma, vm_file);

	if (ret)
		return ret;
	if ((prot & PROT_EXEC) && is_temporary(file))
		return deny("file_mprotect", (const char *)name_of(file), EACCES);
	return 0;
}
