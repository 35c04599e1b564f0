/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_EVENT_H
#define KRSI_EVENT_H

/*
 * What the policies report to user space (`krsi events`), shared by the
 * BPF programs and the krsi tool: one record per audited exec or per
 * denial, each through its policy's BPF ring buffer.
 */
#define KRSI_NAME_LEN	16
#define KRSI_HOOK_LEN	32
#define KRSI_PATH_LEN	256
#define KRSI_ARGS_LEN	256
/* An exec's data: two paths and the arguments. */
#define KRSI_DATA_LEN	(2 * KRSI_PATH_LEN + KRSI_ARGS_LEN)

enum krsi_event_kind {
	/* data: the file, NUL, its interpreter or nothing, NUL, the arguments */
	KRSI_EVENT_EXEC = 1,
	KRSI_EVENT_DENY = 2,	/* data: what was denied, as text */
	KRSI_EVENT_WOULD_DENY = 3,	/* the same, from a policy in audit mode */
};

struct krsi_event {
	__u64 time_ns;			/* bpf_ktime_get_boot_ns() */
	__u32 kind;			/* enum krsi_event_kind */
	__u32 pid;
	__u32 uid;
	__s32 verdict;			/* 0, or the -errno returned */
	__u32 argc;			/* exec: number of arguments */
	__u32 data_len;			/* bytes of data used */
	char comm[KRSI_NAME_LEN];
	char policy[KRSI_NAME_LEN];
	char hook[KRSI_HOOK_LEN];
	char data[KRSI_DATA_LEN];
};

#endif
