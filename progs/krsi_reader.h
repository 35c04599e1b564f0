/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit reader (krsi logd), as the policies that know it know it: by
 * a claim in a map of each, `reader`, that the reader writes before the
 * seal (`krsi lock`) and freezes: its process id and when it started, in
 * USER_HZ ticks since boot, as /proc/PID/stat gives it.  No later process
 * has both (a process id comes back only for a process started later),
 * nobody writes a frozen map, and the kernel gives a newer version of the
 * policy the claim as it is, frozen, before its first program runs
 * (patch 0023): the reader stays known through a signed replacement.
 * Not a mark in the reader's task: a new version would start without it.
 * Not a name, which anyone sets.
 *
 * Included after krsi_policy.h by protect_init, protect_log and krsi_lock.
 */
#ifndef KRSI_READER_H
#define KRSI_READER_H

struct krsi_reader_claim {
	__u32 tgid;
	__u32 pad;
	__u64 start;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_reader_claim);
} reader SEC(".maps");

/* USER_HZ, as /proc/PID/stat counts: 100 on every architecture built. */
#define KRSI_NSEC_PER_USER_HZ	10000000ULL

/*
 * Is @map (one of this policy's) frozen?  The verifier lets a program read
 * the fields of its own maps, but not move a pointer to one: not inlined,
 * so that the compiler cannot share an address computed for one map's
 * field among several calls.
 */
static __noinline bool krsi_map_frozen(void *map)
{
	return ((struct bpf_map *)map)->frozen;
}

/* Is @task a thread of the audit reader, as this policy's claim says? */
static bool is_reader_task(struct task_struct *task)
{
	struct krsi_reader_claim *claim;
	__u32 zero = 0;

	/* Unfrozen, anyone who wrote it could write it again. */
	if (!krsi_map_frozen(&reader))
		return false;
	claim = bpf_map_lookup_elem(&reader, &zero);
	return claim && claim->tgid == task->tgid &&
	       claim->start ==
	       task->group_leader->start_boottime / KRSI_NSEC_PER_USER_HZ;
}

#endif /* KRSI_READER_H */
