/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_POLICY_H
#define KRSI_POLICY_H

/*
 * What every policy in progs/ shares: the headers, the denial ring buffer
 * and deny(), which reports a denial and returns its errno.  A policy
 * defines POLICY, its name, before including this file.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "krsi_event.h"
#include "krsi_mode.h"

#ifndef POLICY
#error "define POLICY, the policy's name, before including krsi_policy.h"
#endif
/* Every record carries the name whole, in KRSI_NAME_LEN bytes with its
 * end: a longer one would be cut there, and krsi why and krsi events
 * --policy would show or look for another name.
 */
_Static_assert(sizeof(POLICY) <= KRSI_NAME_LEN,
	       "POLICY: a policy's name has at most 15 characters (its records carry it in 16 bytes)");

/*
 * A policy's version, POLICY_VERSION, defined with POLICY when it is not
 * the first: every record carries it, with the id of the load.
 */
#ifndef POLICY_VERSION
#define POLICY_VERSION 1
#endif
const volatile __u32 krsi_policy_version = POLICY_VERSION;
/* Set by the krsi tool before the load: which load of the policy this is. */
const volatile __u64 krsi_load_id;

#define EPERM	1
#define EAGAIN	11
#define EACCES	13

#define PROT_WRITE	0x2
#define PROT_EXEC	0x4
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL

#define SB_RDONLY		0x1
#define FMODE_WRITE		0x2
#define PTRACE_MODE_ATTACH	0x02
#define READ_IMPLIES_EXEC	0x0400000
#define BPF_FS_MAGIC		0xcafe4a11

char LICENSE[] SEC("license") = "GPL";

/*
 * What a policy must learn from the running system before it is loaded,
 * declared where the policy uses it, one per line at file scope:
 *
 *	KRSI_CONFIG_DEV(name, "/path");		device of /path's file system
 *	KRSI_CONFIG_INO(name, "/path");		inode number of /path
 *	KRSI_CONFIG_INOS(name, "/a", "/b");	an array of inode numbers
 *
 * Each declares a read-only global (a __u32 device in the kernel's
 * encoding, a __u64 inode number).  The build reads these lines
 * (tools/build/gen-policy.sh) and the krsi tool fills in each value with
 * stat() of its path, following symbolic links ("/proc/self/exe" is the
 * krsi tool itself), before it loads the policy; a path that does not
 * exist fails the attach, naming it.  The path must be a string literal.
 */
#define KRSI_CONFIG_DEV(name, path)	const volatile __u32 name
#define KRSI_CONFIG_INO(name, path)	const volatile __u64 name
#define KRSI_CONFIG_INOS(name, ...)					\
	const volatile __u64 name[sizeof((const char *[]){ __VA_ARGS__ }) /	\
				  sizeof(const char *)]

/* Denials, read by the audit reader (`krsi logd`). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 128 * 1024);
} denials SEC(".maps");

/*
 * Reports that found the ring buffer full: in all (lost), and per user
 * (lost_uid, as long as it has room for the user).  The audit reader
 * logs them as they grow: a denial is never silent, even when its report
 * is lost, and a flood shows whose it was.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} lost_uid SEC(".maps");

/* Who attached this load, and its programs (krsi_event.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_origin);
} origin SEC(".maps");

/*
 * Every denial (or would-be denial) per hook, counted before it is
 * reported, so that a report the ring buffer lost is still counted: the
 * audit reader logs the counts when the load goes (detach, replace) or
 * the reader stops.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_ORIGIN_PROGS);
	__type(key, struct krsi_hook_key);
	__type(value, struct krsi_denial_count);
} denial_counts SEC(".maps");

/*
 * The policy's mode (krsi_mode.h): `krsi attach --audit` sets it before
 * the programs are attached, `krsi enforce` and `krsi audit` switch it at
 * run time.  Every call of deny() reads this one value, so a switch takes
 * effect at once, with no moment at which the policy is not attached.
 * Once `krsi lock` is taken no map is written from user space, and the
 * mode is frozen with the rest.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} policy_mode SEC(".maps");

static __always_inline bool auditing(void)
{
	__u32 zero = 0, *mode = bpf_map_lookup_elem(&policy_mode, &zero);

	return mode && *mode == KRSI_MODE_AUDIT;
}

static __always_inline __u32 current_uid(void)
{
	return (__u32)bpf_get_current_uid_gid();
}

/* One more in the counter @total and in @uid's slot of @per_uid. */
static __always_inline void count_for(void *total, void *per_uid, __u32 uid)
{
	__u64 one = 1, *n;
	__u32 zero = 0;

	n = bpf_map_lookup_elem(total, &zero);
	if (n)
		__sync_fetch_and_add(n, 1);
	n = bpf_map_lookup_elem(per_uid, &uid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else if (bpf_map_update_elem(per_uid, &uid, &one, BPF_NOEXIST))
		/* Another CPU added it first, or the table is full (then the
		 * total, which the reader compares with the sum, says so).
		 */
		if ((n = bpf_map_lookup_elem(per_uid, &uid)))
			__sync_fetch_and_add(n, 1);
}

static __always_inline void count_lost(__u32 uid)
{
	count_for(&lost, &lost_uid, uid);
}

/*
 * May a report of @uid go into ring buffer @rb?  Root's always, while
 * there is room; anyone else's only while at least half of it is free,
 * so that one user's flood cannot crowd out root's reports.
 */
static __always_inline bool room_for(void *rb, __u32 uid)
{
	__u64 size = bpf_ringbuf_query(rb, BPF_RB_RING_SIZE);
	__u64 used = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);

	return uid == 0 || used <= size / 2;
}

static __always_inline void fill_task(struct krsi_event *ev)
{
	ev->time_ns = bpf_ktime_get_boot_ns();
	ev->pid = bpf_get_current_pid_tgid() >> 32;
	ev->uid = current_uid();
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	__builtin_memcpy(ev->policy, POLICY, sizeof(POLICY));
	ev->load_id = krsi_load_id;
	ev->version = krsi_policy_version;
}

/* One more denial (or would-be) of @hook in denial_counts. */
static __always_inline void count_denial(const char *hook, bool audit)
{
	struct krsi_denial_count zero = {}, *c;
	struct krsi_hook_key key = {};

	bpf_probe_read_kernel_str(key.hook, sizeof(key.hook), hook);
	c = bpf_map_lookup_elem(&denial_counts, &key);
	if (!c) {
		bpf_map_update_elem(&denial_counts, &key, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&denial_counts, &key);
	}
	if (c && audit)
		__sync_fetch_and_add(&c->would_deny, 1);
	else if (c)
		__sync_fetch_and_add(&c->denied, 1);
}

/* A denial's record: the header and what was denied. */
struct krsi_denial {
	struct krsi_event ev;
	char what[KRSI_WHAT_LEN];
};

/*
 * Report that @hook denied @what (a file name, say) and return -@err, the
 * verdict; in audit mode, report that it would have and return 0.  The
 * record names @uid and, if @by_current, the current task; otherwise pid
 * 0 and no name (no process has pid 0): see deny_unattributed().  The
 * report is best effort: a full ring buffer loses it, never the denial,
 * and counts it in lost and lost_uid.
 */
static __always_inline int report_denial(const char *hook, const char *what,
					 int err, __u32 uid, bool by_current)
{
	bool audit = auditing();
	struct krsi_denial *d = NULL;
	long n;

	count_denial(hook, audit);
	if (room_for(&denials, uid))
		d = bpf_ringbuf_reserve(&denials, sizeof(*d), 0);
	if (d) {
		__builtin_memset(d, 0, sizeof(*d));
		if (by_current) {
			fill_task(&d->ev);
		} else {
			d->ev.time_ns = bpf_ktime_get_boot_ns();
			d->ev.uid = uid;
			__builtin_memcpy(d->ev.policy, POLICY, sizeof(POLICY));
			d->ev.load_id = krsi_load_id;
			d->ev.version = krsi_policy_version;
		}
		d->ev.kind = audit ? KRSI_EVENT_WOULD_DENY : KRSI_EVENT_DENY;
		d->ev.verdict = -err;
		bpf_probe_read_kernel_str(d->ev.hook, sizeof(d->ev.hook), hook);
		n = what ? bpf_probe_read_kernel_str(d->what, sizeof(d->what),
						     what) : 0;
		d->ev.data_len = n > 0 ? n - 1 : 0;	/* without the NUL */
		bpf_ringbuf_submit(d, 0);
	} else {
		count_lost(uid);
	}
	return audit ? 0 : -err;
}

/*
 * The current task is denied @what at @hook: see report_denial().  Out
 * of line, a function of its own: a program that calls it then saves no
 * register for it on the path that allows, the one every call takes.
 * (Unused in a lab's program before its TODO is done.)
 */
static __noinline __attribute__((unused)) int
deny(const char *hook, const char *what, int err)
{
	return report_denial(hook, what, err, current_uid(), true);
}

/*
 * A denial at a hook that may run in an interrupt, where the current task
 * is whichever one was interrupted, not the one responsible: the record
 * names user @uid and no process, rather than a process that did nothing.
 */
static __always_inline int deny_unattributed(const char *hook,
					     const char *what, int err,
					     __u32 uid)
{
	return report_denial(hook, what, err, uid, false);
}

/* Is @uid the current task's real user id? */
static __always_inline bool current_uid_is(__u32 uid)
{
	return current_uid() == uid;
}

/*
 * Does the current task run the file @dev:@ino (its mm->exe_file)?  A
 * program is recognised by its executable, never by its name, which any
 * process sets with prctl(PR_SET_NAME).
 */
static __always_inline bool task_runs(struct task_struct *task, __u32 dev,
				      __u64 ino)
{
	struct inode *exe = BPF_CORE_READ(task, mm, exe_file, f_inode);

	return exe && BPF_CORE_READ(exe, i_ino) == ino &&
	       BPF_CORE_READ(exe, i_sb, s_dev) == dev;
}

/*
 * Is @file part of the appliance's image: a file of the root filesystem
 * (device @root_dev) while that filesystem is read-only?  /init remounts
 * it read-only before it runs anything but itself and the image's tools,
 * so nobody can add or change a file there; should it ever become
 * writable again, nothing on it counts as the image any more.
 *
 * A policy the kernel attaches before init (make KRSI_BOOT_POLICIES) sees
 * the root writable first, while /init sets up: until the policy first
 * sees it read-only (*@sealed, one of its globals), the root's files are
 * the image's, since nothing but /init and what it ran can have written
 * them, and a kernel that carries its policies runs no other init (init=
 * and rdinit= stop its boot, patch 0024).
 */
static __always_inline bool is_image_file(struct file *file, __u32 root_dev,
					  bool *sealed)
{
	struct super_block *sb;

	if (!file)
		return false;
	/* Direct loads through BTF pointers: cheaper than BPF_CORE_READ's
	 * helper calls, and this runs on every exec and executable mmap.
	 */
	sb = file->f_inode->i_sb;
	if (sb->s_dev != root_dev)
		return false;
	if (sb->s_flags & SB_RDONLY) {
		*sealed = true;
		return true;
	}
	return !*sealed;
}

#endif
