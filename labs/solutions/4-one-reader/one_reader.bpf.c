// SPDX-License-Identifier: GPL-2.0
/*
 * one_reader: one program alone reads the lab's file
 *
 * Lab 4's solution (labs/4-one-reader/README.md).  The
 * guarantee: the file /tmp/lab4/secret, which every user may read by its
 * mode, is read by no process but one running /tests/lab_reader (known
 * by its executable file); the content of no descriptor of it reaches
 * any other process.  Holds against the demo user.
 *
 * Every open of the file, by any name (a path, a symbolic link, a hard
 * link, /proc/PID/fd/N of the reader), reaches file_open with its inode.
 * A descriptor the reader already holds needs no open: passed over a
 * UNIX socket (SCM_RIGHTS), it is installed in the receiver by
 * receive_fd(), which asks file_receive; refused there, the receiver
 * gets no descriptor.
 */
#define POLICY "one_reader"
#include "krsi_policy.h"

/* The file and the one program (set by krsi before load). */
KRSI_CONFIG_DEV(secret_dev, "/tmp/lab4/secret");
KRSI_CONFIG_INO(secret_ino, "/tmp/lab4/secret");
KRSI_CONFIG_DEV(reader_dev, "/tests/lab_reader");
KRSI_CONFIG_INO(reader_ino, "/tests/lab_reader");

static bool is_secret(struct file *file)
{
	struct inode *inode = file->f_inode;

	return inode->i_ino == secret_ino && inode->i_sb->s_dev == secret_dev;
}

static bool is_reader(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct file *exe = task->mm ? task->mm->exe_file : NULL;

	return exe && exe->f_inode->i_ino == reader_ino &&
	       exe->f_inode->i_sb->s_dev == reader_dev;
}

SEC("lsm/file_open")
int BPF_PROG(secret_open, struct file *file, int ret)
{
	if (ret)	/* an earlier program denied: keep its verdict */
		return ret;
	if (is_secret(file) && !is_reader())
		return deny("file_open", "the lab's file", EACCES);
	return 0;
}

/* A descriptor of the file received over a UNIX socket (SCM_RIGHTS),
 * or taken with pidfd_getfd(), which asks the same hook.
 */
SEC("lsm/file_receive")
int BPF_PROG(secret_receive, struct file *file, int ret)
{
	if (ret)
		return ret;
	if (is_secret(file) && !is_reader())
		return deny("file_receive", "a descriptor of the lab's file", EACCES);
	return 0;
}
