// SPDX-License-Identifier: GPL-2.0
/*
 * The logs sink: root's log, /var/log/krsi/log.N, which has every
 * record, and each user's own, /var/log/krsi/uid/UID/log.N, with the
 * records about that user, theirs to read (krsi events --mine, krsi
 * why).  Each is rotated into segments of a fixed size, the oldest
 * removed, each rotation a record of its own.  Root's log is the one
 * the rings wait for: records leave them only once it has them; a
 * user's log that cannot be written is said in root's.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "auditlog.h"
#include "errname.h"
#include "logd.h"

/* The log: 8 segments of 4 MB, some 150,000 records of 200 bytes. */
#define SEGMENT_SIZE		(4 << 20)
#define SEGMENTS		8
/* Each user's own: 2 segments of 512 KB, for at most 8 users (40 MB in all). */
#define USER_SEGMENT_SIZE	(512 << 10)
#define USER_SEGMENTS		2
/*
 * The memory taken at start: room for four lines in root's log, two in
 * each user's, and READER_ROOM more in each for the reader's own records
 * of a round.
 */
#define LOG_ROOM		(4 * LINE_MAX_BYTES + READER_ROOM)
#define USER_LOG_ROOM		(2 * LINE_MAX_BYTES + READER_ROOM)

struct user_log {
	uid_t uid;
	struct log_writer w;
};

static struct {
	struct log_writer root;
	struct user_log users[MAX_USERS];
	size_t nr_users;
	/* Each user's log's memory, taken at start, given when it is opened. */
	struct strbuf user_room[MAX_USERS];
	bool users_full;	/* said once */
	bool rotate_failed;	/* this round */
	unsigned long copies_lost;	/* users' copies without memory */
} logs;

int logs_open(void)
{
	int err = log_open(&logs.root, KRSI_LOG_DIR, 0755, 0600, 0, SEGMENT_SIZE,
			   SEGMENTS);

	if (!err && mkdir(KRSI_USER_LOG_DIR, 0755) && errno != EEXIST)
		err = -errno;
	return err;
}

int logs_reserve(void)
{
	struct strbuf room = { 0 };
	size_t i;

	if (!sb_reserve(&room, LOG_ROOM))
		return -ENOMEM;
	log_give_room(&logs.root, &room);
	sb_free(&room);
	for (i = 0; i < MAX_USERS; i++)
		if (!sb_reserve(&logs.user_room[i], USER_LOG_ROOM))
			return -ENOMEM;
	return 0;
}

void logs_round(void)
{
	logs.rotate_failed = false;
}

bool logs_pending(void)
{
	return logs.root.pending.len;
}

/* @uid's own log, opened (made) the first time: NULL when full. */
static struct log_writer *user_log(uid_t uid)
{
	struct user_log *u = &logs.users[logs.nr_users];
	char path[64];
	size_t i;
	int err;

	if (!uid || uid == OTHER_UIDS)
		return NULL;	/* root reads the whole log */
	for (i = 0; i < logs.nr_users; i++)
		if (logs.users[i].uid == uid)
			return &logs.users[i].w;
	if (logs.nr_users == MAX_USERS) {
		if (!logs.users_full) {
			logs.users_full = true;
			emit_reader("error", 0, "%d users have a log of their own: "
				    "no more are made (uid %u)", MAX_USERS, (unsigned)uid);
		}
		return NULL;
	}
	snprintf(path, sizeof(path), KRSI_USER_LOG_DIR "/%u", (unsigned)uid);
	err = log_open(&u->w, path, 0500, 0400, uid, USER_SEGMENT_SIZE,
		       USER_SEGMENTS);
	if (err) {
		emit_reader("error", 0, "%s: %s", path, errname(-err));
		return NULL;
	}
	/* The memory its lines need was taken at start. */
	log_give_room(&u->w, &logs.user_room[logs.nr_users]);
	u->uid = uid;
	logs.nr_users++;
	return &u->w;
}

static void logs_prepare(const struct event_view *v, void **dest)
{
	*dest = user_log(v->uid);
}

/*
 * Begin @w's next segment if a line of @len bytes would not fit, and log
 * that: true if it did.  A rotation that fails is logged once a round,
 * and the line goes into the segment it was for.
 */
static bool rotated(struct log_writer *w, size_t len, uid_t uid)
{
	unsigned long removed, seg = w->seg;
	char name[32];
	int err;

	if (logs.rotate_failed || !log_full(w, len))
		return false;
	err = log_rotate(w, &removed);
	name[0] = '\0';
	if (uid)
		snprintf(name, sizeof(name), "uid/%u/", (unsigned)uid);
	if (w->seg == seg) {
		logs.rotate_failed = true;
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

static bool logs_rotate(const struct event_view *v, size_t len, void *dest)
{
	return rotated(&logs.root, len, 0) || (dest && rotated(dest, len, v->uid));
}

/* The user's log keeps room for its load's origin record too. */
static int logs_room(size_t len, size_t keep, const struct origin_copy *copy,
		     void *dest)
{
	struct log_writer *mine = dest;
	int err = buf_takes(&logs.root.pending, len + keep);

	if (!err && mine)
		err = buf_takes(&mine->pending, len + keep +
				(copy ? copy->line.len : 0));
	return err;
}

/*
 * Before a user's first denial by a load, the load's origin record in the
 * user's own log, as the log has it: krsi why, which reads only the
 * user's log, can then say who attached what denied them.
 */
static void copy_origin(struct log_writer *mine, const struct event_view *v,
			struct origin_copy *copy)
{
	size_t i;

	if (!copy || !copy->line.len ||
	    (v->type != EVENT_DENY && v->type != EVENT_WOULD_DENY))
		return;
	for (i = 0; i < copy->nr_uids; i++)
		if (copy->uids[i] == v->uid)
			return;
	if (i == MAX_USERS)
		return;
	if (!log_append(mine, copy->line.buf, copy->line.len)) {
		logs.copies_lost++;
		return;
	}
	copy->uids[copy->nr_uids++] = v->uid;
}

static void logs_write(const struct event_view *v, const struct strbuf *line,
		       struct origin_copy *copy, void *dest)
{
	struct log_writer *mine = dest;

	log_append(&logs.root, line->buf, line->len);
	if (!mine)
		return;
	copy_origin(mine, v, copy);
	if (!log_append(mine, line->buf, line->len))
		logs.copies_lost++;
}

/*
 * Root's log first: 0 once it has it all, or its negative errno.  A
 * user's log that fails, or copies without memory, are said in root's.
 */
static int logs_flush(void)
{
	int err = log_flush(&logs.root), e;
	size_t i;

	for (i = 0; i < logs.nr_users; i++)
		if ((e = log_flush(&logs.users[i].w)))
			emit_reader("error", logs.users[i].uid, "uid/%u/log.%lu: %s",
				    (unsigned)logs.users[i].uid, logs.users[i].w.seg,
				    errname(-e));
	if (logs.copies_lost) {
		emit_reader("error", 0, "no memory: %lu records not copied to "
			    "their users' logs (they are in this one)",
			    logs.copies_lost);
		logs.copies_lost = 0;
	}
	return err;
}

const struct sink logs_sink = {
	.prepare = logs_prepare,
	.rotate = logs_rotate,
	.room = logs_room,
	.write = logs_write,
	.flush = logs_flush,
};
