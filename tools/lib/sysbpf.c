// SPDX-License-Identifier: GPL-2.0
#include "sysbpf.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

long sys_bpf(int cmd, union bpf_attr *attr)
{
	long ret = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return ret < 0 ? -errno : ret;
}
