// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI's trace (/sys/kernel/security/krsi/trace), in the guest: a chain of
 * three programs with known verdicts on file_open, and what the trace
 * says of one open of the test's file by a child: each program, in run
 * order, with its id and value, the result and the LSM that decided.  On
 * x86_64 the third program runs from the BPF LSM's trampoline, so the
 * chain crosses LSMs; elsewhere all three are KRSI's.  Then the file's
 * refusals: who may open it, one reader at a time, bad commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_test.lskel.h"
#include "sysbpf.h"
#include "tracefmt.h"
#include "trampoline.h"

#define TARGET		"/tmp/krsi_trace.target"
#define TRACE_FILE	"/sys/kernel/security/krsi/trace"

static struct krsi_test *skel, *third_skel;
static unsigned long target_ino;
static struct trace_call call;

static unsigned int prog_id(int prog_fd)
{
	struct bpf_prog_info info = { 0 };

	return sys_bpf_obj_info(prog_fd, &info, sizeof(info)) ? 0 : info.id;
}

static int trace_open(void)
{
	int fd = open(TRACE_FILE, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int trace_say(int fd, const char *cmd)
{
	ssize_t n = write(fd, cmd, strlen(cmd));

	return n < 0 ? -errno : 0;
}

/*
 * Fork a child that opens TARGET once it is traced, trace it on
 * file_open, and leave in @call the line of that open: 0, or -ENOENT when
 * the trace has no such line.  @open_err gets what the open returned.
 */
static int trace_one_open(int *open_err)
{
	static char buf[256 * 1024];
	size_t len = 0;
	char cmd[32], *line, *nl;
	int fd, status, found = -ENOENT;
	pid_t child;
	ssize_t n;

	fd = trace_open();
	if (!check(fd >= 0, "open %s (%s)", TRACE_FILE, fd < 0 ? errname(-fd) : "ok"))
		return -EIO;
	child = fork();
	if (!child) {
		raise(SIGSTOP);
		_exit(-try_open(TARGET));
	}
	waitpid(child, &status, WUNTRACED);
	skel->bss->target_tgid = child;
	third_skel->bss->target_tgid = child;
	check_err(trace_say(fd, "hook file_open"), 0, "trace: hook file_open");
	snprintf(cmd, sizeof(cmd), "pid %d", child);
	check_err(trace_say(fd, cmd), 0, "trace: pid of the child");
	kill(child, SIGCONT);
	waitpid(child, &status, 0);
	*open_err = WIFEXITED(status) ? -WEXITSTATUS(status) : -ECHILD;

	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	check(n < 0 && errno == EAGAIN, "trace: read to the end (%s)",
	      n ? errname(errno) : "end of file");
	close(fd);
	buf[len] = '\0';
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (!check(!trace_parse(line, &call), "trace: a line of the trace's form: %s",
			   line))
			return -EINVAL;
		if (!strcmp(call.hook, "file_open") && !strcmp(call.object, TARGET) &&
		    call.pid == child) {
			found = 0;
			break;
		}
	}
	return found;
}

struct want_prog {
	bool tramp;
	int prog_fd;
	const char *name;
	int ret;
};

/* The line in @call: @ret by @by, with the programs in @want, in order. */
static void check_chain(const char *what, int ret, const char *by,
			const struct want_prog *want, int nr)
{
	int i;

	check(call.ended && call.ret == ret, "%s: the call's result is %s (trace: %s)",
	      what, errname(-ret), call.ended ? errname(-call.ret) : "?");
	check(!strcmp(call.by, by), "%s: decided by %s (trace: %s)", what, by, call.by);
	check(call.nr_lsms > 0 && !strcmp(call.lsms[call.nr_lsms - 1], by),
	      "%s: %s is the last LSM called (trace: %s)", what, by,
	      call.nr_lsms ? call.lsms[call.nr_lsms - 1] : "none");
	if (!check(call.nr_progs == nr, "%s: %d programs ran (trace: %d)", what, nr,
		   call.nr_progs))
		return;
	for (i = 0; i < nr; i++) {
		const struct trace_prog *p = &call.progs[i];

		check(p->tramp == want[i].tramp && p->id == prog_id(want[i].prog_fd) &&
		      !strcmp(p->name, want[i].name),
		      "%s: program %d is %s's %s (trace: %s's %u %s)", what, i + 1,
		      want[i].tramp ? "the trampoline" : "KRSI", want[i].name,
		      p->tramp ? "the trampoline" : "KRSI", p->id, p->name);
		check(p->ret_known && p->ret == want[i].ret,
		      "%s: %s returned %d (trace: %d)", what, want[i].name, want[i].ret,
		      p->ret_known ? p->ret : 999);
	}
}

static void test_chain(void)
{
	int a = skel->progs.order_a.prog_fd, b = skel->progs.order_b.prog_fd;
	int third = third_skel->progs.deny.prog_fd, link = -1, open_err = 0;
	const char *by_third = LSM_TRAMPOLINE ? "bpf" : "krsi";

	skel->bss->verdict_a = 0;
	skel->bss->verdict_b = 0;
	third_skel->bss->deny_ret = -EPERM;
	check_err(krsi_attach("file_open", a, 0), 0, "attach order_a");
	check_err(krsi_attach("file_open", b, 0), 0, "attach order_b");
	if (LSM_TRAMPOLINE) {
		link = tramp_attach(third);
		check(link >= 0, "trampoline: attach deny (%s)",
		      link < 0 ? errname(-link) : "ok");
	} else {
		check_err(krsi_attach("file_open", third, 0), 0,
			  "attach deny, third on the hook");
	}

	/* a and b allow, the third denies: it decides. */
	if (check_err(trace_one_open(&open_err), 0, "trace: the child's open is traced")) {
		struct want_prog want[] = {
			{ false, a, "order_a", 0 },
			{ false, b, "order_b", 0 },
			{ LSM_TRAMPOLINE, third, "deny", -EPERM },
		};

		check_chain("a 0, b 0, deny -EPERM", -EPERM, by_third, want, 3);
	}
	check_err(open_err, -EPERM, "the open itself was refused by deny");

	/*
	 * b denies first: KRSI decides.  KRSI runs every program of the
	 * hook; the trampoline's does not run once an LSM before it denied.
	 */
	skel->bss->verdict_b = -EACCES;
	if (check_err(trace_one_open(&open_err), 0, "trace: the child's open is traced")) {
		struct want_prog want[] = {
			{ false, a, "order_a", 0 },
			{ false, b, "order_b", -EACCES },
			{ false, third, "deny", -EPERM },
		};

		check_chain("a 0, b -EACCES, deny -EPERM", -EACCES, "krsi", want,
			    LSM_TRAMPOLINE ? 2 : 3);
	}
	check_err(open_err, -EACCES, "the open itself was refused by order_b");

	if (link >= 0)
		close(link);
	else
		check_err(krsi_detach("file_open", third), 0, "detach deny");
	check_err(krsi_detach("file_open", b), 0, "detach order_b");
	check_err(krsi_detach("file_open", a), 0, "detach order_a");

	/* No program: the trace sees the call, and changes nothing. */
	if (check_err(trace_one_open(&open_err), 0, "trace: an open with no program"))
		check(call.ended && call.ret == 0 && !strcmp(call.by, "none") &&
		      call.nr_progs == 0,
		      "no program: = 0 by none, no program listed (trace: %d by %s, %d programs)",
		      call.ret, call.by, call.nr_progs);
	check_err(open_err, 0, "the open itself is allowed");
}

static int open_as_user(void)
{
	int fd = trace_open();

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static void test_refusals(void)
{
	int fd = trace_open(), second;

	if (!check(fd >= 0, "open %s", TRACE_FILE))
		return;
	second = trace_open();
	check_err(second < 0 ? second : 0, -EBUSY, "a second reader at once");
	if (second >= 0)
		close(second);
	check_err(trace_say(fd, "hook no_such_hook"), -ENOENT, "hook no_such_hook");
	check_err(trace_say(fd, "pid 0x10"), -EINVAL, "pid 0x10");
	check_err(trace_say(fd, "pid 4000000"), -ESRCH, "pid of no process");
	check_err(trace_say(fd, "follow me"), -EINVAL, "an unknown command");
	check_err(trace_say(fd, "all"), 0, "all");
	check_err(trace_say(fd, "hook file_open"), -EBUSY, "a hook once tracing");
	close(fd);
	check_err(in_child(1000, open_as_user), -EACCES, "the demo user opens it (mode 0600)");
	fd = open(TRACE_FILE, O_RDONLY | O_CLOEXEC);
	check_err(fd < 0 ? -errno : 0, -EACCES, "opened for reading alone");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	target_ino = make_target(TARGET);
	if (!check(target_ino != 0, "create %s", TARGET))
		return check_exit();
	skel = krsi_test__open_and_load();
	third_skel = krsi_test__open_and_load();
	if (!check(skel && third_skel, "load krsi_test.bpf.o twice (%s)", errname(errno)))
		return check_exit();
	skel->bss->target_ino = target_ino;
	third_skel->bss->target_ino = target_ino;

	test_chain();
	test_refusals();

	krsi_test__destroy(third_skel);
	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
