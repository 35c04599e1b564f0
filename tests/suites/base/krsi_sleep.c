// SPDX-License-Identifier: GPL-2.0
/*
 * Sleepable programs through the hook files: they attach to the hooks that
 * bpf_lsm marks sleepable, run in attach order with the programs that do
 * not sleep, may deny, and read user memory with bpf_copy_from_user() as
 * they do when attached by trampoline.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_sleep.lskel.h"
#include "trampoline.h"

#define TARGET	"/tmp/krsi_sleep.target"
/* busybox picks the applet by argv[0]: the marker is argv[1]. */
#define ARGV0	"true"
#define ARGV1	"krsi-sleep-argv1"

/*
 * Run "true ARGV1" in a child that the programs of @s and @t judge;
 * true if it exited 0.
 */
static bool exec_target(struct krsi_sleep *s, struct krsi_sleep *t)
{
	int go[2], status = -1;
	char c = 0;
	pid_t pid;

	if (pipe(go))
		return false;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			execl("/bin/true", ARGV0, ARGV1, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	s->bss->target_tgid = pid;
	if (t)
		t->bss->target_tgid = pid;
	if (write(go[1], &c, 1) != 1)
		kill(pid, 9);
	close(go[1]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void check_err_of(int err, int want, const char *what)
{
	check(err == want, "%s: %s", what, err ? errname(-err) : "ok");
}

/* Sleepable and plain programs on one hook run in attach order. */
static void test_order(struct krsi_sleep *s)
{
	const char *hook = "bprm_committed_creds";
	char list[256];

	check_err_of(krsi_attach(hook, s->progs.sleep_argv.prog_fd, 0), 0,
		     "attach sleepable sleep_argv");
	check_err_of(krsi_attach(hook, s->progs.plain_b.prog_fd, 0), 0,
		     "attach plain_b");
	check_err_of(krsi_attach(hook, s->progs.sleep_c.prog_fd, 0), 0,
		     "attach sleepable sleep_c");
	check(!strcmp(hook_list(hook, list, sizeof(list)),
		      "sleep_argv\nplain_b\nsleep_c\n"),
	      "%s lists the three in attach order: %s", hook, oneline(list));
	s->bss->argv0_err = 1;
	check(exec_target(s, NULL), "exec runs with them attached");
	check(s->bss->order_len == 3 && !memcmp(s->bss->order, "ABC", 3),
	      "they ran in attach order: %.*s", (int)s->bss->order_len,
	      s->bss->order);
	check(s->bss->argv0_err == 0 && !strcmp(s->bss->argv0, ARGV0) &&
	      !strcmp(s->bss->argv0 + sizeof(ARGV0), ARGV1),
	      "bpf_copy_from_user() read the arguments \"%s %s\" (err %ld)",
	      s->bss->argv0, s->bss->argv0 + sizeof(ARGV0), s->bss->argv0_err);
	check_err_of(krsi_detach(hook, s->progs.sleep_argv.prog_fd), 0,
		     "detach sleep_argv");
	check_err_of(krsi_detach(hook, s->progs.plain_b.prog_fd), 0,
		     "detach plain_b");
	check_err_of(krsi_detach(hook, s->progs.sleep_c.prog_fd), 0,
		     "detach sleep_c");
}

/*
 * The same sleepable program by trampoline reads the same; where 6.1
 * attaches no trampoline to a hook, its attach is refused and the KRSI path
 * reads the arguments alone.
 */
static void test_both_paths(struct krsi_sleep *s, struct krsi_sleep *t)
{
	const char *hook = "bprm_committed_creds";
	int link;

	memset(s->bss->argv0, 0, sizeof(s->bss->argv0));
	s->bss->argv0_err = 1;
	s->bss->order_len = 0;
	check_err_of(krsi_attach(hook, s->progs.sleep_argv.prog_fd, 0), 0,
		     "KRSI: attach sleep_argv");
	link = tramp_attach(t->progs.sleep_argv.prog_fd);
	if (!check_tramp_attach(link, "sleep_argv")) {
		check(exec_target(s, NULL), "exec runs with sleep_argv attached");
		check(s->bss->argv0_err == 0 &&
		      !strcmp(s->bss->argv0, ARGV0) &&
		      !strcmp(s->bss->argv0 + sizeof(ARGV0), ARGV1),
		      "KRSI read \"%s %s\" (err %ld)", s->bss->argv0,
		      s->bss->argv0 + sizeof(ARGV0), s->bss->argv0_err);
		check_err_of(krsi_detach(hook, s->progs.sleep_argv.prog_fd), 0,
			     "KRSI: detach sleep_argv");
		return;
	}
	check(exec_target(s, t), "exec runs with both attached");
	check(s->bss->argv0_err == 0 && t->bss->argv0_err == 0 &&
	      !memcmp(s->bss->argv0, t->bss->argv0, sizeof(s->bss->argv0)) &&
	      !strcmp(s->bss->argv0 + sizeof(ARGV0), ARGV1),
	      "both paths read \"%s %s\" and \"%s %s\" (err %ld and %ld)",
	      s->bss->argv0, s->bss->argv0 + sizeof(ARGV0), t->bss->argv0,
	      t->bss->argv0 + sizeof(ARGV0), s->bss->argv0_err,
	      t->bss->argv0_err);
	check_err_of(krsi_detach(hook, s->progs.sleep_argv.prog_fd), 0,
		     "KRSI: detach sleep_argv");
	close(link);
}

/* A sleepable program denies on an int hook. */
static int open_target(void)
{
	return try_open(TARGET);
}

static void test_deny(struct krsi_sleep *s)
{
	s->bss->target_tgid = getpid();
	s->bss->target_ino = make_target(TARGET);
	check_err_of(krsi_attach("file_open", s->progs.sleep_deny.prog_fd, 0), 0,
		     "attach sleepable sleep_deny to file_open");
	check_err_of(open_target(), -EPERM, "sleep_deny denies the open");
	check(s->bss->deny_runs == 1, "sleep_deny ran once (%u)",
	      s->bss->deny_runs);
	check_err_of(krsi_detach("file_open", s->progs.sleep_deny.prog_fd), 0,
		     "detach sleep_deny");
	check_err_of(open_target(), 0, "the open is allowed once it is detached");
	unlink(TARGET);
}

int main(void)
{
	struct krsi_sleep *s = krsi_sleep__open_and_load();
	struct krsi_sleep *t = krsi_sleep__open_and_load();

	if (check(s && t, "load krsi_sleep.bpf.o twice (%s)", errname(errno))) {
		test_order(s);
		test_both_paths(s, t);
		test_deny(s);
	}
	krsi_sleep__destroy(s);
	krsi_sleep__destroy(t);
	return check_exit();
}
