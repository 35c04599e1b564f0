// SPDX-License-Identifier: GPL-2.0
/*
 * link_other: nobody links a file of another user's
 *
 * Lab 2, audit first, then enforce (labs/2-audit-first/README.md).  The
 * guarantee: nobody makes a hard link to a file whose owner they are
 * not.  Holds against the demo user.
 *
 * Routes the checker tries, as the demo user, to a file of root's in
 * /tmp: link(), linkat() through a symbolic link (AT_SYMLINK_FOLLOW),
 * and linkat() of /proc/self/fd/N, a descriptor of it.  First with the
 * policy attached in audit mode, where each must still work and be
 * reported as what it would deny; then enforcing, where each must fail.
 */
#define POLICY "link_other"
#include "krsi_policy.h"

SEC("lsm/path_link")
int BPF_PROG(link_other, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)	/* an earlier program denied: keep its verdict */
		return ret;
	/*
	 * TODO: the file being linked is old_dentry->d_inode; its owner is
	 * its i_uid.val, the caller bpf_get_current_uid_gid() & 0xffffffff.
	 * When they differ, return deny("path_link", "...", EPERM): in
	 * audit mode deny() reports "would deny" and returns 0, so the
	 * same line serves both modes.
	 */
	return 0;
}
