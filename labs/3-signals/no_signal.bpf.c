// SPDX-License-Identifier: GPL-2.0
/*
 * no_signal: no signal reaches the lab's service
 *
 * Lab 3, a policy that must close several routes (labs/3-signals/
 * README.md).  The guarantee: no process but the service itself sends
 * a signal to a process running /tests/lab_service (known by its
 * executable file, not its name), however the signal is sent; the null
 * signal, which only asks whether a process exists, stays allowed.
 * Holds against the demo user, who runs the service.
 *
 * As given, the policy closes the first route the checker tries,
 * kill(), and the checker finds one it misses: find which, in the 6.1
 * sources (the callers of send_sig_info() and friends that do not go
 * through check_kill_permission()), and close it too.
 */
#define POLICY "no_signal"
#include "krsi_policy.h"

/* The service's executable (set by krsi before load). */
KRSI_CONFIG_DEV(service_dev, "/tests/lab_service");
KRSI_CONFIG_INO(service_ino, "/tests/lab_service");

static bool is_service(struct task_struct *p)
{
	struct file *exe = p->mm ? p->mm->exe_file : NULL;

	return exe && exe->f_inode->i_ino == service_ino &&
	       exe->f_inode->i_sb->s_dev == service_dev;
}

/* kill(), tkill(), tgkill(), rt_sigqueueinfo(), pidfd_send_signal(). */
SEC("lsm/task_kill")
int BPF_PROG(service_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	if (ret)	/* an earlier program denied: keep its verdict */
		return ret;
	if (sig && is_service(p) && p->tgid != bpf_get_current_pid_tgid() >> 32)
		return deny("task_kill", "a signal to the service", EPERM);
	return 0;
}

/* TODO: the route the checker finds that task_kill does not see. */
