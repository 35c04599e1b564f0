// SPDX-License-Identifier: GPL-2.0
/*
 * no_tmp_exec: only the image's own code runs
 *
 * Enforces: no file is executed, used as an interpreter or mapped
 * executable unless it is part of the appliance's image, the root
 * filesystem that /init made read-only before anything else ran: nothing
 * of /tmp, /dev/shm, /run, a home, a memfd, a tmpfs mounted later or any
 * other filesystem.  No process writes code into another (ptrace,
 * /proc/PID/mem).  Code a process writes into its own memory is wx's
 * concern: with both attached (boot.conf), only the image's code runs.
 * Holds against the demo user, and against root as far as the image goes:
 * nobody makes the root filesystem writable again.
 *
 * Routes to running code, from the 6.1 sources, and what closes each:
 *  - execve(), execveat() (a memfd by descriptor included), and every
 *    binfmt round after them (a script's interpreter, binfmt_misc):
 *    bprm_check_security, which sees each file the kernel resolved.
 *  - mmap(PROT_EXEC) of a file: how ld.so runs a program it is given
 *    (/lib/ld-musl-x86_64.so.1 /tmp/x) and how the ELF loader maps
 *    segments: mmap_file.  prot, not reqprot, so READ_IMPLIES_EXEC counts.
 *  - mprotect(PROT_EXEC) and pkey_mprotect(): file_mprotect.
 *  - writing code into a process, ptrace(PTRACE_POKETEXT) and
 *    /proc/PID/mem (both use FOLL_FORCE to write through read-only text):
 *    ptrace_access_check refuses PTRACE_MODE_ATTACH, which ptrace attach,
 *    /proc/PID/mem, pidfd_getfd() and process_vm_writev() all ask;
 *    ptrace_traceme refuses PTRACE_TRACEME.  The kernel is also built with
 *    proc_mem.force_override=never (kernel/krsi.config).
 *  - the root filesystem made writable again, by mount -o remount,rw /
 *    or by fspick() and fsconfig(FSCONFIG_CMD_RECONFIGURE): both end in
 *    reconfigure_super(), whose sb_remount refuses any remount of it once
 *    it is read-only.  Attached by the kernel before init, the policy
 *    sees the root writable while /init sets up, and lets /init remount
 *    it read-only; until then only /init and what it runs can have
 *    written there (is_image_file(), progs/krsi_policy.h).
 *  - io_uring, userfaultfd, SysV shm, process_vm_writev: not in this
 *    kernel (kernel/krsi.config).
 *
 * Known limits: an interpreter of the image that reads a script (sh
 * /tmp/x.sh, or busybox awk) runs what it reads, which the kernel never
 * sees as code.  Should the root filesystem ever be writable again (root
 * detaching this policy before the lock, say), nothing on it counts as
 * the image any more: every exec is refused rather than new files trusted.
 */
#define POLICY "no_tmp_exec"
#include "krsi_policy.h"

/* The root filesystem's device (set by krsi before load). */
KRSI_CONFIG_DEV(root_dev, "/");
/* The root has been seen read-only (is_image_file()). */
bool root_sealed;

static const unsigned char *name_of(struct file *file)
{
	if (!file)
		return (const unsigned char *)"anonymous memory";
	return BPF_CORE_READ(file, f_path.dentry, d_name.name);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(no_tmp_exec, struct linux_binprm *bprm, int ret)
{
	struct file *file = bprm->file;

	if (ret)
		return ret;
	if (!is_image_file(file, root_dev, &root_sealed))
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
	/* Anonymous memory holds no file's code: that is wx's concern. */
	if ((prot & PROT_EXEC) && file && !is_image_file(file, root_dev, &root_sealed))
		return deny("mmap_file", (const char *)name_of(file), EACCES);
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(no_tmp_mprotect, struct vm_area_struct *vma,
	     unsigned long reqprot, unsigned long prot, int ret)
{
	struct file *file = vma->vm_file;

	if (ret)
		return ret;
	if ((prot & PROT_EXEC) && file && !is_image_file(file, root_dev, &root_sealed))
		return deny("file_mprotect", (const char *)name_of(file), EACCES);
	return 0;
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(no_tmp_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	if (mode & PTRACE_MODE_ATTACH)
		return deny("ptrace_access_check",
			    "attach: could write code into a process", EPERM);
	return 0;
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(no_tmp_traceme, struct task_struct *parent, int ret)
{
	if (ret)
		return ret;
	return deny("ptrace_traceme", "could write code into a process", EPERM);
}

SEC("lsm/sb_remount")
int BPF_PROG(no_tmp_remount, struct super_block *sb, void *mnt_opts, int ret)
{
	if (ret)
		return ret;
	/* Read-only, it stays so; /init makes it so (is_image_file()). */
	if (BPF_CORE_READ(sb, s_dev) == root_dev &&
	    (BPF_CORE_READ(sb, s_flags) & SB_RDONLY))
		return deny("sb_remount", "the image's root filesystem", EPERM);
	return 0;
}
