// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI replacement by name with BPF_F_ALLOW_OVERRIDE, alone and while
 * another thread keeps calling the hook: at no moment may neither version
 * of the policy run.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "btf_lookup.h"
#include "guest.h"
#include "test_skel.h"

#define TARGET		"/tmp/krsi_replace.target"
#define REPLACEMENTS	5000

static struct krsi_test *skel;
static atomic_bool stop;
static atomic_ulong opens, allowed, wrong_errno;

static const char *list(void)
{
	static char buf[4096];

	return hook_list("file_open", buf, sizeof(buf));
}

/* Run the calling thread on @cpu only, if there is such a CPU. */
static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *hammer(void *unused)
{
	(void)unused;
	pin_to(1);
	while (!atomic_load(&stop)) {
		int err = try_open(TARGET);

		atomic_fetch_add(&opens, 1);
		if (!err)
			atomic_fetch_add(&allowed, 1);
		else if (err != -EPERM)
			atomic_fetch_add(&wrong_errno, 1);
	}
	return NULL;
}

static void test_replace(void)
{
	int v1 = skel->progs.rep__v1.prog_fd, v2 = skel->progs.rep__v2.prog_fd;
	unsigned int v1_runs;

	check_err(krsi_attach("file_open", skel->progs.order_a.prog_fd, 0), 0,
		  "attach order_a");
	check_err(krsi_attach("file_open", v1, 0), 0, "attach rep__v1");
	check_err(krsi_attach("file_open", skel->progs.order_c.prog_fd, 0), 0,
		  "attach order_c");
	check_err(try_open(TARGET), -EPERM, "rep__v1 denies");

	check_err(krsi_attach("file_open", v2, 0), -EEXIST,
		  "rep__v2 without BPF_F_ALLOW_OVERRIDE");
	check(!strcmp(list(), "order_a\nrep__v1\norder_c\n"),
	      "the refused attach changed nothing: '%s'", oneline(list()));

	check_err(krsi_attach("file_open", v2, BPF_F_ALLOW_OVERRIDE), 0,
		  "rep__v2 with BPF_F_ALLOW_OVERRIDE");
	check(!strcmp(list(), "order_a\nrep__v2\norder_c\n"),
	      "rep__v2 took rep__v1's place: '%s'", oneline(list()));
	v1_runs = skel->bss->v1_runs;
	check_err(try_open(TARGET), -EPERM, "rep__v2 denies");
	check(skel->bss->v1_runs == v1_runs && skel->bss->v2_runs == 1,
	      "only rep__v2 ran (v1 %u, v2 %u)", skel->bss->v1_runs,
	      skel->bss->v2_runs);

	check_err(krsi_attach("file_open", v2, BPF_F_ALLOW_OVERRIDE), -EEXIST,
		  "the attached program itself with BPF_F_ALLOW_OVERRIDE");
	check_err(krsi_attach("file_open", v1, BPF_F_ALLOW_OVERRIDE), 0,
		  "and back to rep__v1");
	check(!strcmp(list(), "order_a\nrep__v1\norder_c\n"),
	      "rep__v1 is back in place: '%s'", oneline(list()));
	check_err(krsi_detach("file_open", v2), -ENOENT,
		  "the replaced program is no longer attached");
	check_err(krsi_detach("file_open", skel->progs.order_a.prog_fd), 0,
		  "detach order_a");
	check_err(krsi_detach("file_open", skel->progs.order_c.prog_fd), 0,
		  "detach order_c");
}

static void test_concurrent(void)
{
	int fds[2] = { skel->progs.rep__v1.prog_fd, skel->progs.rep__v2.prog_fd };
	int hook_fd = krsi_hook_open("file_open", O_RDWR);
	unsigned int v1_runs = skel->bss->v1_runs, v2_runs = skel->bss->v2_runs;
	pthread_t thread;
	int i, failed = 0;

	if (!check(hook_fd >= 0, "open file_open") ||
	    !check(pthread_create(&thread, NULL, hammer, NULL) == 0,
		   "start a thread that opens the target in a loop"))
		return;

	/*
	 * rep__v1 is attached; swap the two versions back and forth, on
	 * another CPU than the opens, once they have started.
	 */
	pin_to(0);
	while (!atomic_load(&opens))
		sched_yield();
	/*
	 * At least REPLACEMENTS, and on until each version has run: on a
	 * loaded host the two vCPUs need not run at the same time.
	 */
	for (i = 1; i <= REPLACEMENTS ||
	     ((skel->bss->v1_runs == v1_runs || skel->bss->v2_runs == v2_runs) &&
	      i <= 20 * REPLACEMENTS); i++)
		if (krsi_attach_fd(hook_fd, fds[i % 2], BPF_F_ALLOW_OVERRIDE))
			failed++;
	if ((i - 1) % 2) {
		/* An odd count left rep__v2: the checks below expect rep__v1. */
		if (krsi_attach_fd(hook_fd, fds[0], BPF_F_ALLOW_OVERRIDE))
			failed++;
		i++;
	}
	atomic_store(&stop, true);
	pthread_join(thread, NULL);

	check(failed == 0, "%d replacements, %d failed", i - 1, failed);
	check(atomic_load(&opens) > 0 && atomic_load(&allowed) == 0,
	      "%lu opens during the replacements, %lu allowed",
	      atomic_load(&opens), atomic_load(&allowed));
	check(atomic_load(&wrong_errno) == 0, "%lu opens failed with another errno",
	      atomic_load(&wrong_errno));
	check(skel->bss->v1_runs > v1_runs && skel->bss->v2_runs > v2_runs,
	      "both versions ran (v1 %u, v2 %u more runs)",
	      skel->bss->v1_runs - v1_runs, skel->bss->v2_runs - v2_runs);
	check(!strcmp(list(), "rep__v1\n"), "one version left: '%s'", oneline(list()));
	check_err(krsi_detach_fd(hook_fd, fds[0]), 0, "detach rep__v1");
	check_err(try_open(TARGET), 0, "open allowed after detach");
	close(hook_fd);
}

/*
 * A name that is empty up to "__" matches nothing: "__v2" must not take
 * the place of an unnamed program, and is added beside it.
 */
static void test_empty_names(void)
{
	struct btf_file btf;
	int id, unnamed, v2, err;

	if (!check(btf_open(&btf) == 0, "read the kernel's BTF"))
		return;
	id = btf_find_func(&btf, "bpf_lsm_file_open");
	btf_close(&btf);
	unnamed = load_allow(id, "");
	v2 = load_allow(id, "__v2");
	if (check(unnamed >= 0 && v2 >= 0, "load an unnamed program and \"__v2\"")) {
		check_err(krsi_attach("file_open", unnamed, 0), 0,
			  "attach the unnamed program");
		err = krsi_attach("file_open", v2, BPF_F_ALLOW_OVERRIDE);
		check_err(err, 0, "attach \"__v2\" with BPF_F_ALLOW_OVERRIDE");
		check(!strcmp(list(), "-\n__v2\n"),
		      "both are listed, the unnamed one not replaced: '%s'",
		      oneline(list()));
		check_err(krsi_detach("file_open", unnamed), 0,
			  "the unnamed program is still there to detach");
		if (!err)
			krsi_detach("file_open", v2);
	}
	if (unnamed >= 0)
		close(unnamed);
	if (v2 >= 0)
		close(v2);
}

int main(void)
{

	skel = load_for_target(TARGET);
	if (!skel)
		return check_exit();

	test_replace();
	test_concurrent();
	test_empty_names();

	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
