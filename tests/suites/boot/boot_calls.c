// SPDX-License-Identifier: GPL-2.0
/*
 * Booted with krsi.tests=boot (policies attached and locked): the ways
 * around each policy that only system calls reach, each with its errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "guest.h"

#define TMP_PROG "/tmp/boot_calls.prog"

static int exec_memfd(void)
{
	char *argv[] = { "memfd-prog", NULL }, *envp[] = { NULL };
	char buf[65536];
	int fd = syscall(SYS_memfd_create, "prog", 0);
	int src = open("/usr/bin/krsi-kernel-check", O_RDONLY);
	ssize_t n;

	if (fd < 0 || src < 0)
		return -ECHILD;
	while ((n = read(src, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return -ECHILD;
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	return -errno;
}

static int map_exec(const char *path, bool later)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	void *p;

	if (fd < 0)
		return -errno;
	p = mmap(NULL, 4096, PROT_READ | (later ? 0 : PROT_EXEC), MAP_PRIVATE,
		 fd, 0);
	if (p == MAP_FAILED)
		err = -errno;
	else if (later && mprotect(p, 4096, PROT_READ | PROT_EXEC))
		err = -errno;
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
	return err;
}

/* A process that calls itself krsi-secret is still not krsi-secret. */
static int open_secret_renamed(void)
{
	prctl(PR_SET_NAME, "krsi-secret");
	return try_open("/etc/krsi/secret");
}

static int open_secret(void)
{
	return try_open("/etc/krsi/secret");
}

static int load_socket_filter(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/* A descriptor of object @id, by @cmd: 0, or a negative errno. */
static int get_id(int cmd, __u32 id)
{
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	if (cmd == BPF_MAP_GET_FD_BY_ID)
		attr.map_id = id;
	else if (cmd == BPF_LINK_GET_FD_BY_ID)
		attr.link_id = id;
	else
		attr.prog_id = id;
	fd = sys_bpf(cmd, &attr);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int get_by_id(int cmd)
{
	__u32 id;

	/* Any id that exists: the policies' programs, maps and links do. */
	for (id = 1; id < 1000; id++) {
		int err = get_id(cmd, id);

		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
}

static int obj_get(const char *path)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	return (int)sys_bpf(BPF_OBJ_GET, &attr);
}

/* The id of the socket filter before_lock left, or 0. */
static __u32 socket_filter_id(void)
{
	FILE *f = fopen("/run/test_socket_filter.id", "re");
	unsigned int id = 0;

	if (f) {
		if (fscanf(f, "%u", &id) != 1)
			id = 0;
		fclose(f);
	}
	return id;
}

/* What before_lock's BPF_PROG_LOAD of a socket filter gave: 0 or -errno. */
static int load_before_lock(void)
{
	FILE *f = fopen("/run/socket_filter_load.errno", "re");
	int err = -ENOENT;

	if (f) {
		if (fscanf(f, "%d", &err) != 1)
			err = -EINVAL;
		fclose(f);
	}
	return err;
}

/* Did /init pin protect_log (a kernel that does not lock at boot)? */
static bool pinned(void)
{
	return access("/sys/fs/bpf/krsi/protect_log", F_OK) == 0;
}

/* A descriptor of protect_log's first link the kernel holds, by id. */
static int held_link(void)
{
	FILE *f = fopen("/sys/kernel/security/krsi/policies", "re");
	char line[1024];
	unsigned int id = 0;
	union bpf_attr attr;

	/* name version load_id time pid uid link... */
	while (f && !id && fgets(line, sizeof(line), f))
		if (sscanf(line, "protect_log %*s %*s %*s %*s %*s %u", &id) != 1)
			id = 0;
	if (f)
		fclose(f);
	memset(&attr, 0, sizeof(attr));
	attr.link_id = id;
	return id ? (int)sys_bpf(BPF_LINK_GET_FD_BY_ID, &attr) : -ENOENT;
}

/*
 * BPF_LINK_UPDATE or BPF_LINK_DETACH of protect_log's link of log_open,
 * pinned, or of its first link, held.
 */
static int change_link(int cmd)
{
	union bpf_attr attr;
	int link, err;

	link = pinned() ? obj_get("/sys/fs/bpf/krsi/protect_log/log_open") :
	       held_link();
	if (link < 0)
		return -ECHILD;
	memset(&attr, 0, sizeof(attr));
	if (cmd == BPF_LINK_DETACH) {
		attr.link_detach.link_fd = link;
	} else {
		attr.link_update.link_fd = link;
		/* No program: EINVAL, unless the lock refuses first. */
		attr.link_update.new_prog_fd = link;
	}
	err = (int)sys_bpf(cmd, &attr);
	close(link);
	return err;
}

int main(void)
{
	char module[64] = "not a module";
	int fd;

	unlink(TMP_PROG);
	fd = open(TMP_PROG, O_WRONLY | O_CREAT, 0755);
	check(fd >= 0 && write(fd, "\x7f" "ELF", 4) == 4, "write %s", TMP_PROG);
	close(fd);

	/* no_tmp_exec */
	check_err(in_child(0, exec_memfd), -EACCES, "no_tmp_exec: execveat() of a memfd");
	check_err(map_exec(TMP_PROG, false), -EACCES,
		  "no_tmp_exec: mmap(PROT_EXEC) of a file in /tmp");
	check_err(map_exec(TMP_PROG, true), -EACCES,
		  "no_tmp_exec: mprotect(PROT_EXEC) of a file in /tmp");
	check_err(map_exec("/usr/bin/krsi-kernel-check", false), 0,
		  "no_tmp_exec: mmap(PROT_EXEC) of a file of the root fs");

	/* protect_secret */
	check_err(in_child(1000, open_secret), -EACCES,
		  "protect_secret: open as the demo user");
	check_err(in_child(1000, open_secret_renamed), -EACCES,
		  "protect_secret: open as the demo user named krsi-secret");
	check_err(open_secret(), 0, "protect_secret: open as root");

	/* protect_init */
	check_err(kill(1, SIGUSR1) ? -errno : 0, -EPERM, "protect_init: kill(1, SIGUSR1)");
	check_err(kill(1, 0) ? -errno : 0, 0, "protect_init: kill(1, 0)");
	check_err(ptrace(PTRACE_ATTACH, 1, 0, 0) ? -errno : 0, -EPERM,
		  "protect_init: ptrace(PTRACE_ATTACH, 1)");

	/* no_module_load */
	check_err(syscall(SYS_init_module, module, sizeof(module), "") ? -errno : 0,
		  -EPERM, "no_module_load: init_module()");
	fd = open("/etc/krsi/boot.conf", O_RDONLY | O_CLOEXEC);
	check_err(syscall(SYS_finit_module, fd, "", 0) ? -errno : 0, -EPERM,
		  "no_module_load: finit_module()");
	close(fd);

	/* krsi_lock */
	check_err(load_socket_filter(), -EPERM, "lock: BPF_PROG_LOAD");
	check_err(get_by_id(BPF_MAP_GET_FD_BY_ID), -EPERM,
		  "lock: BPF_MAP_GET_FD_BY_ID");
	/* Introspection stays: links, and programs nothing but bpf() attaches. */
	check_err(get_by_id(BPF_LINK_GET_FD_BY_ID), 0,
		  "lock: BPF_LINK_GET_FD_BY_ID, for bpftool link show");
	check_err(get_by_id(BPF_PROG_GET_FD_BY_ID), 0,
		  "lock: BPF_PROG_GET_FD_BY_ID of a policy's LSM program");
	if (socket_filter_id()) {
		check_err(get_id(BPF_PROG_GET_FD_BY_ID, socket_filter_id()), -EPERM,
			  "lock: BPF_PROG_GET_FD_BY_ID of a socket filter");
		fd = obj_get("/sys/fs/bpf/test_socket_filter");
		check_err(fd < 0 ? fd : 0, -EPERM,
			  "lock: BPF_OBJ_GET of a pinned socket filter");
		if (fd >= 0)
			close(fd);
	} else {
		/* Locked at boot: no program but the kernel's could be loaded. */
		check_err(load_before_lock(), -EPERM,
			  "lock: before /init's lock, at boot, BPF_PROG_LOAD of a socket filter");
	}
	check_err(change_link(BPF_LINK_UPDATE), -EPERM, "lock: BPF_LINK_UPDATE of protect_log's link");
	/* Passing for /usr/bin/krsi: refused before the kernel looks at it
	 * (without the lock, EBUSY: this process's executable is mapped).
	 */
	fd = open("/usr/bin/krsi", O_RDONLY | O_CLOEXEC);
	check_err(prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd, 0, 0) ? -errno : 0, -EPERM,
		  "lock: prctl(PR_SET_MM_EXE_FILE) to /usr/bin/krsi");
	close(fd);
	/* New names for pins would make a policy look attached. */
	if (pinned())
		check_err(link("/sys/fs/bpf/krsi/protect_log/log_open", "/sys/fs/bpf/krsi/extra") ?
			  -errno : 0, -EPERM, "lock: link() of a pin to a new name");
	check_err(symlink("/sys/fs/bpf", "/sys/fs/bpf/no_setuid") ?
		  -errno : 0, -EPERM, "lock: symlink() in /sys/fs/bpf");
	check_err(mkdir("/sys/fs/bpf/no_setuid", 0700) ? -errno : 0, -EPERM,
		  "lock: mkdir() in /sys/fs/bpf");
	check_err(change_link(BPF_LINK_DETACH), -EPERM, "lock: BPF_LINK_DETACH of protect_log's link");

	unlink(TMP_PROG);
	return check_exit();
}
