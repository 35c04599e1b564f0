// SPDX-License-Identifier: GPL-2.0
/*
 * The LSM framework calls KRSI's hook, and the BPF LSM's stub, only while
 * the hook has a program (patches 0003 and 0030 turn their static call
 * slots on and off).  Whatever the race with calls on another CPU, a call
 * made after an attach returns must run the program, and one made after
 * the last detach returns must not: attach, call, detach, call, many
 * times, through a hook file, a KRSI link and the trampoline, while
 * another thread keeps calling the hook.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"
#include "test_skel.h"
#include "trampoline.h"
#include "sysbpf.h"

#define TARGET		"/tmp/krsi_slots.target"
#define CYCLES		1000
#define TRAMP_CYCLES	30

static struct krsi_test *skel;
static atomic_bool stop;
static atomic_ulong background_opens;

static void *hammer(void *unused)
{
	(void)unused;
	while (!atomic_load(&stop)) {
		try_open(TARGET);
		atomic_fetch_add(&background_opens, 1);
	}
	return NULL;
}

/* 0 or a negative errno, as the test's messages show it. */
static const char *res(int err)
{
	return err ? errname(-err) : "ok";
}

/* One cycle's two results, as a count of the wrong ones. */
static int wrong(int denied, int allowed)
{
	return (denied != -EPERM) + (allowed != 0);
}

/*
 * The wrong results of one cycle through a link, @link (negative: not
 * made): call, close the link, call again.
 */
static int link_cycle(int link)
{
	int denied = try_open(TARGET);

	if (link >= 0)
		close(link);
	return wrong(denied, try_open(TARGET));
}

static void report(const char *way, int cycles, int failed, int bad)
{
	check(!failed, "%s: %d attaches and detaches, %d failed", way, cycles,
	      failed);
	check(!bad, "%s: denied right after each attach, allowed right after "
	      "each detach (%d wrong of %d)", way, bad, 2 * cycles);
}

static void test_hook_file(void)
{
	int deny = skel->progs.deny.prog_fd, i, bad = 0, failed = 0;

	for (i = 0; i < CYCLES; i++) {
		int denied, allowed, attach_err, detach_err, runs;

		int cpu0, cpu1, again = 1;

		skel->bss->deny_runs = 0;
		cpu0 = sched_getcpu();
		attach_err = krsi_attach("file_open", deny, 0);
		cpu1 = sched_getcpu();
		denied = try_open(TARGET);
		runs = skel->bss->deny_runs;
		if (denied != -EPERM)
			again = try_open(TARGET);
		detach_err = krsi_detach("file_open", deny);
		allowed = try_open(TARGET);
		failed += !!attach_err + !!detach_err;
		if (wrong(denied, allowed) && bad < 5)
			printf("# hook file: wrong cycle %d: cpu %d attach %s cpu %d, open %s "
			       "(program ran %d times), open again %s, detach %s, open %s\n",
			       i, cpu0, res(attach_err), cpu1, res(denied), runs,
			       again == 1 ? "-" : res(again),
			       res(detach_err), res(allowed));
		bad += wrong(denied, allowed);
	}
	report("hook file", CYCLES, failed, bad);
}

static void test_link(void)
{
	int deny = skel->progs.deny.prog_fd, i, bad = 0, failed = 0;

	for (i = 0; i < CYCLES; i++) {
		int link = krsi_link_create("file_open", deny);

		failed += link < 0;
		bad += link_cycle(link);
	}
	report("KRSI link (made, then closed)", CYCLES, failed, bad);
}

/*
 * A program attaches by trampoline once in its life: a fresh one each.
 * Where 6.1 attaches no trampoline to a hook, the first is refused.
 */
static void test_trampoline(void)
{
	int i, bad = 0, failed = 0;

	if (!LSM_TRAMPOLINE) {
		check_tramp_attach(tramp_attach(skel->progs.deny.prog_fd), "deny");
		return;
	}
	for (i = 0; i < TRAMP_CYCLES; i++) {
		struct krsi_test *t = krsi_test__open_and_load();
		int link = -1;

		if (t) {
			t->bss->target_tgid = skel->bss->target_tgid;
			t->bss->target_ino = skel->bss->target_ino;
			t->bss->deny_ret = -EPERM;
			link = skel_raw_tracepoint_open(NULL, t->progs.deny.prog_fd);
		}
		failed += link < 0;
		bad += link_cycle(link);
		if (t)
			krsi_test__destroy(t);
	}
	report("trampoline link (made, then closed)", TRAMP_CYCLES, failed, bad);
}

int main(void)
{
	pthread_t thread;

	skel = load_for_target(TARGET);
	if (!skel)
		return check_exit();
	skel->bss->deny_ret = -EPERM;
	if (!check(pthread_create(&thread, NULL, hammer, NULL) == 0,
		   "start a thread that opens the target in a loop"))
		return check_exit();

	test_hook_file();
	test_link();
	test_trampoline();

	atomic_store(&stop, true);
	pthread_join(thread, NULL);
	check(atomic_load(&background_opens) > 0,
	      "the other thread called the hook meanwhile (%lu opens)",
	      atomic_load(&background_opens));
	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
