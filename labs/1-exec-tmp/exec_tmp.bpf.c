// SPDX-License-Identifier: GPL-2.0
/*
 * exec_tmp: nothing on /tmp's file system runs
 *
 * Lab 1, a first deny (labs/1-exec-tmp/README.md).  The guarantee: no
 * program on /tmp's file system is executed, by any name that reaches it.
 * Holds against the demo user.
 *
 * Routes the checker tries, as the demo user, each of which must fail
 * with EACCES (and be reported by krsi events):
 *  - /tmp/prog, by its path;
 *  - a symbolic link to it from the demo user's home;
 *  - execveat() of a descriptor of it;
 *  - a script of the home whose #! names it as the interpreter.
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
	/*
	 * TODO: refuse the exec, with deny("bprm_check_security", "...",
	 * EACCES), when the file the kernel is about to run (bprm->file)
	 * is on /tmp's file system: its inode's super block's device is
	 * tmp_dev.  Which name the caller used does not matter here: the
	 * kernel has resolved it, and calls this hook again for a script's
	 * interpreter.
	 */
	return 0;
}
