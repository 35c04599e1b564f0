// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lsmlist.h"

bool lsm_list_contains(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	if (!len)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",\n");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* Copy the next space-separated field of @line into @out (size @size). */
static const char *next_field(const char *line, char *out, size_t size)
{
	size_t n;

	line += strspn(line, " ");
	n = strcspn(line, " \n");
	if (n >= size)
		n = size - 1;
	memcpy(out, line, n);
	out[n] = '\0';
	return line + strcspn(line, " \n");
}

bool mounts_have(const char *mounts, const char *dir, const char *fstype)
{
	const char *line = mounts;

	while (line && *line) {
		char dev[256], mnt[256], type[64];
		const char *p;

		p = next_field(line, dev, sizeof(dev));
		p = next_field(p, mnt, sizeof(mnt));
		next_field(p, type, sizeof(type));
		if (!strcmp(mnt, dir) && !strcmp(type, fstype))
			return true;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}
