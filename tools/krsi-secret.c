// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-secret: print /etc/krsi/secret.  The protect_secret policy lets
 * this one program (recognised by its executable file, not its name) and
 * root read the secret; `cat` run by anyone else is denied.
 */
#include <errno.h>
#include <stdio.h>

#include "errname.h"

#define SECRET "/etc/krsi/secret"

int main(void)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(SECRET, "re");

	if (!f) {
		fprintf(stderr, "krsi-secret: %s: %s\n", SECRET, errname(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}
