// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi hooks`, `krsi hook NAME`, `krsi stats on|off`: what a hook is and
 * how hot it is, for learning.  A hook's prototype comes from the running
 * kernel's BTF (bpf_lsm_<hook>(), what programs are verified against), its
 * return type and default from lsm_hook_defs.h (generated at build time:
 * hook_defaults.h), its programs from its file, and each program's run
 * count and time from the kernel's BPF run-time statistics, which are
 * kept only while /proc/sys/kernel/bpf_stats_enabled is 1 (they cost two
 * clock reads per run), read through a descriptor of each program got by
 * its id.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "btf_proto.h"
#include "errname.h"
#include "hook_defaults.h"	/* generated from lsm_hook_defs.h */
#include "hookfile.h"
#include "krsi.h"
#include "sysbpf.h"

#define STATS_SYSCTL "/proc/sys/kernel/bpf_stats_enabled"

struct hook_default {
	const char *name, *type, *value;
};

static const struct hook_default hook_defaults[] = {
#define X(name, type, value) { #name, type, value },
	KRSI_HOOK_DEFAULTS(X)
#undef X
};

static const struct hook_default *hook_default(const char *hook)
{
	size_t i;

	for (i = 0; i < sizeof(hook_defaults) / sizeof(hook_defaults[0]); i++)
		if (!strcmp(hook_defaults[i].name, hook))
			return &hook_defaults[i];
	return NULL;
}

/* "LSM_RET_VOID" says nothing to a reader: a void hook returns nothing. */
static const char *default_text(const char *hook)
{
	const struct hook_default *d = hook_default(hook);

	if (!d)
		return "?";
	return strcmp(d->type, "void") ? d->value : "(void hook: no verdict)";
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int hook_count(void)
{
	struct dirent **hooks;
	int n = scandir(KRSI_HOOK_DIR, &hooks, NULL, NULL), i, files = 0;

	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		files += hooks[i]->d_name[0] != '.';
		free(hooks[i]);
	}
	free(hooks);
	return files;
}

int cmd_hooks(int argc, char **argv)
{
	struct dirent **hooks;
	int n, i, unreadable = 0;

	if (args_none(argc, argv))
		return EXIT_USAGE;

	n = scandir(KRSI_HOOK_DIR, &hooks, NULL, alphasort);
	if (n < 0) {
		error(-errno, "hooks: %s", KRSI_HOOK_DIR);
		return 1;
	}
	for (i = 0; i < n; i++) {
		const char *hook = hooks[i]->d_name;
		char buf[4096];
		ssize_t len;

		if (hook[0] == '.') {
			free(hooks[i]);
			continue;
		}
		len = krsi_hook_read(hook, buf, sizeof(buf));
		if (len < 0 && !unreadable++)
			error((int)len, "hooks: %s/%s%s", KRSI_HOOK_DIR, hook,
			      len == -EACCES ? " (needs root)" : "");
		if (len < 0)
			printf("%-32s default %-12s ? programs\n", hook,
			       default_text(hook));
		else
			printf("%-32s default %-12s %d program%s\n", hook,
			       default_text(hook), count_lines(buf),
			       count_lines(buf) == 1 ? "" : "s");
		free(hooks[i]);
	}
	free(hooks);
	if (unreadable)
		fprintf(stderr, "krsi: hooks: %d hook files could not be read: "
			"their programs are shown as ?\n", unreadable);
	return unreadable ? 1 : 0;
}

int stats_enabled(void)
{
	char c = 0;
	int fd = open(STATS_SYSCTL, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (read(fd, &c, 1) != 1)
		err = -EIO;
	close(fd);
	return err ? err : c == '1';
}

int prog_info(__u32 id, struct bpf_prog_info *info)
{
	union bpf_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	fd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return fd;
	memset(info, 0, sizeof(*info));
	err = sys_bpf_obj_info(fd, info, sizeof(*info));
	close(fd);
	return err;
}

/* One program's line: its policy, ids, and run count and average time. */
static void show_prog(const char *hook, const struct hook_program *prog,
		      int stats)
{
	const struct policy *p = policy_of(hook, prog->name);
	struct bpf_prog_info info;
	char ids[48];
	int err;

	if (prog->link_id)
		snprintf(ids, sizeof(ids), "prog %u, link %u", prog->prog_id,
			 prog->link_id);
	else
		snprintf(ids, sizeof(ids), "prog %u, no link", prog->prog_id);
	printf("  %-16s %-16s %-20s", prog->name, p ? p->name : "(no krsi policy)",
	       ids);
	err = prog_info(prog->prog_id, &info);
	if (err)
		printf(" runs: ? (%s)\n", errname(-err));
	else if (stats <= 0)
		printf(" runs: ? (krsi stats on to count)\n");
	else
		printf(" runs: %llu, %llu ns each on average\n",
		       (unsigned long long)info.run_cnt,
		       info.run_cnt ? (unsigned long long)(info.run_time_ns /
							   info.run_cnt) : 0ULL);
}

int cmd_hook(int argc, char **argv)
{
	static struct hook_program progs[KRSI_MAX_HOOK_PROGS];
	const char *hook = argv[1];
	char proto[512];
	int err, stats, n, i;

	if (args_one(argc, argv))
		return EXIT_USAGE;
	err = btf_hook_proto(hook, proto, sizeof(proto));

	if (err == -ENOENT || !hook_default(hook) || strchr(hook, '/')) {
		fprintf(stderr, "krsi: hook: no LSM hook '%s' (krsi hooks lists them)\n",
			hook);
		return EXIT_USAGE;
	}
	printf("%s\n", err ? "(prototype: the kernel's BTF cannot be read)" : proto);
	printf("default:  %s\n", default_text(hook));
	n = hook_programs(hook, progs, KRSI_MAX_HOOK_PROGS);
	if (n < 0) {
		error(n, "hook: %s/%s%s", KRSI_HOOK_DIR, hook,
		      n == -EACCES || n == -EPERM ? " (needs root)" : "");
		return 1;
	}
	stats = stats_enabled();
	printf("programs, in run order (statistics %s):\n", stats > 0 ? "on" :
	       stats == 0 ? "off: krsi stats on" : "unknown");
	if (!n)
		printf("  none\n");
	for (i = 0; i < n; i++)
		show_prog(hook, &progs[i], stats);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	const char *on_off = argv[1];
	int fd, err = 0;
	bool on;

	if (argc != 2 || (strcmp(on_off, "on") && strcmp(on_off, "off"))) {
		fprintf(stderr, "krsi: stats takes on or off\n");
		return EXIT_USAGE;
	}
	on = !strcmp(on_off, "on");
	fd = open(STATS_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1)
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		error(err, "stats: %s%s", STATS_SYSCTL,
		      err == -EACCES || err == -EPERM ? " (needs root)" : "");
		return 1;
	}
	printf("krsi: BPF run-time statistics %s\n", on ? "on" : "off");
	return 0;
}
