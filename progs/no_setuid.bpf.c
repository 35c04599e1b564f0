// SPDX-License-Identifier: GPL-2.0
/*
 * no_setuid: no file is made set-user-ID, by anyone, root included
 *
 * The policy of README's "Write your first policy": two hooks, one rule.
 * A set-user-ID program runs with its owner's rights whoever starts it,
 * so making one is how a foothold becomes a lasting way back to root.
 *
 * Routes to a set-user-ID file, from the 6.1 sources, and what closes
 * each:
 *  - chmod(), fchmod(), fchmodat(): all go through chmod_common(), which
 *    asks path_chmod with the new mode.
 *  - creating a file with S_ISUID in its mode: open(O_CREAT) asks
 *    path_mknod from may_o_create(), mknod() asks it from do_mknodat().
 *
 * Known limits: a file that is already set-user-ID keeps its bit (the
 * image has none; tests/check-image.sh would show one); a file system
 * mounted with set-user-ID files on it (krsi_lock refuses mounts once
 * locked); file capabilities (security.capability), another way to the
 * same end, are not this policy's.
 */
#define POLICY "no_setuid"
#include "krsi_policy.h"

#define S_ISUID	04000

SEC("lsm/path_chmod")
int BPF_PROG(setuid_chmod, const struct path *path, umode_t mode, int ret)
{
	if (ret)
		return ret;
	if (mode & S_ISUID)
		return deny("path_chmod", "set-user-ID bit", EPERM);
	return 0;
}

SEC("lsm/path_mknod")
int BPF_PROG(setuid_create, const struct path *dir, struct dentry *dentry,
	     umode_t mode, unsigned int dev, int ret)
{
	if (ret)
		return ret;
	if (mode & S_ISUID)
		return deny("path_mknod", "set-user-ID bit", EPERM);
	return 0;
}
