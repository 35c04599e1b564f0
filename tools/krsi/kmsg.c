// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own lines about the policies it loads (patch 0023: "krsi:
 * policy NAME version N ... attached" or "... refused: WHY (-ERRNO)"),
 * read from /dev/kmsg for the audit reader, which logs each as a record:
 * a refused rollback stays in the audit trail when root clears the
 * kernel's log (dmesg -C changes what syslog(2) reads, not /dev/kmsg).
 *
 * Only lines of facility 0, the kernel's: a line written to /dev/kmsg
 * from user space is never of facility 0 (devkmsg_write() makes it
 * LOG_USER), so nobody forges one.  Each read() of /dev/kmsg returns one
 * record, "PRIORITY,SEQUENCE,TIMESTAMP,FLAGS;TEXT\n" and continuation
 * lines (Documentation/ABI/testing/dev-kmsg).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "krsi.h"

#define KMSG_POLICY	"krsi: policy "

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int kmsg_next(int fd, char *line, size_t size)
{
	char rec[2048];

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		unsigned long pri;
		char *text, *end;

		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		rec[n] = '\0';
		pri = strtoul(rec, &end, 10);
		text = strchr(rec, ';');
		if (end == rec || *end != ',' || !text || pri >> 3 != 0)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = '\0';
		if (strncmp(text, KMSG_POLICY, strlen(KMSG_POLICY)))
			continue;
		snprintf(line, size, "%s", text);
		return 1;
	}
}
