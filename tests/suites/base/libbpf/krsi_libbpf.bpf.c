// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for tests/suites/base/libbpf/krsi_libbpf.c, opened with libbpf itself (not
 * a light skeleton): they deny opening files named "krsi-libbpf-target".
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define EPERM	1
#define EACCES	13

static bool is_target(struct file *file)
{
	static const char target[] = "krsi-libbpf-target";
	char name[sizeof(target)];

	if (bpf_probe_read_kernel_str(name, sizeof(name),
				      BPF_CORE_READ(file, f_path.dentry, d_name.name)) !=
	    sizeof(target))
		return false;
	for (int i = 0; i < sizeof(target); i++)
		if (name[i] != target[i])
			return false;
	return true;
}

SEC("lsm/file_open")
int BPF_PROG(libbpf_deny, struct file *file)
{
	return is_target(file) ? -EPERM : 0;
}

/* The next version of libbpf_deny, for BPF_F_ALLOW_OVERRIDE. */
SEC("lsm/file_open")
int BPF_PROG(libbpf_deny__v2, struct file *file)
{
	return is_target(file) ? -EACCES : 0;
}

/* Left unloaded by the test. */
SEC("lsm/file_open")
int BPF_PROG(not_loaded, struct file *file)
{
	return 0;
}

/* A hook KRSI has no file for; never loaded. */
SEC("lsm/no_such_hook")
int BPF_PROG(no_such_hook)
{
	return 0;
}

SEC("socket")
int not_lsm(struct __sk_buff *skb)
{
	return 0;
}
