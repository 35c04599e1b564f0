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
 * LOG_USER).  And only lines of the loader's own form, in full: other
 * kernel lines begin with a task's name, which anyone sets
 * (/proc/self/comm: "krsi: policy pr (1234): drop_caches: 3").  The
 * writer's name inside a real line is the writer's to choose, within the
 * parentheses.  Each read() of /dev/kmsg returns one record,
 * "PRIORITY,SEQUENCE,TIMESTAMP,FLAGS;TEXT\n" and continuation lines
 * (Documentation/ABI/testing/dev-kmsg).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"
#include "logd.h"

#define KMSG_POLICY	"krsi: policy "
#define ATTACHED	" programs attached"

static int kmsg = -1;

/* Does @text go on with @word?  Past it, or NULL. */
static const char *skip(const char *text, const char *word)
{
	size_t n = strlen(word);

	return strncmp(text, word, n) ? NULL : text + n;
}

/* Is @line, one kmsg_next() gave, the kernel's line about a load? */
static bool kmsg_load_line(const char *line)
{
	size_t len = strlen(line);

	return len > strlen(ATTACHED) &&
	       !strcmp(line + len - strlen(ATTACHED), ATTACHED);
}

/*
 * "krsi: policy NAME version N[ (unverified)] from the kernel|user space
 * (...)" ending in ": N programs attached" or "(-ERRNO)": the loader's
 * lines (security/krsi/policy.c), and no other.
 */
static bool policy_line(const char *text)
{
	const char *p = skip(text, KMSG_POLICY), *end;
	size_t len = strlen(text);

	if (!p || !(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       (*p >= '0' && *p <= '9'))
		p++;
	p = skip(p, " version ");
	if (!p || *p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (skip(p, " (unverified)"))
		p = skip(p, " (unverified)");
	if (!(skip(p, " from the kernel (") || skip(p, " from user space (")))
		return false;
	end = text + len;
	if (kmsg_load_line(text))
		return true;
	return len > 4 && end[-1] == ')' && strrchr(text, '(') &&
	       strrchr(text, '(')[1] == '-';
}

/*
 * The next line about a policy, without waiting, into @line: 1; 0 when
 * there is none; -EPIPE when lines were overwritten before they were read
 * (the next call goes on); another negative errno.
 */
static int kmsg_next(int fd, char *line, size_t size)
{
	char rec[2048];

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		unsigned long pri;
		char *text, *end;
		size_t len;

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
		if (!policy_line(text))
			continue;
		/* Cut to @size, as the record it becomes would be. */
		len = strnlen(text, size - 1);
		memcpy(line, text, len);
		line[len] = '\0';
		return 1;
	}
}

void kmsg_start(void)
{
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0)
		emit_reader("error", 0, "/dev/kmsg: %s: the kernel's lines on policies "
			    "are not logged", errname(errno));
	else
		sources_watch(kmsg, "/dev/kmsg");
}

/*
 * Each line a record of the reader's ("kernel"), in the order the kernel
 * wrote them.  A load sends the reader to the new version's buffers at
 * once: waiting for its next look (RESCAN_MS after the last, or a second
 * when idle) missed a version replaced within that time.
 */
void log_kernel_lines(void)
{
	bool loaded = false;
	char line[512];
	int n;

	while (kmsg >= 0 && (n = kmsg_next(kmsg, line, sizeof(line))) != 0) {
		if (n == 1) {
			emit_reader("kernel", 0, "%s", line);
			loaded |= kmsg_load_line(line);
		} else if (n == -EPIPE) {
			emit_reader("error", 0, "kernel log lines about policies lost: "
				    "overwritten before they were read");
		} else {
			emit_reader("error", 0, "/dev/kmsg: %s", errname(-n));
			break;
		}
	}
	if (loaded)
		rescan();
}
