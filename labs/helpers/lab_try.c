// SPDX-License-Identifier: GPL-2.0
/*
 * lab_try: the system calls the labs' checkers try that the shell and
 * busybox do not make, one per run; exit 0 when it worked, else the
 * errno's name on stderr and exit 1.
 *
 *	lab_try execveat FILE ARGV0 [ARG...]	execveat() of a descriptor
 *	lab_try linkat-follow OLD NEW		linkat(AT_SYMLINK_FOLLOW)
 *	lab_try pidfd-kill PID			pidfd_send_signal(SIGTERM)
 *	lab_try tgkill PID			tgkill(PID, PID, SIGTERM)
 *	lab_try sigio PID			SIGTERM as PID's SIGIO: a pipe
 *						owned by PID (F_SETOWN, F_SETSIG),
 *						then written to
 *	lab_try recv-read SOCKET		a descriptor received on a UNIX
 *						socket bound to SOCKET (SCM_RIGHTS,
 *						within 2 s), read and printed
 *	lab_try create FILE MODE		open(O_CREAT) with MODE (octal)
 *	lab_try tmpfile DIR MODE NAME		open(DIR, O_TMPFILE) with MODE,
 *						then linkat() of it as NAME
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "errname.h"

static int fail(const char *what)
{
	fprintf(stderr, "lab_try: %s: %s\n", what, errname(errno));
	return 1;
}

static int sigio(pid_t pid)
{
	int p[2];

	if (pipe(p))
		return fail("pipe");
	if (fcntl(p[0], F_SETOWN, pid) || fcntl(p[0], F_SETSIG, SIGTERM) ||
	    fcntl(p[0], F_SETFL, O_ASYNC))
		return fail("fcntl");
	/* The kernel sends the signal from the write, as the owner's. */
	if (write(p[1], "x", 1) != 1)
		return fail("write");
	return 0;
}

static int recv_read(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval two = { 2, 0 };
	char cbuf[CMSG_SPACE(sizeof(int))], byte, buf[256];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), fd;
	ssize_t n;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof(addr)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &two, sizeof(two)))
		return fail(path);
	if (recvmsg(s, &msg, 0) < 0)
		return fail("recvmsg");
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS) {
		errno = EPERM;	/* the kernel dropped the descriptor */
		return fail("no descriptor received");
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	n = read(fd, buf, sizeof(buf));
	if (n <= 0)
		return fail("read the received descriptor");
	return write(1, buf, n) == n ? 0 : fail("stdout");
}

int main(int argc, char **argv)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	const char *what = argc > 1 ? argv[1] : "";
	pid_t pid = argc > 2 ? (pid_t)atoi(argv[2]) : 0;

	if (argc >= 4 && !strcmp(what, "execveat")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return fail(argv[2]);
		syscall(SYS_execveat, fd, "", argv + 3, envp, AT_EMPTY_PATH);
		return fail("execveat");
	}
	if (argc == 4 && !strcmp(what, "linkat-follow"))
		return linkat(AT_FDCWD, argv[2], AT_FDCWD, argv[3], AT_SYMLINK_FOLLOW) ?
		       fail("linkat") : 0;
	if (argc == 3 && !strcmp(what, "pidfd-kill")) {
		int fd = syscall(SYS_pidfd_open, pid, 0);

		if (fd < 0)
			return fail("pidfd_open");
		return syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0) ?
		       fail("pidfd_send_signal") : 0;
	}
	if (argc == 3 && !strcmp(what, "tgkill"))
		return syscall(SYS_tgkill, pid, pid, SIGTERM) ? fail("tgkill") : 0;
	if (argc == 3 && !strcmp(what, "sigio"))
		return sigio(pid);
	if (argc == 3 && !strcmp(what, "recv-read"))
		return recv_read(argv[2]);
	if (argc == 4 && !strcmp(what, "create")) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			      (mode_t)strtol(argv[3], NULL, 8));

		return fd < 0 ? fail(argv[2]) : 0;
	}
	if (argc == 5 && !strcmp(what, "tmpfile")) {
		int fd = open(argv[2], O_TMPFILE | O_WRONLY | O_CLOEXEC,
			      (mode_t)strtol(argv[3], NULL, 8));
		char proc[64];

		if (fd < 0)
			return fail("O_TMPFILE");
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		return linkat(AT_FDCWD, proc, AT_FDCWD, argv[4], AT_SYMLINK_FOLLOW) ?
		       fail("linkat") : 0;
	}
	fprintf(stderr, "lab_try: unknown or incomplete: %s (see its header)\n", what);
	return 2;
}
