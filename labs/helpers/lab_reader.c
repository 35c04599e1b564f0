// SPDX-License-Identifier: GPL-2.0
/*
 * lab_reader: the one program lab 4's policy lets read its file, known
 * by its executable.  It prints the file; as a server would, it can
 * also hold it open (hold: its descriptor 3, until killed) or hand its
 * descriptor to another process over a UNIX socket (send SOCKET).
 *
 *	lab_reader FILE			print FILE
 *	lab_reader hold FILE		open FILE as descriptor 3, then wait
 *	lab_reader send FILE SOCKET	send a descriptor of FILE to SOCKET
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "errname.h"

static int fail(const char *what)
{
	fprintf(stderr, "lab_reader: %s: %s\n", what, errname(errno));
	return 1;
}

static int send_fd(int fd, const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'x';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return fail("socket");
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) || sendmsg(s, &msg, 0) != 1)
		return fail(path);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (argc == 2) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(argv[1]);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(1, buf, n) != n)
				return fail("stdout");
		return n < 0 ? fail("read") : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "hold")) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0 || dup2(fd, 3) < 0)
			return fail(argv[2]);
		for (;;)
			pause();
	}
	if (argc == 4 && !strcmp(argv[1], "send")) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		return fd < 0 ? fail(argv[2]) : send_fd(fd, argv[3]);
	}
	fprintf(stderr, "usage: lab_reader FILE | hold FILE | send FILE SOCKET\n");
	return 2;
}
