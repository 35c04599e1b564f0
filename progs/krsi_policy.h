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

#define EPERM	1
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

/* Denials, read by `krsi events`. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 128 * 1024);
} denials SEC(".maps");

/*
 * Reports that found the ring buffer full, shown by `krsi events`: a
 * denial is never silent, even when its report is lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

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

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

static __always_inline void fill_task(struct krsi_event *ev)
{
	ev->time_ns = bpf_ktime_get_boot_ns();
	ev->pid = bpf_get_current_pid_tgid() >> 32;
	ev->uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	__builtin_memcpy(ev->policy, POLICY, sizeof(POLICY));
}

/*
 * Report that @hook denied @what (a file name, say) and return -@err, the
 * verdict; in audit mode, report that it would have and return 0.  The
 * report is best effort: a full ring buffer loses it, never the denial.
 */
static __always_inline int deny(const char *hook, const char *what, int err)
{
	bool audit = auditing();
	struct krsi_event *ev;

	ev = bpf_ringbuf_reserve(&denials, sizeof(*ev), 0);
	if (ev) {
		__builtin_memset(ev, 0, sizeof(*ev));
		fill_task(ev);
		ev->kind = audit ? KRSI_EVENT_WOULD_DENY : KRSI_EVENT_DENY;
		ev->verdict = -err;
		bpf_probe_read_kernel_str(ev->hook, sizeof(ev->hook), hook);
		if (what)
			ev->data_len = bpf_probe_read_kernel_str(ev->data,
							sizeof(ev->data), what);
		bpf_ringbuf_submit(ev, 0);
	} else {
		count_lost();
	}
	return audit ? 0 : -err;
}

/* Is @uid the current task's real user id? */
static __always_inline bool current_uid_is(__u32 uid)
{
	return (__u32)bpf_get_current_uid_gid() == uid;
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
 * it read-only before anything else runs, so nobody can add or change a
 * file there; should it ever become writable again, nothing on it counts
 * as the image any more.
 */
static __always_inline bool is_image_file(struct file *file, __u32 root_dev)
{
	struct super_block *sb;

	if (!file)
		return false;
	/* Direct loads through BTF pointers: cheaper than BPF_CORE_READ's
	 * helper calls, and this runs on every exec and executable mmap.
	 */
	sb = file->f_inode->i_sb;
	return sb->s_dev == root_dev && (sb->s_flags & SB_RDONLY);
}

#endif
