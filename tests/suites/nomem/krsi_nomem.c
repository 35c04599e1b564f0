// SPDX-License-Identifier: GPL-2.0
/*
 * Booted on the debug kernel with krsi.tests=nomem: a detach whose new
 * program array cannot be allocated still detaches (patch 0015).  The
 * failure is injected with CONFIG_FAILSLAB and /proc/thread-self/fail-nth:
 * the first slab allocation of bpf(BPF_PROG_DETACH), the array, fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_test.lskel.h"

#define TARGET		"/tmp/krsi_nomem.target"
#define FAILSLAB	"/sys/kernel/debug/failslab/"

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Fail the @nth fault-injectable allocation of this thread from now. */
static int fail_nth(int nth)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", nth);
	return write_file("/proc/thread-self/fail-nth", buf);
}

/* How many allocations are left before the injected failure; 0 once it
 * has happened.
 */
static int fail_nth_left(void)
{
	char buf[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf[0] ? atoi(buf) : -1;
}

int main(void)
{
	char buf[256];
	struct krsi_test *skel;
	int err, left, hook_fd;

	/* GFP_KERNEL allocations, as the array's, are spared by default. */
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	check(!write_file(FAILSLAB "ignore-gfp-wait", "N") &&
	      !write_file(FAILSLAB "verbose", "0"),
	      "failslab: fail GFP_KERNEL allocations, quietly");
	skel = krsi_test__open_and_load();
	if (!check(skel != NULL, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();
	skel->bss->target_tgid = getpid();
	skel->bss->target_ino = make_target(TARGET);
	skel->bss->deny_ret = -EPERM;

	check_err(krsi_attach("file_open", skel->progs.order_a.prog_fd, 0), 0,
		  "attach order_a");
	check_err(krsi_attach("file_open", skel->progs.deny.prog_fd, 0), 0,
		  "attach deny");
	check_err(try_open(TARGET), -EPERM, "deny denies");

	/* The hook file is opened first: its struct file is an allocation. */
	hook_fd = krsi_hook_open("file_open", O_RDWR);
	fail_nth(1);
	err = krsi_detach_fd(hook_fd, skel->progs.deny.prog_fd);
	left = fail_nth_left();
	fail_nth(0);
	check(left == 0, "the detach's allocation was made to fail (%d left)", left);
	check_err(err, 0, "the detach succeeds all the same");
	check_err(try_open(TARGET), 0, "deny no longer runs");
	check(!strcmp(hook_list("file_open", buf, sizeof(buf)), "order_a\n"),
	      "the hook file lists only order_a: '%s'", oneline(buf));
	check_err(krsi_detach("file_open", skel->progs.deny.prog_fd), -ENOENT,
		  "deny is not attached any more: ENOENT");

	/* The next change leaves the emptied slot out. */
	check_err(krsi_attach("file_open", skel->progs.deny.prog_fd, 0), 0,
		  "attach deny again");
	check(!strcmp(hook_list("file_open", buf, sizeof(buf)), "order_a\ndeny\n"),
	      "order_a then deny: '%s'", oneline(buf));
	check_err(try_open(TARGET), -EPERM, "and it denies again");

	/* The last program: no array to allocate, nothing to fail. */
	check_err(krsi_detach("file_open", skel->progs.deny.prog_fd), 0, "detach deny");
	fail_nth(1);
	err = krsi_detach_fd(hook_fd, skel->progs.order_a.prog_fd);
	fail_nth(0);
	check_err(err, 0, "detach the last program with allocations failing");
	check(!strcmp(hook_list("file_open", buf, sizeof(buf)), ""),
	      "the hook file is empty: '%s'", oneline(buf));

	close(hook_fd);
	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
