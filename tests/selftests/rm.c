// SPDX-License-Identifier: GPL-2.0
/*
 * rm, for the selftests image (`make selftests`): the kernel's
 * test_local_storage copies /bin/rm and runs the copy under another name
 * to see the LSM stop it from removing itself.  The image's rm is busybox,
 * which run under another name is no rm at all, so the selftests boot
 * puts this one in place of /bin/rm: `rm [-f] [-r] FILE...`, no more.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

int main(int argc, char **argv)
{
	int i, force = 0, recursive = 0, status = 0;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		force |= strchr(argv[i], 'f') != NULL;
		recursive |= strchr(argv[i], 'r') || strchr(argv[i], 'R');
	}
	for (; i < argc; i++) {
		int err = recursive ?
			  nftw(argv[i], remove_one, 16, FTW_DEPTH | FTW_PHYS) :
			  unlink(argv[i]);

		if (err && !(force && errno == ENOENT)) {
			fprintf(stderr, "rm: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
