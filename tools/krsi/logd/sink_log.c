// SPDX-License-Identifier: GPL-2.0
/*
 * The log sink: root's log, /var/log/krsi/log.N, which has every record.
 * It is the sink the rings wait for: records leave them only once it has
 * written them.  It is rotated into segments of a fixed size, the oldest
 * removed, each rotation a record of its own (log_rotated(), which the
 * users' logs share).
 */
#include <errno.h>
#include <stdio.h>

#include "auditlog.h"
#include "errname.h"
#include "logd.h"

/* 8 segments of 4 MB, some 150,000 records of 200 bytes. */
#define SEGMENT_SIZE		(4 << 20)
#define SEGMENTS		8
/*
 * The memory taken at start: room for four lines, and READER_ROOM more
 * for the reader's own records of a round.
 */
#define LOG_ROOM		(4 * LINE_MAX_BYTES + READER_ROOM)

static struct {
	struct log_writer w;
	bool rotate_failed;	/* this round */
} root;

int root_log_open(void)
{
	return log_open(&root.w, KRSI_LOG_DIR, 0755, 0600, 0, SEGMENT_SIZE,
			SEGMENTS);
}

int root_log_reserve(void)
{
	struct strbuf room = { 0 };

	if (!sb_reserve(&room, LOG_ROOM))
		return -ENOMEM;
	log_give_room(&root.w, &room);
	sb_free(&room);
	return 0;
}

bool root_log_pending(void)
{
	return root.w.pending.len;
}

bool log_rotated(struct log_writer *w, size_t len, uid_t uid, bool *failed)
{
	unsigned long removed, seg = w->seg;
	char name[32];
	int err;

	if (*failed || !log_full(w, len))
		return false;
	err = log_rotate(w, &removed);
	name[0] = '\0';
	if (uid)
		snprintf(name, sizeof(name), "uid/%u/", (unsigned)uid);
	if (w->seg == seg) {
		*failed = true;
		emit_reader("error", uid, "rotate %slog.%lu: %s", name, seg,
			    errname(-err));
		return false;
	}
	if (removed)
		emit_reader("rotate", uid, "%slog.%lu begun, %slog.%lu removed",
			    name, w->seg, name, removed);
	else if (!err)
		emit_reader("rotate", uid, "%slog.%lu begun", name, w->seg);
	if (err)
		emit_reader("error", uid, "%slog.%lu begun, removing the oldest: %s",
			    name, w->seg, errname(-err));
	return true;
}

static void root_round(void)
{
	root.rotate_failed = false;
}

static bool root_rotate(const struct event_view *v, size_t len, void *dest)
{
	(void)v;
	(void)dest;
	return log_rotated(&root.w, len, 0, &root.rotate_failed);
}

static int root_room(size_t len, size_t keep, const struct origin_copy *copy,
		     void *dest)
{
	(void)copy;
	(void)dest;
	return buf_takes(&root.w.pending, len + keep);
}

static void root_write(const struct event_view *v, const struct strbuf *line,
		       struct origin_copy *copy, void *dest)
{
	(void)v;
	(void)copy;
	(void)dest;
	log_append(&root.w, line->buf, line->len);
}

/* 0 once it has it all, or its negative errno: then nothing is consumed. */
static int root_flush(void)
{
	return log_flush(&root.w);
}

const struct sink root_log_sink = {
	.round = root_round,
	.rotate = root_rotate,
	.room = root_room,
	.write = root_write,
	.flush = root_flush,
};
