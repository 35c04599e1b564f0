// SPDX-License-Identifier: GPL-2.0
/*
 * no_signal: no signal reaches the lab's service
 *
 * Lab 3's solution (labs/3-signals/README.md).  Every signal a process
 * sends, to a pid, a thread, a process group or a pidfd, is checked by
 * check_kill_permission(), hence task_kill.  One route is not: a
 * descriptor whose owner (fcntl(F_SETOWN)) is the service sends it SIGIO,
 * or any signal F_SETSIG names, when I/O is ready on it: send_sigio()
 * asks file_send_sigiotask, often from an interrupt, where the current
 * task is not the sender, so it refuses every such signal to the
 * service.
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

/* SIGIO (or F_SETSIG's signal) to a descriptor's owner. */
SEC("lsm/file_send_sigiotask")
int BPF_PROG(service_sigio, struct task_struct *tsk, struct fown_struct *fown,
	     int sig, int ret)
{
	if (ret)
		return ret;
	if (is_service(tsk))
		return deny("file_send_sigiotask", "SIGIO to the service", EPERM);
	return 0;
}
