// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/suites/base/krsi_sleep.c: sleepable LSM programs ("lsm.s/") on the
 * hooks where bpf_lsm lets programs sleep, next to programs that do not
 * sleep, on the KRSI path and, for comparison, by trampoline.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define EPERM	1

int target_tgid;
unsigned long target_ino;

/* Which programs ran, in order, on one exec of the target process. */
char order[8];
unsigned int order_len;

/* What bpf_copy_from_user() read of the new program's arguments. */
char argv0[32];
long argv0_err;

static bool from_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

static void ran(char who)
{
	unsigned int i = order_len;

	if (i < sizeof(order)) {
		order[i] = who;
		order_len = i + 1;
	}
}

/*
 * Sleepable: reads user memory, which may fault a page in.  The new
 * program's arguments are at bprm->p in its stack (mm->arg_start is set
 * only later, once the stack is in place).
 */
SEC("lsm.s/bprm_committed_creds")
int BPF_PROG(sleep_argv, struct linux_binprm *bprm)
{
	if (!from_target())
		return 0;
	ran('A');
	argv0_err = bpf_copy_from_user(argv0, sizeof(argv0) - 1,
				       (void *)bprm->p);
	return 0;
}

SEC("lsm/bprm_committed_creds")
int BPF_PROG(plain_b, struct linux_binprm *bprm)
{
	if (from_target())
		ran('B');
	return 0;
}

SEC("lsm.s/bprm_committed_creds")
int BPF_PROG(sleep_c, struct linux_binprm *bprm)
{
	if (from_target())
		ran('C');
	return 0;
}

/* A sleepable program that denies: its verdict counts as any other's. */
unsigned int deny_runs;

SEC("lsm.s/file_open")
int BPF_PROG(sleep_deny, struct file *file, int ret)
{
	if (ret)
		return ret;
	if (!from_target() || BPF_CORE_READ(file, f_inode, i_ino) != target_ino)
		return 0;
	deny_runs++;
	return -EPERM;
}
