// SPDX-License-Identifier: GPL-2.0
#include "auditlog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The number of segment @name ("log.12"), or 0 for any other name. */
static unsigned long segment_number(const char *name)
{
	unsigned long n = 0;
	const char *p;

	if (strncmp(name, LOG_PREFIX, strlen(LOG_PREFIX)))
		return 0;
	p = name + strlen(LOG_PREFIX);
	if (*p < '1' || *p > '9')
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n > (~0UL - 9) / 10)
			return 0;
		n = n * 10 + (*p - '0');
	}
	return n;
}

static int by_number(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

int log_segments(int dir, unsigned long **segs, size_t *n)
{
	unsigned long *list = NULL, *grown;
	size_t count = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd = dup(dir);

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		unsigned long seg = segment_number(de->d_name);

		if (!seg)
			continue;
		if (count == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				free(list);
				closedir(d);
				return -ENOMEM;
			}
			list = grown;
		}
		list[count++] = seg;
	}
	closedir(d);
	if (count)
		qsort(list, count, sizeof(*list), by_number);
	*segs = list;
	*n = count;
	return 0;
}

static void segment_name(char *buf, size_t size, unsigned long seg)
{
	snprintf(buf, size, LOG_PREFIX "%lu", seg);
}

/* Open segment @seg of @w for appending, made if missing. */
static int open_segment(struct log_writer *w, unsigned long seg)
{
	char name[32];
	struct stat st;
	int fd;

	segment_name(name, sizeof(name), seg);
	/* Read too: end_line() looks at the last byte. */
	fd = openat(w->dir, name, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC |
		    O_NOFOLLOW, w->mode);
	if (fd < 0)
		return -errno;
	/* Made by root for another user: theirs, to read and no more. */
	if (fstat(fd, &st) || (st.st_uid != w->owner && fchown(fd, w->owner, -1))) {
		int err = -errno;

		close(fd);
		return err;
	}
	w->fd = fd;
	w->seg = seg;
	w->size = st.st_size;
	return 0;
}

/*
 * A writer that stopped in the middle of a line left it cut: end it, so
 * that the next record is a line of its own (the cut one is reported as
 * not a record by whoever reads it).
 */
static int end_line(struct log_writer *w)
{
	char last = '\n';

	if (w->size && pread(w->fd, &last, 1, w->size - 1) < 0)
		return -errno;
	if (last != '\n' && !log_append(w, "\n", 1))
		return -ENOMEM;
	return 0;
}

int log_open(struct log_writer *w, const char *path, mode_t dir_mode,
	     mode_t mode, uid_t owner, size_t max_size, unsigned int keep)
{
	unsigned long *segs;
	size_t n;
	int err;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->max_size = max_size;
	w->keep = keep ? keep : 1;
	w->owner = owner;
	w->mode = mode;
	if (mkdir(path, dir_mode) && errno != EEXIST)
		return -errno;
	w->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (w->dir < 0)
		return -errno;
	if (fchown(w->dir, owner, -1)) {
		err = -errno;
		goto fail;
	}
	err = log_segments(w->dir, &segs, &n);
	if (err)
		goto fail;
	err = open_segment(w, n ? segs[n - 1] : 1);
	free(segs);
	if (!err && !(err = end_line(w)))
		return 0;
	if (w->fd >= 0)
		close(w->fd);
	sb_free(&w->pending);
fail:
	close(w->dir);
	return err;
}

bool log_full(const struct log_writer *w, size_t len)
{
	size_t used = w->size + w->pending.len;

	return used && used + len > w->max_size;
}

bool log_append(struct log_writer *w, const char *buf, size_t len)
{
	sb_put(&w->pending, buf, len);
	if (!w->pending.failed)
		return true;
	/* Nothing of the line was kept: what is pending is still whole. */
	w->pending.failed = false;
	return false;
}

void log_give_room(struct log_writer *w, struct strbuf *room)
{
	sb_reset(room);
	if (w->pending.len)
		sb_put(room, w->pending.buf, w->pending.len);
	if (room->failed) {	/* too small for what is pending: kept as is */
		room->failed = false;
		return;
	}
	sb_free(&w->pending);
	w->pending = *room;
	*room = (struct strbuf){ 0 };
}

size_t log_room(const struct log_writer *w)
{
	return sb_room(&w->pending);
}

int log_flush(struct log_writer *w)
{
	size_t done = 0;
	int err = 0;

	if (!w->pending.len)
		return 0;
	while (done < w->pending.len) {
		ssize_t n = write(w->fd, w->pending.buf + done, w->pending.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += n;
	}
	w->size += done;
	memmove(w->pending.buf, w->pending.buf + done, w->pending.len - done + 1);
	w->pending.len -= done;
	return err;
}

/*
 * Give a segment's pages back before it is removed: a file held open
 * keeps them after its unlink, and anyone who may read a segment could
 * hold every one it rotates out until the log's file system is full.
 */
static int empty_segment(int dir, const char *name)
{
	int fd = openat(dir, name, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int log_rotate(struct log_writer *w, unsigned long *removed)
{
	int old = w->fd, err = log_flush(w), e;
	unsigned long seg = w->seg, *segs;
	size_t n, i;
	char name[32];

	*removed = 0;
	if (err)
		return err;
	err = open_segment(w, seg + 1);
	if (err) {
		w->fd = old;	/* go on where it was */
		w->seg = seg;
		return err;
	}
	close(old);
	err = log_segments(w->dir, &segs, &n);
	if (err)
		return err;
	for (i = 0; i + w->keep < n; i++) {
		segment_name(name, sizeof(name), segs[i]);
		e = empty_segment(w->dir, name);
		if (!e && unlinkat(w->dir, name, 0))
			e = -errno;
		if (e && !err)
			err = e;
		else if (!e)
			*removed = segs[i];
	}
	free(segs);
	return err;
}

void log_close(struct log_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	close(w->dir);
	sb_free(&w->pending);
	w->fd = -1;
}

/* ---- reading ------------------------------------------------------------- */

int log_cursor_open(struct log_cursor *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return c->dir < 0 ? -errno : 0;
}

void log_cursor_from(struct log_cursor *c, unsigned long seg)
{
	c->seg = seg ? seg - 1 : 0;
}

int log_read_segment(int dir, unsigned long seg, struct strbuf *out)
{
	char name[32], buf[65536];
	ssize_t n;
	int fd, err = 0;

	segment_name(name, sizeof(name), seg);
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sb_reset(out);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		sb_put(out, buf, n);
	}
	close(fd);
	return err ? err : out->failed ? -ENOMEM : 0;
}

/*
 * The first segment after c->seg, open in *@fd (-1: none yet): 0 or a
 * negative errno.  A segment removed before the cursor got to it is
 * counted in c->skipped.
 */
static int next_segment(struct log_cursor *c, int *fd, unsigned long *seg)
{
	unsigned long *segs, at = c->seg;
	size_t n, i;
	char name[32];
	int err = log_segments(c->dir, &segs, &n);

	*fd = -1;
	if (err)
		return err;
	for (i = 0; i < n && *fd < 0; i++) {
		if (segs[i] <= at)
			continue;
		segment_name(name, sizeof(name), segs[i]);
		*fd = openat(c->dir, name, O_RDONLY | O_CLOEXEC);
		if (*fd < 0 && errno != ENOENT) {
			err = -errno;
			break;
		}
		if (c->seg && segs[i] > at + 1)
			c->skipped += segs[i] - at - 1;
		*seg = at = segs[i];	/* removed meanwhile: on to the next */
	}
	free(segs);
	return err;
}

/* A whole line from c->partial into c->line, if it holds one. */
static bool take_line(struct log_cursor *c)
{
	char *from = c->partial.buf + c->start;
	char *nl = c->partial.len > c->start ?
		   memchr(from, '\n', c->partial.len - c->start) : NULL;

	if (!nl)
		return false;
	sb_reset(&c->line);
	sb_put(&c->line, from, nl - from);
	c->start += nl - from + 1;
	return true;
}

/* Read what c->fd has now into c->partial: 0 or a negative errno. */
static int read_more(struct log_cursor *c, bool *got)
{
	char buf[65536];
	ssize_t n;

	*got = false;
	/* What was returned goes: once per read, not once per line. */
	if (c->start) {
		memmove(c->partial.buf, c->partial.buf + c->start,
			c->partial.len - c->start + 1);
		c->partial.len -= c->start;
		c->start = 0;
	}
	while (c->fd >= 0) {
		n = read(c->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		sb_put(&c->partial, buf, n);
		c->offset += n;
		*got = true;
	}
	return c->partial.failed ? -ENOMEM : 0;
}

/*
 * Was the segment open in @fd, of which @offset bytes were read, emptied
 * by its removal (log_rotate()) before it was read to its end?  Then it
 * is shorter than what was read, or removed and empty.
 */
static bool was_emptied(int fd, off_t offset)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	return st.st_size < offset || (!st.st_nlink && !st.st_size);
}

int log_next(struct log_cursor *c)
{
	unsigned long seg;
	bool got;
	int err, fd;

	for (;;) {
		if (take_line(c))
			return c->line.failed ? -ENOMEM : 1;
		err = read_more(c, &got);
		if (err || got) {
			if (err)
				return err;
			continue;
		}
		err = next_segment(c, &fd, &seg);
		if (err || fd < 0)
			return err;
		/* The writer has gone on to a later segment, so this one is
		 * whole now: first what came since the last read.
		 */
		err = read_more(c, &got);
		if (err || got) {
			close(fd);
			if (err)
				return err;
			continue;
		}
		sb_reset(&c->partial);	/* a line cut at a segment's end */
		c->start = 0;
		if (c->fd >= 0) {
			if (was_emptied(c->fd, c->offset))
				c->emptied++;
			close(c->fd);
		}
		c->fd = fd;
		c->offset = 0;
		c->seg = seg;
	}
}

void log_cursor_close(struct log_cursor *c)
{
	if (c->fd >= 0)
		close(c->fd);
	close(c->dir);
	sb_free(&c->partial);
	sb_free(&c->line);
}
