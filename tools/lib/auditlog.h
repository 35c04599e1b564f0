/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_AUDITLOG_H
#define KRSI_AUDITLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

/*
 * The audit log on disk: a directory of segments, log.1, log.2, ...,
 * each a file of lines (one JSON record each, tools/lib/event_format.h),
 * the highest the one being written.  A segment is never changed once
 * the next one is begun; the oldest are removed to keep at most a given
 * number.  The writer is the audit reader alone (`krsi logd`); any number
 * of readers follow it with a cursor, which never writes.
 */

#define LOG_PREFIX	"log."

struct log_writer {
	int dir;			/* the directory, open */
	int fd;				/* the newest segment, for appending */
	unsigned long seg;		/* its number */
	size_t size;			/* its bytes, written or pending */
	size_t max_size;		/* a segment is begun before this is passed */
	unsigned int keep;		/* segments kept at most */
	uid_t owner;			/* of the directory and the segments */
	mode_t mode;			/* of the segments */
	struct strbuf pending;		/* appended, not yet written */
};

/*
 * Open the log in @path (made, with mode @dir_mode, when missing; made
 * @owner's), going on with its newest segment, or log.1 in an empty one.
 * 0 or a negative errno.
 */
int log_open(struct log_writer *w, const char *path, mode_t dir_mode,
	     mode_t mode, uid_t owner, size_t max_size, unsigned int keep);

/* Would a line of @len bytes (newline included) begin a new segment? */
bool log_full(const struct log_writer *w, size_t len);

/*
 * Write what is pending, then begin the next segment and remove those
 * beyond @keep: *@removed is the highest number removed (0: none).
 * 0 or a negative errno; on error the log is as it was.
 */
int log_rotate(struct log_writer *w, unsigned long *removed);

/*
 * Append @len bytes (whole lines) to what is pending: false if there was
 * no memory for them (nothing of them is kept then).
 */
bool log_append(struct log_writer *w, const char *buf, size_t len);

/*
 * Give @w the memory of @room (sb_reserve()) for what is pending, what
 * it holds kept, so that appending up to that much needs no allocation;
 * @room is left empty.  The audit reader takes its logs' memory so,
 * before the lock.
 */
void log_give_room(struct log_writer *w, struct strbuf *room);

/* The bytes log_append() takes before it must allocate. */
size_t log_room(const struct log_writer *w);

/*
 * Write what is pending: 0, or a negative errno, with what was not
 * written still pending (-ENOMEM: an append could not be kept).
 */
int log_flush(struct log_writer *w);

void log_close(struct log_writer *w);

/*
 * A reader's place in a log: the segment it reads and how far, and the
 * bytes of a line not yet complete.
 */
struct log_cursor {
	int dir;
	int fd;
	unsigned long seg;
	struct strbuf partial;		/* read, not yet returned, from @start */
	size_t start;
	struct strbuf line;		/* the last line returned */
	off_t offset;			/* bytes of @fd read */
	unsigned long skipped;		/* segments removed before it got there */
	unsigned long emptied;		/* removed while it read them: cut short */
};

/* Start at the oldest segment of the log in @path: 0 or a negative errno. */
int log_cursor_open(struct log_cursor *c, const char *path);

/* Go on from the start of segment @seg (of a cursor not yet read). */
void log_cursor_from(struct log_cursor *c, unsigned long seg);

/*
 * The next line, without its newline, in c->line: 1, or 0 when there is
 * none yet (the end of the newest segment, or a line being written), or
 * a negative errno.
 */
int log_next(struct log_cursor *c);

void log_cursor_close(struct log_cursor *c);

/*
 * The numbers of the segments in @dir, oldest first, in *@segs (malloc()ed)
 * and their count in *@n: 0 or a negative errno.
 */
int log_segments(int dir, unsigned long **segs, size_t *n);

/* All of segment @seg of @dir into @out: 0 or a negative errno. */
int log_read_segment(int dir, unsigned long seg, struct strbuf *out);

#endif
