// SPDX-License-Identifier: GPL-2.0
/*
 * protect_init: PID 1 is neither signalled nor inspected
 *
 * Enforces: no process other than init itself sends a signal to PID 1 (a
 * null signal, which only tests that it exists, is allowed), reads or
 * writes its memory, traces it, samples it with perf, or changes its
 * priority, scheduling or resource limits.  PID 1 is /init: if it dies,
 * the kernel panics.  Holds against the demo user and against root,
 * before and after the lock.
 *
 * Routes to PID 1, from the 6.1 sources, and what closes each:
 *  - kill(), tkill(), tgkill(), rt_sigqueueinfo(), pidfd_send_signal(),
 *    and kill() of a process group: every signal sent from user space
 *    goes through check_kill_permission(), hence task_kill.
 *  - SIGIO and SIGURG: fcntl(F_SETOWN, 1) or F_SETOWN_EX, then I/O on
 *    the descriptor; send_sigio() asks file_send_sigiotask, not
 *    task_kill.
 *  - ptrace(PTRACE_ATTACH, PTRACE_SEIZE), /proc/1/mem, /proc/1/environ,
 *    pidfd_getfd(): all ask ptrace_access_check.
 *  - perf_event_open() on PID 1, whose user stack and registers a sample
 *    copies: root skips the ptrace check there (perf_check_permission()),
 *    so perf_event_alloc, which sees the event's target, refuses it.  The
 *    same hook refuses sampling events for a whole CPU (pid -1), whose
 *    samples carry the instruction pointer, call chain, registers or
 *    stack of whatever runs there, PID 1 included.
 *  - tracing: kprobes and uprobes read any process's registers and
 *    memory through their arguments, and uprobes put breakpoints in its
 *    text, through tracefs (which root can mount unattached with fsopen()
 *    and fsmount(), where no mount hook looks) or perf: locked_down
 *    refuses LOCKDOWN_TRACEFS and LOCKDOWN_KPROBES, asked by every tracefs
 *    open and every kprobe made, and perf_event_alloc refuses every
 *    uprobe (placed mid-instruction, its breakpoint byte changes the code
 *    it lands in: a counting uprobe for every process crashed /init in a
 *    test).
 *  - setpriority(), sched_setscheduler(), sched_setattr(),
 *    sched_setaffinity(), prlimit() that sets a limit: task_setnice,
 *    task_setscheduler, task_setrlimit.  ioprio_set() is not in this
 *    kernel (no block layer).
 *  - the terminal: /init has no controlling terminal (/dev/console never
 *    becomes one), so no hangup, ^C or TIOCSIG reaches it.
 *  - kill(-1, sig) skips PID 1 in the kernel itself; SysRq, kcmp() and
 *    process_vm_readv() are not in this kernel.
 *
 * Known limits: signals the kernel sends on its own (SIGCHLD when a child
 * of init exits, SIGPIPE to init's own writes) are not checked, as they
 * should not be; PID 1 is the one of the initial PID namespace.
 * Root may still write the few /proc/1 files that only keep accounts
 * (oom_score_adj, which the OOM killer ignores for PID 1; clear_refs;
 * sched statistics), and anyone reads /proc/1/cmdline, PID 1's
 * arguments, as for every process (ps).  The kernel's own signals to a
 * process group left orphaned (SIGHUP, SIGCONT) skip task_kill; /init
 * ignores both (no handler), and every shell it starts runs in a session
 * of its own.  A CPU-wide perf event that only counts stays allowed.
 */
#define POLICY "protect_init"
#include "krsi_policy.h"

static bool is_init(struct task_struct *task)
{
	return BPF_CORE_READ(task, tgid) == 1;
}

static bool from_init(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == 1;
}

SEC("lsm/task_kill")
int BPF_PROG(init_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	if (ret)
		return ret;
	if (sig && is_init(p) && !from_init())
		return deny("task_kill", "signal to PID 1", EPERM);
	return 0;
}

SEC("lsm/file_send_sigiotask")
int BPF_PROG(init_sigio, struct task_struct *tsk, struct fown_struct *fown,
	     int sig, int ret)
{
	if (ret)
		return ret;
	if (is_init(tsk) && !from_init())
		return deny("file_send_sigiotask", "SIGIO to PID 1", EPERM);
	return 0;
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(init_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	if (is_init(child) && !from_init())
		return deny("ptrace_access_check", "ptrace of PID 1", EPERM);
	return 0;
}

static bool is_bpf_output(struct perf_event *event)
{
	return BPF_CORE_READ(event, attr.type) == PERF_TYPE_SOFTWARE &&
	       BPF_CORE_READ(event, attr.config) == PERF_COUNT_SW_BPF_OUTPUT;
}

static bool is_uprobe(struct perf_event *event)
{
	char name[8] = "";

	bpf_probe_read_kernel_str(name, sizeof(name),
				  BPF_CORE_READ(event, pmu, name));
	return name[0] == 'u' && name[1] == 'p' && name[2] == 'r' &&
	       name[3] == 'o' && name[4] == 'b' && name[5] == 'e' && !name[6];
}

SEC("lsm/perf_event_alloc")
int BPF_PROG(init_perf, struct perf_event *event, int ret)
{
	struct task_struct *target = BPF_CORE_READ(event, hw.target);

	if (ret)
		return ret;
	if (target && is_init(target) && !from_init())
		return deny("perf_event_alloc", "perf event on PID 1", EPERM);
	/* Samples of a whole CPU carry whatever runs there, PID 1 included:
	 * its instruction pointer, call chain, registers, stack, the raw
	 * arguments of a tracepoint.  Counting stays open.
	 */
	if (!target && BPF_CORE_READ(event, attr.sample_period) &&
	    !is_bpf_output(event))
		return deny("perf_event_alloc", "CPU-wide sampling", EPERM);
	/* A uprobe writes a breakpoint byte into the text of the processes
	 * it covers, at any offset it is given: in the middle of an
	 * instruction it changes what they run.  For a whole CPU that
	 * includes PID 1; on one process it can turn /usr/bin/krsi, which
	 * holds the writable map descriptors, against the lock.  The
	 * appliance needs none: refused whatever the target.
	 */
	if (is_uprobe(event))
		return deny("perf_event_alloc", "uprobe", EPERM);
	return 0;
}

/*
 * The kernel's tracing (tracefs, and kprobes however they are made)
 * reads any process's registers and memory through probe arguments, and
 * uprobes write breakpoints into its text: refused, PID 1 being one of
 * them.  Other lockdown questions (the BPF helpers' among them) get the
 * default answer.
 */
SEC("lsm/locked_down")
int BPF_PROG(init_tracing, enum lockdown_reason what, int ret)
{
	if (ret)
		return ret;
	if (what == LOCKDOWN_TRACEFS || what == LOCKDOWN_KPROBES)
		return deny("locked_down", "tracing, which reads any process",
			    EPERM);
	return 0;
}

static int deny_if_init(struct task_struct *p, const char *hook)
{
	if (is_init(p) && !from_init())
		return deny(hook, "change to PID 1", EPERM);
	return 0;
}

SEC("lsm/task_setnice")
int BPF_PROG(init_nice, struct task_struct *p, int nice, int ret)
{
	if (ret)
		return ret;
	return deny_if_init(p, "task_setnice");
}

SEC("lsm/task_setscheduler")
int BPF_PROG(init_sched, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return deny_if_init(p, "task_setscheduler");
}

SEC("lsm/task_setrlimit")
int BPF_PROG(init_rlimit, struct task_struct *p, unsigned int resource,
	     struct rlimit *new_rlim, int ret)
{
	if (ret)
		return ret;
	return deny_if_init(p, "task_setrlimit");
}
