// SPDX-License-Identifier: GPL-2.0
/*
 * protect_init: PID 1 and the audit reader are left alone
 *
 * Enforces: no process sends a signal to PID 1 or to the audit reader
 * (`krsi logd`, the process that writes the log of every record) but the
 * process itself, or PID 1 to the reader (/init stops it at shutdown); a
 * null signal, which only tests that a process exists, is allowed.
 * Nobody reads or writes their memory, traces them, samples them with
 * perf, or changes their priority, scheduling, resource limits or OOM
 * score.  Nobody makes a process real-time (or changes any process's
 * scheduling policy but the reader its own), and nobody changes the
 * real-time throttling: the reader runs SCHED_FIFO, so no other process
 * takes its CPU.  PID 1 is /init: if it dies, the kernel panics; the
 * reader is how every record reaches the log.  Holds against the demo
 * user and against root, before and after the lock.
 *
 * The reader is known by its claim (krsi_reader.h): its process id and
 * start time, which it writes and freezes before the seal (`krsi lock`),
 * and which a newer signed protect_init is given frozen before its first
 * program runs, so a replacement never leaves the reader unguarded.  Not
 * by a name, which anyone sets, nor by a PID alone, which another process
 * may get once it has ended.
 *
 * Routes to PID 1 and the reader, from the 6.1 sources, and what closes
 * each:
 *  - kill(), tkill(), tgkill(), rt_sigqueueinfo(), pidfd_send_signal(),
 *    and kill() of a process group or of every process (-1): every
 *    signal sent from user space goes through check_kill_permission(),
 *    hence task_kill.
 *  - SIGIO and SIGURG: fcntl(F_SETOWN) or F_SETOWN_EX, then I/O on the
 *    descriptor; send_sigio() and send_sigurg() ask
 *    file_send_sigiotask, not task_kill, often from an interrupt, where
 *    the current task is not the sender: none reaches them, whoever set
 *    the owner (F_SETSIG makes it any signal, SIGKILL included).
 *  - ptrace(PTRACE_ATTACH, PTRACE_SEIZE), /proc/PID/mem, environ, fd/,
 *    stack, pidfd_getfd(): all ask ptrace_access_check.  What the
 *    kernel only probes (PTRACE_MODE_NOAUDIT: the stack and instruction
 *    pointers /proc/PID/stat shows to those allowed) is refused without
 *    a report, as the kernel itself would not audit it.
 *  - perf_event_open() on them, whose user stack and registers a sample
 *    copies: root skips the ptrace check there (perf_check_permission()),
 *    so perf_event_alloc, which sees the event's target, refuses it.  The
 *    same hook refuses sampling events for a whole CPU (pid -1), whose
 *    samples carry the instruction pointer, call chain, registers or
 *    stack of whatever runs there.
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
 *    sched_setaffinity(), prlimit() that sets a limit (RLIMIT_CPU and
 *    RLIMIT_RTTIME would have the kernel kill the reader): task_setnice,
 *    task_setscheduler, task_setrlimit.  ioprio_set() is not in this
 *    kernel (no block layer).
 *  - starving the reader of CPU: a real-time process of anyone's would
 *    run before it, and task_setscheduler does not say which policy is
 *    asked for, so it is refused for every process but the reader
 *    setting its own; /proc/sys/kernel/sched_rt_runtime_us and
 *    sched_rt_period_us, which throttle every real-time process, are not
 *    opened for writing (file_open).
 *  - the OOM killer: the reader sets its own OOM score to -1000 (never
 *    chosen); /proc/PID/oom_score_adj and oom_adj are opened for writing
 *    by a process for itself only (file_open), so nobody makes PID 1 or
 *    the reader the first to go.
 *  - starving the reader of memory: the reader takes, before the lock,
 *    all the memory that logging a record needs (its lines and buffers,
 *    sized for the largest record a policy makes) and locks it
 *    (mlockall()), so that a record needs no mmap() or brk(); what
 *    is left are the knobs that reach into every process's memory.
 *    No file of /proc/sys/vm/ is opened for writing (file_open) but
 *    the three that act once, on nothing of another process's.  Those
 *    of 6.1 (mm/, kernel/sysctl.c; the appliance has the unmarked ones)
 *    and what each would do to the reader:
 *	max_map_count: its mmap() and brk() fail (the red team's route:
 *	  16 starved a reader that grew its buffers as it went);
 *	overcommit_memory, overcommit_ratio, overcommit_kbytes,
 *	  user_reserve_kbytes, admin_reserve_kbytes: every allocation
 *	  fails, tmpfs pages (the log's) included;
 *	min_free_kbytes, watermark_scale_factor, watermark_boost_factor,
 *	  lowmem_reserve_ratio: memory held back from every allocation;
 *	nr_hugepages, nr_overcommit_hugepages (HUGETLB): memory taken out
 *	  of everyone's reach;
 *	oom_kill_allocating_task, panic_on_oom, oom_dump_tasks: who dies,
 *	  or the machine, when memory runs out;
 *	mmap_min_addr, mmap_rnd_bits, legacy_va_layout: where processes'
 *	  mappings go;
 *	dirty_*, dirtytime_expire_seconds, laptop_mode, page-cluster,
 *	  swappiness, vfs_cache_pressure, percpu_pagelist_high_fraction,
 *	  page_lock_unfairness, compaction_proactiveness,
 *	  extfrag_threshold, compact_unevictable_allowed (COMPACTION),
 *	  numa_* and zone_reclaim_mode (NUMA), memory_failure_*: how
 *	  memory is written back, reclaimed and placed; refused with the
 *	  rest, as no setting of them is the appliance's to change;
 *	allowed: drop_caches (drops clean caches, once), compact_memory
 *	  (COMPACTION) and stat_refresh (SMP), which act once and take
 *	  nothing from anyone.
 *    Of /proc/sys/kernel/, sched_rt_runtime_us and sched_rt_period_us
 *    (above) are the ones that reach the reader; the others do not:
 *    pid_max and threads-max limit new processes, which the reader
 *    never makes (and PID 1 needs none to stop it), sched_rr_timeslice
 *    and sched_deadline_* act on policies nobody may take, panic_*,
 *    oops_limit and warn_limit stop the machine (a cut the host sees),
 *    printk_* and dmesg_restrict do not stop a /dev/kmsg reader that
 *    is open already, the keys, pty and perf_* knobs and the rest touch no
 *    process's memory.  Of /proc/sys/fs/, nr_open is refused (the
 *    most descriptors a process's table may grow to: the reader's
 *    opens of a new segment or a new policy's buffers would fail);
 *    file-max is not a route (a process with CAP_SYS_ADMIN, as the
 *    reader, opens past it), nor epoll/max_user_watches (a ring the
 *    reader cannot watch is drained every round all the same).
 *    Where a record still cannot be logged, the reader says so, with
 *    what it holds back, at once and in every heartbeat.
 *  - the terminal: neither has a controlling terminal (/dev/console never
 *    becomes /init's, the reader opens none), so no hangup, ^C or
 *    TIOCSIG reaches them.
 *  - kill(-1, sig) skips PID 1 in the kernel itself; SysRq, kcmp() and
 *    process_vm_readv() are not in this kernel.
 *
 * Known limits: signals the kernel sends on its own (SIGCHLD when a child
 * exits, SIGPIPE to a write to a closed pipe) are not checked, as they
 * should not be; both ignore or never meet the others (the reader writes
 * no pipe and ignores SIGPIPE and SIGHUP).  PID 1 is the one of the
 * initial PID namespace.  Root may still write the /proc files that only
 * keep accounts (clear_refs; sched statistics), and anyone reads
 * /proc/PID/cmdline, as for every process (ps).  The kernel's own signals
 * to a process group left orphaned (SIGHUP, SIGCONT) skip task_kill;
 * /init ignores both (no handler), the reader SIGHUP, and every shell
 * /init starts runs in a session of its own.  A CPU-wide perf event that
 * only counts stays allowed.  On the debug kernel (fault injection),
 * /proc/PID/make-it-fail is open to root: it makes a process's
 * allocations fail, which only the debug kernel can do.
 */
#define POLICY "protect_init"
#include "krsi_policy.h"
#include "krsi_reader.h"

#define PTRACE_MODE_NOAUDIT	0x04

static bool is_protected(struct task_struct *task)
{
	return task->tgid == 1 || is_reader_task(task);
}

/* Is the current process @task itself? */
static bool is_self(struct task_struct *task)
{
	return (bpf_get_current_pid_tgid() >> 32) == task->tgid;
}

/* Signals: from the process itself, or from PID 1 (shutdown). */
static bool may_signal(struct task_struct *task)
{
	return is_self(task) || (bpf_get_current_pid_tgid() >> 32) == 1;
}

SEC("lsm/task_kill")
int BPF_PROG(init_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	if (ret)
		return ret;
	if (sig && is_protected(p) && !may_signal(p))
		return deny("task_kill", p->tgid == 1 ? "signal to PID 1" :
			    "signal to the audit reader", EPERM);
	return 0;
}

/*
 * SIGIO and SIGURG are sent where the I/O completes, often in an interrupt
 * or a softirq, where the current task is whichever one was interrupted
 * (the reader itself, when its own port's interrupt shares a line with
 * the sender's).  So who sends cannot be told from the current task: no
 * such signal reaches a protected process, and the record names the user
 * who set the descriptor's owner (fown's euid), not a process.
 */
SEC("lsm/file_send_sigiotask")
int BPF_PROG(init_sigio, struct task_struct *tsk, struct fown_struct *fown,
	     int sig, int ret)
{
	if (ret)
		return ret;
	if (is_protected(tsk))
		return deny_unattributed("file_send_sigiotask", tsk->tgid == 1 ?
					 "SIGIO to PID 1" :
					 "SIGIO to the audit reader", EPERM,
					 BPF_CORE_READ(fown, euid.val));
	return 0;
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(init_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	if (!is_protected(child) || is_self(child))
		return 0;
	/* The kernel only probes (what /proc/PID/stat shows): no report. */
	if (mode & PTRACE_MODE_NOAUDIT)
		return -EPERM;
	return deny("ptrace_access_check", child->tgid == 1 ?
		    "ptrace of PID 1" : "ptrace of the audit reader", EPERM);
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
	struct task_struct *target = event->hw.target;

	if (ret)
		return ret;
	if (target && is_protected(target) && !is_self(target))
		return deny("perf_event_alloc", target->tgid == 1 ?
			    "perf event on PID 1" : "perf event on the audit reader",
			    EPERM);
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

static int deny_if_protected(struct task_struct *p, const char *hook)
{
	if (is_protected(p) && !is_self(p))
		return deny(hook, p->tgid == 1 ? "change to PID 1" :
			    "change to the audit reader", EPERM);
	return 0;
}

SEC("lsm/task_setnice")
int BPF_PROG(init_nice, struct task_struct *p, int nice, int ret)
{
	if (ret)
		return ret;
	return deny_if_protected(p, "task_setnice");
}

/*
 * The hook does not say which policy is asked for, and a real-time
 * process would take the reader's CPU: only the reader (or PID 1) sets
 * its own.
 */
SEC("lsm/task_setscheduler")
int BPF_PROG(init_sched, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	if (is_protected(p) && is_self(p))
		return 0;
	return deny("task_setscheduler", p->tgid == 1 ? "change to PID 1" :
		    is_protected(p) ? "change to the audit reader" :
		    "scheduling policy: the reader's CPU", EPERM);
}

SEC("lsm/task_setrlimit")
int BPF_PROG(init_rlimit, struct task_struct *p, unsigned int resource,
	     struct rlimit *new_rlim, int ret)
{
	if (ret)
		return ret;
	return deny_if_protected(p, "task_setrlimit");
}

#define PROC_SUPER_MAGIC	0x9fa0

/* @name's first @len bytes (NUL included) are the dentry's name. */
static bool named(struct dentry *dentry, const char *name, int len)
{
	char buf[24];
	int i;

	if (bpf_probe_read_kernel_str(buf, sizeof(buf),
				      BPF_CORE_READ(dentry, d_name.name)) != len)
		return false;
	for (i = 0; i < len && i < sizeof(buf); i++)
		if (buf[i] != name[i])
			return false;
	return true;
}

/* The PID a /proc/PID file (its proc_inode) is about, 0 for none. */
static __u32 proc_pid_nr(struct inode *inode)
{
	unsigned long pi = (unsigned long)inode -
			   bpf_core_field_offset(struct proc_inode, vfs_inode);
	struct pid *pid = BPF_CORE_READ((struct proc_inode *)pi, pid);

	return pid ? BPF_CORE_READ(pid, numbers[0].nr) : 0;
}

/* Is @dentry a file of /proc/sys/@dir/ (@len: @dir's, NUL included)? */
static bool in_sysctl(struct dentry *dentry, const char *dir, int len)
{
	struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
	struct dentry *sys = BPF_CORE_READ(parent, d_parent);
	struct dentry *root = BPF_CORE_READ(sys, d_parent);

	return named(parent, dir, len) && named(sys, "sys", 4) &&
	       BPF_CORE_READ(root, d_parent) == root;
}

/*
 * The memory knobs that only act once, on nothing of another process's:
 * dropping clean caches, compacting, folding the statistics.
 */
static bool vm_action(struct dentry *dentry)
{
	return named(dentry, "drop_caches", 12) ||
	       named(dentry, "compact_memory", 15) ||
	       named(dentry, "stat_refresh", 13);
}

/*
 * Files of /proc whose writing would undo the above: another process's
 * OOM score, the real-time throttling that would starve the reader of
 * CPU, the memory management's knobs that would starve it of memory
 * (every one but vm_action()'s: see the header), and the most
 * descriptors a process may have.
 */
static __noinline int proc_write(struct file *file)
{
	struct dentry *dentry;
	__u32 nr;
	__u64 id;

	if (file->f_inode->i_sb->s_magic != PROC_SUPER_MAGIC)
		return 0;
	dentry = file->f_path.dentry;
	if (named(dentry, "oom_score_adj", 14) || named(dentry, "oom_adj", 8)) {
		id = bpf_get_current_pid_tgid();
		nr = proc_pid_nr(file->f_inode);
		if (nr != (__u32)(id >> 32) && nr != (__u32)id)
			return deny("file_open", "another process's OOM score",
				    EPERM);
	}
	if (in_sysctl(dentry, "kernel", 7) &&
	    (named(dentry, "sched_rt_runtime_us", 20) ||
	     named(dentry, "sched_rt_period_us", 19)))
		return deny("file_open", "real-time throttling: the reader's CPU",
			    EPERM);
	if (in_sysctl(dentry, "vm", 3) && !vm_action(dentry))
		return deny("file_open", "a vm.* knob: the reader's memory", EPERM);
	if (in_sysctl(dentry, "fs", 3) && named(dentry, "nr_open", 8))
		return deny("file_open", "fs.nr_open: the reader's descriptors", EPERM);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(init_proc_write, struct file *file, int ret)
{
	if (ret)
		return ret;
	/* file_open runs on every open: f_mode by a direct load, and the
	 * rest out of line (proc_write()), so that an open for reading
	 * costs this test and no saved register.
	 */
	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	return proc_write(file);
}
