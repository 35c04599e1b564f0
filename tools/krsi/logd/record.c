// SPDX-License-Identifier: GPL-2.0
/*
 * A record's line and sequence number, into every sink (root's log,
 * the users' logs, the stream to the host): a line gets its number only
 * once every sink has room for it, so that a number is used once, by one
 * line that every sink was given (a user's log that cannot be written
 * skips it, and root's log says so).  And the reader's own records, made
 * on the stack with no allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "logd.h"

/* The lines of the records made while one is being made (a rotation
 * that a line needs).
 */
#define NESTED_LINES		2
#define NESTED_LINE_BYTES	event_json_max(READER_WHAT_MAX)

static const struct sink *const sinks[] = {
	&root_log_sink, &user_logs_sink, &stream_sink,
};
#define NR_SINKS	(sizeof(sinks) / sizeof(sinks[0]))

static struct {
	/* The lines of records: the one being made, and those made meanwhile. */
	struct strbuf line, nested[NESTED_LINES];
	int depth;
	unsigned long long seq;	/* the next record's */
	unsigned long lost;	/* the reader's own records without room */
} rec;

int record_reserve(void)
{
	size_t i;

	if (!sb_reserve(&rec.line, LINE_MAX_BYTES))
		return -ENOMEM;
	for (i = 0; i < NESTED_LINES; i++)
		if (!sb_reserve(&rec.nested[i], NESTED_LINE_BYTES))
			return -ENOMEM;
	return 0;
}

unsigned long long record_next_seq(void)
{
	return rec.seq;
}

void record_seq_from(unsigned long long seq)
{
	rec.seq = seq;
}

void record_lost(void)
{
	rec.lost++;
}

struct strbuf *line_get(void)
{
	struct strbuf *line;

	if (rec.depth > NESTED_LINES)
		return NULL;
	line = rec.depth ? &rec.nested[rec.depth - 1] : &rec.line;
	rec.depth++;
	return line;
}

void line_put(void)
{
	rec.depth--;
}

int buf_takes(struct strbuf *buf, size_t need)
{
	if (sb_room(buf) >= need)
		return 0;
	if (buf->len)
		return -ENOSPC;
	return sb_reserve(buf, need) ? 0 : -ENOMEM;
}

/*
 * A rotation that the line needs comes first, as a record of its own
 * (made in a line of its own: this one is in use); a record from a ring
 * leaves READER_ROOM in each sink for the reader's own records of the
 * round.
 */
int emit(struct event_view *v, bool own, struct origin_copy *copy,
	 struct strbuf *keep)
{
	void *dest[NR_SINKS] = { NULL };
	struct strbuf *line;
	bool again;
	size_t i;
	int err = 0;

	for (i = 0; i < NR_SINKS; i++)
		if (sinks[i]->prepare)
			sinks[i]->prepare(v, &dest[i]);
	line = line_get();
	if (!line)
		return -ENOMEM;
	do {
		sb_reset(line);
		v->has_seq = true;
		v->seq = rec.seq;
		event_json(v, line);
		sb_putc(line, '\n');
		again = false;
		for (i = 0; i < NR_SINKS && !again; i++)
			again = sinks[i]->rotate &&
				sinks[i]->rotate(v, line->len, dest[i]);
	} while (again);
	if (line->failed)
		err = -ENOMEM;
	for (i = 0; i < NR_SINKS && !err; i++)
		err = sinks[i]->room(line->len, own ? 0 : READER_ROOM, copy, dest[i]);
	if (!err) {
		/* Each takes it: nothing here allocates. */
		rec.seq++;
		for (i = 0; i < NR_SINKS; i++)
			sinks[i]->write(v, line, copy, dest[i]);
		if (keep) {
			sb_reset(keep);
			sb_put(keep, line->buf, line->len);
		}
	}
	line_put();
	return err;
}

void reader_view(struct event_view *v, const char *name, uid_t uid,
		 const char *what)
{
	memset(v, 0, sizeof(*v));
	v->type = EVENT_READER;
	v->time_ns = boot_ns();
	v->pid = getpid();
	v->uid = uid;
	v->comm = cstr("krsi");
	v->policy = cstr("reader");
	v->event = cstr(name);
	v->what = cstr(what);
}

/* Cut to READER_WHAT_MAX bytes. */
void emit_reader(const char *name, uid_t uid, const char *fmt, ...)
{
	char what[READER_WHAT_MAX];
	struct event_view v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	reader_view(&v, name, uid, what);
	/* No room for it: counted, and said once there is (sinks_flush()). */
	if (emit(&v, true, NULL, NULL))
		rec.lost++;
}

void sinks_round(void)
{
	size_t i;

	for (i = 0; i < NR_SINKS; i++)
		if (sinks[i]->round)
			sinks[i]->round();
}

/*
 * The reader's own records that had no room are said first, then every
 * sink writes, in order: what root's log says of the users' logs is on
 * the stream in the same round.
 */
int sinks_flush(void)
{
	int err = 0, e;
	size_t i;

	if (rec.lost) {
		unsigned long lost = rec.lost;

		rec.lost = 0;
		emit_reader("error", 0, "no memory: %lu records of the reader's own "
			    "were not logged", lost);
		if (rec.lost)	/* nor that one: keep the count */
			rec.lost = lost;
	}
	for (i = 0; i < NR_SINKS; i++) {
		e = sinks[i]->flush();
		if (e && !err)
			err = e;
	}
	return err;
}
