// SPDX-License-Identifier: GPL-2.0
#include "sysbpf.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

long sys_bpf(int cmd, union bpf_attr *attr)
{
	long ret = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return ret < 0 ? -errno : ret;
}

int sys_bpf_obj_info(int fd, void *info, __u32 size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = size;
	attr.info.info = (unsigned long)info;
	return (int)sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

int sys_bpf_map_elem(int cmd, int fd, const void *key, void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (unsigned long)key;
	attr.value = (unsigned long)value;
	return (int)sys_bpf(cmd, &attr);
}

int sys_bpf_map_freeze(int fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	return (int)sys_bpf(BPF_MAP_FREEZE, &attr);
}
