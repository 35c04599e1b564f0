// SPDX-License-Identifier: GPL-2.0
/*
 * KRSI against misuse: a process with CAP_BPF but not CAP_MAC_ADMIN, an
 * unprivileged user, a tracing program, a program on every hook at once,
 * and the widest context a test can drive (task_prctl's five arguments),
 * compared between the KRSI path and the trampoline.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "btf_lookup.h"
#include "guest.h"
#include "krsi_test.lskel.h"
#include "trampoline.h"

#define MAX_HOOKS 512

/* Keep only @keep (a capability mask) in the effective and permitted sets. */
static int keep_caps(__u64 keep)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {
		{ .effective = (__u32)keep, .permitted = (__u32)keep },
		{ .effective = keep >> 32, .permitted = keep >> 32 },
	};

	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* Drop every capability but CAP_BPF and CAP_PERFMON, then load. */
static struct krsi_test *load_with_cap_bpf_only(void)
{
	if (keep_caps(1ULL << CAP_BPF | 1ULL << CAP_PERFMON))
		return NULL;
	return krsi_test__open_and_load();
}

/*
 * With CAP_BPF and CAP_PERFMON only, a process may load an LSM program
 * but not attach it through KRSI.  Returns the attach's errno, or ECHILD
 * if the load itself failed.
 */
static int cap_bpf_only(void)
{
	struct krsi_test *s = load_with_cap_bpf_only();
	int err;

	if (!s)
		return -ECHILD;
	err = krsi_attach("file_open", s->progs.deny.prog_fd, 0);
	krsi_test__destroy(s);
	return err;
}

static int demo_reads_hook(void)
{
	char buf[64];
	int fd;

	fd = krsi_hook_open("file_open", O_RDONLY);
	if (fd < 0)
		return fd;
	read(fd, buf, sizeof(buf));
	close(fd);
	return 0;
}

static int demo_lists_programs(void)
{
	union bpf_attr attr;
	long err;

	memset(&attr, 0, sizeof(attr));
	err = sys_bpf(BPF_PROG_GET_NEXT_ID, &attr);
	return err < 0 ? (int)err : 0;
}

static int demo_detaches(void)
{
	int fd = krsi_hook_open("file_open", O_RDWR);

	if (setgid(1000) || setuid(1000))
		return -ECHILD;
	/* Even with a descriptor that root opened for it. */
	return krsi_detach_fd(fd, 0);
}

/*
 * bpf_get_func_ip() would read ctx[-2]; the verifier refuses it to LSM
 * programs, whichever way they are to be attached, so no program can
 * compare that slot between the paths (KRSI fills it all the same).
 */
static int load_func_ip_prog(int btf_id)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_func_ip },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = load_lsm_insns(btf_id, "func_ip", insns, 3);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/*
 * The same through mainline's trampoline (BPF_RAW_TRACEPOINT_OPEN), which
 * asks for CAP_MAC_ADMIN too since patch 0014: the system's bar for
 * attaching an LSM program is the same whichever way.
 */
static int cap_bpf_only_trampoline(void)
{
	struct krsi_test *s = load_with_cap_bpf_only();
	union bpf_attr attr;
	int err;

	if (!s)
		return -ECHILD;
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = s->progs.deny.prog_fd;
	err = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (err >= 0)
		close(err);
	krsi_test__destroy(s);
	return err < 0 ? err : 0;
}

static void test_privilege(void)
{
	check_err(in_child(0, cap_bpf_only), -EPERM,
		  "CAP_BPF+CAP_PERFMON without CAP_MAC_ADMIN: loads, cannot attach");
	check_err(in_child(0, cap_bpf_only_trampoline), -EPERM,
		  "CAP_BPF+CAP_PERFMON without CAP_MAC_ADMIN: no trampoline attach either");
	check_err(in_child(1000, demo_reads_hook), -EACCES,
		  "user 1000 reads a hook file");
	check_err(in_child(1000, demo_lists_programs), -EPERM,
		  "user 1000 enumerates BPF programs");
	check_err(in_child(0, demo_detaches), -EPERM,
		  "user 1000 detaches through a hook descriptor root opened");
}

static void test_context(struct krsi_test *skel)
{
	struct krsi_test *tramp = krsi_test__open_and_load();
	struct krsi_test *s[2] = { skel, tramp };
	const char *path[2] = { "KRSI", "trampoline" };
	int link = -1, i;

	if (!check(tramp != NULL, "load a second instance"))
		return;
	tramp->bss->target_tgid = getpid();
	check_err(krsi_attach("task_prctl", skel->progs.prctl_args.prog_fd, 0), 0,
		  "KRSI: attach prctl_args");
	link = tramp_attach(tramp->progs.prctl_args.prog_fd);
	if (!check_tramp_attach(link, "prctl_args"))
		link = -1;
	check(prctl(PR_GET_DUMPABLE, 0x1111UL, 0x2222UL, 0x3333UL,
		    0xffffffff44444444UL) >= 0, "prctl(PR_GET_DUMPABLE, ...)");
	/* Both paths where there is a trampoline, KRSI's alone elsewhere. */
	for (i = 0; i < (link >= 0 ? 2 : 1); i++) {
		struct krsi_test__bss *b = s[i]->bss;

		check(b->prctl_arg_cnt == 5, "%s: 5 arguments (%ld)", path[i],
		      b->prctl_arg_cnt);
		check((__u32)b->prctl_option == 3 && b->prctl_arg2 == 0x1111 &&
		      b->prctl_arg3 == 0x2222 && b->prctl_arg4 == 0x3333 &&
		      b->prctl_arg5 == 0xffffffff44444444ULL,
		      "%s: all five arguments, in order", path[i]);
	}
	check(skel->bss->prctl_option == 3,
	      "KRSI: the int argument is zero-extended in its slot (%#llx)",
	      (unsigned long long)skel->bss->prctl_option);
	krsi_detach("task_prctl", skel->progs.prctl_args.prog_fd);
	if (link >= 0)
		close(link);
	krsi_test__destroy(tramp);
}

/* Things that go through many hooks; all must still work. */
static int workload(void)
{
	char *argv[] = { "/bin/true", NULL };
	int status, fd, sk;
	void *p;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return -1;
	fd = open("/etc/passwd", O_RDONLY);
	if (fd < 0)
		return -1;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	munmap(p, 4096);
	sk = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sk < 0)
		return -1;
	close(sk);
	if (kill(getpid(), 0) || prctl(PR_GET_DUMPABLE) != 1)
		return -1;
	return 0;
}

static void test_every_hook(void)
{
	static char names[MAX_HOOKS][256];
	static int fds[MAX_HOOKS];
	int n = 0, loaded = 0, attached = 0, listed = 0, detached = 0, i;
	struct btf_file btf;
	struct dirent *d;
	DIR *dir;

	if (!check(btf_open(&btf) == 0, "read /sys/kernel/btf/vmlinux"))
		return;
	dir = opendir(KRSI_HOOK_DIR);
	while (dir && (d = readdir(dir)) && n < MAX_HOOKS) {
		char func[sizeof("bpf_lsm_") + 256];

		if (d->d_name[0] == '.')
			continue;
		snprintf(names[n], sizeof(names[n]), "%s", d->d_name);
		snprintf(func, sizeof(func), "bpf_lsm_%s", d->d_name);
		fds[n] = load_allow(btf_find_func(&btf, func), "every_hook");
		loaded += fds[n] >= 0;
		n++;
	}
	if (dir)
		closedir(dir);
	btf_close(&btf);
	check(n > 200 && loaded == n, "an allowing program loaded for each of the %d hooks (%d)",
	      n, loaded);
	for (i = 0; i < n; i++)
		attached += fds[i] >= 0 && !krsi_attach(names[i], fds[i], 0);
	check(attached == n, "attached to every hook at once (%d of %d)", attached, n);
	for (i = 0; i < n; i++) {
		char buf[64];

		listed += !strcmp(hook_list(names[i], buf, sizeof(buf)), "every_hook\n");
	}
	check(listed == n, "every hook file lists it (%d of %d)", listed, n);
	check(workload() == 0, "exec, open, mmap, socket, kill, prctl all still work");
	for (i = 0; i < n; i++) {
		detached += fds[i] >= 0 && !krsi_detach(names[i], fds[i]);
		close(fds[i]);
	}
	check(detached == n, "detached from every hook (%d of %d)", detached, n);
	check(workload() == 0, "and everything works after");
}

/*
 * A program that stores a number into ctx[0]: were it loaded, the next
 * program on the hook would use that number as the hook's task pointer.
 * The verifier refuses it (patch 0013), for the trampoline and for KRSI
 * alike, since both load LSM programs the same way.  Returns the load's
 * errno and whether the verifier's log says why.
 */
static int load_ctx_writer(int btf_id, bool *said_why)
{
	/* r2 = 0x1000; *(u64 *)(r1 + 0) = r2; return 0.  (An immediate
	 * store, BPF_ST, into the context was refused before patch 0013.)
	 */
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2,
		  .imm = 0x1000 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_LSM;
	attr.expected_attach_type = BPF_LSM_MAC;
	attr.attach_btf_id = btf_id;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 4;
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	*said_why = strstr(log, "LSM programs may not write their context") != NULL;
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

int main(void)
{
	struct krsi_test *skel = krsi_test__open_and_load();

	if (!check(skel != NULL, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();
	skel->bss->target_tgid = getpid();

	test_privilege();
	check_err(krsi_attach("file_open", skel->progs.tracing_prog.prog_fd, 0),
		  -EINVAL, "a tracing (fentry) program");
	test_context(skel);
	{
		struct btf_file btf;
		bool said_why;

		if (check(btf_open(&btf) == 0, "read the kernel's BTF")) {
			/* ENOTSUPP: "not supported for program type". */
			check_err(load_func_ip_prog(btf_find_func(&btf, "bpf_lsm_file_open")),
				  -524, "the verifier refuses an LSM program calling bpf_get_func_ip()");
			check_err(load_ctx_writer(btf_find_func(&btf, "bpf_lsm_task_kill"),
						  &said_why),
				  -EACCES, "the verifier refuses an LSM program writing ctx[0]");
			check(said_why, "and its log says LSM programs may not write their context");
			btf_close(&btf);
		}
	}
	test_every_hook();

	krsi_test__destroy(skel);
	return check_exit();
}
