// SPDX-License-Identifier: GPL-2.0
/*
 * one_reader: one program alone reads the lab's file
 *
 * Lab 4, every way to a file (labs/4-one-reader/README.md).  The
 * guarantee: the file /tmp/lab4/secret, which every user may read by its
 * mode, is read by no process but one running /tests/lab_reader (known
 * by its executable file); the content of no descriptor of it reaches
 * any other process.  Holds against the demo user.
 *
 * As given, the policy refuses every open of the file, by its inode
 * and not its name, to any other program: that closes a path, a
 * symbolic link, a hard link and /proc/PID/fd/N of the reader.  The
 * checker finds a route left: find it, and close it.
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

/* TODO: the route the checker finds that file_open does not see. */
