// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI under concurrency: three processes call hooked operations (open,
 * mmap with PROT_EXEC, execve) on files that a deny program guards, while
 * two others attach, detach and replace programs on the same hooks
 * thousands of times.  The deny programs are never detached, only
 * replaced, so every call must be denied, with the deny program's errno:
 * a call that succeeds, or fails otherwise, saw a set of programs that was
 * never attached.  At the end each hook lists exactly what is attached.
 * The three hooks are sleepable: half the programs cycled sleep, and the
 * deny program on file_open is swapped between one that sleeps (srep__v2)
 * and one that does not.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_test.lskel.h"

#define OPEN_FILE	"/tmp/krsi_stress.open"
#define MAPPED_FILE	"/tmp/krsi_stress.map"
#define EXEC_FILE	"/tmp/krsi_stress.exec"
#define ROUNDS		1000

struct shared {
	atomic_bool go, stop;
	atomic_long calls[3], wrong[3], started[3];
	atomic_bool exec_loop_done;
	atomic_long churn_ops, churn_failed;
};

static struct shared *sh;
static struct krsi_test *skel;
static const char *const what[3] = { "open", "mmap(PROT_EXEC)", "execve" };

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n = -1;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n == 0 ? 0 : -1;
}

/* One call of kind @k; 0 when it was denied as it must be. */
static int call(int k, int map_fd)
{
	char *argv[] = { EXEC_FILE, NULL }, *envp[] = { NULL };
	void *p;

	switch (k) {
	case 0:
		return try_open(OPEN_FILE) == -EPERM ? 0 : -1;
	case 1:
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, map_fd, 0);
		if (p != MAP_FAILED) {
			munmap(p, 4096);
			return -1;
		}
		return errno == EACCES ? 0 : -1;
	default:
		execve(EXEC_FILE, argv, envp);	/* returns only if denied */
		return errno == EACCES ? 0 : -1;
	}
}

static void hammer(int k)
{
	int map_fd = open(MAPPED_FILE, O_RDONLY);

	while (!atomic_load(&sh->stop)) {
		if (call(k, map_fd))
			atomic_fetch_add(&sh->wrong[k], 1);
		atomic_fetch_add(&sh->calls[k], 1);
		atomic_store(&sh->started[k], 1);
	}
	if (k == 2)
		atomic_store(&sh->exec_loop_done, true);
	_exit(0);
}

static void op(int err)
{
	atomic_fetch_add(&sh->churn_ops, 1);
	if (err)
		atomic_fetch_add(&sh->churn_failed, 1);
}

/* Churner A replaces the deny program and cycles the "a" programs. */
static void churn(bool a)
{
	int noise[3] = {
		a ? skel->progs.noise_open_a.prog_fd : skel->progs.noise_open_b.prog_fd,
		a ? skel->progs.noise_mmap_a.prog_fd : skel->progs.noise_mmap_b.prog_fd,
		a ? skel->progs.noise_exec_a.prog_fd : skel->progs.noise_exec_b.prog_fd,
	};
	const char *hooks[3] = { "file_open", "mmap_file", "bprm_check_security" };
	int hook_fds[3], i, k;

	for (k = 0; k < 3; k++)
		hook_fds[k] = krsi_hook_open(hooks[k], O_RDWR);
	while (!atomic_load(&sh->go))
		sched_yield();
	for (i = 0; i < ROUNDS; i++) {
		if (a)
			op(krsi_attach_fd(hook_fds[0], i % 2 ?
					  skel->progs.srep__v1.prog_fd :
					  skel->progs.srep__v2.prog_fd,
					  BPF_F_ALLOW_OVERRIDE));
		for (k = 0; k < 3; k++)
			op(krsi_attach_fd(hook_fds[k], noise[k], 0));
		for (k = 0; k < 3; k++)
			op(krsi_detach_fd(hook_fds[k], noise[k]));
	}
	_exit(0);
}

static pid_t spawn(void (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(arg);
	return pid;
}

static void churn_a(int unused) { (void)unused; churn(true); }
static void churn_b(int unused) { (void)unused; churn(false); }

static bool list_is(const char *hook, const char *want)
{
	char buf[1024];

	hook_list(hook, buf, sizeof(buf));
	return check(!strcmp(buf, want), "%s lists '%s' (want '%s')", hook,
		     oneline(buf), oneline(want));
}

int main(void)
{
	pid_t pids[5];
	struct stat st;
	int i, k, status, bad_exit = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	skel = krsi_test__open_and_load();
	if (!check(sh != MAP_FAILED && skel, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();
	memset(sh, 0, sizeof(*sh));
	skel->bss->stress_ino = make_target(OPEN_FILE);
	skel->bss->stress_map_ino = make_target(MAPPED_FILE);
	check(copy_file("/usr/bin/krsi-kernel-check", EXEC_FILE) == 0 && !stat(EXEC_FILE, &st),
	      "copy an executable to %s", EXEC_FILE);
	skel->bss->stress_exec_ino = st.st_ino;

	check_err(krsi_attach("file_open", skel->progs.srep__v1.prog_fd, 0), 0,
		  "attach srep__v1 to file_open");
	check_err(krsi_attach("mmap_file", skel->progs.stress_mmap.prog_fd, 0), 0,
		  "attach stress_mmap to mmap_file");
	check_err(krsi_attach("bprm_check_security", skel->progs.stress_exec.prog_fd, 0),
		  0, "attach stress_exec to bprm_check_security");

	for (k = 0; k < 3; k++)
		pids[k] = spawn(hammer, k);
	for (k = 0; k < 3; k++)
		while (!atomic_load(&sh->started[k]))
			sched_yield();
	pids[3] = spawn(churn_a, 0);
	pids[4] = spawn(churn_b, 0);
	atomic_store(&sh->go, true);
	for (i = 3; i < 5; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] || status)
			bad_exit++;
	atomic_store(&sh->stop, true);
	for (k = 0; k < 3; k++)
		if (waitpid(pids[k], &status, 0) != pids[k] || status)
			bad_exit++;

	check(bad_exit == 0, "all five processes exited cleanly");
	check(atomic_load(&sh->churn_failed) == 0, "%ld attach/replace/detach calls, %ld failed",
	      atomic_load(&sh->churn_ops), atomic_load(&sh->churn_failed));
	for (k = 0; k < 3; k++)
		check(atomic_load(&sh->calls[k]) > 0 && atomic_load(&sh->wrong[k]) == 0,
		      "%ld %s calls during the churn, %ld not denied as they must be",
		      atomic_load(&sh->calls[k]), what[k], atomic_load(&sh->wrong[k]));
	check(atomic_load(&sh->exec_loop_done), "execve was never allowed");
	check(skel->bss->srep_v1_runs && skel->bss->srep_v2_runs,
	      "both versions of the open deny ran (%u, %u)", skel->bss->srep_v1_runs,
	      skel->bss->srep_v2_runs);
	/* The last round, ROUNDS - 1, put srep__v1 or srep__v2 in place. */
	list_is("file_open", (ROUNDS - 1) % 2 ? "srep__v1\n" : "srep__v2\n");
	list_is("mmap_file", "stress_mmap\n");
	list_is("bprm_check_security", "stress_exec\n");

	krsi_detach("file_open", skel->progs.srep__v1.prog_fd);
	krsi_detach("file_open", skel->progs.srep__v2.prog_fd);
	check_err(krsi_detach("mmap_file", skel->progs.stress_mmap.prog_fd), 0,
		  "detach stress_mmap");
	check_err(krsi_detach("bprm_check_security", skel->progs.stress_exec.prog_fd),
		  0, "detach stress_exec");
	list_is("file_open", "");
	krsi_test__destroy(skel);
	unlink(OPEN_FILE);
	unlink(MAPPED_FILE);
	unlink(EXEC_FILE);
	return check_exit();
}
