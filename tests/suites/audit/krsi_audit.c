// SPDX-License-Identifier: GPL-2.0
/*
 * Run on the kernel built without CONFIG_SECURITY_BPF_ENFORCE: programs
 * still run and report, but nothing they return denies an operation, and
 * a program that calls a helper that acts on the system (a signal, exec
 * options, a tail call into programs chosen later) is not attached at all.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "acting_progs.h"
#include "guest.h"
#include "krsi_test.lskel.h"

#define TARGET "/tmp/krsi_audit.target"

/* Is @text in the kernel log? */
static bool in_klog(const char *text)
{
	static char log[1 << 17];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);

	if (n < 0)
		return false;
	log[n] = '\0';
	return strstr(log, text) != NULL;
}

static void test_acting(void)
{
	struct acting_prog progs[4];
	int i;

	if (!check(load_acting_progs(progs), "read the kernel's BTF"))
		return;
	for (i = 0; i < 4; i++) {
		int err = progs[i].fd < 0 ? progs[i].fd :
			  krsi_attach(progs[i].hook, progs[i].fd, 0);

		check(err == -EOPNOTSUPP,
		      "a program calling %s is not attached to %s: %s (want EOPNOTSUPP)",
		      progs[i].name, progs[i].hook, err ? errname(-err) : "attached");
		if (!err)
			krsi_detach(progs[i].hook, progs[i].fd);
		if (progs[i].fd >= 0)
			close(progs[i].fd);
	}
}

int main(void)
{
	unsigned long ino = make_target(TARGET);
	struct krsi_test *skel = krsi_test__open_and_load();

	if (!check(ino && skel, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();
	skel->bss->target_tgid = getpid();
	skel->bss->target_ino = ino;
	skel->bss->deny_ret = -EPERM;

	check(in_klog("krsi: ") && in_klog(" hooks, audit only"),
	      "the LSM announces it is audit only");
	check_err(krsi_attach("file_open", skel->progs.deny.prog_fd, 0), 0,
		  "attach a program that denies");
	check_err(try_open(TARGET), 0, "audit only: the open is not denied");
	check(skel->bss->deny_runs == 1, "but the program ran (%u runs)",
	      skel->bss->deny_runs);
	check_err(krsi_attach("file_open", skel->progs.positive.prog_fd, 0), 0,
		  "attach a program that returns 1");
	check_err(try_open(TARGET), 0, "audit only: still not denied");
	check(skel->bss->deny_runs == 2, "and the programs ran again (%u runs)",
	      skel->bss->deny_runs);
	check_err(krsi_detach("file_open", skel->progs.deny.prog_fd), 0,
		  "detach deny");
	check_err(krsi_detach("file_open", skel->progs.positive.prog_fd), 0,
		  "detach positive");
	test_acting();

	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
