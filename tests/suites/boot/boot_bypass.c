// SPDX-License-Identifier: GPL-2.0
/*
 * The bypass battery: booted with krsi.tests=boot, every boot policy
 * attached and locked, each route around a policy's hooks that the policy
 * headers list is tried for real, as the demo user (uid 1000) or as root
 * after the lock, and must fail with the policy's errno and be reported by
 * `krsi events`.  One check per route; docs/policies.md's policy table
 * ("The policy table") names them.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/serial.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_stream.h"
#include "sysbpf.h"

#define DEMO		1000
#define SECRET		"/etc/krsi/secret"
#define EVENTS		"/tmp/boot_bypass.events"

/* From linux/mount.h, which clashes with musl's sys/mount.h. */
#define FSPICK_CLOEXEC			0x1
#define FSOPEN_CLOEXEC			0x1
#define FSMOUNT_CLOEXEC			0x1
#define FSCONFIG_SET_FLAG		0
#define FSCONFIG_SET_STRING		1
#define FSCONFIG_CMD_CREATE		6
#define FSCONFIG_CMD_RECONFIGURE	7
#define OPEN_TREE_CLONE			1
#define MOVE_MOUNT_F_EMPTY_PATH		0x4

static int sys_err(long ret)
{
	return ret < 0 ? -errno : 0;
}

/*
 * A process of the caller's to aim at, killed by stop_target(): a fresh
 * exec, so that it is dumpable even when the caller became the demo user
 * by setuid() (which makes a process undumpable, and the kernel then
 * refuses ptrace before any LSM hook is asked).
 */
static pid_t start_target(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/sleep", "sleep", "100", (char *)NULL);
		_exit(127);
	}
	usleep(100000);		/* past the exec */
	return pid;
}

static void stop_target(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* ---- code injection into a process: no_tmp_exec and wx ---------------- */

static int write_proc_mem(void)
{
	char path[64];
	pid_t pid = start_target();
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	stop_target(pid);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int ptrace_own_child(void)
{
	pid_t pid = start_target();
	int err = sys_err(ptrace(PTRACE_ATTACH, pid, 0, 0));

	stop_target(pid);
	return err;
}

static int ptrace_traceme(void)
{
	return sys_err(ptrace(PTRACE_TRACEME, 0, 0, 0));
}

static int pidfd_getfd_own_child(void)
{
	pid_t pid = start_target();
	int pidfd = syscall(SYS_pidfd_open, pid, 0), err;

	err = pidfd < 0 ? -errno : sys_err(syscall(SYS_pidfd_getfd, pidfd, 0, 0));
	if (pidfd >= 0)
		close(pidfd);
	stop_target(pid);
	return err;
}

/* One's own code, through /proc/self/mem: no ptrace check on that path. */
static int write_own_mem(void)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int write_root_fs(void)
{
	int fd = open("/busybox-copy", O_WRONLY | O_CREAT | O_CLOEXEC, 0755);

	if (fd < 0)
		return -errno;
	close(fd);
	unlink("/busybox-copy");
	return 0;
}

/* ---- writable and executable memory: wx ------------------------------- */

static int map_anon_exec(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, 4096);
	return 0;
}

/* A memfd mapped writable and, through a second mapping, executable. */
static int memfd_twice(void)
{
	int fd = syscall(SYS_memfd_create, "code", 0), err = 0;
	void *w, *x;

	if (fd < 0 || ftruncate(fd, 4096))
		return -ECHILD;
	w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (x == MAP_FAILED)
		err = -errno;
	else
		munmap(x, 4096);
	if (w != MAP_FAILED)
		munmap(w, 4096);
	close(fd);
	return err;
}

/* Shared anonymous memory, duplicated by mremap(old size 0), then the
 * copy made read-only and executable while the original stays writable.
 */
static int mremap_alias(void)
{
	char *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *x;
	int err;

	if (w == MAP_FAILED)
		return -ECHILD;
	x = mremap(w, 0, 4096, MREMAP_MAYMOVE);
	if (x == MAP_FAILED || mprotect(x, 4096, PROT_READ))
		return -ECHILD;
	err = sys_err(mprotect(x, 4096, PROT_READ | PROT_EXEC));
	munmap(x, 4096);
	munmap(w, 4096);
	return err;
}

static int dev_zero_exec(void)
{
	int fd = open("/dev/zero", O_RDWR | O_CLOEXEC), err = 0;
	void *p;

	if (fd < 0)
		return -ECHILD;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err = -errno;
	else
		munmap(p, 4096);
	close(fd);
	return err;
}

/* A program of the image, mapped private, written, then made executable. */
static int written_file_pages(void)
{
	int fd = open("/usr/bin/krsi-kernel-check", O_RDONLY | O_CLOEXEC), err;
	char *p;

	if (fd < 0)
		return -ECHILD;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -ECHILD;
	p[0] = (char)0xc3;
	if (mprotect(p, 4096, PROT_READ))
		return -ECHILD;
	err = sys_err(mprotect(p, 4096, PROT_READ | PROT_EXEC));
	munmap(p, 4096);
	return err;
}

/* A perf ring buffer, which the kernel writes, mapped executable. */
static int perf_buffer_exec(void)
{
	struct perf_event_attr attr;
	int fd, err = 0;
	void *p;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return -ECHILD;
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err = -errno;
	else
		munmap(p, 2 * 4096);
	close(fd);
	return err;
}

/* A classic BPF socket filter, which the kernel JIT-compiles. */
static int attach_cbpf(void)
{
	struct sock_filter accept = { 0x06, 0, 0, 0xffff };	/* ret #0xffff */
	struct sock_fprog prog = { 1, &accept };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;

	if (fd < 0)
		return -ECHILD;
	err = sys_err(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				 sizeof(prog)));
	close(fd);
	return err;
}

static int read_implies_exec(void)
{
	char *argv[] = { "true", NULL }, *envp[] = { NULL };

	if (personality(READ_IMPLIES_EXEC) < 0)
		return -ECHILD;
	execve("/bin/true", argv, envp);
	return -errno;
}

/* ---- PID 1: protect_init ---------------------------------------------- */

/* SIGIO (as @sig) to @pid through a pipe's owner; the kernel sends it,
 * the check is the denial event and @pid still there.
 */
static int sigio_to(pid_t pid, int sig)
{
	int p[2];

	if (pipe(p))
		return -ECHILD;
	if (fcntl(p[0], F_SETOWN, pid) || fcntl(p[0], F_SETSIG, sig) ||
	    fcntl(p[0], F_SETFL, O_ASYNC))
		return -errno;
	if (write(p[1], "x", 1) != 1)
		return -ECHILD;
	close(p[0]);
	close(p[1]);
	return kill(pid, 0) ? -errno : 0;
}

static int perf_open(pid_t pid, int cpu, __u64 sample_type)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 100000;
	attr.sample_type = sample_type;
	attr.sample_stack_user = 4096;
	attr.sample_regs_user = 1;	/* AX */
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * The file offset of /bin/busybox's entry point: an instruction's first
 * byte on every architecture, where the kernel accepts a uprobe (s390x
 * refuses one at an odd address or on some opcodes with EINVAL, before
 * any LSM hook is asked), and which a running process does not execute
 * again.  0 when it cannot be read.
 */
static unsigned long busybox_entry_offset(void)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned long off = 0;
	int fd = open("/bin/busybox", O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh))
		for (i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
			    sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    eh.e_entry >= ph.p_vaddr &&
			    eh.e_entry < ph.p_vaddr + ph.p_filesz) {
				off = eh.e_entry - ph.p_vaddr + ph.p_offset;
				break;
			}
		}
	close(fd);
	return off;
}

/*
 * A uprobe on /bin/busybox, counting only, for @pid on @cpu: with pid -1
 * its breakpoint goes into every process running busybox, PID 1 (/init)
 * included.
 */
static int uprobe_on(pid_t pid, int cpu)
{
	struct perf_event_attr attr;
	char buf[16] = "";
	unsigned long entry = busybox_entry_offset();
	int fd;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");

	if (!entry || !f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -ECHILD;
	}
	fclose(f);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = atoi(buf);
	attr.config1 = (unsigned long)"/bin/busybox";	/* uprobe_path */
	attr.config2 = entry;				/* probe_offset */
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * tracefs mounted nowhere (fsopen() and fsmount(): no mount hook sees a
 * mount that is never attached), then its kprobe_events opened, which
 * would let root read PID 1's registers and stack through a probe.
 */
static int unattached_tracefs(void)
{
	int fs = syscall(SYS_fsopen, "tracefs", FSOPEN_CLOEXEC), mnt, fd;

	if (fs < 0)
		return -errno;
	/*
	 * tracefs has one superblock: once mounted (/sys/kernel/tracing),
	 * creating it again reconfigures it, which the seal refuses
	 * (krsi_lock, sb_remount) before protect_init is asked.
	 */
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) ||
	    (mnt = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0)) < 0) {
		int err = -errno;

		close(fs);
		return err;
	}
	fd = openat(mnt, "kprobe_events", O_WRONLY | O_CLOEXEC);
	close(mnt);
	close(fs);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * A tmpfs mounted nowhere: fsopen() and fsmount() make a detached mount,
 * which no hook sees; it is reachable only through the descriptor.  The
 * descriptor, or -errno.
 */
static int detached_tmpfs(void)
{
	int fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC), mnt;

	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		mnt = -errno;
	else if ((mnt = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0)) < 0)
		mnt = -errno;
	close(fs);
	return mnt;
}

/* ---- the secret: protect_secret --------------------------------------- */

static int open_secret(int flags)
{
	int fd = open(SECRET, flags | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Root opens the secret (allowed) and sends it to a demo process. */
static int send_secret_to_demo(void)
{
	char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cmsg;
	int sv[2], fd, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -ECHILD;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		if (setgid(DEMO) || setuid(DEMO))
			_exit(200);
		if (recvmsg(sv[1], &msg, 0) != 1)
			_exit(201);
		cmsg = CMSG_FIRSTHDR(&msg);
		/* No descriptor installed: the kernel cut the message. */
		_exit(cmsg && cmsg->cmsg_type == SCM_RIGHTS ? 0 : EACCES);
	}
	close(sv[1]);
	fd = open(SECRET, O_RDONLY | O_CLOEXEC);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	if (fd < 0 || sendmsg(sv[0], &msg, 0) != 1)
		status = -ECHILD;
	else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		 WEXITSTATUS(status) >= 200)
		status = -ECHILD;
	else
		status = -WEXITSTATUS(status);
	close(sv[0]);
	if (fd >= 0)
		close(fd);
	return status;
}

static pid_t secret_holder;
static int secret_fd;

/*
 * krsi-secret run by the demo user, holding the secret open: its standard
 * output is a full pipe, so it blocks writing what it read.  Returns its pid, and the
 * pipe's read end in @drain.
 */
static pid_t start_krsi_secret(int *drain)
{
	char path[64], fill[4096];
	int p[2], tries;
	pid_t pid;

	memset(fill, 'x', sizeof(fill));
	if (pipe2(p, O_CLOEXEC))
		return -1;
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	fcntl(p[1], F_SETFL, 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		if (setgid(DEMO) || setuid(DEMO))
			_exit(126);
		execl("/usr/bin/krsi-secret", "krsi-secret", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	*drain = p[0];
	/* Wait for it to have the secret open, and find its descriptor. */
	for (tries = 0; tries < 500 && !secret_fd; tries++) {
		int fd;

		usleep(10000);
		for (fd = 0; fd < 16 && !secret_fd; fd++) {
			char link[64] = "";

			snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
			if (readlink(path, link, sizeof(link) - 1) > 0 &&
			    !strcmp(link, SECRET))
				secret_fd = fd;
		}
	}
	return pid;
}

static void stop_krsi_secret(pid_t pid, int drain)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(drain);
}


static int reopen_holders_fd(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", secret_holder, secret_fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int getfd_from_holder(void)
{
	int pidfd = syscall(SYS_pidfd_open, secret_holder, 0), err;

	if (pidfd < 0)
		return -ECHILD;
	err = sys_err(syscall(SYS_pidfd_getfd, pidfd, secret_fd, 0));
	close(pidfd);
	return err;
}

static int bind_over(const char *target)
{
	return sys_err(mount("/tmp", target, NULL, MS_BIND, NULL));
}

static int new_api_mount_over(const char *target)
{
	int tree = syscall(SYS_open_tree, AT_FDCWD, "/tmp", OPEN_TREE_CLONE), err;

	if (tree < 0)
		return -errno;
	err = sys_err(syscall(SYS_move_mount, tree, "", AT_FDCWD, target,
			      MOVE_MOUNT_F_EMPTY_PATH));
	close(tree);
	return err;
}

static int unshare_and_bind(void)
{
	if (unshare(CLONE_NEWNS))
		return -ECHILD;
	return bind_over("/etc/krsi");
}

/* ---- the lock: krsi_lock ---------------------------------------------- */

static int obj_get(const char *path, __u32 flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	attr.file_flags = flags;
	return sys_bpf(BPF_OBJ_GET, &attr);
}

static int map_cmd(int cmd, int fd)
{
	union bpf_attr attr;
	__u32 key = 0;
	__u64 value = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (unsigned long)&key;
	attr.value = (unsigned long)&value;
	return sys_bpf(cmd, &attr);
}

/*
 * The map after *@id (0: the first), read-only, its id in *@id and its
 * info in *@info: a descriptor, -ENOENT after the last, or -errno.
 */
static int next_map(__u32 *id, struct bpf_map_info *info)
{
	union bpf_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.start_id = *id;
	if (sys_bpf(BPF_MAP_GET_NEXT_ID, &attr))
		return -ENOENT;
	*id = attr.next_id;
	memset(&attr, 0, sizeof(attr));
	attr.map_id = *id;
	attr.open_flags = BPF_F_RDONLY;
	fd = sys_bpf(BPF_MAP_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return fd;
	memset(info, 0, sizeof(*info));
	err = sys_bpf_obj_info(fd, info, sizeof(*info));
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Every ring buffer and task storage map, by id, as the audit reader takes
 * those of a policy loaded after the lock and marks itself in them: one
 * read-only descriptor each, counted in *@nr, and not one writable one.
 * -EPERM if each was refused, -EEXIST if one was given, or another errno.
 */
static int reader_maps_by_id(int *nr)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	__u32 id = 0;
	int fd;

	*nr = 0;
	while ((fd = next_map(&id, &info)) >= 0) {
		close(fd);
		if (info.type != BPF_MAP_TYPE_RINGBUF &&
		    info.type != BPF_MAP_TYPE_TASK_STORAGE)
			continue;
		(*nr)++;
		memset(&attr, 0, sizeof(attr));
		attr.map_id = id;
		fd = sys_bpf(BPF_MAP_GET_FD_BY_ID, &attr);
		if (fd >= 0) {
			close(fd);
			return -EEXIST;
		}
		if (fd != -EPERM)
			return fd;
	}
	if (fd != -ENOENT)
		return fd;
	return *nr ? -EPERM : -ENOENT;
}

/*
 * Pass @fd to this process itself by SCM_RIGHTS: 0 if a descriptor came
 * back, -EPERM if the kernel cut the message (a file_receive refusal), or
 * another negative errno.
 */
static int pass_to_self(int fd)
{
	char data = 'x', control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *cmsg;
	int sv[2], got = -1, err = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	memset(control, 0, sizeof(control));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	if (sendmsg(sv[0], &msg, 0) != 1 || recvmsg(sv[1], &msg, 0) != 1)
		err = -errno;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!err && cmsg && cmsg->cmsg_type == SCM_RIGHTS &&
	    cmsg->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&got, CMSG_DATA(cmsg), sizeof(int));
	if (got >= 0)
		close(got);
	else if (!err)
		err = msg.msg_flags & MSG_CTRUNC ? -EPERM : -EIO;
	close(sv[0]);
	close(sv[1]);
	return err;
}

/* Where /init pins protect_log, on a kernel that does not lock at boot. */
#define LOG_PINS	"/sys/fs/bpf/krsi/protect_log"

/* The first map named @name, of @type, by id, read-only: or -errno. */
static int map_by_name(const char *name, __u32 type)
{
	struct bpf_map_info info;
	__u32 id = 0;
	int fd;

	while ((fd = next_map(&id, &info)) >= 0) {
		if (info.type == type && !strcmp(info.name, name))
			return fd;
		close(fd);
	}
	return fd;
}

/* The events of the ring buffers, collected by `krsi events`. */
static bool reported(const char *what)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(EVENTS, "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* One of two records: which policy refuses first depends on their order. */
static void check_reported_either(const char *what, const char *or)
{
	check(reported(what) || reported(or), "reported by krsi events: '%s' or '%s'",
	      what, or);
}

static void check_reported(const char *what)
{
	static bool shown;

	if (check(reported(what), "reported by krsi events: '%s'", what) || shown)
		return;
	/* Once, for the console log: what was reported instead. */
	shown = true;
	system("sed 's/^/# /' " EVENTS);
}

/* ---- the audit reader and its log: protect_init, protect_log --------- */

#define LOG_DIR		"/var/log/krsi"
#define FS_IOC_SETFLAGS	0x40086602
#define FS_APPEND_FL	0x00000020
#define MOUNT_ATTR_RDONLY	0x00000001

static pid_t reader;

static pid_t reader_pid(void)
{
	FILE *f = fopen(LOG_DIR "/reader", "re");
	int pid = 0;

	if (f) {
		if (fscanf(f, "pid %d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}

/* The newest segment of the log, the one being written. */
static void newest_segment(char *buf, size_t size)
{
	unsigned long seg = 1;
	char path[64];

	for (;;) {
		snprintf(path, sizeof(path), LOG_DIR "/log.%lu", seg + 1);
		if (access(path, F_OK))
			break;
		seg++;
	}
	/* Segments are numbered on from the oldest kept: find it first. */
	while (seg > 1) {
		snprintf(path, sizeof(path), LOG_DIR "/log.%lu", seg);
		if (!access(path, F_OK))
			break;
		seg--;
	}
	snprintf(buf, size, LOG_DIR "/log.%lu", seg);
}

static int open_err(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int signal_reader(int sig)
{
	return sys_err(kill(reader, sig));
}

static int pidfd_signal_reader(void)
{
	int pidfd = syscall(SYS_pidfd_open, reader, 0), err;

	if (pidfd < 0)
		return -ECHILD;
	err = sys_err(syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0));
	close(pidfd);
	return err;
}

static int own_scheduler(void)
{
	return sys_err(syscall(SYS_sched_setscheduler, 0, SCHED_BATCH,
			       &(struct sched_param){ 0 }));
}

static int chattr_append(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), flags = FS_APPEND_FL, err;

	if (fd < 0)
		return -ECHILD;
	err = sys_err(ioctl(fd, FS_IOC_SETFLAGS, &flags));
	close(fd);
	return err;
}

/* fspick() and fsconfig() of the file system at @path: option @key. */
static int fspick_at(const char *path, const char *key, const char *value)
{
	int fs = syscall(SYS_fspick, AT_FDCWD, path, FSPICK_CLOEXEC), err;

	if (fs < 0)
		return -errno;
	err = sys_err(syscall(SYS_fsconfig, fs, value ? FSCONFIG_SET_STRING :
			      FSCONFIG_SET_FLAG, key, value, 0));
	if (!err)
		err = sys_err(syscall(SYS_fsconfig, fs, FSCONFIG_CMD_RECONFIGURE,
				      NULL, NULL, 0));
	close(fs);
	return err;
}

static int mount_setattr_ro(void)
{
	struct { __u64 set, clr, propagation, userns; } attr = { .set = MOUNT_ATTR_RDONLY };

	return sys_err(syscall(442 /* SYS_mount_setattr */, AT_FDCWD, LOG_DIR, 0,
			       &attr, sizeof(attr)));
}

/* The audit stream's port (progs/krsi_stream.h). */
#define STREAM_PORT	KRSI_STREAM_DEV
#define STREAM_RDEV	makedev(KRSI_STREAM_MAJOR, KRSI_STREAM_MINOR)

static int open_port(const char *path)
{
	return open_err(path, O_WRONLY | O_NOCTTY);
}

#ifdef __aarch64__
/*
 * The stream's virtio port by its other node, /dev/vportNpM (the port
 * with no name in /sys/class/virtio-ports: the console): the driver
 * opens a console port only as hvc0, which protect_log guards.
 */
static void test_stream_vport(void)
{
	char path[300], name[64];
	struct dirent *e;
	int found = 0;
	DIR *d = opendir("/sys/class/virtio-ports");

	while (d && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
		f = fopen(path, "re");
		name[0] = '\0';
		if (f && !fgets(name, sizeof(name), f))
			name[0] = '\0';
		if (f)
			fclose(f);
		if (name[0] && name[0] != '\n')
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		snprintf(name, sizeof(name), "the stream's console port by its own node, %.20s",
			 e->d_name);
		check_err(open_port(path), -ENXIO, name);
		found++;
	}
	if (d)
		closedir(d);
	check(found == 1, "one virtio console port, the stream's (%d)", found);
}
#endif

/*
 * The stream's port taken from the reader as root could after the lock:
 * its driver unbound (the port hangs up under the reader) and bound
 * again, the device given to another driver, and another port moved onto
 * its hardware (TIOCSSERIAL), whose output would then reach the host's
 * copy.  Every one refused; the stream still flows (the boot's host check
 * verifies it to its end).
 */
static int serial_move(const char *tty, int iobase)
{
	struct serial_struct ss;
	int fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, TIOCGSERIAL, &ss))
		err = -errno;
	ss.port = iobase;
	if (!err && ioctl(fd, TIOCSSERIAL, &ss))
		err = -errno;
	close(fd);
	return err;
}

static int serial_config(const char *tty)
{
	int fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, TIOCSERCONFIG))
		err = -errno;
	close(fd);
	return err;
}

static void test_stream_driver(void)
{
#if defined(__x86_64__)
	static const char *const files[] = {
		"/sys/bus/platform/drivers/serial8250/unbind",
		"/sys/bus/platform/drivers/serial8250/bind",
		"/sys/devices/platform/serial8250/driver/unbind",
		"/sys/devices/platform/serial8250/driver_override",
		"/sys/bus/platform/drivers_probe",
		"/sys/class/tty/ttyS2/rx_trig_bytes",
	};
	const char *console = "/dev/ttyS0";
#elif defined(__aarch64__)
	static const char *const files[] = {
		"/sys/bus/virtio/drivers/virtio_console/unbind",
		"/sys/bus/virtio/drivers/virtio_console/bind",
		"/sys/bus/platform/drivers/virtio-mmio/unbind",
		"/sys/bus/virtio/drivers_probe",
		"/sys/bus/platform/drivers_probe",
	};
	const char *console = "/dev/ttyAMA0";
#else
	static const char *const files[] = { NULL };
	const char *console = NULL;
#endif
	char what[128];
	size_t i;

	for (i = 0; files[i] && i < sizeof(files) / sizeof(files[0]); i++) {
		/* A port with no UART behind (booted without run-qemu.sh
		 * --log) has no FIFO, and no rx_trig_bytes.
		 */
		if (strstr(files[i], "rx_trig_bytes") && access(files[i], F_OK) &&
		    errno == ENOENT) {
			check(system("grep -qx 'stream none' " LOG_DIR "/reader") == 0,
			      "no %s: no UART behind " STREAM_PORT " in this boot, "
			      "and no stream", files[i]);
			continue;
		}
		snprintf(what, sizeof(what), "protect_log: root writes %s", files[i]);
		check_err(open_err(files[i], O_WRONLY), -EPERM, what);
	}
	if (!console)
		return;
	/* The stream's port's own address: 0x3e8 for ttyS2, none on arm64. */
	check_err(serial_move(console, 0x3e8), -EPERM,
		  "protect_log: TIOCSSERIAL moves the console's port onto the stream's");
	check_err(serial_config(console), -EPERM,
		  "protect_log: TIOCSERCONFIG probes the console's port again");
	/* Booted without a port to the host (run-qemu.sh --log), it has none. */
	if (system("grep -qx 'stream none' " LOG_DIR "/reader") == 0)
		check(system("krsi status | grep -q '^stream:   none'") == 0,
		      "no stream in this boot, and krsi status says so");
	else
		check(system("grep -qx 'stream " KRSI_STREAM_DEV " streaming' " LOG_DIR
			     "/reader") == 0 &&
		      system("krsi status | grep -q '^stream:   " KRSI_STREAM_DEV
			     ", sealed'") == 0,
		      "the reader still streams, and krsi status says so");
}

/* Write @value into the knob @path: 0 or -errno. */
static int write_knob(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/*
 * Every file of /proc/sys/vm, opened for writing as root after the lock:
 * refused (protect_init), but the three that act once on nothing of
 * another process's; the red team's vm.max_map_count first.
 */
static void test_vm_knobs(void)
{
	static const char *const actions[] = {
		"drop_caches", "compact_memory", "stat_refresh",
	};
	struct dirent *e;
	char path[300], what[400];
	int refused = 0, knobs = 0;
	DIR *dir;

	check_err(write_knob("/proc/sys/vm/max_map_count", "16"), -EPERM,
		  "protect_init: root writes 16 into vm.max_map_count");
	check(!system("grep -qx 65530 /proc/sys/vm/max_map_count"),
	      "vm.max_map_count is still 65530");
	dir = opendir("/proc/sys/vm");
	if (!check(dir != NULL, "/proc/sys/vm listed"))
		return;
	while ((e = readdir(dir))) {
		bool action = false;
		size_t i;

		if (e->d_name[0] == '.')
			continue;
		for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
			action |= !strcmp(e->d_name, actions[i]);
		snprintf(path, sizeof(path), "/proc/sys/vm/%s", e->d_name);
		/* Those the kernel lets root write (some are read-only). */
		if (access(path, W_OK))
			continue;
		knobs++;
		snprintf(what, sizeof(what), action ?
			 "vm.%s, which acts once on no process's memory: opened for writing" :
			 "protect_init: vm.%s, for writing", e->d_name);
		refused += check_err(open_err(path, O_WRONLY), action ? 0 : -EPERM, what) &&
			   !action;
	}
	closedir(dir);
	check(knobs > 20, "%d vm.* knobs tried, %d refused", knobs, refused);
}

static void test_reader(void)
{
	char seg[64], moved[80];
	struct stat st;

	reader = reader_pid();
	if (!check(reader > 1 && !kill(reader, 0), "the audit reader runs (pid %d)",
		   (int)reader))
		return;
	newest_segment(seg, sizeof(seg));
	snprintf(moved, sizeof(moved), "%s.moved", seg);

	/* The process: as root after the lock. */
	check_err(signal_reader(SIGKILL), -EPERM,
		  "protect_init: root kills the audit reader (SIGKILL)");
	check_err(signal_reader(SIGSTOP), -EPERM,
		  "protect_init: root stops the audit reader (SIGSTOP)");
	check_err(signal_reader(SIGTERM), -EPERM,
		  "protect_init: root asks the audit reader to stop (SIGTERM)");
	check_err(sys_err(syscall(SYS_tgkill, reader, reader, SIGKILL)), -EPERM,
		  "protect_init: tgkill() of the audit reader");
	check_err(sys_err(kill(-reader, SIGKILL)), -EPERM,
		  "protect_init: kill() of the audit reader's process group");
	check_err(pidfd_signal_reader(), -EPERM,
		  "protect_init: pidfd_send_signal() to the audit reader");
	check_err(sigio_to(reader, SIGKILL), 0,
		  "protect_init: SIGIO to the audit reader sent, the reader still there");
	check_err(sys_err(ptrace(PTRACE_ATTACH, reader, 0, 0)), -EPERM,
		  "protect_init: ptrace(PTRACE_ATTACH) of the audit reader");
	{
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)reader);
		check_err(try_open(path), -EACCES, "protect_init: /proc/READER/mem");
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)reader);
		check_err(try_open(path), -EACCES, "protect_init: /proc/READER/environ");
		snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)reader);
		check_err(open_err(path, O_WRONLY), -EPERM,
			  "protect_init: the audit reader's OOM score, for writing");
	}
	check_err(perf_open(reader, -1, PERF_SAMPLE_STACK_USER), -EPERM,
		  "protect_init: perf_event_open() on the audit reader");
	check_err(sys_err(setpriority(PRIO_PROCESS, reader, 19)), -EPERM,
		  "protect_init: setpriority() of the audit reader");
	check_err(sys_err(syscall(SYS_sched_setscheduler, reader, SCHED_OTHER,
				  &(struct sched_param){ 0 })), -EPERM,
		  "protect_init: sched_setscheduler() of the audit reader");
	check_err(sys_err(prlimit(reader, RLIMIT_CPU, &(struct rlimit){ 1, 1 }, NULL)),
		  -EPERM, "protect_init: prlimit(RLIMIT_CPU) of the audit reader");
	/* Starving it: a real-time process of one's own, the RT throttle. */
	check_err(sys_err(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO,
				  &(struct sched_param){ .sched_priority = 99 })), -EPERM,
		  "protect_init: root makes itself SCHED_FIFO 99");
	check_err(in_child(DEMO, own_scheduler), -EPERM,
		  "protect_init: demo changes its own scheduling policy");
	check_err(open_err("/proc/sys/kernel/sched_rt_runtime_us", O_WRONLY), -EPERM,
		  "protect_init: the real-time throttle, for writing");
	check_err(open_err("/proc/sys/kernel/sched_rt_period_us", O_WRONLY), -EPERM,
		  "protect_init: the real-time period, for writing");
	/* Starving it of memory: every vm.* knob (vm.max_map_count, the
	 * commit limits, which tmpfs obeys too, ...), and its descriptors.
	 */
	test_vm_knobs();
	check_err(open_err("/proc/sys/fs/nr_open", O_WRONLY), -EPERM,
		  "protect_init: fs.nr_open, for writing");

	/* The log, as root after the lock. */
	check_err(open_err(seg, O_WRONLY | O_APPEND), -EPERM,
		  "protect_log: root appends to the log");
	check_err(open_err(seg, O_RDWR | O_TRUNC), -EPERM,
		  "protect_log: root truncates the log by open");
	check_err(sys_err(truncate(seg, 0)), -EPERM, "protect_log: truncate() of the log");
	check_err(sys_err(chmod(seg, 0666)), -EPERM, "protect_log: chmod of the log");
	check_err(sys_err(chown(seg, DEMO, DEMO)), -EPERM, "protect_log: chown of the log");
	check_err(chattr_append(seg), -EPERM,
		  "protect_log: FS_IOC_SETFLAGS (chattr +a) of the log");
	check_err(sys_err(unlink(seg)), -EPERM, "protect_log: unlink of the log");
	check_err(sys_err(rename(seg, moved)), -EPERM, "protect_log: rename of the log");
	check_err(sys_err(link(seg, moved)), -EPERM, "protect_log: a hard link to the log");
	check_err(sys_err(symlink(seg, LOG_DIR "/log.999999")), -EPERM,
		  "protect_log: a symlink in the log's directory");
	check_err(open_err(LOG_DIR "/log.999999", O_WRONLY | O_CREAT), -EPERM,
		  "protect_log: a new segment made by root");
	check_err(sys_err(mkdir(LOG_DIR "/uid/2000", 0700)), -EPERM,
		  "protect_log: a directory made in the log");
	check_err(sys_err(mknod(LOG_DIR "/fifo", S_IFIFO | 0600, 0)), -EPERM,
		  "protect_log: mknod in the log");
	check_err(sys_err(rmdir(LOG_DIR "/uid")), -EPERM,
		  "protect_log: rmdir in the log");
	check_err(sys_err(mount(NULL, LOG_DIR, NULL, MS_REMOUNT, "size=4k")), -EPERM,
		  "krsi_lock: mount -o remount,size=4k of the log");
	check_err(fspick_at(LOG_DIR, "size", "4k"), -EPERM,
		  "protect_log: fspick+fsconfig size=4k of the log");
	check_err(fspick_at(LOG_DIR, "ro", NULL), -EPERM,
		  "protect_log: fspick+fsconfig ro of the log");
	check_err(sys_err(umount2(LOG_DIR, MNT_DETACH)), -EPERM,
		  "krsi_lock: unmount the log");
	check_err(sys_err(mount("tmpfs", LOG_DIR, "tmpfs", 0, NULL)), -EPERM,
		  "krsi_lock: a tmpfs over the log");
	check_err(mount_setattr_ro(), -EBUSY,
		  "protect_log (known limit, no hook): mount_setattr(RDONLY) of the log, "
		  "refused by the kernel while the reader writes");
	check(!stat(seg, &st) && st.st_size > 0, "the log is still there, written");

	/* The stream's port, by its name and by a node of one's own. */
#if defined(__s390x__)
	/* s390x has no 8250 port, and so no stream (run-qemu.sh --log). */
	check_err(open_port(STREAM_PORT), -ENOENT, "no " STREAM_PORT " on s390x");
#else
	check_err(open_port(STREAM_PORT), -EPERM, "protect_log: root opens " STREAM_PORT);
#endif
#ifdef __aarch64__
	test_stream_vport();
#endif
	check(!mknod("/tmp/port", S_IFCHR | 0600, STREAM_RDEV),
	      "a device node of one's own for " STREAM_PORT "'s device");
	check_err(open_port("/tmp/port"), -EPERM, "protect_log: root opens it");
	unlink("/tmp/port");
	test_stream_driver();

	/* The reader's buffers: nobody else consumes them. */
	check(system("krsi logd >/dev/null 2>&1") != 0,
	      "krsi logd: a second reader is refused");
	check(reader_pid() == reader && !kill(reader, 0),
	      "the audit reader still runs, the same process");
}

/* fspick() and fsconfig(): the new mount API's way to make / writable. */
static int fspick_rw(void)
{
	int fs = syscall(SYS_fspick, AT_FDCWD, "/", FSPICK_CLOEXEC), err;

	if (fs < 0)
		return -errno;
	err = sys_err(syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG, "rw", NULL, 0));
	if (!err)
		err = sys_err(syscall(SYS_fsconfig, fs, FSCONFIG_CMD_RECONFIGURE,
				      NULL, NULL, 0));
	close(fs);
	return err;
}

int main(void)
{
	unsigned long long start;
	pid_t holder;
	int drain, fd, nr;
	bool pinned;
	char cmd[128];
	FILE *f;

	/* The records of this test: those after the last one now. */
	f = popen("krsi events --json -n 1", "r");
	if (!f || fscanf(f, "{\"seq\":%llu,", &start) != 1)
		start = 0;
	if (f)
		pclose(f);

	/* The trusted code base: the image is read-only. */
	check_err(in_child(DEMO, write_root_fs), -EROFS,
		  "no_tmp_exec: demo adds a file to / (read-only)");
	check_err(in_child(0, write_root_fs), -EROFS,
		  "no_tmp_exec: root adds a file to / (read-only)");
	check_err(sys_err(mount(NULL, "/", NULL, MS_REMOUNT, NULL)), -EPERM,
		  "no_tmp_exec, protect_secret: root remounts / writable");
	check_err(fspick_rw(), -EPERM,
		  "no_tmp_exec: root makes / writable with fspick+fsconfig");

	/* Code injection, as the demo user into its own processes. */
	check_err(in_child(DEMO, write_proc_mem), -EACCES,
		  "no_tmp_exec, wx: demo opens /proc/PID/mem of its own child for writing");
	check_err(in_child(DEMO, ptrace_own_child), -EPERM,
		  "no_tmp_exec, wx: demo ptrace(PTRACE_ATTACH) of its own child");
	check_err(in_child(DEMO, ptrace_traceme), -EPERM,
		  "no_tmp_exec, wx: demo ptrace(PTRACE_TRACEME)");
	check_err(in_child(DEMO, pidfd_getfd_own_child), -EPERM,
		  "no_tmp_exec, wx: demo pidfd_getfd() of its own child");
	check_err(in_child(DEMO, write_own_mem), -EACCES,
		  "wx: demo opens /proc/self/mem for writing");

	/* Writable and executable memory, as the demo user. */
	check_err(in_child(DEMO, map_anon_exec), -EACCES,
		  "wx: executable anonymous memory");
	check_err(in_child(DEMO, memfd_twice), -EACCES,
		  "no_tmp_exec, wx: a memfd mapped writable, then executable");
	check_err(in_child(DEMO, mremap_alias), -EACCES,
		  "no_tmp_exec, wx: shared memory duplicated by mremap, made executable");
	check_err(in_child(DEMO, dev_zero_exec), -EACCES,
		  "no_tmp_exec, wx: MAP_SHARED /dev/zero executable");
	check_err(in_child(DEMO, written_file_pages), -EACCES,
		  "wx: written private pages of an image file made executable");
	check_err(in_child(DEMO, read_implies_exec), -EACCES,
		  "wx: exec under personality(READ_IMPLIES_EXEC)");
	check_err(in_child(DEMO, perf_buffer_exec), -EACCES,
		  "no_tmp_exec, wx: a perf ring buffer mapped executable");
	check_err(in_child(DEMO, attach_cbpf), -EPERM,
		  "no_module_load: demo has a classic BPF filter JIT-compiled");
	check_err(attach_cbpf(), -EPERM,
		  "no_module_load: root has a classic BPF filter JIT-compiled");

	/* PID 1, as root after the lock. */
	check_err(sigio_to(1, SIGUSR1), 0, "protect_init: SIGIO to PID 1 sent, PID 1 alive");
	check_err(perf_open(-1, 0, PERF_SAMPLE_STACK_USER), -EPERM,
		  "protect_init: CPU-wide perf sampling of user stacks");
	check_err(perf_open(-1, 0, PERF_SAMPLE_REGS_USER), -EPERM,
		  "protect_init: CPU-wide perf sampling of user registers");
	check_err(perf_open(-1, 0, PERF_SAMPLE_CALLCHAIN), -EPERM,
		  "protect_init: CPU-wide perf sampling of call chains");
	check_err(perf_open(-1, 0, PERF_SAMPLE_IP), -EPERM,
		  "protect_init: CPU-wide perf sampling of instruction pointers");
	check_err(uprobe_on(-1, 0), -EPERM,
		  "protect_init: a counting uprobe in /bin/busybox for every process");
	check_err(uprobe_on(getpid(), -1), -EPERM,
		  "protect_init: a counting uprobe in one process");
	check_err(unattached_tracefs(), -EPERM,
		  "protect_init, krsi_lock: kprobe_events of a tracefs mounted nowhere");
	check_err(perf_open(1, -1, PERF_SAMPLE_STACK_USER), -EPERM,
		  "protect_init: perf_event_open on PID 1");
	check_err(try_open("/proc/1/mem"), -EACCES, "protect_init: /proc/1/mem");
	check_err(try_open("/proc/1/environ"), -EACCES, "protect_init: /proc/1/environ");
	check_err(sys_err(setpriority(PRIO_PROCESS, 1, 10)), -EPERM,
		  "protect_init: setpriority() of PID 1");
	check_err(sys_err(prlimit(1, RLIMIT_NOFILE, &(struct rlimit){ 4, 4 }, NULL)),
		  -EPERM, "protect_init: prlimit() of PID 1");
	check_err(sys_err(syscall(SYS_sched_setscheduler, 1, SCHED_BATCH,
				  &(struct sched_param){ 0 })), -EPERM,
		  "protect_init: sched_setscheduler() of PID 1");

	/* The secret, as root after the lock and as the demo user. */
	check_err(open_secret(O_RDONLY), 0, "protect_secret: root reads it");
	/* The image is read-only: the VFS refuses before any hook (the hooks
	 * behind it are tested on a writable / in guest/policy_routes.sh).
	 */
	check_err(open_secret(O_WRONLY), -EROFS, "protect_secret: root opens it for writing");
	check_err(open_secret(O_RDWR | O_TRUNC), -EROFS, "protect_secret: root truncates it");
	check_err(bind_over(SECRET), -EPERM, "protect_secret: bind mount over the secret");
	check_err(bind_over("/etc/krsi"), -EPERM, "protect_secret: bind mount over /etc/krsi");
	check_err(sys_err(mount("tmpfs", "/etc", "tmpfs", 0, NULL)), -EPERM,
		  "protect_secret: a tmpfs over /etc");
	check_err(new_api_mount_over("/etc/krsi"), -EPERM,
		  "protect_secret: open_tree+move_mount over /etc/krsi");
	check_err(in_child(0, unshare_and_bind), -EPERM,
		  "protect_secret: bind mount in a new mount namespace");
	check_err(sys_err(chroot("/tmp")), -EPERM, "protect_secret: chroot");
	check_err(send_secret_to_demo(), -EACCES,
		  "protect_secret: SCM_RIGHTS of the secret to the demo user");
	holder = start_krsi_secret(&drain);
	secret_holder = holder;
	check(holder > 0 && secret_fd > 0, "krsi-secret holds the secret open, as fd %d",
	      secret_fd);
	check_err(in_child(DEMO, reopen_holders_fd), -EACCES,
		  "protect_secret: demo reopens krsi-secret's /proc/PID/fd/N");
	check_err(in_child(DEMO, getfd_from_holder), -EPERM,
		  "protect_secret: demo pidfd_getfd() of krsi-secret's descriptor");
	stop_krsi_secret(holder, drain);

	/*
	 * The lock, as root: protect_log's maps, pinned by /init, or held by
	 * the kernel (a kernel that locks at boot, where nothing is pinned).
	 */
	pinned = access(LOG_PINS, F_OK) == 0;
	if (pinned) {
		fd = obj_get(LOG_PINS "/denials", 0);
		check_err(fd < 0 ? fd : 0, -EPERM, "krsi_lock: writable descriptor of a pinned map");
		if (fd >= 0)
			close(fd);
	}
	fd = pinned ? obj_get(LOG_PINS "/lost", BPF_F_RDONLY) :
	     map_by_name("lost", BPF_MAP_TYPE_ARRAY);
	check(fd >= 0, "krsi_lock: read-only descriptor still allowed: %s",
	      fd < 0 ? errname(-fd) : "ok");
	check_err(fd < 0 ? fd : map_cmd(BPF_MAP_UPDATE_ELEM, fd), -EPERM,
		  "krsi_lock: BPF_MAP_UPDATE_ELEM of a policy's lost counter");
	check_err(fd < 0 ? fd : map_cmd(BPF_MAP_DELETE_ELEM, fd), -EPERM,
		  "krsi_lock: BPF_MAP_DELETE_ELEM");
	check_err(fd < 0 ? fd : map_cmd(BPF_MAP_FREEZE, fd), -EPERM,
		  "krsi_lock: BPF_MAP_FREEZE");
	check_err(fd < 0 ? fd : pass_to_self(fd), -EPERM,
		  "krsi_lock: a map's descriptor passed on by SCM_RIGHTS");
	{
		union bpf_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.pathname = (unsigned long)"/sys/fs/bpf/extra_pin";
		attr.bpf_fd = fd;
		check_err(fd < 0 ? fd : sys_bpf(BPF_OBJ_PIN, &attr), -EPERM,
			  "krsi_lock: BPF_OBJ_PIN of a new pin");
	}
	if (fd >= 0)
		close(fd);
	check_err(reader_maps_by_id(&nr), -EPERM,
		  "krsi_lock: a writable descriptor of a ring buffer or task storage map by id, not the reader");
	check(nr >= 8, "krsi_lock: tried %d such maps, those of the policies", nr);
	fd = pinned ? obj_get(LOG_PINS "/denials", BPF_F_RDONLY) :
	     map_by_name("denials", BPF_MAP_TYPE_RINGBUF);
	check(fd >= 0 && mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	      MAP_FAILED && errno == EACCES,
	      "krsi_lock: no writable mapping of a ring buffer's consumer page");
	if (fd >= 0)
		close(fd);
	if (pinned) {
		check_err(sys_err(unlink(LOG_PINS "/log_open")), -EPERM,
			  "krsi_lock: unlink a pin");
		check_err(sys_err(rename(LOG_PINS, LOG_PINS "_old")), -EPERM,
			  "krsi_lock: rename a policy's pins");
	}
	/* A tmpfs without a size would take the memory the log needs. */
	check_err(fspick_at("/tmp", "size", "0"), -EPERM,
		  "krsi_lock: fspick+fsconfig size=0 (no limit) of /tmp");
	check_err(sys_err(umount2("/sys/fs/bpf", MNT_DETACH)), -EPERM,
		  "krsi_lock: unmount /sys/fs/bpf");
	check_err(sys_err(mount("tmpfs", "/sys/fs", "tmpfs", 0, NULL)), -EPERM,
		  "krsi_lock: a tmpfs over /sys/fs");
	/* Known limit: a detached mount is made; attaching it is refused. */
	fd = detached_tmpfs();
	check(fd >= 0, "krsi_lock (known limit): a tmpfs mounted nowhere by fsopen+fsmount: %s",
	      fd < 0 ? errname(-fd) : "made");
	check_err(fd < 0 ? fd : sys_err(syscall(SYS_move_mount, fd, "", AT_FDCWD, "/sys/fs",
						MOVE_MOUNT_F_EMPTY_PATH)),
		  -EPERM, "krsi_lock: move_mount of that tmpfs over /sys/fs");
	if (fd >= 0)
		close(fd);

	/* no_module_load: the kernel asking for a module. */
	check_err(sys_err(socket(5 /* AF_APPLETALK */, SOCK_DGRAM, 0)), -EAFNOSUPPORT,
		  "no_module_load: socket() of an unknown family");

	test_reader();

	/* The reader runs SCHED_FIFO: what was reported is in the log. */
	usleep(500000);
	snprintf(cmd, sizeof(cmd), "krsi events --seq %llu >" EVENTS " 2>&1", start);
	system(cmd);
	/* Each route is reported by the first policy (boot.conf order) to deny it. */
	check_reported("protect_secret denied EPERM: sb_mount on the path of /etc/krsi/secret");
	check_reported("no_tmp_exec denied EPERM: ptrace_access_check attach");
	check_reported("no_tmp_exec denied EPERM: ptrace_traceme");
	check_reported("wx denied EACCES: mmap_file executable anonymous memory");
	check_reported("no_tmp_exec denied EACCES: mmap_file memfd:code");
	check_reported("no_tmp_exec denied EACCES: file_mprotect dev/zero");
	check_reported("no_tmp_exec denied EACCES: mmap_file zero");
	check_reported("wx denied EACCES: file_mprotect exec on written pages");
	check_reported("wx denied EACCES: bprm_check_security READ_IMPLIES_EXEC");
	check_reported("protect_init denied EPERM: file_send_sigiotask SIGIO to PID 1");
	check_reported("no_tmp_exec denied EPERM: sb_remount the image's root filesystem");
	check_reported("protect_init denied EPERM: perf_event_alloc CPU-wide sampling");
	check_reported_either("protect_init denied EPERM: locked_down tracing",
			      "krsi_lock denied EPERM: sb_remount");
	check_reported("protect_init denied EPERM: perf_event_alloc uprobe");
	check_reported("protect_init denied EPERM: perf_event_alloc perf event on PID 1");
	check_reported("protect_init denied EPERM: ptrace_access_check ptrace of PID 1");
	check_reported("protect_init denied EPERM: task_setnice");
	check_reported("protect_init denied EPERM: task_setscheduler");
	check_reported("protect_init denied EPERM: task_setrlimit");
	check_reported("wx denied EACCES: file_open /proc/PID/mem for writing");
	check_reported("no_tmp_exec denied EACCES: mmap_file [perf_event]");
	check_reported("no_module_load denied EPERM: socket_setsockopt classic BPF filter");
	check_reported("protect_secret denied EPERM: move_mount");
	check_reported("protect_secret denied EPERM: path_chroot");
	check_reported("protect_secret denied EACCES: file_receive");
	check_reported("protect_secret denied EACCES: file_open /etc/krsi/secret");
	check_reported("krsi_lock denied EPERM: bpf map write while locked");
	check_reported("krsi_lock denied EPERM: file_receive a BPF object's descriptor while locked");
	check_reported("krsi_lock denied EPERM: bpf writable map descriptor by id while locked");
	if (pinned) {
		check_reported("krsi_lock denied EPERM: bpf_map");
		check_reported("krsi_lock denied EPERM: inode_unlink");
		check_reported("krsi_lock denied EPERM: inode_rename");
	}
	check_reported("krsi_lock denied EPERM: sb_umount");
	check_reported("krsi_lock denied EPERM: sb_remount");
	check_reported("krsi_lock denied EPERM: sb_mount");
	check_reported("krsi_lock denied EPERM: move_mount");
	check_reported("no_module_load denied EPERM: kernel_module_request net-pf-5");
	check_reported("protect_init denied EPERM: task_kill signal to the audit reader");
	/* Sent where the current task may be any: the record names the user
	 * who set the owner (root) and no process.
	 */
	check_reported("pid 0 uid 0 : protect_init denied EPERM: file_send_sigiotask "
		       "SIGIO to the audit reader");
	check_reported("protect_init denied EPERM: ptrace_access_check ptrace of the audit reader");
	check_reported("protect_init denied EPERM: perf_event_alloc perf event on the audit reader");
	check_reported("protect_init denied EPERM: task_setnice change to the audit reader");
	check_reported("protect_init denied EPERM: task_setscheduler change to the audit reader");
	check_reported("protect_init denied EPERM: task_setrlimit change to the audit reader");
	check_reported("protect_init denied EPERM: task_setscheduler scheduling policy");
	check_reported("protect_init denied EPERM: file_open another process's OOM score");
	check_reported("protect_init denied EPERM: file_open real-time throttling");
	check_reported("protect_init denied EPERM: file_open a vm.* knob: the reader's memory");
	check_reported("protect_init denied EPERM: file_open fs.nr_open: the reader's descriptors");
	check_reported("protect_log denied EPERM: file_open the audit log, for writing");
	check_reported("protect_log denied EPERM: inode_setattr the audit log");
	check_reported("protect_log denied EPERM: file_ioctl the audit log");
	check_reported("protect_log denied EPERM: inode_unlink the audit log");
	check_reported("protect_log denied EPERM: inode_rename the audit log");
	check_reported("protect_log denied EPERM: inode_link the audit log");
	check_reported("protect_log denied EPERM: inode_symlink the audit log");
	check_reported("protect_log denied EPERM: inode_create the audit log");
	check_reported("protect_log denied EPERM: inode_mkdir the audit log");
	check_reported("protect_log denied EPERM: inode_mknod the audit log");
	check_reported("protect_log denied EPERM: inode_rmdir the audit log");
	/* krsi_lock, attached by the kernel before /init's protect_log, first. */
	check_reported_either("protect_log denied EPERM: sb_remount the audit log's file system",
			      "krsi_lock denied EPERM: sb_remount");
	check_reported("protect_log denied EPERM: file_open the audit log's serial port");
#if defined(__x86_64__) || defined(__aarch64__)
	check_reported("protect_log denied EPERM: file_open a driver's binding in sysfs");
	check_reported("protect_log denied EPERM: file_ioctl a serial port moved or reconfigured");
#endif
	if (pinned)
		check_reported("krsi_lock denied EPERM: bpf_map writable map descriptor while locked");
	return check_exit();
}
