/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_ACTING_PROGS_H
#define KRSI_ACTING_PROGS_H

/*
 * LSM programs that act on the system through a helper, for the tests of
 * what an audit-only kernel attaches (tests/suites/audit/krsi_audit.c
 * expects EOPNOTSUPP for each, tests/suites/base/krsi_acting.c expects them to
 * attach on the enforcing kernel).  Each is "call the helper, return 0",
 * built by hand: no skeleton may hold a program the kernel refuses.
 */
#include <linux/bpf.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "btf_lookup.h"

#define ACT_MOV_IMM(dst, k) \
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = (dst), .imm = (k) }
#define ACT_MOV_REG(dst, src) \
	{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = (dst), .src_reg = (src) }
#define ACT_LDX_DW(dst, src, o) \
	{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = (dst), \
	  .src_reg = (src), .off = (o) }
#define ACT_CALL(fn)	{ .code = BPF_JMP | BPF_CALL, .imm = (fn) }
#define ACT_EXIT	{ .code = BPF_JMP | BPF_EXIT }
/* Two instructions: r{dst} = the map of descriptor @fd. */
#define ACT_LD_MAP(dst, fd) \
	{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = (dst), \
	  .src_reg = BPF_PSEUDO_MAP_FD, .imm = (fd) }, { .code = 0 }

struct acting_prog {
	const char *name;	/* the helper it calls */
	const char *hook;
	int fd;			/* its descriptor, or a negative errno */
};

/* bpf_send_signal(0) or bpf_send_signal_thread(0): signal 0 sends nothing. */
static inline int load_signaller(int btf_id, int helper)
{
	const struct bpf_insn insns[] = {
		ACT_MOV_IMM(BPF_REG_1, 0),
		ACT_CALL(helper),
		ACT_MOV_IMM(BPF_REG_0, 0),
		ACT_EXIT,
	};

	return load_lsm_insns(btf_id, "signaller", insns, 4);
}

/* bpf_bprm_opts_set(bprm, 0) on bprm_creds_for_exec: sets no flag. */
static inline int load_bprm_opts(int btf_id)
{
	const struct bpf_insn insns[] = {
		ACT_LDX_DW(BPF_REG_1, BPF_REG_1, 0),
		ACT_MOV_IMM(BPF_REG_2, 0),
		ACT_CALL(BPF_FUNC_bprm_opts_set),
		ACT_MOV_IMM(BPF_REG_0, 0),
		ACT_EXIT,
	};

	return load_lsm_insns(btf_id, "bprm_opts", insns, 5);
}

/* bpf_tail_call() into an empty program array: it runs nothing now. */
static inline int load_tail_caller(int btf_id)
{
	union bpf_attr attr;
	int map, fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_PROG_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	map = sys_bpf(BPF_MAP_CREATE, &attr);
	if (map < 0)
		return map;
	{
		const struct bpf_insn insns[] = {
			ACT_LD_MAP(BPF_REG_2, map),
			ACT_MOV_IMM(BPF_REG_3, 0),
			ACT_CALL(BPF_FUNC_tail_call),
			ACT_MOV_IMM(BPF_REG_0, 0),
			ACT_EXIT,
		};

		fd = load_lsm_insns(btf_id, "tail_caller", insns, 6);
	}
	close(map);
	return fd;
}

/* Load one program per acting helper; false if the BTF cannot be read. */
static inline bool load_acting_progs(struct acting_prog progs[4])
{
	struct btf_file btf;
	int open_id, exec_id;

	if (btf_open(&btf))
		return false;
	open_id = btf_find_func(&btf, "bpf_lsm_file_open");
	exec_id = btf_find_func(&btf, "bpf_lsm_bprm_creds_for_exec");
	btf_close(&btf);
	progs[0] = (struct acting_prog){ "bpf_send_signal", "file_open",
		load_signaller(open_id, BPF_FUNC_send_signal) };
	progs[1] = (struct acting_prog){ "bpf_send_signal_thread", "file_open",
		load_signaller(open_id, BPF_FUNC_send_signal_thread) };
	progs[2] = (struct acting_prog){ "bpf_bprm_opts_set", "bprm_creds_for_exec",
		load_bprm_opts(exec_id) };
	progs[3] = (struct acting_prog){ "bpf_tail_call", "file_open",
		load_tail_caller(open_id) };
	return true;
}

#endif
