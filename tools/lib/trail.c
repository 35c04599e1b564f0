// SPDX-License-Identifier: GPL-2.0
/*
 * trail_verify(): the check of a host's copy of the audit stream
 * (trail.h).  The file is input that may be anything: a line is read
 * whole whatever its length, parsed from a copy, and a position that
 * asks for many keys to be computed is only followed so far.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "event_format.h"
#include "seal.h"
#include "strbuf.h"
#include "trail.h"

/* A sealed line further ahead than this is not followed: 16 M lines,
 * some 3 GB of stream, a second of SHA-256 at most.
 */
#define MAX_SKIP	(1UL << 24)
/* Keys kept every so many positions, so that finding the key of any
 * position costs at most this many steps once they are made: a file of
 * lines with made-up positions costs what one line far ahead costs.
 */
#define MARK_EVERY	4096

struct stream {
	bool open, ended, has_seq;
	unsigned long first_line, records;
	unsigned long long next;		/* the position expected */
	unsigned long long last_seq;		/* of the last record */
	uint8_t key[SEAL_KEY_LEN];		/* that position's key */
	uint8_t (*marks)[SEAL_KEY_LEN];		/* key of MARK_EVERY * i */
	size_t nr_marks;
};

struct verify {
	const char *name;
	FILE *out;
	const struct trail_options *o;
	struct trail_counts *c;
	unsigned long line;
	struct stream s;
	struct strbuf copy;
	int err;		/* no memory */
};

__attribute__((format(printf, 2, 3)))
static void say(struct verify *v, const char *fmt, ...)
{
	va_list ap;

	fprintf(v->out, "%s:%lu: ", v->name, v->line);
	va_start(ap, fmt);
	vfprintf(v->out, fmt, ap);
	va_end(ap);
	fputc('\n', v->out);
}

/*
 * Whether @e (NULL: the line is no record) is the reader's record
 * @event; for "seal", its key into @key.
 */
static bool reader_event(const struct event_view *e, const char *event,
			 uint8_t key[SEAL_KEY_LEN])
{
	bool is = e && e->policy.len == 6 && !memcmp(e->policy.s, "reader", 6) &&
		  e->event.len == strlen(event) &&
		  !memcmp(e->event.s, event, e->event.len);

	if (is && key)
		is = e->what.len == 2 * SEAL_KEY_LEN &&
		     !seal_unhex(e->what.s, SEAL_KEY_LEN, key);
	return is;
}

/* The stream as it stands when another begins, or the file ends. */
static void end_stream(struct verify *v, bool at_eof)
{
	struct stream *s = &v->s;

	if (!s->open)
		return;
	if (!s->ended) {
		v->c->cut++;
		say(v, "cut: the stream begun at line %lu %s after position %llu "
		    "without the reader's stop record: the stream stopped there, "
		    "or the machine did", s->first_line,
		    at_eof ? "ends" : "stops", s->next - 1);
	}
	/* What the machine did after the host had its stop record. */
	if (at_eof && s->ended && v->o->one_boot && v->o->ran_s > TRAIL_STOP_GRACE_S) {
		v->c->ran_on++;
		say(v, "ran on: the machine ran %.0f s after the reader's stop record "
		    "reached the host: what ran then is in no log", v->o->ran_s);
	}
	if (at_eof && v->o->one_boot && v->o->silent_s > 0) {
		v->c->silent++;
		say(v, "silent: the host heard nothing on the stream for %.0f s while "
		    "the machine ran", v->o->silent_s);
	}
	fprintf(v->out, "%s: the stream of lines %lu to %lu: %llu lines sealed, "
		"%lu records, %s", v->name, s->first_line,
		v->line - !at_eof, s->next, s->records,
		s->ended ? "ends with the reader's stop record" : "CUT");
	if (at_eof && s->ended && v->o->one_boot && v->o->ran_s >= 0)
		fprintf(v->out, " (the machine stopped %.1f s after it reached the host)",
			v->o->ran_s);
	fputc('\n', v->out);
	v->c->records += s->records;
	free(s->marks);
	memset(s, 0, sizeof(*s));
}

static void begin_stream(struct verify *v, const char *line, size_t covered,
			 const uint8_t mac[SEAL_MAC_LEN],
			 const uint8_t key[SEAL_KEY_LEN])
{
	struct stream *s = &v->s;

	if (!seal_check(key, line, covered, mac)) {
		v->c->forged++;
		say(v, "forged: a key line whose seal is not its key's");
		return;
	}
	if (s->open && !s->ended) {
		v->c->begun++;
		say(v, "begun: a new stream while the one of line %lu had not "
		    "ended: a forged key, or a boot after a cut", s->first_line);
	} else if (v->o->one_boot && v->c->streams) {
		v->c->begun++;
		say(v, "begun: a second stream in one boot's trail: a forged key");
	}
	end_stream(v, false);
	v->c->streams++;
	s->marks = malloc(sizeof(*s->marks));
	if (!s->marks) {
		v->err = -ENOMEM;
		return;
	}
	memcpy(s->marks[0], key, SEAL_KEY_LEN);
	s->nr_marks = 1;
	s->open = true;
	s->first_line = v->line;
	memcpy(s->key, key, SEAL_KEY_LEN);
	seal_evolve(s->key);
	s->next = 1;
}

/* The key of position @pos into @key, from the nearest mark: 0 or -ENOMEM. */
static int key_at(struct stream *s, unsigned long long pos, uint8_t key[SEAL_KEY_LEN])
{
	size_t want = pos / MARK_EVERY + 1;
	unsigned long long i;

	if (want > s->nr_marks) {
		uint8_t (*grown)[SEAL_KEY_LEN] = realloc(s->marks, want * sizeof(*s->marks));

		if (!grown)
			return -ENOMEM;
		s->marks = grown;
		for (; s->nr_marks < want; s->nr_marks++) {
			memcpy(grown[s->nr_marks], grown[s->nr_marks - 1], SEAL_KEY_LEN);
			for (i = 0; i < MARK_EVERY; i++)
				seal_evolve(grown[s->nr_marks]);
		}
	}
	memcpy(key, s->marks[want - 1], SEAL_KEY_LEN);
	for (i = 0; i < pos % MARK_EVERY; i++)
		seal_evolve(key);
	return 0;
}

/* Whether @line is sealed as position @pos: 1, 0, or -ENOMEM. */
static int sealed_as(struct stream *s, const char *line, size_t covered,
		     unsigned long long pos, const uint8_t mac[SEAL_MAC_LEN],
		     uint8_t key[SEAL_KEY_LEN])
{
	int err = pos == s->next ? (memcpy(key, s->key, SEAL_KEY_LEN), 0) :
		  key_at(s, pos, key);

	return err ? err : seal_check(key, line, covered, mac);
}

/*
 * The records of a stream follow each other by their numbers: a record
 * the reader logged but did not stream (its port was down, or it had no
 * memory for the line) is missing from the copy, though no position is.
 * Those of the @dropped positions just before this line are counted
 * there already.
 */
static void check_seq(struct verify *v, const struct event_view *e,
		      unsigned long long dropped)
{
	struct stream *s = &v->s;

	if (!e || !e->has_seq)
		return;
	if (s->has_seq && e->seq > s->last_seq + 1 + dropped) {
		v->c->missing += e->seq - s->last_seq - 1 - dropped;
		say(v, "missing: records %llu to %llu are not in this copy%s "
		    "(the guest's log has them)", s->last_seq + 1, e->seq - 1,
		    dropped ? ", the dropped lines' among them" : "");
	}
	if (!s->has_seq || e->seq > s->last_seq)
		s->last_seq = e->seq;
	s->has_seq = true;
}

/* @line, whose record is @e (NULL: it is none), against the stream. */
static void check_sealed(struct verify *v, const char *line, size_t len,
			 const struct event_view *e)
{
	struct stream *s = &v->s;
	uint8_t mac[SEAL_MAC_LEN], key[SEAL_KEY_LEN];
	unsigned long long pos, skipped;
	size_t covered;
	int sealed;

	if (seal_parse(line, len, &pos, mac, &covered)) {
		v->c->forged++;
		say(v, "forged: a line without a seal");
		return;
	}
	if (pos == 0 && reader_event(e, "seal", key)) {
		begin_stream(v, line, covered, mac, key);
		return;
	}
	if (!s->open) {
		v->c->forged++;
		say(v, "forged: position %llu before any key line", pos);
		return;
	}
	if (pos < s->next) {
		sealed = sealed_as(s, line, covered, pos, mac, key);
		if (sealed < 0) {
			v->err = sealed;
			return;
		}
		if (sealed) {
			v->c->replayed++;
			say(v, "replayed: position %llu again, after %llu: a line of "
			    "this stream out of its place", pos, s->next - 1);
		} else {
			v->c->forged++;
			say(v, "forged: position %llu (after %llu), not sealed as such",
			    pos, s->next - 1);
		}
		return;
	}
	if (pos - s->next > MAX_SKIP) {
		v->c->forged++;
		say(v, "forged: position %llu, %llu after the one expected",
		    pos, pos - s->next);
		return;
	}
	sealed = sealed_as(s, line, covered, pos, mac, key);
	if (sealed < 0) {
		v->err = sealed;
		return;
	}
	if (!sealed) {
		v->c->forged++;
		say(v, "forged: position %llu, not sealed as such: a line made or "
		    "changed without the key", pos);
		return;
	}
	skipped = pos - s->next;
	if (pos > s->next) {
		v->c->dropped += pos - s->next;
		say(v, "dropped: %llu lines missing before this one (positions "
		    "%llu to %llu)", pos - s->next, s->next, pos - 1);
	}
	if (s->ended) {
		v->c->forged++;
		say(v, "after the end: position %llu follows the reader's stop record", pos);
	}
	memcpy(s->key, key, SEAL_KEY_LEN);
	seal_evolve(s->key);
	s->next = pos + 1;
	memset(key, 0, sizeof(key));
	if (reader_event(e, "stop", NULL)) {
		s->ended = true;
	} else if (!reader_event(e, "beat", NULL)) {
		s->records++;
	}
	if ((reader_event(e, "stop", NULL) || reader_event(e, "beat", NULL)) &&
	    memmem(e->what.s, e->what.len, TRAIL_HELD_MARK, strlen(TRAIL_HELD_MARK))) {
		v->c->withheld++;
		say(v, "withheld: the reader holds records back, not logged: \"%.*s\"",
		    (int)(e->what.len > 300 ? 300 : e->what.len), e->what.s);
	}
	check_seq(v, e, skipped);
}

/* One line: its record read once (from a copy: parsing decodes in place). */
static void check_line(struct verify *v, const char *line, size_t len)
{
	struct event_view e;
	bool parsed;

	sb_reset(&v->copy);
	sb_put(&v->copy, line, len);
	parsed = !v->copy.failed && !event_parse(v->copy.buf, v->copy.len, &e);
	check_sealed(v, line, len, parsed ? &e : NULL);
	if (parsed)
		event_view_free(&e);
}

int trail_verify(FILE *in, const char *name, FILE *out,
		 const struct trail_options *o, struct trail_counts *c)
{
	struct verify v = { .name = name, .out = out, .o = o, .c = c };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	memset(c, 0, sizeof(*c));
	while (!v.err && (n = getline(&line, &cap, in)) > 0) {
		v.line++;
		c->lines++;
		if (line[n - 1] != '\n') {
			c->forged++;
			say(&v, "forged: the last line is cut short (no newline)");
			break;
		}
		check_line(&v, line, n - 1);
	}
	if (ferror(in))
		err = -EIO;
	else if (v.err)
		err = v.err;
	else if (!c->streams && !c->forged) {
		c->cut++;
		fprintf(out, "%s: no stream: not a single key line\n", name);
	}
	end_stream(&v, true);
	free(line);
	sb_free(&v.copy);
	if (err)
		return err;
	return c->forged || c->dropped || c->replayed || c->missing || c->cut ||
	       c->begun || c->withheld || c->ran_on || c->silent;
}
