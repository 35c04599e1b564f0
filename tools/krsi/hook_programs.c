// SPDX-License-Identifier: GPL-2.0
/*
 * What a hook runs, for `krsi list` and `krsi hook`: its programs in run
 * order, each with its name (from the hook's file), its program id
 * (bpf(BPF_PROG_QUERY) on the file) and the id of the KRSI link that
 * attached it, if one did (the kernel's list of links).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "hookfile.h"
#include "krsi.h"
#include "sysbpf.h"

/*
 * Set the link id of each of the @n programs of @hook that a KRSI link
 * holds, in one walk of the kernel's links: 0, or a negative errno.
 */
static int set_links(const char *hook, struct hook_program *progs, int n)
{
	union bpf_attr attr;
	__u32 id = 0;
	int fd, err, i;

	for (;;) {
		struct krsi_link_info info;

		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		err = (int)sys_bpf(BPF_LINK_GET_NEXT_ID, &attr);
		if (err)
			return err == -ENOENT ? 0 : err;	/* no more */
		id = attr.next_id;
		memset(&attr, 0, sizeof(attr));
		attr.link_id = id;
		fd = (int)sys_bpf(BPF_LINK_GET_FD_BY_ID, &attr);
		if (fd == -ENOENT)
			continue;	/* gone since */
		if (fd < 0)
			return fd;
		err = krsi_link_info(fd, &info);
		close(fd);
		if (err)
			return err;
		if (info.type != BPF_LINK_TYPE_KRSI || strcmp(info.hook, hook))
			continue;
		for (i = 0; i < n; i++)
			if (progs[i].prog_id == info.prog_id)
				progs[i].link_id = info.link_id;
	}
}

/*
 * The names and the ids come from two calls; a change of the hook's
 * programs between them shows as a different count, and is read again.
 */
int hook_programs(const char *hook, struct hook_program *progs, int max)
{
	char buf[4096], *line, *save;
	__u32 ids[KRSI_MAX_HOOK_PROGS];
	int tries, n = 0, nr_ids, i, err;
	ssize_t len;

	for (tries = 0; tries < 3; tries++) {
		len = krsi_hook_read(hook, buf, sizeof(buf));
		if (len < 0)
			return (int)len;
		nr_ids = krsi_hook_query(hook, ids, KRSI_MAX_HOOK_PROGS);
		if (nr_ids < 0)
			return nr_ids;
		n = 0;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save), n++)
			if (n < max && n < nr_ids) {
				snprintf(progs[n].name, sizeof(progs[n].name), "%s",
					 line);
				progs[n].prog_id = ids[n];
			}
		if (n == nr_ids)
			break;
	}
	if (n != nr_ids)
		return -EAGAIN;
	if (n > max)
		return -E2BIG;
	for (i = 0; i < n; i++)
		progs[i].link_id = 0;
	err = set_links(hook, progs, n);
	return err ? err : n;
}
