// SPDX-License-Identifier: GPL-2.0
/*
 * no_exec_home: no file in the home is made executable
 *
 * Lab 5, every way a file gets its mode (labs/5-no-exec-home/
 * README.md).  The guarantee: no regular file on the demo user's home's
 * file system (/home/demo, a tmpfs of its own) gets an execute bit,
 * whoever asks; so nothing the demo user downloads or writes there can
 * be run.  Holds against the demo user.
 *
 * As given, the policy refuses chmod(): the checker finds the routes it
 * misses.  Read how a file comes to be, and with which mode, in the 6.1
 * sources (fs/namei.c, mm/shmem.c), and close them all.
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

/* TODO: the routes the checker finds that path_chmod does not see. */
