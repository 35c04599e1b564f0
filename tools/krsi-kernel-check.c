// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-kernel-check: does the kernel we run on have what KRSI needs?
 *
 * Prints the kernel release, the active LSMs, whether securityfs is mounted
 * and whether the kernel's BTF is there (CO-RE programs need it), then exits
 * 0 when all of them are in place and 1 when something is missing.
 *
 * It asks of the kernel alone, with no policy and no krsi tool: /init runs
 * it, and it runs on any kernel.  `krsi doctor` asks of the running
 * appliance (policies attached, the reader, the lock) instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "errname.h"
#include "lsmlist.h"

#define SECURITYFS	"/sys/kernel/security"
#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"

/* Read up to @size - 1 bytes of @path into @buf, NUL-terminated. */
static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n, total = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1) {
		n = read(fd, buf + total, size - 1 - total);
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	close(fd);
	return err;
}

static bool report(const char *what, bool ok, const char *detail)
{
	printf("  %-14s %-4s %s\n", what, ok ? "yes" : "NO", detail);
	return ok;
}

int main(void)
{
	static char mounts[16384], lsms[256];
	struct utsname uts;
	struct stat st;
	bool ok = true;
	int err;

	if (uname(&uts) == 0)
		printf("kernel %s %s\n", uts.release, uts.version);

	err = read_text("/proc/mounts", mounts, sizeof(mounts));
	if (err) {
		fprintf(stderr, "krsi-kernel-check: /proc/mounts: %s\n", errname(err));
		return 1;
	}
	ok &= report("securityfs", mounts_have(mounts, SECURITYFS, "securityfs"),
		     SECURITYFS);

	err = read_text(SECURITYFS "/lsm", lsms, sizeof(lsms));
	if (err)
		snprintf(lsms, sizeof(lsms), "(%s/lsm: %s)", SECURITYFS, errname(err));
	lsms[strcspn(lsms, "\n")] = '\0';
	ok &= report("KRSI LSM", lsm_list_contains(lsms, "krsi"), lsms);
	ok &= report("bpf LSM", lsm_list_contains(lsms, "bpf"), lsms);

	err = stat(BTF_VMLINUX, &st) ? -errno : 0;
	if (err) {
		ok &= report("BTF", false, errname(err));
	} else {
		char size[32];

		snprintf(size, sizeof(size), "%lld bytes", (long long)st.st_size);
		ok &= report("BTF", st.st_size > 0, size);
	}

	return ok ? 0 : 1;
}
