// SPDX-License-Identifier: GPL-2.0
#include "hookfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysbpf.h"

int krsi_hook_open(const char *hook, int flags)
{
	char path[PATH_MAX];
	int fd;

	/* A hook name is one path component, never a way out of the dir. */
	if (!hook[0] || strchr(hook, '/') || !strcmp(hook, ".") ||
	    !strcmp(hook, ".."))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%s", KRSI_HOOK_DIR, hook) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t krsi_hook_read(const char *hook, char *buf, size_t size)
{
	int fd = krsi_hook_open(hook, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return fd;
	len = read(fd, buf, size - 1);
	if (len < 0)
		len = -errno;
	close(fd);
	buf[len < 0 ? 0 : len] = '\0';
	return len;
}

static int bpf_prog_cmd(int cmd, int hook_fd, int prog_fd, unsigned int flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = hook_fd;
	attr.attach_bpf_fd = prog_fd;
	attr.attach_type = BPF_LSM_MAC;
	attr.attach_flags = flags;
	return (int)sys_bpf(cmd, &attr);
}

int krsi_attach_fd(int hook_fd, int prog_fd, unsigned int flags)
{
	return bpf_prog_cmd(BPF_PROG_ATTACH, hook_fd, prog_fd, flags);
}

int krsi_detach_fd(int hook_fd, int prog_fd)
{
	return bpf_prog_cmd(BPF_PROG_DETACH, hook_fd, prog_fd, 0);
}

int krsi_attach(const char *hook, int prog_fd, unsigned int flags)
{
	int hook_fd, err;

	hook_fd = krsi_hook_open(hook, O_RDWR);
	if (hook_fd < 0)
		return hook_fd;
	err = krsi_attach_fd(hook_fd, prog_fd, flags);
	close(hook_fd);
	return err;
}

int krsi_detach(const char *hook, int prog_fd)
{
	int hook_fd, err;

	hook_fd = krsi_hook_open(hook, O_RDWR);
	if (hook_fd < 0)
		return hook_fd;
	err = krsi_detach_fd(hook_fd, prog_fd);
	close(hook_fd);
	return err;
}
