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
