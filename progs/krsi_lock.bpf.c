// SPDX-License-Identifier: GPL-2.0
/*
 * krsi_lock: once locked, the attached policies stay until reboot.
 *
 * Enforces: after `krsi lock`, nobody, root included, loads a BPF program,
 * attaches or detaches one (KRSI hook file, trampoline, link), or gets a
 * descriptor of an existing program, map or link by its id; pinned
 * objects (the event buffers) can still be opened.
 *
 * The lock is a one-way latch: `krsi lock` freezes the map `lock`
 * (BPF_MAP_FREEZE), and the kernel never unfreezes a map.  The program
 * reads the frozen state, so no map write can unlock it.
 *
 * Hooks, and why each:
 *  - bpf: every bpf() command is checked there, before it runs.  Loading
 *    is refused as a whole, since a tracing program with fmod_ret on a
 *    security_*() function could skip the LSM hooks altogether.
 *
 * Known limits: with no_module_load not attached, a kernel module could
 * undo everything; a process that held a descriptor of a policy's map
 * before the lock keeps it.
 */
#define POLICY "krsi_lock"
#include "krsi_policy.h"

/* Frozen by `krsi lock`; its content is not used. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} lock SEC(".maps");

static bool locked(void)
{
	/* The verifier lets a program read the fields of its own maps. */
	struct bpf_map *map = (struct bpf_map *)&lock;

	return map->frozen;
}

SEC("lsm/bpf")
int BPF_PROG(krsi_lock, int cmd, union bpf_attr *attr, unsigned int size,
	     int ret)
{
	if (ret)
		return ret;
	if (!locked())
		return 0;
	switch (cmd) {
	case BPF_PROG_LOAD:
	case BPF_PROG_ATTACH:
	case BPF_PROG_DETACH:
	case BPF_RAW_TRACEPOINT_OPEN:
	case BPF_LINK_CREATE:
	case BPF_LINK_UPDATE:
	case BPF_LINK_DETACH:
	case BPF_PROG_GET_FD_BY_ID:
	case BPF_MAP_GET_FD_BY_ID:
	case BPF_LINK_GET_FD_BY_ID:
	case BPF_BTF_LOAD:
		return deny("bpf", "bpf() command while locked", EPERM);
	}
	return 0;
}
