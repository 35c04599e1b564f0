// SPDX-License-Identifier: GPL-2.0
/*
 * protect_log: only the audit reader writes the audit log
 *
 * Enforces: on the log's file system (/var/log/krsi, a tmpfs of its own,
 * with a size limit of its own), only the audit reader (`krsi logd`)
 * opens a file for writing, makes, removes, renames or links a file or
 * directory, or changes a file's attributes or flags; nobody changes the
 * file system's options (size, read-only).  Nobody but the reader opens
 * the serial port the log leaves the machine through (/dev/ttyS2, char
 * 4:66; on arm64 the virtio console /dev/hvc0, char 229:0), by whatever
 * device node; nobody binds or unbinds a driver, or removes a device, in
 * sysfs, nor moves or reconfigures a serial port (TIOCSSERIAL,
 * TIOCSERCONFIG), which would take the port from the reader or put
 * another in its place.  Holds against the demo user and root,
 * before and after the lock.
 *
 * The reader is known by its claim (krsi_reader.h), which it writes and
 * freezes before the seal (`krsi lock`), and which a newer signed
 * protect_log is given frozen before its first program runs.
 *
 * Routes to the log, from the 6.1 sources, and what closes each:
 *  - write(), O_APPEND, O_TRUNC, ftruncate(), fallocate(), a shared
 *    writable mmap(), copy_file_range(), splice(): all need a descriptor
 *    opened for writing: file_open, by any name (/proc/PID/fd/N of the
 *    reader's own descriptors included, which ptrace_access_check of
 *    protect_init refuses first).
 *  - truncate(), chmod(), chown(), utimes(): inode_setattr.
 *  - chattr +i or +a (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, which tmpfs
 *    supports and which no other hook sees): file_ioctl.
 *  - unlink, rmdir, rename (either side, RENAME_EXCHANGE included), link,
 *    symlink, mkdir, mknod, creat: inode_unlink, inode_rmdir,
 *    inode_rename, inode_link, inode_symlink, inode_mkdir, inode_mknod,
 *    inode_create.
 *  - the file system's options: mount -o remount (size=, ro, nr_inodes=)
 *    and fspick()+fsconfig(), both reconfigure_super(): sb_remount.
 *  - taking the file system away or hiding it: umount, a mount over it,
 *    over /var/log or over /var, move_mount: krsi_lock refuses every
 *    mount change after the seal; /var and /var/log are on the read-only
 *    image, so nothing renames or removes them (EROFS).
 *  - the serial port: another process that opens it could stop its
 *    output (tcflow(TCOOFF), flow control) or write lines of its own into
 *    the host's copy: file_open, by the device number, not the path.
 *    Every tty ioctl that changes the port (TIOCSSERIAL, TIOCSETD,
 *    TIOCCONS, tcsetattr(), TIOCSTI) needs a descriptor of it, and so
 *    that open.
 *  - the port's driver: unbinding it (echo serial8250 >
 *    /sys/bus/platform/drivers/serial8250/unbind; on arm64 virtio_console
 *    or virtio-mmio) hangs the port up under the reader, and binding it
 *    again makes a new one, which the reader would have to open again
 *    while another process could; driver_override with drivers_probe,
 *    new_id and remove_id do the same through another driver, and a
 *    device's remove (PCI) takes it away.  The write names the device,
 *    which no hook sees: file_open refuses these files, for writing, in
 *    sysfs, whatever the device (the appliance binds no driver after
 *    boot).
 *  - the port's FIFOs reset and its receive trigger changed without an
 *    open: /sys/class/tty/ttyS2/rx_trig_bytes (0644), refused with the
 *    files above.
 *  - another port moved onto the stream's hardware: TIOCSSERIAL on any
 *    8250 port (/dev/ttyS0, the console, say) sets its I/O address, IRQ
 *    and type, and TIOCSERCONFIG probes it again; once the stream's port
 *    is unbound, what is written to the moved one would land in the
 *    host's copy: file_ioctl refuses both, on every tty.  /dev/port,
 *    /dev/mem and iopl(), which write to the UART directly, are not in
 *    the kernel (kernel/krsi.config).
 *
 * What root can still do is stop the machine (reboot, poweroff, a
 * panic): the stream ends there without the reader's stop record, which
 * the host's check (run-qemu.sh, krsi events --verify) says is a cut, and
 * every line the stream carried is sealed (tools/lib/seal.h), so a line
 * of anyone else's is told from the reader's.
 *
 * Known limits: mount_setattr() has no hook in 6.1; MOUNT_ATTR_RDONLY on
 * the log's mount is refused by the kernel (EBUSY) while a file there is
 * open for writing, and the reader always holds one.  Reading is left to
 * the files' modes: the log is root's, each user's own records are in a
 * directory of theirs (/var/log/krsi/uid/UID), readable by them alone.
 * The device numbers are taken when the policy is attached: /init mounts
 * the log's tmpfs first, and a log directory that is no mount of its own
 * (the same device as /var/log) is protected nowhere.
 */
#define POLICY "protect_log"
#include "krsi_policy.h"
#include "krsi_reader.h"
#include "krsi_stream.h"

/* The log's file system, and the one it is mounted on (set before load). */
KRSI_CONFIG_DEV(log_dev, "/var/log/krsi");
KRSI_CONFIG_DEV(parent_dev, "/var/log");

/* The port of the log's stream (krsi_stream.h), in the kernel's encoding
 * of a device number (major << 20 | minor).
 */
#define STREAM_RDEV	((__u32)KRSI_STREAM_MAJOR << 20 | KRSI_STREAM_MINOR)
#define S_IFMT		00170000
#define S_IFCHR		0020000

#define SYSFS_MAGIC		0x62656572
#define TIOCSSERIAL		0x541F
#define TIOCSERCONFIG		0x5453
#define FS_IOC_SETFLAGS		0x40086602	/* _IOW('f', 2, long) */
#define FS_IOC32_SETFLAGS	0x40046602	/* _IOW('f', 2, int) */
#define FS_IOC_FSSETXATTR	0x401c5820	/* _IOW('X', 32, struct fsxattr) */

static bool is_writer(void)
{
	return is_reader_task(bpf_get_current_task_btf());
}

/* Direct loads through BTF pointers: file_open runs on every open. */
static bool on_log(struct super_block *sb)
{
	return log_dev != parent_dev && sb->s_dev == log_dev;
}

/* Refuse @hook on @inode's file system to anyone but the reader. */
static int keep_log(struct inode *inode, const char *hook)
{
	if (!inode || !on_log(inode->i_sb) || is_writer())
		return 0;
	return deny(hook, "the audit log", EPERM);
}

/*
 * The sysfs files that bind a driver to a device, unbind it, or remove
 * the device (drivers/base/bus.c, drivers/base/platform.c,
 * drivers/pci/pci-sysfs.c and pci-driver.c, drivers/virtio/virtio.c),
 * and the one that resets a serial port's FIFOs without opening it
 * (rx_trig_bytes, drivers/tty/serial/8250/8250_port.c).
 */
static bool is_binding(struct dentry *dentry)
{
	char name[20] = {};
	__u32 len = dentry->d_name.len;

	if (len < 4 || len > 15)
		return false;
	bpf_probe_read_kernel_str(name, sizeof(name), dentry->d_name.name);
	return !bpf_strncmp(name, sizeof(name), "bind") ||
	       !bpf_strncmp(name, sizeof(name), "unbind") ||
	       !bpf_strncmp(name, sizeof(name), "driver_override") ||
	       !bpf_strncmp(name, sizeof(name), "drivers_probe") ||
	       !bpf_strncmp(name, sizeof(name), "new_id") ||
	       !bpf_strncmp(name, sizeof(name), "remove_id") ||
	       !bpf_strncmp(name, sizeof(name), "remove") ||
	       !bpf_strncmp(name, sizeof(name), "rx_trig_bytes");
}

static __noinline int log_opened(struct file *file)
{
	struct inode *inode = file->f_inode;

	if ((file->f_mode & FMODE_WRITE) && on_log(inode->i_sb) && !is_writer())
		return deny("file_open", "the audit log, for writing", EPERM);
	if ((file->f_mode & FMODE_WRITE) && inode->i_sb->s_magic == SYSFS_MAGIC &&
	    is_binding(file->f_path.dentry))
		return deny("file_open", "a driver's binding in sysfs, which could "
			    "take the audit log's port", EPERM);
	if ((inode->i_mode & S_IFMT) == S_IFCHR && inode->i_rdev == STREAM_RDEV &&
	    !is_writer())
		return deny("file_open", "the audit log's serial port", EPERM);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(log_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	/*
	 * file_open runs on every open: what an open for reading of
	 * anything but a device (whose i_rdev is 0) costs is these two
	 * tests; log_opened() makes the whole check, out of line.
	 */
	if (!(file->f_mode & FMODE_WRITE) &&
	    file->f_inode->i_rdev != STREAM_RDEV)
		return 0;
	return log_opened(file);
}

SEC("lsm/file_ioctl")
int BPF_PROG(log_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	if (ret)
		return ret;
	if (cmd == TIOCSSERIAL || cmd == TIOCSERCONFIG)
		return deny("file_ioctl", "a serial port moved or reconfigured, "
			    "which could take the audit log's", EPERM);
	if (cmd != FS_IOC_SETFLAGS && cmd != FS_IOC32_SETFLAGS &&
	    cmd != FS_IOC_FSSETXATTR)
		return 0;
	return keep_log(file->f_inode, "file_ioctl");
}

SEC("lsm/inode_setattr")
int BPF_PROG(log_setattr, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return keep_log(dentry->d_inode, "inode_setattr");
}

SEC("lsm/inode_create")
int BPF_PROG(log_create, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_create");
}

SEC("lsm/inode_mknod")
int BPF_PROG(log_mknod, struct inode *dir, struct dentry *dentry,
	     umode_t mode, dev_t dev, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_mknod");
}

SEC("lsm/inode_mkdir")
int BPF_PROG(log_mkdir, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_mkdir");
}

SEC("lsm/inode_symlink")
int BPF_PROG(log_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_symlink");
}

SEC("lsm/inode_link")
int BPF_PROG(log_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_link");
}

SEC("lsm/inode_unlink")
int BPF_PROG(log_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_unlink");
}

SEC("lsm/inode_rmdir")
int BPF_PROG(log_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return keep_log(dir, "inode_rmdir");
}

SEC("lsm/inode_rename")
int BPF_PROG(log_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	ret = keep_log(old_dir, "inode_rename");
	return ret ? ret : keep_log(new_dir, "inode_rename");
}

SEC("lsm/sb_remount")
int BPF_PROG(log_remount, struct super_block *sb, void *mnt_opts, int ret)
{
	if (ret)
		return ret;
	if (on_log(sb))
		return deny("sb_remount", "the audit log's file system", EPERM);
	return 0;
}
