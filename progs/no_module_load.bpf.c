// SPDX-License-Identifier: GPL-2.0
/*
 * no_module_load: the kernel's code is what it booted with
 *
 * Enforces: no kernel module is loaded or requested, no kexec image or
 * initramfs and no firmware is read, and no classic BPF socket filter is
 * compiled into kernel code, once the policy is attached (at boot,
 * before anything else runs).  Holds against the demo user and root.
 *
 * Hooks, and why each:
 *  - kernel_read_file: finit_module(), kexec_file_load() and firmware
 *    loading read a file through it, with the purpose as its id.
 *  - kernel_load_data: init_module() and kexec_load() pass a buffer
 *    instead of a file.
 *  - kernel_module_request: request_module(), the kernel asking modprobe
 *    for a module it misses.
 *  - socket_setsockopt: SO_ATTACH_FILTER and SO_ATTACH_REUSEPORT_CBPF,
 *    which anyone may call without bpf(), have the kernel JIT-compile a
 *    classic BPF program (BPF_JIT_ALWAYS_ON): machine code in kernel
 *    memory built from the caller's constants, the raw material of JIT
 *    spraying.  eBPF goes through bpf(), which krsi_lock closes.
 *  - kexec_load(), firmware, /dev/mem, /proc/kcore, iopl: not in this
 *    kernel (kernel/krsi.config).
 *
 * Known limits: whatever was loaded before the policy stays.  Kprobes,
 * with which the kernel patches its own text (breakpoints and jumps of
 * its choosing, not code of the caller's), are not refused here but by
 * protect_init (locked_down), since they read any process's memory.
 */
#define POLICY "no_module_load"
#include "krsi_policy.h"

static bool is_code(int id)
{
	/* Same numbers in enum kernel_read_file_id and kernel_load_data_id. */
	return id == READING_MODULE || id == READING_KEXEC_IMAGE ||
	       id == READING_KEXEC_INITRAMFS || id == READING_FIRMWARE;
}

SEC("lsm/kernel_read_file")
int BPF_PROG(no_read_module, struct file *file, enum kernel_read_file_id id,
	     bool contents, int ret)
{
	if (ret)
		return ret;
	if (is_code(id))
		return deny("kernel_read_file", "module, kexec or firmware file",
			    EPERM);
	return 0;
}

SEC("lsm/kernel_load_data")
int BPF_PROG(no_load_module, enum kernel_load_data_id id, bool contents,
	     int ret)
{
	if (ret)
		return ret;
	if (is_code(id))
		return deny("kernel_load_data", "module, kexec or firmware data",
			    EPERM);
	return 0;
}

SEC("lsm/kernel_module_request")
int BPF_PROG(no_mod_request, char *kmod_name, int ret)
{
	if (ret)
		return ret;
	return deny("kernel_module_request", kmod_name, EPERM);
}

#define SOL_SOCKET			1
#define SO_ATTACH_FILTER		26
#define SO_ATTACH_REUSEPORT_CBPF	51

SEC("lsm/socket_setsockopt")
int BPF_PROG(no_cbpf_jit, struct socket *sock, int level, int optname,
	     int ret)
{
	if (ret)
		return ret;
	if (level == SOL_SOCKET &&
	    (optname == SO_ATTACH_FILTER || optname == SO_ATTACH_REUSEPORT_CBPF))
		return deny("socket_setsockopt", "classic BPF filter (JIT)", EPERM);
	return 0;
}
