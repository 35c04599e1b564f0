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
/*
 * The most data a record carries: an exec's file, interpreter and
 * arguments (a denial's is KRSI_WHAT_LEN).  The audit reader sizes its
 * buffers by it before the lock (tools/krsi/logd/).
 */
#define KRSI_DATA_MAX	(2 * KRSI_PATH_MAX + KRSI_ARGS_MAX)

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
	__u64 load_id;			/* the load of the policy that made it */
	__u32 version;			/* its POLICY_VERSION */
	__u32 reserved;
	/* then data_len bytes of data */
};

/*
 * Who attached a load of a policy, and its programs' ids: written by the
 * krsi tool into the policy's map "origin" once its programs are
 * attached, before it is pinned, so that the audit reader, which finds a
 * policy by its pins, always finds it; frozen with every map by the lock.
 * A record carries its load's id, so it is never taken for another
 * load's (a replacement's programs, say).
 */
#define KRSI_ORIGIN_PROGS	16
#define KRSI_ORIGIN_EXE_LEN	64

struct krsi_origin_prog {
	char hook[KRSI_HOOK_LEN];
	__u32 prog_id;
	__u32 link_id;			/* its KRSI link's id */
};

struct krsi_origin {
	__u64 load_id;			/* 0: not written */
	__u64 time_ns;			/* CLOCK_BOOTTIME of the attach */
	__u32 version;
	__u32 pid;			/* the attaching process */
	__u32 uid;
	__u32 nr_progs;
	char exe[KRSI_ORIGIN_EXE_LEN];	/* its executable, cut to fit */
	struct krsi_origin_prog progs[KRSI_ORIGIN_PROGS];
};

/* The key of map denial_counts: a hook's name, NUL-padded. */
struct krsi_hook_key {
	char hook[KRSI_HOOK_LEN];
};

/* A load's denials on one hook, whether reported or not (map denial_counts). */
struct krsi_denial_count {
	__u64 denied;
	__u64 would_deny;		/* in audit mode */
};

#endif
