// SPDX-License-Identifier: GPL-2.0
/*
 * krsi_lock: once locked, the policies stay until reboot
 *
 * Enforces: once locked (by the kernel at boot, or by `krsi lock`),
 * nobody, root included, loads a BPF program, attaches or detaches one
 * (KRSI hook file, trampoline, link), updates a link, pins anything or
 * gets a descriptor of any program but an LSM one; once sealed (`krsi
 * lock`), nobody gets a writable descriptor of a map or writes to one,
 * nor changes the mount table: what the policies hold (configuration,
 * state, event buffers) changes only from the BPF side, the audit
 * reader's ring buffers aside (below), and only a newer signed policy,
 * through the kernel, replaces one.  The hook files and the pins in
 * /sys/fs/bpf stay where they are, so `krsi status` keeps telling the
 * truth.  Reading stays open to root: read-only map
 * descriptors (`krsi status`) and introspection (`krsi list`, `bpftool
 * prog show`, `bpftool link show`), which needs descriptors of links and
 * LSM programs by id.  The event buffers are the audit reader's alone.
 *
 * The lock is a one-way latch: `krsi lock` freezes the maps `lock` and
 * `seal` (BPF_MAP_FREEZE), and the kernel never unfreezes a map, not even
 * for a newer krsi_lock, whose maps it freezes as it replaces.  The
 * program reads the frozen state, so no map write can unlock it.  A
 * kernel built to lock at boot (make KRSI_BOOT_LOCK=1) carries krsi_lock
 * signed with `lock` frozen, and freezes it as it attaches the boot
 * policies, before init: from then on no program is loaded or attached
 * by any process.  Until /init seals (`krsi lock`), it may still mount
 * and the reader may claim, below; no other process has run yet.
 *
 * Routes to a policy after the lock, from the 6.1 sources, and what closes
 * each:
 *  - every bpf() command is checked by the bpf hook before it runs:
 *    loading (a tracing program with fmod_ret on a security_*() function
 *    could skip the LSM hooks altogether), attaching, detaching, link
 *    creation, update and detach, writable map descriptors by id (a
 *    read-only one reads the maps of a policy the kernel holds, which no
 *    pin has), and the map commands that write (update, delete, their
 *    batch forms, freeze); test runs and iterators, which run programs.
 *  - a descriptor of a link or a program by its id stays open, for
 *    introspection: a link descriptor can only be read, every command
 *    that would change or pin a link being refused.  A program
 *    descriptor, from an id or a pin, is checked by the bpf_prog hook:
 *    refused for every program type but LSM, since a socket filter, XDP
 *    or tc program could be attached by setsockopt() or netlink, outside
 *    bpf(); an LSM program is attached only by bpf() commands, refused.
 *  - a map descriptor from a pin (BPF_OBJ_GET) is checked by the bpf_map
 *    hook with the access it asks for: writable ones are refused to
 *    every process but the audit reader.  mmap() of a map writes only
 *    through a writable descriptor, and moving a ring buffer's consumer
 *    position is such a write: a second consumer would take records away
 *    from the log.  The audit reader (`krsi logd`) took its writable
 *    descriptors before the seal and holds them.  A signed policy the
 *    kernel loads after the lock brings new ring buffers: the reader
 *    alone gets writable descriptors of ring buffers, by id.  It is known
 *    by the claim it froze in the map `reader` before the seal
 *    (krsi_reader.h); a newer krsi_lock gets that claim, and the
 *    latches, frozen from the one it replaces (the kernel's loader, patch
 *    0023).  Before the seal, the only writable descriptors given are of
 *    an unfrozen array named `reader` (the reader's claims) and of
 *    `seal` (krsi lock).
 *  - a BPF object's descriptor handed on (pidfd_getfd(), SCM_RIGHTS) is
 *    checked by the file_receive hook: refused.  A user-mode helper the
 *    kernel starts copies the kernel threads' descriptor table, the
 *    signed loader's descriptors with it, and is no kernel thread; they
 *    are O_CLOEXEC, gone at its exec, and pidfd_getfd() before it is
 *    refused by no_tmp_exec too: this holds without it.
 *  - the executable a process is known by (protect_secret knows
 *    krsi-secret so) changes only with exec: prctl(PR_SET_MM), which root
 *    can use to name another file its executable (PR_SET_MM_EXE_FILE,
 *    PR_SET_MM_MAP), is refused (task_prctl).
 *  - unlinking or renaming a pin, or removing its directory (inode_unlink,
 *    inode_rename, inode_rmdir on the BPF filesystem): refused, and so is
 *    pinning anything new (BPF_OBJ_PIN) or giving a pin another name or a
 *    new directory (inode_link, inode_symlink, inode_mkdir), which would
 *    make a policy look attached where it is not.  Once sealed, so is
 *    every mount into the tree, move, unmount and change of a file
 *    system's options (sb_mount, move_mount, sb_umount, sb_remount: also
 *    fspick()+fsconfig()), since a mount over /sys/kernel/security or
 *    /sys/fs/bpf would hide the hook files or the pins, and a tmpfs made
 *    larger would take the memory the log needs.
 *  - the kernel's own loader of signed policies (CONFIG_SECURITY_BPF_SIGNED,
 *    security/krsi/policy.c) calls bpf() from a kernel thread, which no
 *    process can make run a command of its choosing: those calls are
 *    allowed (PF_KTHREAD), and what it loads is what a key the kernel
 *    trusts signed, newer than what it replaces.  The descriptors it
 *    makes are a kernel thread's for a moment: reading a kernel
 *    thread's descriptors (pidfd_getfd(), /proc/PID/fd) needs
 *    ptrace_access_check on it, refused to everyone.
 *  - `krsi status` believes the hook files, not the pins, so an empty
 *    directory made in /sys/fs/bpf proves nothing; and it reads whether
 *    KRSI enforces from /sys/kernel/security/krsi/mode (patch 0016),
 *    never from the kernel log, which root can clear and anyone can put
 *    lines of their own into (a file name in a segfault report).
 *
 * Known limits: with no_module_load not attached, a kernel module could
 * undo everything.  Before the lock a link's life is its descriptors and
 * pins: whoever may remove the pin (root, whatever its capabilities:
 * /init mounts /sys/fs/bpf 0700) or holds a descriptor decides when it
 * ends, as for every BPF link.  A mount made with fsopen() and fsmount()
 * (or open_tree(OPEN_TREE_CLONE)) is detached, reachable only through its
 * descriptor, and not refused (FSCONFIG_CMD_CREATE asks sb_kern_mount,
 * which this policy lets through): attaching it is move_mount, refused;
 * a detached tmpfs still holds memory, as a memfd does.  mount_setattr() changes the flags of a mount with no
 * LSM hook in 6.1 (/ stays read-only: that is its superblock's flag);
 * BPF_ENABLE_STATS, which only counts, stays allowed.  A process that
 * held a writable descriptor of a map before the seal keeps it: /init
 * seals before it starts anything else but the audit reader, which
 * protect_init guards.  Between the lock at boot and the seal, anyone
 * may freeze any map (6.1's BPF_MAP_FREEZE takes any descriptor): only
 * /init and what it runs have run then, and a user-mode helper the
 * kernel started before the boot policies (modprobe, for the first
 * signature check's crypto).
 */
#define POLICY "krsi_lock"
#include "krsi_policy.h"
#include "krsi_reader.h"

static bool is_reader(void)
{
	return is_reader_task(bpf_get_current_task_btf());
}

/*
 * The two latches, each a map that is frozen (its content is not used):
 * `lock`, by `krsi lock`, or by the kernel as it loads a krsi_lock signed
 * with it frozen (a kernel that locks at boot, make KRSI_BOOT_LOCK=1);
 * `seal`, by `krsi lock` only.  Locked, no bpf() command changes a
 * program, a link or a pin.  Sealed too, nobody but the audit reader
 * writes a map or gets a writable descriptor of one, and nobody changes
 * the mount table: /init, which mounts the file systems and starts the
 * reader, seals once it has.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} lock SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} seal SEC(".maps");

static bool locked(void)
{
	return krsi_map_frozen(&lock);
}

static bool sealed(void)
{
	return krsi_map_frozen(&seal);
}

#define PF_KTHREAD	0x00200000	/* <linux/sched.h> */

/* Locked, and not the kernel's own loader of signed policies (above). */
static bool locked_for_caller(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return locked() && !(task->flags & PF_KTHREAD);
}

SEC("lsm/bpf")
int BPF_PROG(krsi_lock, int cmd, union bpf_attr *attr, unsigned int size,
	     int ret)
{
	if (ret)
		return ret;
	if (!locked_for_caller())
		return 0;
	switch (cmd) {
	case BPF_PROG_LOAD:
	case BPF_PROG_ATTACH:
	case BPF_PROG_DETACH:
	case BPF_RAW_TRACEPOINT_OPEN:
	case BPF_LINK_CREATE:
	case BPF_LINK_UPDATE:
	case BPF_LINK_DETACH:
	case BPF_BTF_LOAD:
	case BPF_PROG_TEST_RUN:
	case BPF_ITER_CREATE:
	case BPF_PROG_BIND_MAP:
	case BPF_OBJ_PIN:
		return deny("bpf", "bpf() command while locked", EPERM);
	case BPF_MAP_GET_FD_BY_ID:
		/*
		 * Read-only, to read the maps of policies the kernel holds.
		 * Writable ones for the reader, or before the seal: the
		 * bpf_map hook below checks which maps.
		 */
		if (BPF_CORE_READ(attr, open_flags) == BPF_F_RDONLY ||
		    is_reader() || !sealed())
			return 0;
		return deny("bpf", "writable map descriptor by id while locked",
			    EPERM);
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_FREEZE:
		/*
		 * Before the seal, a map is written only through a writable
		 * descriptor the bpf_map hook gave: the reader's claims and
		 * the seal, which is frozen.  (BPF_MAP_FREEZE takes any
		 * descriptor on 6.1: it freezes, never unfreezes.)
		 */
		if (!sealed())
			return 0;
		return deny("bpf", "map write while locked", EPERM);
	}
	return 0;
}

/* Is @map this policy's map @own? */
static bool is_map(struct bpf_map *map, void *own)
{
	return BPF_CORE_READ(map, id) == ((struct bpf_map *)own)->id;
}

/* A reader claim (krsi_reader.h) not yet frozen: any policy's map "reader". */
static bool is_open_claim(struct bpf_map *map)
{
	char name[8];

	if (BPF_CORE_READ(map, map_type) != BPF_MAP_TYPE_ARRAY ||
	    BPF_CORE_READ(map, frozen) ||
	    bpf_probe_read_kernel(name, sizeof(name), &map->name))
		return false;
	return name[0] == 'r' && name[1] == 'e' && name[2] == 'a' &&
	       name[3] == 'd' && name[4] == 'e' && name[5] == 'r' && !name[6];
}

SEC("lsm/bpf_map")
int BPF_PROG(krsi_lock_map, struct bpf_map *map, fmode_t fmode, int ret)
{
	if (ret)
		return ret;
	if (!locked_for_caller() || !(fmode & FMODE_WRITE))
		return 0;
	/*
	 * The reader consumes the ring buffers of a policy loaded after the
	 * lock (signed, through the kernel), as it did before the lock for
	 * the others: moving a consumer position writes only that.
	 */
	if (is_reader() && BPF_CORE_READ(map, map_type) == BPF_MAP_TYPE_RINGBUF)
		return 0;
	/*
	 * Before the seal (locked at boot, /init alone has run): the
	 * reader's claims, each once (krsi logd), and the seal itself
	 * (krsi lock).
	 */
	if (!sealed() && (is_open_claim(map) || is_map(map, &seal)))
		return 0;
	return deny("bpf_map", "writable map descriptor while locked", EPERM);
}

/* Only programs that nothing but bpf() attaches: see the header. */
SEC("lsm/bpf_prog")
int BPF_PROG(krsi_lock_prog, struct bpf_prog *prog, int ret)
{
	if (ret)
		return ret;
	if (!locked_for_caller() ||
	    BPF_CORE_READ(prog, type) == BPF_PROG_TYPE_LSM)
		return 0;
	return deny("bpf_prog", "descriptor of a non-LSM program while locked",
		    EPERM);
}

#define PTRACE_MODE_NOAUDIT	0x04	/* <linux/ptrace.h> */

/* A kernel thread's descriptors are the signed loader's (above). */
SEC("lsm/ptrace_access_check")
int BPF_PROG(lock_kthread, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	if (!locked() || !(child->flags & PF_KTHREAD))
		return 0;
	/* The kernel only probes (what /proc/PID/stat shows): no report. */
	if (mode & PTRACE_MODE_NOAUDIT)
		return -EPERM;
	return deny("ptrace_access_check", "a kernel thread's descriptors while locked",
		    EPERM);
}

#define ANON_INODE_FS_MAGIC	0x09041934	/* <uapi/linux/magic.h> */

/*
 * A descriptor of a BPF object (map, program, link: "bpf-map", "bpf-prog",
 * "bpf_link", ...) passed on by another process, by pidfd_getfd() or
 * SCM_RIGHTS (see the header).
 */
SEC("lsm/file_receive")
int BPF_PROG(lock_receive, struct file *file, int ret)
{
	const unsigned char *name;
	char prefix[3];

	if (ret)
		return ret;
	if (!locked_for_caller() ||
	    BPF_CORE_READ(file, f_inode, i_sb, s_magic) != ANON_INODE_FS_MAGIC)
		return 0;
	name = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (!bpf_probe_read_kernel(prefix, sizeof(prefix), name) &&
	    (prefix[0] != 'b' || prefix[1] != 'p' || prefix[2] != 'f'))
		return 0;
	return deny("file_receive", "a BPF object's descriptor while locked",
		    EPERM);
}

#define PR_SET_MM	35	/* <linux/prctl.h> */

/* The executable a process is known by changes only with exec. */
SEC("lsm/task_prctl")
int BPF_PROG(krsi_lock_prctl, int option, unsigned long arg2,
	     unsigned long arg3, unsigned long arg4, unsigned long arg5,
	     int ret)
{
	if (ret)
		return ret;
	if (!locked() || option != PR_SET_MM)
		return 0;
	return deny("task_prctl", "prctl(PR_SET_MM) while locked", EPERM);
}

static bool on_bpffs(struct dentry *dentry)
{
	return BPF_CORE_READ(dentry, d_sb, s_magic) == BPF_FS_MAGIC;
}

static int keep_pins(struct dentry *dentry, const char *hook)
{
	if (locked() && on_bpffs(dentry))
		return deny(hook, "a pin in /sys/fs/bpf while locked", EPERM);
	return 0;
}

SEC("lsm/inode_unlink")
int BPF_PROG(lock_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return keep_pins(dentry, "inode_unlink");
}

SEC("lsm/inode_rmdir")
int BPF_PROG(lock_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return keep_pins(dentry, "inode_rmdir");
}

SEC("lsm/inode_link")
int BPF_PROG(lock_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return keep_pins(new_dentry, "inode_link");
}

SEC("lsm/inode_symlink")
int BPF_PROG(lock_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret)
		return ret;
	return keep_pins(dentry, "inode_symlink");
}

SEC("lsm/inode_mkdir")
int BPF_PROG(lock_mkdir, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	if (ret)
		return ret;
	return keep_pins(dentry, "inode_mkdir");
}

SEC("lsm/inode_rename")
int BPF_PROG(lock_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return keep_pins(old_dentry, "inode_rename");
}

/* Any mount could hide /sys/fs/bpf, or a directory above it. */
static int keep_mounts(const char *hook)
{
	if (sealed())
		return deny(hook, "mount table while locked", EPERM);
	return 0;
}

SEC("lsm/sb_mount")
int BPF_PROG(lock_mount, const char *dev_name, const struct path *path,
	     const char *type, unsigned long flags, void *data, int ret)
{
	if (ret)
		return ret;
	return keep_mounts("sb_mount");
}

SEC("lsm/move_mount")
int BPF_PROG(lock_move_mount, const struct path *from_path,
	     const struct path *to_path, int ret)
{
	if (ret)
		return ret;
	return keep_mounts("move_mount");
}

SEC("lsm/sb_umount")
int BPF_PROG(lock_umount, struct vfsmount *mnt, int flags, int ret)
{
	if (ret)
		return ret;
	return keep_mounts("sb_umount");
}

/*
 * A file system's options: mount -o remount and fspick()+fsconfig() both
 * end in reconfigure_super().  A tmpfs's size=0 (no limit) would let root
 * take the memory the log's file system needs; /proc's hidepid= would
 * hide processes from krsi status.
 */
SEC("lsm/sb_remount")
int BPF_PROG(lock_remount, struct super_block *sb, void *mnt_opts, int ret)
{
	if (ret)
		return ret;
	return keep_mounts("sb_remount");
}
