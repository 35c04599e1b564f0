// SPDX-License-Identifier: GPL-2.0
/*
 * no_module_load: the kernel's code is what it booted with.
 *
 * Enforces: no kernel module is loaded or requested, no kexec image or
 * initramfs and no firmware is read, once the policy is attached (at
 * boot, before anything else runs).
 *
 * Hooks, and why each:
 *  - kernel_read_file: finit_module(), kexec_file_load() and firmware
 *    loading read a file through it, with the purpose as its id.
 *  - kernel_load_data: init_module() and kexec_load() pass a buffer
 *    instead of a file.
 *  - kernel_module_request: request_module(), the kernel asking modprobe
 *    for a module it misses.
 *
 * Known limits: whatever was loaded before the policy stays; a kernel
 * built without modules needs none of this.
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
