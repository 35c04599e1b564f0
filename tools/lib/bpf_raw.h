/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_BPF_RAW_H
#define KRSI_BPF_RAW_H

/*
 * bpf(2) without libbpf, for programs no skeleton has: the smallest LSM
 * program ("return 0") for any hook, by its BTF id.  The tests load
 * their own with it, and `krsi doctor` the one it tries a trampoline
 * with.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysbpf.h"

/*
 * Load @insn_cnt instructions as an LSM program for the hook whose
 * bpf_lsm_<hook> has BTF id @btf_id, named @name, with the verifier's log
 * in @log (of @log_size bytes) unless it is NULL: a descriptor, or a
 * negative errno.
 */
static inline int load_lsm_insns_log(int btf_id, const char *name,
				     const struct bpf_insn *insns,
				     unsigned int insn_cnt, char *log,
				     unsigned int log_size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_LSM;
	attr.expected_attach_type = BPF_LSM_MAC;
	attr.attach_btf_id = btf_id;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = insn_cnt;
	attr.license = (unsigned long)"GPL";
	if (log) {
		log[0] = '\0';
		attr.log_buf = (unsigned long)log;
		attr.log_size = log_size;
		attr.log_level = 1;
	}
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static inline int load_lsm_insns(int btf_id, const char *name,
				 const struct bpf_insn *insns, unsigned int insn_cnt)
{
	return load_lsm_insns_log(btf_id, name, insns, insn_cnt, NULL, 0);
}

/* "return 0": a program that allows everything. */
static inline int load_allow(int btf_id, const char *name)
{
	static const struct bpf_insn allow[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return load_lsm_insns(btf_id, name, allow, 2);
}

#endif
