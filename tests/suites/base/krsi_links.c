// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI links (bpf(BPF_LINK_CREATE) on a hook file), exact replacement
 * (BPF_F_REPLACE), bpf(BPF_PROG_QUERY) on a hook file, and replacement by
 * the programs' full names: what each does, and each refusal's errno.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "guest.h"
#include "test_skel.h"
#include "sysbpf.h"

#define TARGET	"/tmp/krsi_links.target"
#define PIN	"/sys/fs/bpf/krsi_links_test"
#define SWAPS	2000

static struct krsi_test *skel;

static const char *list(void)
{
	static char buf[4096];

	return hook_list("file_open", buf, sizeof(buf));
}

static int attach_replace(int prog, int old, unsigned int flags)
{
	int hook_fd = krsi_hook_open("file_open", O_RDWR), err;

	err = krsi_attach_replace_fd(hook_fd, prog, old, flags);
	close(hook_fd);
	return err;
}

static __u32 prog_id(int prog_fd)
{
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	return sys_bpf_obj_info(prog_fd, &info, sizeof(info)) ? 0 : info.id;
}

/* The "hook:" line of the link's fdinfo, or "?". */
static const char *fdinfo_hook(int fd)
{
	static char hook[64];
	char path[64], line[128];
	FILE *f;

	snprintf(hook, sizeof(hook), "?");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return hook;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "hook: %63s", hook) == 1)
			break;
	fclose(f);
	return hook;
}

static int fd_prog, fd_other;

/* As a user without CAP_MAC_ADMIN, on descriptors opened as root. */
static int update_unprivileged(void)
{
	return krsi_link_update(fd_other, fd_prog, 0, 0);
}

static int detach_unprivileged(void)
{
	return krsi_link_detach(fd_other);
}

static int create_unprivileged(void)
{
	return krsi_link_create_fd(fd_other, fd_prog, BPF_F_KRSI_HOOK);
}

/* Refusals of BPF_LINK_CREATE, each with its errno. */
static void test_create_errors(void)
{
	int deny = skel->progs.deny.prog_fd;
	int ro = krsi_hook_open("file_open", O_RDONLY);
	int rw = krsi_hook_open("file_open", O_RDWR);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	check_err(krsi_link_create_fd(ro, deny, BPF_F_KRSI_HOOK), -EACCES,
		  "link on the hook file opened read-only");
	check_err(krsi_link_create_fd(null, deny, BPF_F_KRSI_HOOK), -ENOTTY,
		  "link on a file that is no hook file");
	check_err(krsi_link_create_fd(999, deny, BPF_F_KRSI_HOOK), -EBADF, "link on a bad descriptor");
	check_err(krsi_link_create_fd(rw, deny, BPF_F_KRSI_HOOK | 1), -EINVAL,
		  "link with flags besides BPF_F_KRSI_HOOK");
	check_err(krsi_link_create_fd(rw, deny, 0), -EINVAL,
		  "link on a hook file without BPF_F_KRSI_HOOK (the trampoline's way, with a target)");
	check_err(krsi_link_create_fd(rw, skel->progs.prctl_allow.prog_fd, BPF_F_KRSI_HOOK), -EXDEV,
		  "link of a program verified for task_prctl on file_open");
	check_err(krsi_link_create_fd(rw, skel->progs.not_lsm.prog_fd, BPF_F_KRSI_HOOK), -EINVAL,
		  "link of a socket filter program");
	fd_other = rw;
	fd_prog = deny;
	check_err(in_child(1000, create_unprivileged), -EPERM,
		  "link by a user without CAP_MAC_ADMIN, hook file opened by root");
	check(!strcmp(list(), ""), "no refusal attached anything: '%s'",
	      oneline(list()));
	close(ro);
	close(rw);
	close(null);
}

/* A link's life: what it attaches, what it tells, how it ends. */
static void test_lifetime(void)
{
	int deny = skel->progs.deny.prog_fd, link, link2, len;
	struct krsi_link_info info;
	char small[4];
	struct bpf_link_info li;

	skel->bss->deny_ret = -EPERM;
	link = krsi_link_create("file_open", deny);
	if (!check(link >= 0, "create a link of deny on file_open (%s)",
		   link < 0 ? errname(-link) : "ok"))
		return;
	check(!strcmp(list(), "deny\n"), "the hook file lists it: '%s'",
	      oneline(list()));
	check_err(try_open(TARGET), -EPERM, "deny denies through its link");
	check(!strcmp(fdinfo_hook(link), "file_open"), "fdinfo says hook file_open: %s",
	      fdinfo_hook(link));
	check_err(krsi_link_info(link, &info), 0, "bpf_link_info of the link");
	check(info.type == BPF_LINK_TYPE_KRSI && !strcmp(info.hook, "file_open") &&
	      info.prog_id == prog_id(deny) && info.link_id,
	      "it is a KRSI link of deny on file_open (type %u, hook '%s', prog %u, link %u)",
	      info.type, info.hook, info.prog_id, info.link_id);

	memset(&li, 0, sizeof(li));
	li.krsi.hook_name = (unsigned long)small;
	li.krsi.hook_name_len = sizeof(small);
	len = sys_bpf_obj_info(link, &li, sizeof(li));
	check(len == -ENOSPC && !strcmp(small, "fil"),
	      "a short buffer: ENOSPC and what fits, \"fil\" (%s, '%s')",
	      errname(-len), small);
	li.krsi.hook_name = 0;
	li.krsi.hook_name_len = 0;
	len = sys_bpf_obj_info(link, &li, sizeof(li));
	check(!len && li.krsi.hook_name_len == 10,
	      "no buffer: the length it takes, 10 (%s, %u)",
	      len ? errname(-len) : "ok", li.krsi.hook_name_len);

	check_err(krsi_detach("file_open", deny), -EBUSY,
		  "BPF_PROG_DETACH of a link's program");
	check_err(krsi_attach("file_open", deny, 0), -EEXIST,
		  "BPF_PROG_ATTACH of a link's program");
	link2 = krsi_link_create("file_open", deny);
	check_err(link2 < 0 ? link2 : 0, -EEXIST, "a second link of the same program");
	if (link2 >= 0)
		close(link2);

	close(link);
	check(!strcmp(list(), ""), "closing the last descriptor detaches it: '%s'",
	      oneline(list()));
	check_err(try_open(TARGET), 0, "and the open is allowed again");

	/* BPF_LINK_DETACH: the link stays, detached. */
	link = krsi_link_create("file_open", deny);
	fd_other = link;
	check_err(in_child(1000, detach_unprivileged), -EPERM,
		  "BPF_LINK_DETACH without CAP_MAC_ADMIN");
	check_err(krsi_link_detach(link), 0, "BPF_LINK_DETACH");
	check(!strcmp(list(), ""), "detaches it: '%s'", oneline(list()));
	check(!strcmp(fdinfo_hook(link), "(detached)"), "fdinfo says (detached): %s",
	      fdinfo_hook(link));
	check(krsi_link_info(link, &info) == 0 && !info.hook[0],
	      "bpf_link_info names no hook: '%s'", info.hook);
	check_err(krsi_link_update(link, skel->progs.order_a.prog_fd, 0, 0), -ENOLINK,
		  "BPF_LINK_UPDATE of a detached link");
	check_err(krsi_link_detach(link), 0, "BPF_LINK_DETACH again changes nothing");
	close(link);
}

/* A pinned link outlives its creator; unpinning it detaches it. */
static int create_and_pin(void)
{
	int link = krsi_link_create("file_open", skel->progs.deny.prog_fd);
	union bpf_attr attr;

	if (link < 0)
		return link;
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)PIN;
	attr.bpf_fd = link;
	return (int)sys_bpf(BPF_OBJ_PIN, &attr);
}

static void test_pin(void)
{
	skel->bss->deny_ret = -EPERM;
	unlink(PIN);
	check_err(in_child(0, create_and_pin), 0,
		  "a child creates a link of deny, pins it, and exits");
	check(!strcmp(list(), "deny\n"), "the link outlives its creator: '%s'",
	      oneline(list()));
	check_err(try_open(TARGET), -EPERM, "and deny still denies");
	check(unlink(PIN) == 0, "unlink the pin");
	check(!strcmp(list(), ""), "removing the last pin detaches it: '%s'",
	      oneline(list()));
}

/* BPF_LINK_UPDATE, its refusals, and no gap under load. */
static atomic_bool stop;
static atomic_ulong opens, allowed;

static void *hammer(void *unused)
{
	(void)unused;
	while (!atomic_load(&stop)) {
		atomic_fetch_add(&opens, 1);
		if (!try_open(TARGET))
			atomic_fetch_add(&allowed, 1);
	}
	return NULL;
}

static void test_update(void)
{
	int v1 = skel->progs.rep__v1.prog_fd, v2 = skel->progs.rep__v2.prog_fd;
	int a = skel->progs.order_a.prog_fd, link, i, failed = 0;
	pthread_t thread;

	skel->bss->verdict_a = 0;
	link = krsi_link_create("file_open", v1);
	if (!check(link >= 0, "create a link of rep__v1"))
		return;
	check_err(krsi_link_update(link, skel->progs.prctl_allow.prog_fd, 0, 0), -EXDEV,
		  "update with a program verified for task_prctl");
	check_err(krsi_link_update(link, skel->progs.not_lsm.prog_fd, 0, 0), -EINVAL,
		  "update with a socket filter program");
	check_err(krsi_link_update(link, v2, a, BPF_F_REPLACE), -EPERM,
		  "update with BPF_F_REPLACE and the wrong old program");
	check_err(krsi_attach("file_open", a, 0), 0, "attach order_a beside it");
	check_err(krsi_link_update(link, a, 0, 0), -EEXIST,
		  "update to a program the hook runs already");
	check_err(attach_replace(v2, v1, BPF_F_REPLACE), -EBUSY,
		  "BPF_PROG_ATTACH with BPF_F_REPLACE of the link's program");
	check_err(krsi_attach("file_open", v2, BPF_F_ALLOW_OVERRIDE), -EBUSY,
		  "BPF_PROG_ATTACH of rep__v2 by name over the link's rep__v1");
	fd_other = link;
	fd_prog = v2;
	check_err(in_child(1000, update_unprivileged), -EPERM,
		  "update without CAP_MAC_ADMIN");
	check(!strcmp(list(), "rep__v1\norder_a\n"), "no refusal changed anything: '%s'",
	      oneline(list()));

	check_err(krsi_link_update(link, v2, v1, BPF_F_REPLACE), 0,
		  "update to rep__v2 with BPF_F_REPLACE and the right old program");
	check(!strcmp(list(), "rep__v2\norder_a\n"), "rep__v2 runs in rep__v1's place: '%s'",
	      oneline(list()));
	check_err(krsi_link_update(link, v2, 0, 0), 0, "update to its own program: nothing to do");
	check_err(krsi_detach("file_open", v1), -ENOENT, "rep__v1 is no longer attached");
	check_err(krsi_detach("file_open", a), 0, "detach order_a");

	/* Swap under load: no open may pass between two versions. */
	if (!check(pthread_create(&thread, NULL, hammer, NULL) == 0, "start opening"))
		goto out;
	while (!atomic_load(&opens))
		sched_yield();
	for (i = 0; i < SWAPS; i++)
		failed += !!krsi_link_update(link, i % 2 ? v2 : v1, 0, 0);
	atomic_store(&stop, true);
	pthread_join(thread, NULL);
	check(!failed, "%d updates, %d failed", SWAPS, failed);
	check(atomic_load(&allowed) == 0, "%lu opens during the updates, %lu allowed",
	      atomic_load(&opens), atomic_load(&allowed));
out:
	close(link);
	check(!strcmp(list(), ""), "the link's last close detaches the last version: '%s'",
	      oneline(list()));
}

/* BPF_PROG_ATTACH with BPF_F_REPLACE, and BPF_PROG_QUERY. */
static void test_replace_and_query(void)
{
	int a = skel->progs.order_a.prog_fd, b = skel->progs.order_b.prog_fd;
	int c = skel->progs.order_c.prog_fd, link, n;
	__u32 ids[4] = { 0 };

	check_err(attach_replace(b, a, BPF_F_REPLACE), -ENOENT,
		  "BPF_F_REPLACE of a program that is not attached");
	check_err(attach_replace(b, a, BPF_F_REPLACE | BPF_F_ALLOW_OVERRIDE), -EINVAL,
		  "BPF_F_REPLACE with BPF_F_ALLOW_OVERRIDE");
	check_err(attach_replace(b, a, 0), -EINVAL, "replace_bpf_fd without BPF_F_REPLACE");
	check_err(krsi_attach("file_open", a, 0), 0, "attach order_a");
	link = krsi_link_create("file_open", c);
	check(link >= 0, "link order_c after it");
	check_err(attach_replace(b, a, BPF_F_REPLACE), 0, "BPF_F_REPLACE order_a by order_b");
	check(!strcmp(list(), "order_b\norder_c\n"), "in place: '%s'", oneline(list()));

	n = krsi_hook_query("file_open", ids, 4);
	check(n == 2 && ids[0] == prog_id(b) && ids[1] == prog_id(c),
	      "BPF_PROG_QUERY: 2 ids in run order (%d: %u %u, want %u %u)", n,
	      ids[0], ids[1], prog_id(b), prog_id(c));
	memset(ids, 0, sizeof(ids));
	n = krsi_hook_query("file_open", ids, 1);
	check(n == 2 && ids[0] == prog_id(b) && !ids[1],
	      "with room for one: the first, and the count (%d: %u %u)", n, ids[0], ids[1]);

	check_err(krsi_detach("file_open", b), 0, "detach order_b");
	if (link >= 0)
		close(link);
	n = krsi_hook_query("file_open", ids, 4);
	check(n == 0, "BPF_PROG_QUERY of an empty hook: 0 (%d)", n);
}

/* Replacement by name compares the full names, from BTF. */
static void test_names(void)
{
	int a = skel->progs.audit_file_open_a.prog_fd;
	int b = skel->progs.audit_file_open_b.prog_fd;
	int v1 = skel->progs.protect_secret.prog_fd;
	int v2 = skel->progs.protect_secret__v2.prog_fd;

	check_err(krsi_attach("file_open", a, 0), 0, "attach audit_file_open_a");
	check_err(krsi_attach("file_open", b, 0), 0,
		  "attach audit_file_open_b: the same first 15 characters, another name");
	check(!strcmp(list(), "audit_file_open_a\naudit_file_open_b\n"),
	      "both run, listed by their full names: '%s'", oneline(list()));
	check_err(krsi_detach("file_open", a), 0, "detach audit_file_open_a");
	check_err(krsi_detach("file_open", b), 0, "detach audit_file_open_b");

	check_err(krsi_attach("file_open", v1, 0), 0, "attach protect_secret");
	check_err(krsi_attach("file_open", v2, 0), -EEXIST,
		  "protect_secret__v2 without BPF_F_ALLOW_OVERRIDE");
	check_err(krsi_attach("file_open", v2, BPF_F_ALLOW_OVERRIDE), 0,
		  "protect_secret__v2 with BPF_F_ALLOW_OVERRIDE");
	check(!strcmp(list(), "protect_secret__v2\n"),
	      "it replaced protect_secret, 18 characters long: '%s'", oneline(list()));
	check_err(krsi_detach("file_open", v2), 0, "detach protect_secret__v2");
}

int main(void)
{

	skel = load_for_target(TARGET);
	if (!skel)
		return check_exit();

	test_create_errors();
	test_lifetime();
	test_pin();
	test_update();
	test_replace_and_query();
	test_names();

	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
