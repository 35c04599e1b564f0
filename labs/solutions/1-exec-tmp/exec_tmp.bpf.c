// SPDX-License-Identifier: GPL-2.0
/*
 * exec_tmp: nothing on /tmp's file system runs
 *
 * Lab 1's solution (labs/1-exec-tmp/README.md).  The kernel resolves
 * every name (a path, a symbolic link, /proc/self/fd/N, a descriptor
 * given to execveat()) to the file it runs, and calls
 * bprm_check_security with that file, once for the program and again
 * for each interpreter a script names: so the file's file system is all
 * the hook needs to look at, never a name.
 */
#define POLICY "exec_tmp"
#include "krsi_policy.h"

/* /tmp's file system (set by krsi before load, as "/tmp" is then). */
KRSI_CONFIG_DEV(tmp_dev, "/tmp");

SEC("lsm/bprm_check_security")
int BPF_PROG(exec_tmp, struct linux_binprm *bprm, int ret)
{
	if (ret)	/* an earlier program denied: keep its verdict */
		return ret;
	if (bprm->file->f_inode->i_sb->s_dev == tmp_dev)
		return deny("bprm_check_security", "a program on /tmp", EACCES);
	return 0;
}
