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

#ifndef POLICY
#error "define POLICY, the policy's name, before including krsi_policy.h"
#endif

#define EPERM	1
#define EACCES	13

#define PROT_WRITE	0x2
#define PROT_EXEC	0x4
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL

#define TMPFS_MAGIC	0x01021994
#define RAMFS_MAGIC	0x858458f6

char LICENSE[] SEC("license") = "GPL";

/* Denials, read by `krsi events`. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} denials SEC(".maps");

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
 * verdict.  The report is best effort: a full ring buffer loses it, never
 * the denial.
 */
static __always_inline int deny(const char *hook, const char *what, int err)
{
	struct krsi_event *ev;

	ev = bpf_ringbuf_reserve(&denials, sizeof(*ev), 0);
	if (ev) {
		__builtin_memset(ev, 0, sizeof(*ev));
		fill_task(ev);
		ev->kind = KRSI_EVENT_DENY;
		ev->verdict = -err;
		bpf_probe_read_kernel_str(ev->hook, sizeof(ev->hook), hook);
		if (what)
			ev->data_len = bpf_probe_read_kernel_str(ev->data,
							sizeof(ev->data), what);
		bpf_ringbuf_submit(ev, 0);
	}
	return -err;
}

#endif
