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

static int bpf_prog_cmd(int cmd, int hook_fd, int prog_fd, int replace_fd,
			unsigned int flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = hook_fd;
	attr.attach_bpf_fd = prog_fd;
	attr.attach_type = BPF_LSM_MAC;
	attr.attach_flags = flags;
	attr.replace_bpf_fd = replace_fd;
	return (int)sys_bpf(cmd, &attr);
}

int krsi_attach_fd(int hook_fd, int prog_fd, unsigned int flags)
{
	return bpf_prog_cmd(BPF_PROG_ATTACH, hook_fd, prog_fd, 0, flags);
}

int krsi_attach_replace_fd(int hook_fd, int prog_fd, int replace_fd,
			   unsigned int flags)
{
	return bpf_prog_cmd(BPF_PROG_ATTACH, hook_fd, prog_fd, replace_fd, flags);
}

int krsi_detach_fd(int hook_fd, int prog_fd)
{
	return bpf_prog_cmd(BPF_PROG_DETACH, hook_fd, prog_fd, 0, 0);
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

int krsi_hook_query(const char *hook, __u32 *ids, __u32 max)
{
	union bpf_attr attr;
	int fd, err;

	fd = krsi_hook_open(hook, O_RDONLY);
	if (fd < 0)
		return fd;
	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = fd;
	attr.query.attach_type = BPF_LSM_MAC;
	attr.query.prog_ids = (unsigned long)ids;
	attr.query.prog_cnt = max;
	err = (int)sys_bpf(BPF_PROG_QUERY, &attr);
	close(fd);
	/* ENOSPC: @ids is full, and prog_cnt says how many there are. */
	return err && err != -ENOSPC ? err : (int)attr.query.prog_cnt;
}

int krsi_link_create_fd(int hook_fd, int prog_fd, unsigned int flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.target_fd = hook_fd;
	attr.link_create.attach_type = BPF_LSM_MAC;
	attr.link_create.flags = flags;
	return (int)sys_bpf(BPF_LINK_CREATE, &attr);
}

int krsi_link_create(const char *hook, int prog_fd)
{
	int hook_fd, fd;

	hook_fd = krsi_hook_open(hook, O_RDWR);
	if (hook_fd < 0)
		return hook_fd;
	fd = krsi_link_create_fd(hook_fd, prog_fd, BPF_F_KRSI_HOOK);
	close(hook_fd);
	return fd;
}

int krsi_link_update(int link_fd, int prog_fd, int old_prog_fd,
		     unsigned int flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_update.link_fd = link_fd;
	attr.link_update.new_prog_fd = prog_fd;
	attr.link_update.old_prog_fd = old_prog_fd;
	attr.link_update.flags = flags;
	return (int)sys_bpf(BPF_LINK_UPDATE, &attr);
}

int krsi_link_detach(int link_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_detach.link_fd = link_fd;
	return (int)sys_bpf(BPF_LINK_DETACH, &attr);
}

int krsi_link_info(int link_fd, struct krsi_link_info *info)
{
	struct bpf_link_info li;
	int err;

	memset(info, 0, sizeof(*info));
	memset(&li, 0, sizeof(li));
	li.krsi.hook_name = (unsigned long)info->hook;
	li.krsi.hook_name_len = sizeof(info->hook);
	err = sys_bpf_obj_info(link_fd, &li, sizeof(li));
	if (err)
		return err;
	info->link_id = li.id;
	info->prog_id = li.prog_id;
	info->type = li.type;
	/* Another link type: its union member is not a hook name. */
	if (li.type != BPF_LINK_TYPE_KRSI)
		info->hook[0] = '\0';
	return 0;
}
