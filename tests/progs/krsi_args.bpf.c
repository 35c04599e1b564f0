// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/suites/base/krsi_args.c: what a program reads of each class of hook
 * argument (signed and unsigned ints, unsigned long, bool, enum, pointer,
 * kuid_t/kgid_t passed by value), loaded twice and attached once through a
 * hook file and once by trampoline, so the test compares the two paths.
 *
 * Each program records the argument as its declared type reads it (what
 * BPF_PROG() and BPF_PROG2() give) and the raw 64-bit slot, and only for
 * calls made by the test process.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

int target_tgid;

static bool from_test(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

/* int, negative (setpriority(2) with a negative nice), and a pointer. */
int nice_val;
__u64 nice_raw, nice_task, nice_current;
unsigned int nice_runs;

SEC("lsm/task_setnice")
int BPF_PROG(args_setnice, struct task_struct *p, int nice)
{
	if (!from_test() || nice >= 0)
		return 0;
	nice_val = nice;
	nice_raw = ctx[1];
	nice_task = (__u64)p;
	nice_current = bpf_get_current_task();
	nice_runs++;
	return 0;
}

/* int and unsigned long, negative and all ones. */
int prctl_option;
__u64 prctl_option_raw, prctl_arg2;

SEC("lsm/task_prctl")
int BPF_PROG(args_prctl, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5)
{
	if (!from_test() || option >= 0)
		return 0;
	prctl_option = option;
	prctl_option_raw = ctx[0];
	prctl_arg2 = arg2;
	return 0;
}

/* unsigned int with its top bit set. */
unsigned int ioctl_cmd;
__u64 ioctl_cmd_raw, ioctl_arg;

SEC("lsm/file_ioctl")
int BPF_PROG(args_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg)
{
	if (!from_test())
		return 0;
	ioctl_cmd = cmd;
	ioctl_cmd_raw = ctx[1];
	ioctl_arg = arg;
	return 0;
}

/* enum and bool. */
int load_id_is_module, load_contents;
__u64 load_id_raw, load_contents_raw;

SEC("lsm/kernel_load_data")
int BPF_PROG(args_load_data, enum kernel_load_data_id id, bool contents)
{
	if (!from_test())
		return 0;
	load_id_is_module = id == LOADING_MODULE;
	load_id_raw = ctx[0];
	load_contents = contents;
	load_contents_raw = ctx[1];
	return 0;
}

/* int, negative (a protocol number socket(2) passes on unchecked). */
int socket_protocol;
__u64 socket_protocol_raw;

SEC("lsm/socket_create")
int BPF_PROG(args_socket, int family, int type, int protocol, int kern)
{
	if (!from_test())
		return 0;
	socket_protocol = protocol;
	socket_protocol_raw = ctx[2];
	return 0;
}

/* Structs by value: kuid_t and kgid_t, read as BPF_PROG2() reads them. */
__u32 chown_uid, chown_gid;
__u64 chown_uid_raw, chown_gid_raw;

SEC("lsm/path_chown")
int BPF_PROG2(args_chown, const struct path *, path, kuid_t, uid,
	      kgid_t, gid)
{
	if (!from_test())
		return 0;
	chown_uid = uid.val;
	chown_gid = gid.val;
	chown_uid_raw = ctx[1];
	chown_gid_raw = ctx[2];
	return 0;
}
