// SPDX-License-Identifier: GPL-2.0
/*
 * wx: W^X, no memory is writable and executable, at once or in turn.
 *
 * Enforces: no mapping is created writable and executable; mprotect()
 * never makes a mapping writable and executable, and never makes
 * executable a mapping that is writable, anonymous, or holds privately
 * written pages (code that was written, then flipped to exec).
 *
 * Hooks, and why each:
 *  - mmap_file: mmap() and mmap of the program's segments, anonymous
 *    mappings included (the hook gets a NULL file for those).
 *  - file_mprotect: mprotect() and pkey_mprotect().
 *
 * Known limits: programs that generate code at run time (JITs) do not work
 * under this policy; mremap() of an executable mapping keeps its rights.
 */
#define POLICY "wx"
#include "krsi_policy.h"

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
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(wx_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	unsigned long vm_flags = BPF_CORE_READ(vma, vm_flags);

	if (ret)
		return ret;
	if (is_wx(prot) || is_wx(reqprot))
		return deny("file_mprotect", "writable+executable mapping", EACCES);
	if (!(prot & PROT_EXEC) || (vm_flags & VM_EXEC))
		return 0;
	if (vm_flags & VM_WRITE)
		return deny("file_mprotect", "exec on a writable mapping", EACCES);
	if (!BPF_CORE_READ(vma, vm_file))
		return deny("file_mprotect", "exec on anonymous memory", EACCES);
	if (BPF_CORE_READ(vma, anon_vma))
		return deny("file_mprotect", "exec on written pages", EACCES);
	return 0;
}
