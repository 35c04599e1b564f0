// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-hello: the appliance's one dynamically linked program, run by musl's
 * loader (/lib/ld-musl-x86_64.so.1).  A copy in /tmp shows the ld.so route
 * that no_tmp_exec closes: the loader maps the program with PROT_EXEC
 * without any execve() of it.
 */
#include <stdio.h>

int main(void)
{
	puts("hello from a dynamically linked program");
	return 0;
}
