// SPDX-License-Identifier: GPL-2.0
/*
 * no_exec_home: no file in the home is made executable
 *
 * Lab 5's solution (labs/5-no-exec-home/README.md).  The guarantee: no regular file on the demo user's home's
 * file system (/home/demo, a tmpfs of its own) gets an execute bit,
 * whoever asks; so nothing the demo user downloads or writes there can
 * be run.  Holds against the demo user.
 *
 * A file's mode changes by chmod(), fchmod() and fchmodat(), all
 * chmod_common(): path_chmod.  Or it is born with one: open(O_CREAT),
 * creat(), mknod() (and cp, install, tar, which use them) and
 * open(O_TMPFILE), which asks no path hook at all (vfs_tmpfile()).  On
 * tmpfs every one of those makes its inode in shmem_get_inode(), mode
 * included (the umask already taken off), and asks inode_init_security
 * with it before the file exists anywhere: refused there, it never does.
 */
#define POLICY "no_exec_home"
#include "krsi_policy.h"

#define S_IFMT		00170000
#define S_IFREG		0100000
#define S_IXUGO		00111

/* The home's file system (set by krsi before load). */
KRSI_CONFIG_DEV(home_dev, "/home/demo");

SEC("lsm/path_chmod")
int BPF_PROG(home_chmod, const struct path *path, umode_t mode, int ret)
{
	struct inode *inode = path->dentry->d_inode;

	if (ret)	/* an earlier program denied: keep its verdict */
		return ret;
	if (inode->i_sb->s_dev == home_dev && (inode->i_mode & S_IFMT) == S_IFREG &&
	    (mode & S_IXUGO))
		return deny("path_chmod", "an execute bit in the home", EPERM);
	return 0;
}

/* Every file made on the home's tmpfs, named or not (O_TMPFILE). */
SEC("lsm/inode_init_security")
int BPF_PROG(home_create, struct inode *inode, struct inode *dir,
	     const struct qstr *qstr, const char **name, void **value,
	     size_t *len, int ret)
{
	if (ret)
		return ret;
	if (inode->i_sb->s_dev == home_dev && (inode->i_mode & S_IFMT) == S_IFREG &&
	    (inode->i_mode & S_IXUGO))
		return deny("inode_init_security", "an executable file made in the home",
			    EPERM);
	return 0;
}
