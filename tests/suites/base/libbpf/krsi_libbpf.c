// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_program__attach_krsi(), the libbpf API of the series, from a program
 * linked statically with glibc and the libbpf.a of the patched tree:
 * open a .bpf.o with libbpf, attach through the hook file as a KRSI link,
 * see the hook file list the program and the policy take effect, update,
 * pin, detach and destroy the link as any other; and the API's errors.
 * bpf_program__attach() of an LSM program, as a program written for the
 * BPF LSM calls it: a trampoline link where 6.1 attaches one to the
 * hook (x86_64), a KRSI link elsewhere (arm64, s390x), enforcing either way.
 * Then the kernel's own selftest object: its programs load, its sleepable
 * test_void_hook runs through a hook file, and the whole object, attached
 * unmodified with bpf_program__attach(), passes the checks of the
 * kernel's own prog_tests/test_lsm.c.
 */
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "errname.h"

/* Linux 6.1 attaches LSM programs by trampoline on x86_64 alone
 * (tests/lib/trampoline.h).
 */
#if defined(__x86_64__)
#define LSM_TRAMPOLINE 1
#else
#define LSM_TRAMPOLINE 0
#endif

#define OBJ	"/tests/krsi_libbpf.bpf.o"
#define SELFTEST_OBJ	"/tests/lsm.bpf.o"
#define TARGET	"/tmp/krsi-libbpf-target"
#define HOOK	"/sys/kernel/security/bpf/file_open"
#define LINK_PIN	"/sys/fs/bpf/krsi_libbpf_link"

static const char *hook_list(void)
{
	static char buf[1024];
	ssize_t n = -1;
	int fd = open(HOOK, O_RDONLY);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n < 0 ? 0 : n] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return buf;
}

static int try_open(void)
{
	int fd = open(TARGET, O_RDONLY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static struct bpf_program *prog(struct bpf_object *obj, const char *name)
{
	return bpf_object__find_program_by_name(obj, name);
}

/* The offset of the global variable @name in @obj's .bss, or -1. */
static int bss_offset(struct bpf_object *obj, const char *name)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *var;
	const struct btf_type *sec;
	int id, i;

	id = btf ? btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return -1;
	sec = btf__type_by_id(btf, id);
	var = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, var++) {
		const struct btf_type *t = btf__type_by_id(btf, var->type);

		if (!strcmp(btf__name_by_offset(btf, t->name_off), name))
			return var->offset;
	}
	return -1;
}

/*
 * Read the int at @off of @obj's .bss, and write @set there unless it is
 * NULL: the .bss is an array map of one element.
 */
static int bss_int(struct bpf_object *obj, int off, const int *set)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".bss");
	char value[4096];
	int key = 0, v = -1;

	if (!map || bpf_map__value_size(map) > sizeof(value) ||
	    bpf_map__lookup_elem(map, &key, sizeof(key), value,
				 bpf_map__value_size(map), 0))
		return -1;
	memcpy(&v, value + off, sizeof(v));
	if (set) {
		memcpy(value + off, set, sizeof(*set));
		if (bpf_map__update_elem(map, &key, sizeof(key), value,
					 bpf_map__value_size(map), 0))
			return -1;
	}
	return v;
}

/* Run /bin/true in a child that @monitored (an offset in .bss) names. */
static int exec_monitored(struct bpf_object *obj, int monitored)
{
	int go[2], status = -1;
	pid_t pid;
	char c = 0;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	bss_int(obj, monitored, &pid);
	if (write(go[1], &c, 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The selftest's sleepable test_void_hook (lsm.s/bprm_committed_creds)
 * through its hook file: it counts the execs of monitored_pid.
 */
static void test_selftest_void_hook(struct bpf_object *obj)
{
	int monitored = bss_offset(obj, "monitored_pid");
	int count = bss_offset(obj, "bprm_count");
	struct bpf_link *link;
	int status, runs;

	if (!check(monitored >= 0 && count >= 0,
		   "find monitored_pid and bprm_count in .bss"))
		return;
	link = bpf_program__attach_krsi(prog(obj, "test_void_hook"), NULL);
	if (!check(link != NULL, "attach the selftest's sleepable test_void_hook "
		   "to bprm_committed_creds (%s)", link ? "ok" : errname(errno)))
		return;
	status = exec_monitored(obj, monitored);
	runs = bss_int(obj, count, NULL);
	check(status == 0 && runs == 1,
	      "test_void_hook ran on the child's exec: bprm_count %d", runs);
	check(bpf_link__destroy(link) == 0, "and its link detaches it");
}

/* The type of the kernel link @link, or -1. */
static int link_type(const struct bpf_link *link)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!link || bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return -1;
	return info.type;
}

/* What bpf_program__attach() of an LSM program makes on this kernel. */
#define LSM_LINK_TYPE (LSM_TRAMPOLINE ? BPF_LINK_TYPE_TRACING : BPF_LINK_TYPE_KRSI)
#define LSM_LINK_NAME (LSM_TRAMPOLINE ? "a trampoline link" : "a KRSI link")

/*
 * bpf_program__attach() of libbpf_deny, as a program written for the BPF
 * LSM attaches: the kernel's way, enforcing.
 */
static void test_generic_attach(struct bpf_object *obj)
{
	struct bpf_link *link = bpf_program__attach(prog(obj, "libbpf_deny"));

	if (!check(link != NULL, "bpf_program__attach() of libbpf_deny (%s)",
		   link ? "ok" : errname(errno)))
		return;
	check(link_type(link) == LSM_LINK_TYPE, "it made %s (type %d)",
	      LSM_LINK_NAME, link_type(link));
	check(!strcmp(hook_list(), LSM_TRAMPOLINE ? "" : "libbpf_deny "),
	      "file_open lists %s: '%s'",
	      LSM_TRAMPOLINE ? "nothing" : "it", hook_list());
	check(try_open() == EPERM, "the policy takes effect: open gives EPERM");
	check(bpf_link__destroy(link) == 0 && try_open() == 0,
	      "destroying the link detaches it");
}

/* The kernel's test_lsm.c: mprotect() of the stack made executable. */
static int stack_mprotect(void)
{
	long sz = sysconf(_SC_PAGESIZE);
	char *buf = alloca(sz * 3);
	void *page = (void *)(((unsigned long)buf + sz) & ~(sz - 1));

	return mprotect(page, sz, PROT_READ | PROT_WRITE | PROT_EXEC) ? errno : 0;
}

/*
 * The kernel's selftest object as its own test (prog_tests/test_lsm.c)
 * runs it, unmodified: every LSM program attached with
 * bpf_program__attach(), a monitored exec counted by the sleepable
 * test_void_hook, the stack's mprotect(PROT_EXEC) denied and counted by
 * test_int_hook.  Where 6.1 attaches no trampoline to the hook (arm64 and
 * s390x, whose DENYLIST files list test_lsm with -524), libbpf attaches
 * them through KRSI.
 */
static void test_selftest_unmodified(struct bpf_object *obj)
{
	int monitored = bss_offset(obj, "monitored_pid");
	int bprm = bss_offset(obj, "bprm_count");
	int mprot = bss_offset(obj, "mprotect_count");
	struct bpf_link *links[8];
	struct bpf_program *p;
	int n = 0, attached = 0, typed = 0, zero = 0, i, err;
	pid_t self = getpid();

	if (!check(monitored >= 0 && bprm >= 0 && mprot >= 0,
		   "find monitored_pid, bprm_count and mprotect_count in .bss"))
		return;
	bss_int(obj, bprm, &zero);
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p) || n == 8)
			continue;
		links[n] = bpf_program__attach(p);
		attached += links[n] != NULL;
		typed += link_type(links[n]) == LSM_LINK_TYPE;
		n++;
	}
	check(n == 3 && attached == n,
	      "bpf_program__attach() of the selftest's %d LSM programs: %d attached",
	      n, attached);
	check(typed == n, "each as %s (%d of %d)", LSM_LINK_NAME, typed, n);

	err = exec_monitored(obj, monitored);
	check(err == 0 && bss_int(obj, bprm, NULL) == 1,
	      "test_lsm: a monitored exec counted (bprm_count %d)",
	      bss_int(obj, bprm, NULL));
	bss_int(obj, monitored, &self);
	err = stack_mprotect();
	check(err == EPERM, "test_lsm: mprotect() of the stack PROT_EXEC: %s (want EPERM)",
	      err ? errname(err) : "allowed");
	check(bss_int(obj, mprot, NULL) == 1, "test_lsm: mprotect_count %d",
	      bss_int(obj, mprot, NULL));
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bss_int(obj, monitored, &zero);
	err = stack_mprotect();
	check(err == 0, "the stack's mprotect() allowed once detached (%s)",
	      err ? errname(err) : "ok");
}

/* attach_krsi() must fail with @err and set errno to it. */
static void check_fails(struct bpf_program *p, int err, const char *what)
{
	struct bpf_link *link = bpf_program__attach_krsi(p, NULL);

	check(!link && errno == err, "%s: %s (want %s)", what,
	      link ? "attached" : errname(errno), errname(err));
	bpf_link__destroy(link);
}

int main(void)
{
	LIBBPF_OPTS(bpf_krsi_opts, override, .flags = BPF_F_ALLOW_OVERRIDE);
	struct bpf_link *link;
	struct bpf_object *obj;
	int fd, err;

	fd = open(TARGET, O_CREAT | O_WRONLY, 0644);
	close(fd);
	obj = bpf_object__open_file(OBJ, NULL);
	if (!check(obj != NULL, "libbpf opens %s", OBJ))
		return check_exit();
	bpf_program__set_autoload(prog(obj, "not_loaded"), false);
	bpf_program__set_autoload(prog(obj, "no_such_hook"), false);
	if (!check(bpf_object__load(obj) == 0, "libbpf loads it"))
		return check_exit();

	link = bpf_program__attach_krsi(prog(obj, "libbpf_deny"), NULL);
	check(link != NULL, "attach libbpf_deny through its hook file (%s)",
	      link ? "ok" : errname(errno));
	if (!link)
		return check_exit();
	check(bpf_link__fd(link) > 2, "its descriptor is not 0-2: %d", bpf_link__fd(link));
	check(!strcmp(hook_list(), "libbpf_deny "), "file_open lists it: '%s'",
	      hook_list());
	check(try_open() == EPERM, "the policy takes effect: open gives EPERM");
	check(bpf_link__destroy(link) == 0, "destroying the link detaches it");
	check(!strcmp(hook_list(), ""), "file_open lists nothing: '%s'", hook_list());
	check(try_open() == 0, "and the open is allowed again");
	test_generic_attach(obj);

	libbpf_set_print(NULL);	/* the warnings below are expected */
	check(!bpf_program__attach_krsi(prog(obj, "libbpf_deny"), &override) &&
	      errno == EINVAL, "BPF_F_ALLOW_OVERRIDE in the options: EINVAL (%s)",
	      errname(errno));

	/* A kernel link: updated, pinned, detached as any other. */
	link = bpf_program__attach_krsi(prog(obj, "libbpf_deny"), NULL);
	check(link && !bpf_program__attach_krsi(prog(obj, "libbpf_deny__v2"), NULL) &&
	      errno == EEXIST, "libbpf_deny__v2 beside libbpf_deny: EEXIST");
	err = bpf_link__update_program(link, prog(obj, "libbpf_deny__v2"));
	check(!err, "bpf_link__update_program() to libbpf_deny__v2 (%s)",
	      err ? errname(-err) : "ok");
	check(!strcmp(hook_list(), "libbpf_deny__v2 "), "v2 runs in v1's place: '%s'",
	      hook_list());
	check(try_open() == EACCES, "v2 takes effect: open gives EACCES");
	unlink(LINK_PIN);
	err = bpf_link__pin(link, LINK_PIN);
	check(!err, "bpf_link__pin() (%s)", err ? errname(-err) : "ok");
	check(bpf_link__destroy(link) == 0 && !strcmp(hook_list(), "libbpf_deny__v2 "),
	      "a pinned link stays attached after bpf_link__destroy(): '%s'", hook_list());

	/* The link holds the program: it outlives the object. */
	bpf_object__close(obj);
	check(!strcmp(hook_list(), "libbpf_deny__v2 "), "and after bpf_object__close()");
	link = bpf_link__open(LINK_PIN);
	check(link != NULL, "bpf_link__open() of the pin");
	err = link ? bpf_link__unpin(link) : -ENOENT;
	check(!err && !strcmp(hook_list(), "libbpf_deny__v2 "),
	      "bpf_link__unpin(): still attached through the open link (%s)",
	      err ? errname(-err) : "ok");
	err = link ? bpf_link__detach(link) : -ENOENT;
	check(!err && !strcmp(hook_list(), ""), "bpf_link__detach() detaches it: '%s' (%s)",
	      hook_list(), err ? errname(-err) : "ok");
	bpf_link__destroy(link);

	obj = bpf_object__open_file(OBJ, NULL);
	bpf_program__set_autoload(prog(obj, "no_such_hook"), false);
	bpf_program__set_autoload(prog(obj, "not_loaded"), false);
	bpf_object__load(obj);
	check_fails(prog(obj, "no_such_hook"), ENOENT, "a hook with no KRSI file");
	check_fails(prog(obj, "not_lsm"), EINVAL, "a socket filter program");
	check_fails(prog(obj, "not_loaded"), EINVAL, "a program that is not loaded");
	bpf_object__close(obj);

	/* The LSM programs of the kernel's own selftest object (tools/
	 * testing/selftests/bpf/progs/lsm.c) load as they do upstream: patch
	 * 0010 refuses only writes to the context, which none of them makes.
	 */
	obj = bpf_object__open_file(SELFTEST_OBJ, NULL);
	/* Its one tracing program, a sleepable fentry on a system call,
	 * needs CONFIG_FUNCTION_ERROR_INJECTION, which this kernel leaves out.
	 */
	if (obj)
		bpf_program__set_autoload(prog(obj, "test_sys_setdomainname"), false);
	err = obj ? bpf_object__load(obj) : -errno;
	check(!err, "libbpf loads the LSM programs of the kernel's selftest %s (%s)",
	      SELFTEST_OBJ,
	      err ? errname(-err) : "ok");
	if (!err) {
		test_selftest_void_hook(obj);
		test_selftest_unmodified(obj);
	}
	bpf_object__close(obj);

	unlink(TARGET);
	return check_exit();
}
