// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI limits: KRSI_MAX_PROGS (64) programs on one hook, then E2BIG; and a
 * program loaded without a name.  The programs are loaded here with a bare
 * bpf(BPF_PROG_LOAD), which is all an LSM program needs besides the BTF id
 * of its hook: taken from a program of krsi_test.bpf.o verified for it.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "guest.h"
#include "krsi_test.lskel.h"

#define MAX_PROGS 64

static int attach_btf_id(int prog_fd)
{
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	if (sys_bpf_obj_info(prog_fd, &info, sizeof(info)))
		return 0;
	return info.attach_btf_id;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	static char buf[8192];
	struct krsi_test *skel = krsi_test__open_and_load();
	int fds[MAX_PROGS + 1], i, btf_id, loaded = 0, attached = 0;
	int unnamed[2];

	if (!check(skel != NULL, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();
	btf_id = attach_btf_id(skel->progs.order_a.prog_fd);
	if (!check(btf_id > 0, "BTF id of file_open: %d", btf_id))
		return check_exit();

	for (i = 0; i <= MAX_PROGS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "limit_%d", i);
		fds[i] = load_allow(btf_id, name);
		loaded += fds[i] >= 0;
	}
	check(loaded == MAX_PROGS + 1, "loaded %d programs with bpf(BPF_PROG_LOAD)",
	      loaded);
	for (i = 0; i < MAX_PROGS; i++)
		attached += krsi_attach("file_open", fds[i], 0) == 0;
	check(attached == MAX_PROGS, "attached %d programs to file_open", attached);
	check_err(krsi_attach("file_open", fds[MAX_PROGS], 0), -E2BIG,
		  "one program more");
	hook_list("file_open", buf, sizeof(buf));
	check(count_lines(buf) == MAX_PROGS &&
	      !strncmp(buf, "limit_0\nlimit_1\n", 16),
	      "the hook file lists %d programs, in order", count_lines(buf));
	check_err(try_open("/init"), 0, "64 allowing programs allow");
	for (i = 0; i <= MAX_PROGS; i++) {
		if (i < MAX_PROGS)
			krsi_detach("file_open", fds[i]);
		close(fds[i]);
	}
	check(!strcmp(hook_list("file_open", buf, sizeof(buf)), ""),
	      "all detached");

	/* Unnamed programs are listed as "-" and never replace each other. */
	unnamed[0] = load_allow(btf_id, "");
	unnamed[1] = load_allow(btf_id, "");
	check_err(krsi_attach("file_open", unnamed[0], 0), 0,
		  "attach an unnamed program");
	check_err(krsi_attach("file_open", unnamed[1], BPF_F_ALLOW_OVERRIDE), 0,
		  "attach another one with BPF_F_ALLOW_OVERRIDE");
	check(!strcmp(hook_list("file_open", buf, sizeof(buf)), "-\n-\n"),
	      "both are listed, as '-': '%s'", oneline(buf));
	for (i = 0; i < 2; i++) {
		check_err(krsi_detach("file_open", unnamed[i]), 0,
			  "detach an unnamed program");
		close(unnamed[i]);
	}

	krsi_test__destroy(skel);
	return check_exit();
}
