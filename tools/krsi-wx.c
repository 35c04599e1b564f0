// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-wx: try one kind of memory mapping, for the wx policy's demo and
 * tests.  Prints "ok" or the call that failed and its errno.
 *
 *   rw          anonymous read-write memory (always allowed)
 *   rwx         anonymous memory writable and executable at once
 *   rw-then-x   read-write memory, written, then made executable
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "errname.h"

#define SIZE 4096

static int fail(const char *call)
{
	printf("%s: %s\n", call, errname(errno));
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int prot = PROT_READ | PROT_WRITE;
	char *p;

	if (!strcmp(mode, "rwx"))
		prot |= PROT_EXEC;
	else if (strcmp(mode, "rw") && strcmp(mode, "rw-then-x")) {
		fprintf(stderr, "usage: krsi-wx rw|rwx|rw-then-x\n");
		return 2;
	}
	p = mmap(NULL, SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	p[0] = (char)0xc3;	/* ret */
	if (!strcmp(mode, "rw-then-x") && mprotect(p, SIZE, PROT_READ | PROT_EXEC))
		return fail("mprotect");
	munmap(p, SIZE);
	printf("ok\n");
	return 0;
}
