// SPDX-License-Identifier: GPL-2.0
/*
 * audit_exec: each exec is recorded as it ran, or refused
 *
 * Records, for every successful execve()/execveat(): pid, uid, comm (the
 * caller's), the file the kernel executed, by its full path as the kernel
 * resolved it (symlinks followed, a memfd shown as /memfd:NAME), the
 * interpreter that runs it when it is a script, and the arguments.  The
 * records go into a ring buffer that the audit reader (`krsi logd`)
 * drains into the log.  Fail-closed: an exec whose record might not fit
 * is refused with EAGAIN (audit mode, `krsi attach --audit`: allowed and
 * counted as lost instead), so that every program that runs has its
 * record; refusals are counted per user.
 *
 * Routes to a record that names another program, and what closes each:
 *  - a symlink, a hard link, a relative path, /proc/self/fd/N, or
 *    execveat() of a descriptor: the name the caller passed is never
 *    used, only bpf_d_path() of the file the kernel opened.
 *  - a script, whose interpreter is what runs: bprm_check_security sees
 *    each file the kernel resolves, the script first, then its
 *    interpreter; the script's path is kept (task storage) and both are
 *    recorded.
 *  - argv[0] and comm, which the caller chooses: recorded as an argument
 *    and as the caller's name, never as the file.
 *  - a path that does not fit (4096 bytes, PATH_MAX, with its NUL):
 *    recorded as its last bytes with the part's KRSI_CUT_* flag, never
 *    as anything else; every part has its length in the header, so no
 *    part is ever read as another.
 *  - after the lock, nobody writes to the ring buffer, its counters or
 *    its consumer position from user space but the audit reader, which
 *    took its descriptors before (krsi_lock).
 *
 * Routes to an exec without a record, and what closes each:
 *  - a full buffer: bprm_check_security refuses the exec (EAGAIN) while
 *    less than HEADROOM is free (twice that for anyone but root, so that
 *    a user's flood leaves root room to work); refusals are counted in
 *    refused and refused_uid and reported as audit_exec's denials.
 *  - execs that passed that check all at once and fill the rest: the
 *    record is written when the exec can no longer fail
 *    (bprm_committed_creds), and if it does not fit, the task is killed
 *    (SIGKILL) before the new program runs a single instruction, and
 *    counted as refused.
 *
 * Hooks, and why:
 *  - bprm_check_security: the caller's name, the file of the first
 *    binfmt round when it is a script (the one the caller asked for); the
 *    room check, which can still refuse.
 *  - bprm_committed_creds: runs once the exec can no longer fail, so only
 *    programs that really start are recorded; the new program's arguments
 *    are already on its stack, at bprm->p, in the current mm.
 *
 * Known limits: arguments beyond KRSI_ARGS_MAX bytes are cut (marked); a
 * file run from a detached copy of a directory (open_tree(OPEN_TREE_CLONE),
 * root only; mounts are refused after the lock but this is not a mount)
 * is named by its path from that copy's root, which may be a path that
 * does not exist; a path is relative to the caller's root (chroot is
 * refused by protect_secret); execs that policies deny are reported by
 * those policies, not here.  PID 1 cannot be killed, so an exec of PID 1
 * whose record does not fit is only counted as lost.  The kill makes this
 * policy one that acts: an audit-only kernel does not attach it.
 */
#define POLICY "audit_exec"
#include "krsi_policy.h"

#define SIGKILL		9
#define ENAMETOOLONG	36

/* 4 MB: some 20,000 records of the usual size (about 200 bytes). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} execs SEC(".maps");

/* Execs refused because their record might not have been written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} refused SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} refused_uid SEC(".maps");

/* The largest record, and the room kept free for that many in flight. */
#define RECORD_MAX	(sizeof(struct krsi_event) + KRSI_DATA_MAX)
#define HEADROOM	(32 * RECORD_MAX)

/*
 * What the exec's first round knew and its commit no longer does, kept
 * in the task from bprm_check_security until the exec commits: the
 * caller's name (by then comm is the new program's), and for a script,
 * the script (by then bprm->file is its interpreter).  @started says the
 * check of this very exec wrote it.  Two maps, so that the 4 KB of a
 * path are allocated only for scripts, not for every task that execs.
 */
struct exec_caller {
	__u32 started;
	char comm[KRSI_NAME_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct exec_caller);
} exec_callers SEC(".maps");

struct script_file {
	__u32 started;
	__u32 len;
	__u32 flags;
	char path[KRSI_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct script_file);
} script_files SEC(".maps");

/* Where a record is put together before it is copied to the buffer. */
struct exec_record {
	struct krsi_event ev;
	char data[2 * KRSI_PATH_MAX + KRSI_ARGS_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_record);
} scratch SEC(".maps");

/*
 * The path of @path into @buf (KRSI_PATH_MAX bytes), and its length
 * without the NUL.  A path that does not fit: d_path() has filled the
 * buffer with its last bytes (from the end, the NUL last), so that is
 * what is recorded, with @cut set in *@flags; a path it could not
 * resolve at all is recorded as cut and empty.
 */
static __always_inline __u32 resolve(struct path *path, char *buf,
				     __u32 *flags, __u32 cut)
{
	long n;

	buf[0] = '\0';
	n = bpf_d_path(path, buf, KRSI_PATH_MAX);
	if (n > 0)
		return (n - 1) & (KRSI_PATH_MAX - 1);
	*flags |= cut;
	/* Filled from the end: the NUL there, and something from the start. */
	if (n == -ENAMETOOLONG && buf[0] && !buf[KRSI_PATH_MAX - 1])
		return KRSI_PATH_MAX - 1;
	return 0;
}

/* Is there room for a record of @uid, with the headroom of in-flight ones? */
static __always_inline bool room_for_exec(__u32 uid)
{
	__u64 size = bpf_ringbuf_query(&execs, BPF_RB_RING_SIZE);
	__u64 used = bpf_ringbuf_query(&execs, BPF_RB_AVAIL_DATA);
	__u64 keep = uid ? 2 * HEADROOM : HEADROOM;

	return used + keep <= size;
}

SEC("lsm/bprm_check_security")
int BPF_PROG(audit_exec_file, struct linux_binprm *bprm, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 uid = current_uid(), flags = 0;
	struct exec_caller *c;
	struct script_file *f;

	/* Later rounds (a script's interpreter) have bprm->interp changed. */
	if (ret || bprm->interp != bprm->filename)
		return ret;
	if (!room_for_exec(uid)) {
		/* In audit mode deny() reports and allows: the record may
		 * then be lost, and is counted so.
		 */
		int err = deny("bprm_check_security",
			       "no room for its record: the reader is behind",
			       EAGAIN);

		if (err) {
			count_for(&refused, &refused_uid, uid);
			return err;
		}
	}
	c = bpf_task_storage_get(&exec_callers, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c) {
		bpf_get_current_comm(c->comm, sizeof(c->comm));
		c->started = 1;
	}
	/* A script (binfmt_script's test, on the bytes prepare_binprm()
	 * read): its path now, for the commit sees only its interpreter.
	 */
	if (bprm->buf[0] != '#' || bprm->buf[1] != '!')
		return 0;
	f = bpf_task_storage_get(&script_files, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!f)
		return 0;	/* the commit finds no path and says so */
	f->len = resolve(&bprm->file->f_path, f->path, &flags, KRSI_CUT_FILE);
	f->flags = flags;
	f->started = 1;
	return 0;
}

/* Counting the argument strings: where the argc-th NUL is. */
struct args_scan {
	const char *buf;
	__u32 size, argc, seen, end;
};

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/*
 * Eight bytes at a time: a word without a NUL (the usual one) costs a
 * load and a test; the bytes of one with a NUL are looked at one by one.
 */
static long scan_word(__u32 i, struct args_scan *s)
{
	__u32 off = (i * 8) & (KRSI_ARGS_MAX - 8), j;
	__u64 word = *(const __u64 *)(s->buf + off);

	if (!((word - ONES) & ~word & HIGHS))
		return 0;
	for (j = 0; j < 8; j++) {
		if (off + j >= s->size)
			return 1;
		if (s->buf[off + j])
			continue;
		s->end = off + j + 1;
		if (++s->seen >= s->argc)
			return 1;	/* 1 stops the loop */
	}
	return 0;
}

/*
 * The argument strings, as the new stack holds them: from bprm->p, where
 * the environment strings and the file name follow (up to bprm->exec).
 * Copies at most KRSI_ARGS_MAX bytes to @buf and returns the length of
 * the first argc strings, with KRSI_CUT_ARGS in *@flags when they do not
 * all fit.  @buf has KRSI_ARGS_MAX bytes of room, read as whole words.
 */
static __always_inline __u64 read_args(struct linux_binprm *bprm, char *buf,
				       __u32 *flags)
{
	unsigned long p = bprm->p, exec = bprm->exec;
	struct args_scan s = { .buf = buf, .argc = bprm->argc };
	/* 64-bit throughout, so that the verifier keeps the bound. */
	__u64 size = exec > p ? exec - p : 0;

	if (size > KRSI_ARGS_MAX)
		size = KRSI_ARGS_MAX;
	if (!size || bpf_probe_read_user(buf, size, (const void *)p)) {
		*flags |= KRSI_CUT_ARGS;
		return 0;
	}
	s.size = size;
	bpf_loop((size + 7) / 8, scan_word, &s, 0);
	if (s.seen < s.argc) {
		*flags |= KRSI_CUT_ARGS;
		return size;
	}
	return s.end;
}

SEC("lsm/bprm_committed_creds")
int BPF_PROG(audit_exec, struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 zero = 0, flags = 0, used, n;
	struct exec_record *r;
	struct exec_caller *c;
	struct script_file *f;
	__u64 size;

	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	__builtin_memset(&r->ev, 0, sizeof(r->ev));
	fill_task(&r->ev);
	r->ev.kind = KRSI_EVENT_EXEC;
	r->ev.argc = bprm->argc;
	__builtin_memcpy(r->ev.hook, "bprm_committed_creds", 21);

	/* The caller's name, as its check kept it; else it is gone. */
	c = bpf_task_storage_get(&exec_callers, task, 0, 0);
	if (c && c->started) {
		c->started = 0;
		__builtin_memcpy(r->ev.comm, c->comm, sizeof(r->ev.comm));
	} else {
		__builtin_memset(r->ev.comm, 0, sizeof(r->ev.comm));
	}
	/* The file: this round's, or for a script the first round's. */
	if (bprm->interp == bprm->filename) {
		n = resolve(&bprm->file->f_path, r->data, &flags, KRSI_CUT_FILE);
	} else if ((f = bpf_task_storage_get(&script_files, task, 0, 0)) &&
		   f->started) {
		f->started = 0;
		n = f->len & (KRSI_PATH_MAX - 1);
		if (bpf_probe_read_kernel(r->data, n, f->path))
			n = 0;
		flags = f->flags;
	} else {
		flags |= KRSI_CUT_FILE;	/* no path kept: said, not guessed */
		n = 0;
	}
	r->ev.file_len = n;
	used = n;
	if (bprm->interp != bprm->filename) {
		n = resolve(&bprm->file->f_path, r->data + used, &flags,
			    KRSI_CUT_INTERP);
		r->ev.interp_len = n;
		used += n;
	}
	used &= 2 * KRSI_PATH_MAX - 1;
	size = used + read_args(bprm, r->data + used, &flags);
	/* 64-bit, so that the verifier keeps the bound it is given. */
	if (size > sizeof(r->data))
		size = sizeof(r->data);
	r->ev.flags = flags;
	r->ev.data_len = size;

	if (!bpf_ringbuf_output(&execs, r, sizeof(r->ev) + size, 0))
		return 0;
	if (auditing() || bpf_send_signal(SIGKILL))
		count_lost(r->ev.uid);
	else
		count_for(&refused, &refused_uid, r->ev.uid);
	return 0;
}
