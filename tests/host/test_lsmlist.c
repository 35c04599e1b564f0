// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of tools/lib/lsmlist.c and tools/lib/errname.c. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "errname.h"
#include "lsmlist.h"

static void test_lsm_list(void)
{
	const char *list = "capability,krsi,bpf\n";

	check(lsm_list_contains(list, "capability"), "lsm list: first name found");
	check(lsm_list_contains(list, "krsi"), "lsm list: middle name found");
	check(lsm_list_contains(list, "bpf"), "lsm list: last name before newline found");
	check(!lsm_list_contains(list, "bp"), "lsm list: prefix of a name not found");
	check(!lsm_list_contains("krsibpf", "bpf"), "lsm list: suffix of a name not found");
	check(!lsm_list_contains(list, ""), "lsm list: empty name not found");
	check(!lsm_list_contains("", "bpf"), "lsm list: empty list has nothing");
	check(lsm_list_contains("bpf", "bpf"), "lsm list: single name without newline");
}

static void test_mounts(void)
{
	const char *mounts =
		"proc /proc proc rw,nosuid 0 0\n"
		"securityfs /sys/kernel/security securityfs rw 0 0\n"
		"none /sys/fs/bpf bpf rw 0 0";

	check(mounts_have(mounts, "/sys/kernel/security", "securityfs"),
	      "mounts: securityfs on its directory found");
	check(mounts_have(mounts, "/sys/fs/bpf", "bpf"),
	      "mounts: last line without newline found");
	check(!mounts_have(mounts, "/sys/kernel/security", "tmpfs"),
	      "mounts: wrong type on the directory not found");
	check(!mounts_have(mounts, "/sys/kernel", "securityfs"),
	      "mounts: parent directory not taken for the mount point");
	check(!mounts_have("", "/proc", "proc"), "mounts: empty table has nothing");
}

static void test_errname(void)
{
	check(!strcmp(errname(EPERM), "EPERM"), "errname: EPERM");
	check(!strcmp(errname(-EEXIST), "EEXIST"), "errname: negative errno -EEXIST");
	check(!strcmp(errname(EBADF), "EBADF"), "errname: EBADF");
	check(!strcmp(errname(-524), "ENOTSUPP"), "errname: the kernel's ENOTSUPP");
	check(!strcmp(errname(100000), "E?"), "errname: unknown value");
	check(!strcmp(errname(0), "E?"), "errname: 0 is no errno");
}

int main(void)
{
	test_lsm_list();
	test_mounts();
	test_errname();
	return check_exit();
}
