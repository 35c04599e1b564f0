// SPDX-License-Identifier: GPL-2.0
/*
 * No write through /proc/PID/mem overrides a page's protection, which the
 * boot policies rely on (progs/wx.bpf.c): x86_64 builds
 * proc_mem.force_override=never into its command line, s390x, which has
 * no built-in command line, CONFIG_PROC_MEM_NO_FORCE (kernel/ARCH.config).
 * Root, with no policy attached, writes through /proc/self/mem into a
 * read-only private page of its own: the kernel's default (always) would
 * force the write in; here it must fail with EIO and leave the page as it
 * was.  A writable page is written, so the refusal is the protection's.
 */
#include <sys/mman.h>

#include "guest.h"

static int write_mem(int fd, void *addr, char c)
{
	return pwrite(fd, &c, 1, (off_t)(unsigned long)addr) == 1 ? 0 : -errno;
}

int main(void)
{
	long sz = sysconf(_SC_PAGESIZE);
	char *ro = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *rw = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (!check(ro != MAP_FAILED && rw != MAP_FAILED && fd >= 0,
		   "map two pages, open /proc/self/mem for writing (%s)",
		   fd < 0 ? errname(errno) : "ok"))
		return check_exit();
	ro[0] = 'a';
	check(mprotect(ro, sz, PROT_READ) == 0, "make one page read-only");
	check_err(write_mem(fd, rw, 'b'), 0,
		  "/proc/self/mem: write into a writable page");
	check(rw[0] == 'b', "the writable page has the byte written");
	check_err(write_mem(fd, ro, 'c'), -EIO,
		  "/proc/self/mem: no forced write into a read-only page");
	check(ro[0] == 'a', "the read-only page is unchanged ('%c')", ro[0]);
	close(fd);
	munmap(ro, sz);
	munmap(rw, sz);
	return check_exit();
}
