// SPDX-License-Identifier: GPL-2.0
/*
 * protect_init: PID 1 can be neither signalled nor traced.
 *
 * Enforces: no process other than init itself sends a signal to PID 1 (a
 * null signal, which only tests that it exists, is allowed), and none
 * attaches to it with ptrace() or reads its memory through
 * /proc/1/mem and the like.
 *
 * Hooks, and why each:
 *  - task_kill: kill(), tgkill(), pidfd_send_signal(), sigqueue(): every
 *    signal sent from user space is checked there.
 *  - ptrace_access_check: ptrace(PTRACE_ATTACH/SEIZE), process_vm_readv()
 *    and /proc/1/{mem,environ,...} all ask this hook.
 *
 * Known limits: signals the kernel sends on its own (SIGCHLD when a child
 * exits) are not checked, as they should not be; PID 1 is the one of the
 * initial PID namespace.
 */
#define POLICY "protect_init"
#include "krsi_policy.h"

static bool is_init(struct task_struct *task)
{
	return BPF_CORE_READ(task, tgid) == 1;
}

SEC("lsm/task_kill")
int BPF_PROG(init_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	if (ret)
		return ret;
	if (sig && is_init(p) && (bpf_get_current_pid_tgid() >> 32) != 1)
		return deny("task_kill", "signal to PID 1", EPERM);
	return 0;
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(init_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	if (is_init(child) && (bpf_get_current_pid_tgid() >> 32) != 1)
		return deny("ptrace_access_check", "ptrace of PID 1", EPERM);
	return 0;
}
