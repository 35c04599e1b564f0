// SPDX-License-Identifier: GPL-2.0
/*
 * Test programs for the KRSI kernel series, driven by tests/suites/base/krsi_*.c.
 *
 * Every program acts only on calls made by the test process (target_tgid)
 * on the test's own file (target_ino), so that the rest of the system runs
 * undisturbed while a test attaches programs that deny.  The test sets
 * these through the skeleton's .bss and reads the results back from it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "krsi_test.h"

char LICENSE[] SEC("license") = "GPL";

#define EPERM	1
#define EACCES	13

/* Set by the test. */
int target_tgid;
unsigned long target_ino;
int verdict_a, verdict_b, verdict_c;	/* what order_{a,b,c} return */
int deny_ret;				/* what deny returns */

/* Filled by the programs. */
char order[ORDER_MAX];			/* who ran, in order */
unsigned int order_len;
int ret_seen_by_c;			/* ctx[nargs] as order_c saw it */
unsigned int deny_runs, v1_runs, v2_runs;
unsigned int ctx_runs;
long ctx_arg_cnt, ctx_arg0_err, ctx_ret_err, ctx_arg1_err;
__u64 ctx_arg0, ctx_file, ctx_ret, ctx_cookie;
unsigned int prctl_runs, fowner_runs;
__u64 fowner_file;
long event_ret, event_bad_flags_ret;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

static bool is_target(struct file *file)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return false;
	return BPF_CORE_READ(file, f_inode, i_ino) == target_ino;
}

static void ran(char who)
{
	unsigned int i = order_len;

	if (i < ORDER_MAX) {
		order[i] = who;
		order_len = i + 1;
	}
}

SEC("lsm/file_open")
int BPF_PROG(order_a, struct file *file, int ret)
{
	if (!is_target(file))
		return ret;
	ran('a');
	return ret ? ret : verdict_a;
}

SEC("lsm/file_open")
int BPF_PROG(order_b, struct file *file, int ret)
{
	if (!is_target(file))
		return ret;
	ran('b');
	return ret ? ret : verdict_b;
}

SEC("lsm/file_open")
int BPF_PROG(order_c, struct file *file, int ret)
{
	if (!is_target(file))
		return ret;
	ran('c');
	ret_seen_by_c = ret;
	return ret ? ret : verdict_c;
}

/* Returns deny_ret as it is, whatever came before. */
SEC("lsm/file_open")
int BPF_PROG(deny, struct file *file)
{
	if (!is_target(file))
		return 0;
	deny_runs++;
	return deny_ret;
}

/* Two versions of one policy, for replacement by name. */
SEC("lsm/file_open")
int BPF_PROG(rep__v1, struct file *file)
{
	if (!is_target(file))
		return 0;
	__sync_fetch_and_add(&v1_runs, 1);
	return -EPERM;
}

SEC("lsm/file_open")
int BPF_PROG(rep__v2, struct file *file)
{
	if (!is_target(file))
		return 0;
	__sync_fetch_and_add(&v2_runs, 1);
	return -EPERM;
}

/* Everything a program can learn about its context and run state. */
SEC("lsm/file_open")
int BPF_PROG(ctxinfo, struct file *file, int ret)
{
	__u64 value = 0;

	if (!is_target(file))
		return 0;
	ctx_runs++;
	ctx_file = (__u64)file;
	ctx_arg_cnt = bpf_get_func_arg_cnt(ctx);
	ctx_arg0_err = bpf_get_func_arg(ctx, 0, &value);
	ctx_arg0 = value;
	ctx_arg1_err = bpf_get_func_arg(ctx, 1, &value);
	ctx_ret_err = bpf_get_func_ret(ctx, &value);
	ctx_ret = value;
	ctx_cookie = bpf_get_attach_cookie(ctx);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(event, struct file *file)
{
	struct test_event ev = {
		.magic = TEST_MAGIC,
		.tgid = bpf_get_current_pid_tgid() >> 32,
	};

	if (!is_target(file))
		return 0;
	ev.ino = BPF_CORE_READ(file, f_inode, i_ino);
	event_ret = bpf_lsm_event_output(&events, BPF_F_CURRENT_CPU,
					 &ev, sizeof(ev));
	event_bad_flags_ret = bpf_lsm_event_output(&events, 1ULL << 40,
						   &ev, sizeof(ev));
	return 0;
}

/*
 * A positive return value is not an errno: the verifier makes the program
 * return -EPERM instead.
 */
SEC("lsm/file_open")
int BPF_PROG(positive, struct file *file)
{
	return is_target(file) ? 1 : 0;
}

/* task_prctl's default is -ENOSYS, not 0: allowing must keep prctl working. */
SEC("lsm/task_prctl")
int BPF_PROG(prctl_allow, int option)
{
	if ((bpf_get_current_pid_tgid() >> 32) == target_tgid)
		prctl_runs++;
	return 0;
}

/* A void hook. */
SEC("lsm/file_set_fowner")
int BPF_PROG(fowner, struct file *file)
{
	if (!is_target(file))
		return 0;
	fowner_runs++;
	fowner_file = (__u64)file;
	return 0;
}

/* Verified for file_mprotect: must not attach to file_open. */
SEC("lsm/file_mprotect")
int BPF_PROG(mprotect_prog, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot)
{
	return 0;
}

/* Sleepable: KRSI runs it on the hooks where bpf_lsm allows sleeping. */
SEC("lsm.s/file_open")
int BPF_PROG(sleepable, struct file *file)
{
	return 0;
}

/* Not an LSM program at all. */
SEC("socket")
int not_lsm(struct __sk_buff *skb)
{
	return 0;
}

/*
 * For tests/suites/base/krsi_stress.c: deny programs that judge every process
 * (the hammers are separate processes), by inode only, and programs that
 * allow everything, attached and detached around them.
 */
unsigned long stress_ino, stress_map_ino, stress_exec_ino;
unsigned int srep_v1_runs, srep_v2_runs;

static bool is_stress(struct file *file, unsigned long ino)
{
	return ino && file && BPF_CORE_READ(file, f_inode, i_ino) == ino;
}

SEC("lsm/file_open")
int BPF_PROG(srep__v1, struct file *file)
{
	if (!is_stress(file, stress_ino))
		return 0;
	__sync_fetch_and_add(&srep_v1_runs, 1);
	return -EPERM;
}

/* Sleepable: the stress test swaps it with srep__v1 while opens run. */
SEC("lsm.s/file_open")
int BPF_PROG(srep__v2, struct file *file)
{
	if (!is_stress(file, stress_ino))
		return 0;
	__sync_fetch_and_add(&srep_v2_runs, 1);
	return -EPERM;
}

SEC("lsm/mmap_file")
int BPF_PROG(stress_mmap, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags)
{
	return is_stress(file, stress_map_ino) && (prot & 4 /* PROT_EXEC */) ?
	       -EACCES : 0;
}

SEC("lsm/bprm_check_security")
int BPF_PROG(stress_exec, struct linux_binprm *bprm)
{
	return is_stress(BPF_CORE_READ(bprm, file), stress_exec_ino) ?
	       -EACCES : 0;
}

/* The "a" programs sleep (all three hooks are sleepable), the "b" do not. */
#define NOISE(name, sec)			\
SEC(sec)					\
int BPF_PROG(name)				\
{						\
	return 0;				\
}
NOISE(noise_open_a, "lsm.s/file_open")
NOISE(noise_open_b, "lsm/file_open")
NOISE(noise_mmap_a, "lsm.s/mmap_file")
NOISE(noise_mmap_b, "lsm/mmap_file")
NOISE(noise_exec_a, "lsm.s/bprm_check_security")
NOISE(noise_exec_b, "lsm/bprm_check_security")

/* The hook with the most arguments that a test can call at will. */
__u64 prctl_option, prctl_arg2, prctl_arg3, prctl_arg4, prctl_arg5;
long prctl_arg_cnt;

SEC("lsm/task_prctl")
int BPF_PROG(prctl_args, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5, int ret)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid || option != 3)
		return 0;
	/* Read the raw slot: an int argument must arrive zero-extended. */
	prctl_option = ctx[0];
	prctl_arg2 = arg2;
	prctl_arg3 = arg3;
	prctl_arg4 = arg4;
	prctl_arg5 = arg5;
	prctl_arg_cnt = bpf_get_func_arg_cnt(ctx);
	return 0;
}

/* A tracing program: never attachable through a hook file. */
SEC("fentry/security_file_open")
int BPF_PROG(tracing_prog, struct file *file)
{
	return 0;
}

/*
 * Names longer than the 15 characters of bpf_attr.prog_name: replacement by
 * name compares the full names, from the programs' BTF.
 */
#define ALLOW_OPEN(name)			\
SEC("lsm/file_open")				\
int BPF_PROG(name, struct file *file)		\
{						\
	return 0;				\
}
ALLOW_OPEN(audit_file_open_a)
ALLOW_OPEN(audit_file_open_b)
ALLOW_OPEN(protect_secret)
ALLOW_OPEN(protect_secret__v2)
