// SPDX-License-Identifier: GPL-2.0
/*
 * audit_exec: each exec is recorded as the kernel ran it
 *
 * Reports, for every successful execve()/execveat(): pid, uid, comm (the
 * caller's), the file the kernel executed, by its full path as the kernel
 * resolved it (symlinks followed, a memfd shown as /memfd:NAME), the
 * interpreter that runs it when it is a script, and the arguments.  The
 * records go into a ring buffer read by `krsi events`; a record that finds
 * the buffer full is counted as lost.  Denies nothing.
 *
 * Routes to a record that names another program, and what closes each:
 *  - a symlink, a hard link, a relative path, /proc/self/fd/N, or
 *    execveat() of a descriptor: the name the caller passed is never
 *    used, only bpf_d_path() of the file the kernel opened.
 *  - a script, whose interpreter is what runs: bprm_check_security sees
 *    each file the kernel resolves, the script first, then its
 *    interpreter; the first is kept (task storage) and both are reported.
 *  - argv[0], which the caller chooses: reported as an argument, never as
 *    the file.
 *  - after the lock, nobody writes to the ring buffer or the lost counter
 *    from user space (krsi_lock), so records cannot be dropped silently.
 *
 * Hooks, and why:
 *  - bprm_check_security: the file of the first binfmt round, the one the
 *    caller asked for.
 *  - bprm_committed_creds: runs once the exec can no longer fail, so only
 *    programs that really start are reported; the new program's arguments
 *    are already on its stack, at bprm->p, in the current mm.
 *
 * Known limits: paths longer than KRSI_PATH_LEN and arguments beyond what
 * fits in the record are cut; a file run from a detached copy of a
 * directory (open_tree(OPEN_TREE_CLONE), root only; mounts are refused
 * after the lock but this is not a mount) is named by its path from that
 * copy's root, which may be a path that does not exist; a path is
 * relative to the caller's root (chroot is refused by protect_secret);
 * execs that policies deny are reported by those policies, not here.
 * The buffer holds about 300 records and the appliance runs no reader, so
 * anyone who runs that many programs fills it: later execs are counted
 * in "lost", with nobody named, until root reads the buffer
 * (tests/guest-boot/boot_policies.sh shows it).
 */
#define POLICY "audit_exec"
#include "krsi_policy.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} execs SEC(".maps");

/*
 * The file of the exec's first round and the caller's name, kept until
 * the exec commits (by then comm is the new program's).
 */
struct exec_file {
	char path[KRSI_PATH_LEN];
	char comm[KRSI_NAME_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct exec_file);
} exec_files SEC(".maps");

SEC("lsm/bprm_check_security")
int BPF_PROG(audit_exec_file, struct linux_binprm *bprm, int ret)
{
	struct exec_file *f;

	/* Later rounds (a script's interpreter) have bprm->interp changed. */
	if (ret || bprm->interp != bprm->filename)
		return ret;
	f = bpf_task_storage_get(&exec_files, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!f)
		return 0;
	if (bpf_d_path(&bprm->file->f_path, f->path, sizeof(f->path)) < 0)
		f->path[0] = '\0';
	bpf_get_current_comm(f->comm, sizeof(f->comm));
	return 0;
}

/*
 * @n, the length (NUL included) that a helper returned for a path read
 * with PATH_MAX_READ, as a length the verifier knows to be below
 * KRSI_PATH_LEN.
 */
#define PATH_MAX_READ	(KRSI_PATH_LEN - 1)

static __always_inline __u32 path_len(long n)
{
	return n > 0 ? n & (KRSI_PATH_LEN - 1) : 0;
}

SEC("lsm/bprm_committed_creds")
int BPF_PROG(audit_exec, struct linux_binprm *bprm)
{
	struct krsi_event *ev;
	struct exec_file *f;
	const void *args;
	__u32 used, chunk;
	long n;

	ev = bpf_ringbuf_reserve(&execs, sizeof(*ev), 0);
	if (!ev) {
		count_lost();
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	fill_task(ev);
	ev->kind = KRSI_EVENT_EXEC;
	ev->argc = BPF_CORE_READ(bprm, argc);
	__builtin_memcpy(ev->hook, "bprm_committed_creds", 21);

	/* data: the file, NUL, the interpreter or nothing, NUL, the arguments. */
	f = bpf_task_storage_get(&exec_files, bpf_get_current_task_btf(), 0, 0);
	if (f)
		__builtin_memcpy(ev->comm, f->comm, sizeof(ev->comm));
	n = f ? bpf_probe_read_kernel_str(ev->data, PATH_MAX_READ, f->path) : 0;
	used = path_len(n);
	if (used <= 1)
		used = path_len(bpf_d_path(&bprm->file->f_path, ev->data,
					   PATH_MAX_READ));
	if (bprm->interp != bprm->filename)
		n = bpf_d_path(&bprm->file->f_path, ev->data + used,
			       PATH_MAX_READ);
	else
		n = 1;		/* an empty string: the zeroed byte */
	used += path_len(n);
	/*
	 * The argument strings, NUL-separated, as the new stack holds them.
	 * The stack may end less than a full chunk after them: try smaller.
	 */
	args = (const void *)BPF_CORE_READ(bprm, p);
	for (chunk = KRSI_ARGS_LEN; chunk >= 16; chunk /= 2) {
		if (!bpf_probe_read_user(ev->data + used, chunk, args)) {
			used += chunk;
			break;
		}
	}
	ev->data_len = used;
	bpf_ringbuf_submit(ev, 0);
	return 0;
}
