// SPDX-License-Identifier: GPL-2.0
/*
 * protect_secret: one file only root and one program may read
 *
 * Enforces: /etc/krsi/secret is opened only by root or by a process
 * running /usr/bin/krsi-secret, and no other process ever holds a
 * descriptor that can read it.  Nobody, root included and after the
 * lock, changes its content, renames, links, unlinks, truncates, chmods
 * or chowns it, or makes the path /etc/krsi/secret lead to another file.
 *
 * Routes to the secret, from the 6.1 sources, and what closes each:
 *  - open() by any name (hard link, symlink, /proc/PID/fd/N, bind mount):
 *    file_open, which knows the file by device and inode.  Opening it for
 *    writing is refused to everybody, which also closes write(),
 *    fallocate(PUNCH_HOLE), copy_file_range(), splice() and shared
 *    writable mmap(), all of which need a writable descriptor.
 *  - a descriptor handed over: SCM_RIGHTS and pidfd_getfd() ask
 *    file_receive; taking over krsi-secret while it holds one (ptrace,
 *    /proc/PID/mem) asks ptrace_access_check.  krsi-secret opens it
 *    O_CLOEXEC and execs nothing, and exec unshares the descriptor table.
 *  - truncate(), chmod(), chown(), O_TRUNC: inode_setattr.
 *  - rename(), link(), unlink() of the secret: inode_rename, inode_link,
 *    inode_unlink.
 *  - making the path lead elsewhere without touching the secret: renaming
 *    /etc/krsi or /etc away, or another directory over them (RENAME_EXCHANGE
 *    included): inode_rename on the directories, and inode_rmdir; mounting
 *    over /, /etc, /etc/krsi or the secret (mount --bind, a new tmpfs,
 *    MS_MOVE, and remount of / to make it writable; a remount read-only,
 *    /init's, leads nowhere else): sb_mount; the same
 *    with the new mount API (open_tree() or fsmount(), then
 *    move_mount()): move_mount; chroot() and pivot_root(), which give a
 *    process another /: path_chroot, sb_pivotroot.
 *
 * Known limits: a reader that was allowed may pass the content on (that is
 * what krsi-secret does), and a root process that opened it may hand the
 * descriptor to a child it then makes another user.  Anyone may hold an
 * O_PATH descriptor of it, which no LSM hook sees in 6.1 and which
 * cannot read: reopening it through /proc/self/fd is file_open again.
 * The device and inode numbers are taken when the policy is attached.
 * In the appliance / is read-only (no_tmp_exec keeps it so), which
 * refuses most of these with EROFS before any hook runs; the hooks hold
 * on a writable / as well.
 */
#define POLICY "protect_secret"
#include "krsi_policy.h"

#define MS_RDONLY	1	/* <linux/mount.h> */
#define MS_REMOUNT	32

/* The secret, its directories from its own up to /, and the one program
 * allowed to read it (set by krsi before load).
 */
KRSI_CONFIG_DEV(secret_dev, "/etc/krsi/secret");
KRSI_CONFIG_INO(secret_ino, "/etc/krsi/secret");
KRSI_CONFIG_INOS(dir_ino, "/etc/krsi", "/etc", "/");
KRSI_CONFIG_DEV(reader_dev, "/usr/bin/krsi-secret");
KRSI_CONFIG_INO(reader_ino, "/usr/bin/krsi-secret");

#define SECRET "/etc/krsi/secret"

/* Direct loads through BTF pointers: file_open runs on every open. */
static bool is_secret(struct inode *inode)
{
	if (!inode)
		return false;
	return inode->i_ino == secret_ino && inode->i_sb->s_dev == secret_dev;
}

/* The secret or one of the directories its path goes through. */
static bool on_secret_path(struct dentry *dentry)
{
	struct inode *inode = BPF_CORE_READ(dentry, d_inode);
	__u64 ino;
	int i;

	if (!inode || BPF_CORE_READ(inode, i_sb, s_dev) != secret_dev)
		return false;
	ino = BPF_CORE_READ(inode, i_ino);
	if (ino == secret_ino)
		return true;
	for (i = 0; i < sizeof(dir_ino) / sizeof(dir_ino[0]); i++)
		if (ino == dir_ino[i])
			return true;
	return false;
}

static bool may_read(void)
{
	return current_uid_is(0) ||
	       task_runs(bpf_get_current_task_btf(), reader_dev, reader_ino);
}

static __noinline int secret_opened(struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		return deny("file_open", SECRET " for writing", EPERM);
	if (!may_read())
		return deny("file_open", SECRET, EACCES);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(secret_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	/* Every other file: this test, and no saved register (the rest is
	 * out of line).
	 */
	if (!is_secret(file->f_inode))
		return 0;
	return secret_opened(file);
}

SEC("lsm/file_receive")
int BPF_PROG(secret_receive, struct file *file, int ret)
{
	if (ret)
		return ret;
	if (is_secret(file->f_inode) && !may_read())
		return deny("file_receive", SECRET, EACCES);
	return 0;
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(secret_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	if ((mode & PTRACE_MODE_ATTACH) &&
	    task_runs(child, reader_dev, reader_ino))
		return deny("ptrace_access_check", "krsi-secret", EPERM);
	return 0;
}

SEC("lsm/inode_rename")
int BPF_PROG(secret_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	if (on_secret_path(old_dentry) || on_secret_path(new_dentry))
		return deny("inode_rename", SECRET " or its directories", EPERM);
	return 0;
}

SEC("lsm/inode_rmdir")
int BPF_PROG(secret_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	if (on_secret_path(dentry))
		return deny("inode_rmdir", "a directory of " SECRET, EPERM);
	return 0;
}

SEC("lsm/inode_link")
int BPF_PROG(secret_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	if (is_secret(old_dentry->d_inode))
		return deny("inode_link", SECRET, EPERM);
	return 0;
}

SEC("lsm/inode_unlink")
int BPF_PROG(secret_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	if (is_secret(dentry->d_inode))
		return deny("inode_unlink", SECRET, EPERM);
	return 0;
}

SEC("lsm/inode_setattr")
int BPF_PROG(secret_setattr, struct dentry *dentry, struct iattr *attr,
	     int ret)
{
	if (ret)
		return ret;
	if (is_secret(dentry->d_inode))
		return deny("inode_setattr", SECRET, EPERM);
	return 0;
}

SEC("lsm/sb_mount")
int BPF_PROG(secret_mount, const char *dev_name, const struct path *path,
	     const char *type, unsigned long flags, void *data, int ret)
{
	if (ret)
		return ret;
	/* Made read-only, a path leads where it led (/init's remount of /). */
	if ((flags & MS_REMOUNT) && (flags & MS_RDONLY))
		return 0;
	if (on_secret_path(BPF_CORE_READ(path, dentry)))
		return deny("sb_mount", "on the path of " SECRET, EPERM);
	return 0;
}

SEC("lsm/move_mount")
int BPF_PROG(secret_movemnt, const struct path *from_path,
	     const struct path *to_path, int ret)
{
	if (ret)
		return ret;
	if (on_secret_path(BPF_CORE_READ(to_path, dentry)))
		return deny("move_mount", "on the path of " SECRET, EPERM);
	return 0;
}

SEC("lsm/path_chroot")
int BPF_PROG(secret_chroot, const struct path *path, int ret)
{
	if (ret)
		return ret;
	return deny("path_chroot", "another / would hide " SECRET, EPERM);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(secret_pivot, const struct path *old_path,
	     const struct path *new_path, int ret)
{
	if (ret)
		return ret;
	return deny("sb_pivotroot", "another / would hide " SECRET, EPERM);
}
