// SPDX-License-Identifier: GPL-2.0
/*
 * wx: W^X, no writable memory is ever executable
 *
 * Enforces: no page a process can write, or could write through another
 * mapping or descriptor, is ever executable.  No mapping is created or
 * made writable and executable; nothing anonymous is executable; a file
 * is mapped executable only from a read-only filesystem (the image), so
 * no second mapping or descriptor can change the code under it; private
 * pages written by the process never become executable; no process
 * writes into another's memory (ptrace, /proc/PID/mem); no program starts
 * with READ_IMPLIES_EXEC, which would make every readable mapping, the
 * heap included, executable.  Against the demo user.
 *
 * Routes to memory that is writable and executable, from the 6.1 sources,
 * and what closes each:
 *  - mmap() of anything, anonymous memory and MAP_SHARED /dev/zero
 *    included (the hook gets a NULL file for both), and the ELF loader's
 *    segments: mmap_file, on prot (reqprot plus READ_IMPLIES_EXEC).
 *  - mprotect() and pkey_mprotect(): file_mprotect.
 *  - a file mapped twice, once writable and once executable: a memfd, a
 *    tmpfs file, or a shared anonymous mapping duplicated with mremap(old
 *    size 0): executable mappings only of files on a read-only
 *    filesystem, and shared anonymous memory is never executable.
 *  - writing into another process: ptrace(PTRACE_POKETEXT, POKEDATA,
 *    SETREGS), /proc/PID/mem, pidfd_getfd(), process_vm_writev(): all
 *    ask ptrace_access_check with PTRACE_MODE_ATTACH, refused here, and
 *    PTRACE_TRACEME asks ptrace_traceme.
 *  - writing into one's own code through /proc/self/mem (dd of=... with
 *    busybox alone), which asks no ptrace hook at all: file_open refuses
 *    any /proc/PID/mem opened for writing.  The kernel is also built with
 *    proc_mem.force_override=never, so such writes never override page
 *    protections.
 *  - personality(READ_IMPLIES_EXEC), kept across exec: the heap (brk)
 *    and every later PROT_READ mapping become executable without any
 *    hook seeing brk: bprm_check_security refuses to start a program
 *    under it.
 *
 * Known limits: programs that generate code at run time (JITs) do not
 * work.  A process that sets READ_IMPLIES_EXEC itself and then grows its
 * heap with brk() gets an executable heap: no LSM hook sees personality()
 * or brk() in 6.1 (vm_enough_memory is not open to BPF), and only a
 * program that already runs code of the attacker's would do it, which
 * this policy and no_tmp_exec prevent.  An ELF file asking for an
 * executable stack (PT_GNU_STACK RWX), or with a writable and executable
 * segment that the loader fills with vm_brk_flags(), gets that memory
 * from the kernel without a hook; no program of the image does (make test
 * checks: tests/checks/image.sh), and no_tmp_exec keeps every other
 * program out.
 */
#define POLICY "wx"
#include "krsi_policy.h"

/* The root filesystem's device (set by krsi before load). */
KRSI_CONFIG_DEV(root_dev, "/");
/* The root has been seen read-only (is_image_file()). */
bool root_sealed;

static bool is_wx(unsigned long prot)
{
	return (prot & (PROT_WRITE | PROT_EXEC)) == (PROT_WRITE | PROT_EXEC);
}

SEC("lsm/mmap_file")
int BPF_PROG(wx_mmap, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	if (ret)
		return ret;
	if (is_wx(prot) || is_wx(reqprot))
		return deny("mmap_file", "writable+executable mapping", EACCES);
	if (!(prot & PROT_EXEC))
		return 0;
	if (!file)
		return deny("mmap_file", "executable anonymous memory", EACCES);
	if (!is_image_file(file, root_dev, &root_sealed))
		return deny("mmap_file", "executable mapping of a writable file",
			    EACCES);
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(wx_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	unsigned long vm_flags;
	struct file *file;

	if (ret)
		return ret;
	/* Direct loads through BTF pointers: this runs on every mprotect(). */
	vm_flags = vma->vm_flags;
	file = vma->vm_file;
	if (is_wx(prot) || is_wx(reqprot))
		return deny("file_mprotect", "writable+executable mapping", EACCES);
	if (!(prot & PROT_EXEC) || (vm_flags & VM_EXEC))
		return 0;
	if (vm_flags & VM_WRITE)
		return deny("file_mprotect", "exec on a writable mapping", EACCES);
	if (!file)
		return deny("file_mprotect", "exec on anonymous memory", EACCES);
	if (!is_image_file(file, root_dev, &root_sealed))
		return deny("file_mprotect", "exec on a writable file", EACCES);
	if (BPF_CORE_READ(vma, anon_vma))
		return deny("file_mprotect", "exec on written pages", EACCES);
	return 0;
}

#define PROC_SUPER_MAGIC	0x9fa0

/* /proc/PID/mem or /proc/PID/task/TID/mem. */
static bool is_proc_mem(struct file *file)
{
	struct dentry *dentry = BPF_CORE_READ(file, f_path.dentry);
	char name[4];

	if (BPF_CORE_READ(dentry, d_sb, s_magic) != PROC_SUPER_MAGIC)
		return false;
	if (bpf_probe_read_kernel_str(name, sizeof(name),
				      BPF_CORE_READ(dentry, d_name.name)) != 4)
		return false;
	return name[0] == 'm' && name[1] == 'e' && name[2] == 'm';
}

static __noinline int proc_mem_write(struct file *file)
{
	if (is_proc_mem(file))
		return deny("file_open", "/proc/PID/mem for writing", EACCES);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(wx_proc_mem, struct file *file, int ret)
{
	if (ret)
		return ret;
	/* file_open runs on every open: f_mode by a direct load, and the
	 * rest out of line, so that an open for reading costs this test.
	 */
	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	return proc_mem_write(file);
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(wx_ptrace, struct task_struct *child, unsigned int mode, int ret)
{
	if (ret)
		return ret;
	if (mode & PTRACE_MODE_ATTACH)
		return deny("ptrace_access_check",
			    "attach: could write another process's memory",
			    EPERM);
	return 0;
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(wx_traceme, struct task_struct *parent, int ret)
{
	if (ret)
		return ret;
	return deny("ptrace_traceme", "could write another process's memory",
		    EPERM);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(wx_exec, struct linux_binprm *bprm, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (ret)
		return ret;
	if (task->personality & READ_IMPLIES_EXEC)
		return deny("bprm_check_security",
			    "READ_IMPLIES_EXEC: every mapping executable", EACCES);
	return 0;
}
