// SPDX-License-Identifier: GPL-2.0
/*
 * audit_exec: every program that starts is reported.
 *
 * Reports, for every successful execve()/execveat(): pid, uid, comm (the
 * caller's), the file name and the arguments, through
 * bpf_lsm_event_output() into a perf event array read by `krsi events`.
 * Denies nothing.
 *
 * Hooks, and why:
 *  - bprm_committed_creds: runs once the exec can no longer fail, so only
 *    programs that really start are reported; the new program's arguments
 *    are already on its stack, at bprm->p, in the current mm.
 *
 * Known limits: arguments beyond what fits in the record are cut; execs
 * that policies deny are reported by those policies, not here.
 */
#define POLICY "audit_exec"
#include "krsi_policy.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} execs SEC(".maps");

/* Too big for the 512-byte BPF stack: built in a per-CPU buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_event);
} scratch SEC(".maps");

SEC("lsm/bprm_committed_creds")
int BPF_PROG(audit_exec, struct linux_binprm *bprm)
{
	__u32 zero = 0;
	struct krsi_event *ev = bpf_map_lookup_elem(&scratch, &zero);
	const void *args;
	__u32 used, chunk;
	long n;

	if (!ev)
		return 0;
	__builtin_memset(ev, 0, sizeof(*ev));
	fill_task(ev);
	ev->kind = KRSI_EVENT_EXEC;
	ev->argc = BPF_CORE_READ(bprm, argc);
	__builtin_memcpy(ev->hook, "bprm_committed_creds", 21);

	n = bpf_probe_read_kernel_str(ev->data, KRSI_DATA_LEN / 2,
				      BPF_CORE_READ(bprm, filename));
	used = n > 0 ? n : 0;
	/*
	 * The argument strings, NUL-separated, as the new stack holds them.
	 * The stack may end less than a full chunk after them: try smaller.
	 */
	args = (const void *)BPF_CORE_READ(bprm, p);
	for (chunk = KRSI_DATA_LEN / 2; chunk >= 16; chunk /= 2) {
		if (used < KRSI_DATA_LEN / 2 &&
		    !bpf_probe_read_user(ev->data + used, chunk, args)) {
			used += chunk;
			break;
		}
	}
	ev->data_len = used;
	bpf_lsm_event_output(&execs, BPF_F_CURRENT_CPU, ev, sizeof(*ev));
	return 0;
}
