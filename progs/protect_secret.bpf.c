// SPDX-License-Identifier: GPL-2.0
/*
 * protect_secret: one file only root and one named program may read.
 *
 * Enforces: /etc/krsi/secret (whatever name it is reached by) is opened
 * only by root or by a process running /usr/bin/krsi-secret; nobody, root
 * included, renames, links, unlinks, truncates or chmods/chowns it.
 *
 * Hooks, and why each:
 *  - file_open: every open, by any path, hard link or /proc/self/fd;
 *    the file is known by its device and inode, not its name.
 *  - inode_rename, inode_link, inode_unlink: moving it away or giving it a
 *    second name would take it out of place (the policy follows the inode,
 *    but the rest of the system looks for it by name).
 *  - inode_setattr: chmod, chown and truncate.
 *
 * The program is recognised by the file it runs (mm->exe_file), not by its
 * name, which any process can set with prctl(PR_SET_NAME).
 *
 * Known limits: a reader that was allowed may pass the content on; the
 * device and inode numbers are taken when the policy is attached, so a
 * secret that is replaced afterwards is not protected.
 */
#define POLICY "protect_secret"
#include "krsi_policy.h"

/* Set by the loader before load: the secret and the one allowed program. */
const volatile __u32 secret_dev;
const volatile __u64 secret_ino;
const volatile __u32 reader_dev;
const volatile __u64 reader_ino;

static bool is_secret(struct inode *inode)
{
	if (!inode)
		return false;
	return BPF_CORE_READ(inode, i_ino) == secret_ino &&
	       BPF_CORE_READ(inode, i_sb, s_dev) == secret_dev;
}

static bool runs_reader(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct inode *exe = BPF_CORE_READ(task, mm, exe_file, f_inode);

	return exe && BPF_CORE_READ(exe, i_ino) == reader_ino &&
	       BPF_CORE_READ(exe, i_sb, s_dev) == reader_dev;
}

SEC("lsm/file_open")
int BPF_PROG(secret_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	if (!is_secret(BPF_CORE_READ(file, f_inode)))
		return 0;
	if ((__u32)bpf_get_current_uid_gid() == 0 || runs_reader())
		return 0;
	return deny("file_open", "/etc/krsi/secret", EACCES);
}

SEC("lsm/inode_rename")
int BPF_PROG(secret_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	if (is_secret(BPF_CORE_READ(old_dentry, d_inode)) ||
	    is_secret(BPF_CORE_READ(new_dentry, d_inode)))
		return deny("inode_rename", "/etc/krsi/secret", EPERM);
	return 0;
}

SEC("lsm/inode_link")
int BPF_PROG(secret_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	if (is_secret(BPF_CORE_READ(old_dentry, d_inode)))
		return deny("inode_link", "/etc/krsi/secret", EPERM);
	return 0;
}

SEC("lsm/inode_unlink")
int BPF_PROG(secret_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	if (is_secret(BPF_CORE_READ(dentry, d_inode)))
		return deny("inode_unlink", "/etc/krsi/secret", EPERM);
	return 0;
}

SEC("lsm/inode_setattr")
int BPF_PROG(secret_setattr, struct dentry *dentry, struct iattr *attr,
	     int ret)
{
	if (ret)
		return ret;
	if (is_secret(BPF_CORE_READ(dentry, d_inode)))
		return deny("inode_setattr", "/etc/krsi/secret", EPERM);
	return 0;
}
