/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_EVENT_H
#define KRSI_EVENT_H

/*
 * What the policies report to user space (the audit reader, `krsi logd`),
 * shared by the BPF programs and the krsi tool: one record per audited
 * exec or per denial, each through its policy's BPF ring buffer.
 *
 * A record is a fixed header followed by data_len bytes of data, whose
 * parts have explicit lengths: nothing is found by looking for a NUL, so
 * no part can be read as another.
 */
#define KRSI_NAME_LEN	16
#define KRSI_HOOK_LEN	32
/* A denial's description (what was denied), NUL included. */
#define KRSI_WHAT_LEN	256
/* A path as bpf_d_path() resolves it, NUL included: the kernel's PATH_MAX. */
#define KRSI_PATH_MAX	4096
/* An exec's argument strings, NULs included. */
#define KRSI_ARGS_MAX	4096

enum krsi_event_kind {
	/* data: the file, its interpreter (interp_len 0: none), the arguments */
	KRSI_EVENT_EXEC = 1,
	KRSI_EVENT_DENY = 2,	/* data: what was denied, as text */
	KRSI_EVENT_WOULD_DENY = 3,	/* the same, from a policy in audit mode */
};

/*
 * flags of an exec record: the parts that did not fit.  A cut path holds
 * the last bytes of the real one (bpf_d_path() fills its buffer from the
 * end); a cut path of length 0 is one the kernel could not resolve.  Cut
 * arguments are fewer than argc, the last one possibly cut too.
 */
#define KRSI_CUT_FILE	(1U << 0)
#define KRSI_CUT_INTERP	(1U << 1)
#define KRSI_CUT_ARGS	(1U << 2)

struct krsi_event {
	__u64 time_ns;			/* bpf_ktime_get_boot_ns() */
	__u32 kind;			/* enum krsi_event_kind */
	__u32 pid;
	__u32 uid;
	__s32 verdict;			/* 0, or the -errno returned */
	__u32 argc;			/* exec: number of arguments */
	__u32 flags;			/* exec: KRSI_CUT_* */
	__u32 data_len;			/* bytes of data */
	__u16 file_len;			/* exec: bytes of data that are the file, */
	__u16 interp_len;		/* then the interpreter; the rest: arguments */
	char comm[KRSI_NAME_LEN];	/* exec: the caller's, before the exec */
	char policy[KRSI_NAME_LEN];
	char hook[KRSI_HOOK_LEN];
	/* then data_len bytes of data */
};

#endif
