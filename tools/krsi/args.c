// SPDX-License-Identifier: GPL-2.0
/* The checks every command makes of its own arguments. */
#include <stdio.h>
#include <string.h>

#include "krsi.h"

int args_none(int argc, char **argv)
{
	if (argc == 1)
		return 0;
	fprintf(stderr, "krsi: %s takes no argument\n", argv[0]);
	return -1;
}

int args_json(int argc, char **argv)
{
	if (argc == 1)
		return 0;
	if (argc == 2 && !strcmp(argv[1], "--json"))
		return 1;
	fprintf(stderr, "krsi: %s takes only --json\n", argv[0]);
	return -1;
}

int args_one(int argc, char **argv)
{
	if (argc == 2)
		return 0;
	fprintf(stderr, "krsi: %s takes one argument\n", argv[0]);
	return -1;
}
