// SPDX-License-Identifier: GPL-2.0
/*
 * link_other: nobody links a file of another user's
 *
 * Lab 2's solution (labs/2-audit-first/README.md).  Every way to make a
 * hard link, link(), linkat() with or without AT_SYMLINK_FOLLOW, and of
 * a descriptor through /proc/self/fd/N, ends in do_linkat(), which asks
 * path_link with the dentry of the file itself, whatever name led to
 * it.  deny() reads the policy's mode: in audit mode it reports "would
 * deny" and returns 0.
 */
#define POLICY "link_other"
#include "krsi_policy.h"

SEC("lsm/path_link")
int BPF_PROG(link_other, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	__u32 uid = bpf_get_current_uid_gid() & 0xffffffff;

	if (ret)	/* an earlier program denied: keep its verdict */
		return ret;
	if (old_dentry->d_inode->i_uid.val != uid)
		return deny("path_link", "a link to another user's file", EPERM);
	return 0;
}
