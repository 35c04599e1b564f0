// SPDX-License-Identifier: GPL-2.0
/*
 * no_setuid: no file is made set-user-ID, root included
 *
 * The policy of README's "Write your first policy": four hooks, one rule.
 * A set-user-ID program runs with its owner's rights whoever starts it,
 * so making one is how a foothold becomes a lasting way back to root.
 *
 * Routes to a set-user-ID file, from the 6.1 sources, and what closes
 * each:
 *  - chmod(), fchmod(), fchmodat(): all go through chmod_common(), which
 *    asks path_chmod with the new mode.
 *  - creating a file with S_ISUID in its mode: open(O_CREAT) and creat()
 *    ask path_mknod from may_o_create(), mknod() asks it from
 *    do_mknodat().
 *  - open(dir, O_TMPFILE, 04755): vfs_tmpfile() asks neither
 *    may_o_create() nor path_mknod, and the unnamed file can be run
 *    through its descriptor or named with linkat().  The file system
 *    makes the inode, mode included, then asks inode_init_security with
 *    it (shmem_tmpfile(); tmpfs is the only writable file system here),
 *    which refuses it.
 *  - linkat() of an inode that is already set-user-ID (an O_TMPFILE made
 *    before the policy was attached, say): do_linkat() asks path_link
 *    with the inode, whether it is named by a path or by /proc/self/fd/N.
 *    (Someone else's set-user-ID file the kernel itself refuses to link,
 *    with fs.protected_hardlinks on, as in Debian's 6.1; root can turn it
 *    off, and one's own it allows.)
 *
 * Not routes: mkdir() drops S_ISUID from the mode (vfs_mkdir()); chown()
 * and fchown() clear it (chown_common(), ATTR_KILL_SUID), and writes and
 * truncation only ever clear it; a POSIX ACL sets permission bits only,
 * and tmpfs has no ACLs or extended attributes in this kernel.
 *
 * Known limits: a file that is already set-user-ID keeps its bit and can
 * still be renamed (the image has none; tests/checks/image.sh would show
 * one); a file system that brings set-user-ID files with it (this kernel
 * has no block device, overlayfs or FUSE, and krsi_lock refuses mounts
 * once locked); file capabilities (security.capability) and set-group-ID,
 * other ways to other rights, are not this policy's.
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

SEC("lsm/inode_init_security")
int BPF_PROG(setuid_inode, struct inode *inode, struct inode *dir,
	     const struct qstr *qstr, const char **name, void **value,
	     size_t *len, int ret)
{
	if (ret)
		return ret;
	if (inode->i_mode & S_ISUID)
		return deny("inode_init_security", "set-user-ID bit", EPERM);
	return 0;
}

SEC("lsm/path_link")
int BPF_PROG(setuid_link, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	if (old_dentry->d_inode->i_mode & S_ISUID)
		return deny("path_link", "set-user-ID file", EPERM);
	return 0;
}
