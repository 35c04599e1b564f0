// SPDX-License-Identifier: GPL-2.0
/*
 * The users' logs sink: each user's own records, in
 * /var/log/krsi/uid/UID/log.N, theirs to read (krsi events --mine, krsi
 * why), for at most MAX_USERS users, each made at the user's first
 * record.  Before a user's first denial by a load, the load's origin
 * record goes there too, so that krsi why, which reads only the user's
 * log, can say who attached what denied them.  A copy is a convenience:
 * root's log has every record, so a user's log that cannot be written,
 * or a copy without memory, is said in root's log and holds nothing back:
 * while a user's log cannot be written, the lines that do not fit in
 * what it holds are not copied there, and how many is said once it can.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "auditlog.h"
#include "errname.h"
#include "logd.h"

/* 2 segments of 512 KB each (8 MB for MAX_USERS users). */
#define USER_SEGMENT_SIZE	(512 << 10)
#define USER_SEGMENTS		2
/* Room for two lines, and READER_ROOM more, per user, taken at start. */
#define USER_LOG_ROOM		(2 * LINE_MAX_BYTES + READER_ROOM)

struct user_log {
	uid_t uid;
	struct log_writer w;
	int err;		/* its last write failed: the errno */
	unsigned long skipped;	/* lines not copied since */
	bool rotate_failed;	/* this round */
};

static struct {
	struct user_log users[MAX_USERS];
	size_t nr_users;
	/* Each user's log's memory, taken at start, given when it is opened. */
	struct strbuf room[MAX_USERS];
	bool full;		/* said once */
	unsigned long copies_lost;	/* copies without memory */
} ul;

int user_logs_open(void)
{
	return mkdir(KRSI_USER_LOG_DIR, 0755) && errno != EEXIST ? -errno : 0;
}

int user_logs_reserve(void)
{
	size_t i;

	for (i = 0; i < MAX_USERS; i++)
		if (!sb_reserve(&ul.room[i], USER_LOG_ROOM))
			return -ENOMEM;
	return 0;
}

/* @uid's own log, opened (made) the first time: NULL when full. */
static struct user_log *user_log(uid_t uid)
{
	struct user_log *u = &ul.users[ul.nr_users];
	char path[64];
	size_t i;
	int err;

	if (!uid || uid == OTHER_UIDS)
		return NULL;	/* root reads the whole log */
	for (i = 0; i < ul.nr_users; i++)
		if (ul.users[i].uid == uid)
			return &ul.users[i];
	if (ul.nr_users == MAX_USERS) {
		if (!ul.full) {
			ul.full = true;
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
	log_give_room(&u->w, &ul.room[ul.nr_users]);
	u->uid = uid;
	ul.nr_users++;
	return u;
}

/* Each user's failed rotation is said once a round, apart from the others'. */
static void users_round(void)
{
	size_t i;

	for (i = 0; i < ul.nr_users; i++)
		ul.users[i].rotate_failed = false;
}

/* Opened once per record, before its line is made: a first record of a
 * user may log that their log could not be made.
 */
static void users_prepare(const struct event_view *v, void **dest)
{
	*dest = user_log(v->uid);
}

/*
 * Not while the log cannot be written: a rotation writes what is pending
 * first, and would fail, and say so, on every round until it can.
 */
static bool users_rotate(const struct event_view *v, size_t len, void *dest)
{
	struct user_log *u = dest;

	return u && !u->err && log_rotated(&u->w, len, v->uid, &u->rotate_failed);
}

/* The bytes a line of @len takes in a user's log, its load's origin too. */
static size_t user_line_bytes(size_t len, size_t keep,
			      const struct origin_copy *copy)
{
	return len + keep + (copy ? copy->line.len : 0);
}

/*
 * Room for the line and its load's origin record.  A log that cannot be
 * written has none to give: its lines are not copied (users_write())
 * rather than the rings held back.
 */
static int users_room(size_t len, size_t keep, const struct origin_copy *copy,
		      void *dest)
{
	struct user_log *u = dest;
	int err;

	if (!u)
		return 0;
	err = buf_takes(&u->w.pending, user_line_bytes(len, keep, copy));
	return err && u->err ? 0 : err;
}

/* Before a user's first denial by a load, the load's origin record. */
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
		ul.copies_lost++;
		return;
	}
	copy->uids[copy->nr_uids++] = v->uid;
}

static void users_write(const struct event_view *v, const struct strbuf *line,
			struct origin_copy *copy, void *dest)
{
	struct user_log *u = dest;

	if (!u)
		return;
	/* No allocation: a log that cannot be written skips what does not fit. */
	if (sb_room(&u->w.pending) < user_line_bytes(line->len, 0, copy)) {
		u->skipped++;
		return;
	}
	copy_origin(&u->w, v, copy);
	if (!log_append(&u->w, line->buf, line->len))
		ul.copies_lost++;
}

/*
 * Never holds records back: what it could not write is said in root's
 * log, once when a user's log stops taking its lines, and once when it
 * takes them again, with how many it missed.  A line cut by the failed
 * write stays pending, and is finished first.
 */
static int users_flush(void)
{
	size_t i;
	int err;

	for (i = 0; i < ul.nr_users; i++) {
		struct user_log *u = &ul.users[i];

		err = log_flush(&u->w);
		if (err && !u->err)
			emit_reader("error", u->uid, "uid/%u/log.%lu: %s: the user's "
				    "records are not copied there while it cannot be "
				    "written (this log has them)", (unsigned)u->uid,
				    u->w.seg, errname(-err));
		else if (!err && u->err)
			emit_reader("error", u->uid, "uid/%u/log.%lu written again: %lu "
				    "records were not copied there (this log has them)",
				    (unsigned)u->uid, u->w.seg, u->skipped);
		if (!err)
			u->skipped = 0;
		u->err = err;
	}
	if (ul.copies_lost) {
		emit_reader("error", 0, "no memory: %lu records not copied to "
			    "their users' logs (they are in this one)",
			    ul.copies_lost);
		ul.copies_lost = 0;
	}
	return 0;
}

const struct sink user_logs_sink = {
	.round = users_round,
	.prepare = users_prepare,
	.rotate = users_rotate,
	.room = users_room,
	.write = users_write,
	.flush = users_flush,
};
