// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI attach, detach and execution, in the guest: programs of
 * tests/progs/krsi_test.bpf.c attached through /sys/kernel/security/bpf/
 * and, for comparison, through mainline's BPF trampoline.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_test.lskel.h"
#include "trampoline.h"

#define TARGET "/tmp/krsi_attach.target"

static struct krsi_test *skel;
static unsigned long target_ino;

static struct krsi_test *load(void)
{
	struct krsi_test *s = krsi_test__open_and_load();

	if (!s)
		return NULL;
	s->bss->target_tgid = getpid();
	s->bss->target_ino = target_ino;
	return s;
}

static const char *list(const char *hook)
{
	static char buf[4096];

	return hook_list(hook, buf, sizeof(buf));
}

static void check_list(const char *hook, const char *want, const char *what)
{
	const char *got = list(hook);

	check(!strcmp(got, want), "%s: %s lists '%s' (want '%s')", what, hook,
	      oneline(got), oneline(want));
}

static void reset_order(struct krsi_test *s)
{
	memset(s->bss->order, 0, sizeof(s->bss->order));
	s->bss->order_len = 0;
}

/* Several programs on one hook: attach order, first error, ctx[nargs]. */
static void test_order(void)
{
	int a = skel->progs.order_a.prog_fd;
	int b = skel->progs.order_b.prog_fd;
	int c = skel->progs.order_c.prog_fd;

	check_list("file_open", "", "no program at start");
	check_err(try_open(TARGET), 0, "open with no program");

	check_err(krsi_attach("file_open", a, 0), 0, "attach order_a");
	check_list("file_open", "order_a\n", "one program");
	reset_order(skel);
	check_err(try_open(TARGET), 0, "open allowed by order_a");
	check(!strcmp(skel->bss->order, "a"), "order_a ran (ran: '%s')",
	      skel->bss->order);

	check_err(krsi_attach("file_open", b, 0), 0, "attach order_b");
	check_err(krsi_attach("file_open", c, 0), 0, "attach order_c");
	check_list("file_open", "order_a\norder_b\norder_c\n",
		   "three programs, in attach order");

	skel->bss->verdict_b = -EACCES;
	reset_order(skel);
	check_err(try_open(TARGET), -EACCES, "order_b denies with EACCES");
	check(!strcmp(skel->bss->order, "abc"),
	      "all programs ran in attach order after a denial (ran: '%s')",
	      skel->bss->order);
	check(skel->bss->ret_seen_by_c == -EACCES,
	      "order_c saw the earlier denial in ctx[nargs] (%d)",
	      skel->bss->ret_seen_by_c);

	skel->bss->verdict_a = -EPERM;
	reset_order(skel);
	check_err(try_open(TARGET), -EPERM, "the first denial is the verdict");

	skel->bss->verdict_a = skel->bss->verdict_b = 0;
	check_err(try_open(TARGET), 0, "open allowed again");

	check_err(krsi_detach("file_open", b), 0, "detach order_b");
	check_list("file_open", "order_a\norder_c\n", "order_b gone, order kept");
	check_err(krsi_detach("file_open", b), -ENOENT, "detach order_b twice");
	check_err(krsi_detach("file_open", a), 0, "detach order_a");
	check_err(krsi_detach("file_open", c), 0, "detach order_c");
	check_list("file_open", "", "no program after detach");
	reset_order(skel);
	check_err(try_open(TARGET), 0, "open after detach");
	check(skel->bss->order_len == 0, "detached programs do not run");
}

/* @prog_fd's run count and run time (BPF_OBJ_GET_INFO_BY_FD), or -errno. */
static int prog_stats(int prog_fd, __u64 *run_cnt, __u64 *run_time_ns)
{
	struct bpf_prog_info info = {};
	union bpf_attr attr = {
		.info.bpf_fd = prog_fd,
		.info.info_len = sizeof(info),
		.info.info = (__u64)(unsigned long)&info,
	};

	if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)))
		return -errno;
	*run_cnt = info.run_cnt;
	*run_time_ns = info.run_time_ns;
	return 0;
}

/*
 * Does sched_clock(), which times a program's run for its statistics,
 * count in jiffies here?  On x86 it does when the TSC could not be
 * calibrated (a loaded host under TCG: "tsc: Unable to calibrate against
 * PIT"), and then no clocksource is named tsc; a run of a few
 * microseconds then adds 0 ns.  arm64's and s390x's never do.
 */
static bool sched_clock_in_jiffies(void)
{
#ifdef __x86_64__
	char buf[256] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/available_clocksource",
			"r");
	bool tsc;

	if (!f)
		return false;
	tsc = fgets(buf, sizeof(buf), f) && strstr(buf, "tsc");
	fclose(f);
	return !tsc;
#else
	return false;
#endif
}

/*
 * BPF statistics (BPF_ENABLE_STATS): while they are on, every program of
 * a hook counts each call it ran on, as bpf_prog_run() counts; once they
 * are off again, no count moves.  KRSI asks whether they are on once per
 * call, not once per program; with @n programs on the hook, the first @n
 * of order_a, order_b and order_c.  A hook with one program calls it
 * directly while statistics are off (patch 0028), and through the array,
 * which counts, while they are on.
 */
static void stats_with(int n)
{
	int progs[3] = {
		skel->progs.order_a.prog_fd, skel->progs.order_b.prog_fd,
		skel->progs.order_c.prog_fd,
	};
	union bpf_attr attr = { .enable_stats.type = BPF_STATS_RUN_TIME };
	__u64 cnt[3], ns[3], cnt2, ns2;
	bool jiffies = sched_clock_in_jiffies();
	int i, stats_fd, err = 0;

	for (i = 0; i < n && !err; i++)
		err = krsi_attach("file_open", progs[i], 0);
	if (!check(!err, "stats, %d program(s): attach them (%s)", n,
		   err ? errname(-err) : "ok"))
		goto out;
	stats_fd = syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (!check(stats_fd >= 0, "stats, %d program(s): BPF_ENABLE_STATS (%s)",
		   n, stats_fd < 0 ? errname(errno) : "ok"))
		goto out;
	for (i = 0; i < n && !err; i++)
		err = prog_stats(progs[i], &cnt[i], &ns[i]);
	for (i = 0; i < 5 && !err; i++)
		err = try_open(TARGET);
	for (i = 0; i < n && !err; i++) {
		err = prog_stats(progs[i], &cnt2, &ns2);
		check(cnt2 - cnt[i] >= 5 && (ns2 > ns[i] || (ns2 == ns[i] && jiffies)),
		      "stats: program %d of %d counted the 5 opens (%llu runs, %llu ns more%s)",
		      i + 1, n, (unsigned long long)(cnt2 - cnt[i]),
		      (unsigned long long)(ns2 - ns[i]),
		      jiffies ? ", sched_clock() in jiffies: no TSC" : "");
		cnt[i] = cnt2;
	}
	for (i = 1; i < n; i++)
		check(cnt[i] == cnt[0],
		      "stats: program %d of %d ran on every call program 1 ran on (%llu, %llu runs)",
		      i + 1, n, (unsigned long long)cnt[i],
		      (unsigned long long)cnt[0]);
	close(stats_fd);
	/*
	 * Counted from here: another task's open between the last reading
	 * and the close was counted, statistics being on.
	 */
	for (i = 0; i < n && !err; i++)
		err = prog_stats(progs[i], &cnt[i], &ns[i]);
	for (i = 0; i < 5 && !err; i++)
		err = try_open(TARGET);
	for (i = 0; i < n && !err; i++) {
		err = prog_stats(progs[i], &cnt2, &ns2);
		check(cnt2 == cnt[i],
		      "stats: off again, program %d of %d counts no more (%llu runs more)",
		      i + 1, n, (unsigned long long)(cnt2 - cnt[i]));
	}
	check(!err, "stats, %d program(s): the opens and BPF_OBJ_GET_INFO_BY_FD (%s)",
	      n, err ? errname(-err) : "ok");
out:
	for (i = 0; i < n; i++)
		krsi_detach("file_open", progs[i]);
}

static void test_stats(void)
{
	stats_with(3);
	stats_with(1);
}

/* drop CAP_MAC_ADMIN, keep everything else a root process has. */
static int drop_mac_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(CAP_MAC_ADMIN)].effective &= ~CAP_TO_MASK(CAP_MAC_ADMIN);
	data[CAP_TO_INDEX(CAP_MAC_ADMIN)].permitted &= ~CAP_TO_MASK(CAP_MAC_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

/* The hook descriptor the children below use, opened by root. */
static int child_hook_fd;

static int attach_deny(void)
{
	return krsi_attach_fd(child_hook_fd, skel->progs.deny.prog_fd, 0);
}

static int attach_deny_without_mac_admin(void)
{
	int err = drop_mac_admin();

	return err ? -ECHILD : attach_deny();
}

static int detach_deny_without_mac_admin(void)
{
	int err = drop_mac_admin();

	return err ? -ECHILD : krsi_detach_fd(child_hook_fd, skel->progs.deny.prog_fd);
}

static int open_hook_rw(void)
{
	int fd = krsi_hook_open("file_open", O_RDWR);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/* Every way an attach or detach can be refused, each with its errno. */
static void test_errors(void)
{
	int deny = skel->progs.deny.prog_fd;
	int hook_fd, ro_fd, dir_fd, file_fd, closed_fd;

	hook_fd = krsi_hook_open("file_open", O_RDWR);
	ro_fd = krsi_hook_open("file_open", O_RDONLY);
	dir_fd = open(KRSI_HOOK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	file_fd = open(TARGET, O_RDWR | O_CLOEXEC);
	closed_fd = dup(file_fd);
	close(closed_fd);
	if (!check(hook_fd >= 0 && ro_fd >= 0 && dir_fd >= 0 && file_fd >= 0,
		   "open hook file, read-only hook file, dir, regular file"))
		return;

	skel->bss->deny_ret = -EPERM;
	check_err(krsi_attach_fd(hook_fd, skel->progs.order_a.prog_fd, 0), 0,
		  "attach order_a as the set that must not change");

	check_err(krsi_attach_fd(hook_fd, deny, BPF_F_ALLOW_MULTI), -EINVAL,
		  "unknown attach flag");
	check_err(krsi_attach_fd(hook_fd, deny, 1U << 20), -EINVAL,
		  "undefined attach flag");
	check_err(krsi_attach_fd(closed_fd, deny, 0), -EBADF,
		  "closed hook descriptor");
	check_err(krsi_attach_fd(file_fd, deny, 0), -ENOTTY,
		  "regular file as hook");
	check_err(krsi_attach_fd(dir_fd, deny, 0), -ENOTTY,
		  "securityfs directory as hook");
	check_err(krsi_attach_fd(ro_fd, deny, 0), -EACCES,
		  "hook file opened read-only");
	check_err(krsi_attach_fd(hook_fd, closed_fd, 0), -EBADF,
		  "closed program descriptor");
	check_err(krsi_attach_fd(hook_fd, file_fd, 0), -EINVAL,
		  "a file that is not a program");
	check_err(krsi_attach_fd(hook_fd, skel->progs.not_lsm.prog_fd, 0),
		  -EINVAL, "socket filter program");
	check_err(krsi_attach_fd(hook_fd, skel->progs.mprotect_prog.prog_fd, 0),
		  -EXDEV, "program verified for file_mprotect on file_open");
	check_err(krsi_attach("file_mprotect", skel->progs.mprotect_prog.prog_fd, 0),
		  0, "the same program on its own hook");
	check_err(krsi_detach("file_mprotect", skel->progs.mprotect_prog.prog_fd),
		  0, "and detached from it");
	check_err(krsi_attach_fd(hook_fd, skel->progs.sleepable.prog_fd, 0),
		  0, "sleepable program on file_open, a sleepable hook");
	check_err(krsi_detach_fd(hook_fd, skel->progs.sleepable.prog_fd),
		  0, "and detached from it");
	check_err(krsi_attach_fd(hook_fd, skel->progs.order_a.prog_fd, 0),
		  -EEXIST, "same program twice");
	check_err(krsi_detach_fd(hook_fd, deny), -ENOENT,
		  "detach of a program that is not attached");
	check_err(krsi_detach_fd(ro_fd, skel->progs.order_a.prog_fd), -EACCES,
		  "detach through a read-only hook file");
	check_err(krsi_detach_fd(file_fd, skel->progs.order_a.prog_fd), -ENOTTY,
		  "detach through a regular file");
	check_err(krsi_detach_fd(hook_fd, closed_fd), -EBADF,
		  "detach of a closed program descriptor");
	check_err(krsi_hook_open("no_such_hook", O_RDWR), -ENOENT,
		  "unknown hook name");
	check_err(krsi_hook_open("vm_enough_memory", O_RDWR), -ENOENT,
		  "hook that BPF LSM programs may not use has no file");

	child_hook_fd = hook_fd;
	check_err(in_child(0, attach_deny_without_mac_admin), -EPERM,
		  "attach without CAP_MAC_ADMIN");
	check_err(in_child(0, detach_deny_without_mac_admin), -EPERM,
		  "detach without CAP_MAC_ADMIN");
	check_err(in_child(1000, open_hook_rw), -EACCES,
		  "user 1000 opens a hook file for writing");
	check_err(in_child(1000, attach_deny), -EPERM,
		  "user 1000 attaches with an inherited hook descriptor");

	check_list("file_open", "order_a\n", "failed attaches changed nothing");
	check_err(try_open(TARGET), 0, "and nothing denies");
	check_err(krsi_detach_fd(hook_fd, skel->progs.order_a.prog_fd), 0,
		  "detach order_a");

	close(hook_fd);
	close(ro_fd);
	close(dir_fd);
	close(file_fd);
}

/* Verdicts as the LSM framework must see them. */
static void test_verdicts(void)
{
	int runs;

	skel->bss->deny_ret = -EROFS;
	check_err(krsi_attach("file_open", skel->progs.deny.prog_fd, 0), 0,
		  "attach deny");
	check_err(try_open(TARGET), -EROFS, "a program's errno reaches open()");
	skel->bss->deny_ret = 0;
	check_err(try_open(TARGET), 0, "and 0 allows");
	check_err(krsi_detach("file_open", skel->progs.deny.prog_fd), 0,
		  "detach deny");

	check_err(krsi_attach("file_open", skel->progs.positive.prog_fd, 0), 0,
		  "attach a program returning 1");
	check_err(try_open(TARGET), -EPERM,
		  "a positive return denies as EPERM (the verifier's fixup)");
	check_err(krsi_detach("file_open", skel->progs.positive.prog_fd), 0,
		  "detach it");

	/* task_prctl returns -ENOSYS for "not mine": 0 would break prctl. */
	check_err(krsi_attach("task_prctl", skel->progs.prctl_allow.prog_fd, 0),
		  0, "attach an allowing program to task_prctl");
	runs = skel->bss->prctl_runs;
	check(prctl(PR_GET_DUMPABLE) == 1,
	      "prctl(PR_GET_DUMPABLE) still 1: the hook returns its default");
	check(skel->bss->prctl_runs > (unsigned int)runs,
	      "the task_prctl program ran (%u runs)", skel->bss->prctl_runs);
	check_err(krsi_detach("task_prctl", skel->progs.prctl_allow.prog_fd),
		  0, "detach it");
}

/* A hook that returns void. */
static void test_void_hook(void)
{
	int fd;

	check_err(krsi_attach("file_set_fowner", skel->progs.fowner.prog_fd, 0),
		  0, "attach to the void hook file_set_fowner");
	fd = open(TARGET, O_RDONLY | O_CLOEXEC);
	check(fd >= 0 && fcntl(fd, F_SETOWN, getpid()) == 0, "F_SETOWN");
	check(skel->bss->fowner_runs == 1 && skel->bss->fowner_file,
	      "the program ran on the void hook with its argument (%u runs)",
	      skel->bss->fowner_runs);
	if (fd >= 0)
		close(fd);
	check_err(krsi_detach("file_set_fowner", skel->progs.fowner.prog_fd),
		  0, "detach it");
}

static void check_ctx(struct krsi_test *s, const char *path)
{
	struct krsi_test__bss *b = s->bss;

	check(b->ctx_runs == 1, "%s: ran once (%u)", path, b->ctx_runs);
	check(b->ctx_arg_cnt == 1, "%s: bpf_get_func_arg_cnt() = %ld", path,
	      b->ctx_arg_cnt);
	check(b->ctx_arg0_err == 0 && b->ctx_arg0 == b->ctx_file && b->ctx_file,
	      "%s: bpf_get_func_arg(0) is the file (err %ld)", path,
	      b->ctx_arg0_err);
	check(b->ctx_arg1_err == -EINVAL,
	      "%s: bpf_get_func_arg(1) is out of range (%ld)", path,
	      b->ctx_arg1_err);
	check(b->ctx_ret_err == 0 && b->ctx_ret == 0,
	      "%s: bpf_get_func_ret() = %llu (err %ld)", path,
	      (unsigned long long)b->ctx_ret, b->ctx_ret_err);
	check(b->ctx_cookie == 0, "%s: bpf_get_attach_cookie() = %llu", path,
	      (unsigned long long)b->ctx_cookie);
}

/*
 * The same object file through both paths: each program sees the same
 * context, and a deny program denies either way.  Where 6.1 attaches
 * no trampoline to a hook, the KRSI path alone, and the trampoline's
 * refusal.
 */
static void test_both_paths(void)
{
	struct krsi_test *tramp = load();
	int link_fd;
	bool linked;

	if (!check(tramp != NULL, "load a second instance of the object"))
		return;

	check_err(krsi_attach("file_open", skel->progs.ctxinfo.prog_fd, 0), 0,
		  "KRSI: attach ctxinfo");
	link_fd = tramp_attach(tramp->progs.ctxinfo.prog_fd);
	linked = check_tramp_attach(link_fd, "ctxinfo");
	check_err(try_open(TARGET), 0, "open with ctxinfo on both paths");
	check_ctx(skel, "KRSI");
	if (linked) {
		check_ctx(tramp, "trampoline");
		check(skel->bss->ctx_file == tramp->bss->ctx_file,
		      "both paths saw the same file pointer");
		close(link_fd);
	}
	check_err(krsi_detach("file_open", skel->progs.ctxinfo.prog_fd), 0,
		  "KRSI: detach ctxinfo");

	tramp->bss->deny_ret = -EPERM;
	link_fd = tramp_attach(tramp->progs.deny.prog_fd);
	if (check_tramp_attach(link_fd, "deny")) {
		check_err(try_open(TARGET), -EPERM,
			  "trampoline: the same program denies (mainline path works)");
		check_list("file_open", "",
			   "trampoline programs are not in the hook file");
		close(link_fd);
		check_err(try_open(TARGET), 0,
			  "trampoline: allowed after the link is gone");
	}
	krsi_test__destroy(tramp);
}

int main(void)
{
	target_ino = make_target(TARGET);
	if (!check(target_ino != 0, "create %s", TARGET))
		return check_exit();
	skel = load();
	if (!check(skel != NULL, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();

	test_order();
	test_stats();
	test_errors();
	test_verdicts();
	test_void_hook();
	test_both_paths();

	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
