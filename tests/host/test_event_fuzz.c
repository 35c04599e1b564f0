// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzing tools/lib/event_format.c and event_parse.c on the host, under
 * ASan and UBSan (the Makefile builds host tests so): random and maximal
 * kernel records must become JSON lines that parse back to the same
 * line; random damage to lines must be refused or parsed, never read
 * past their end.  The seed is fixed, so a failure repeats.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "event_format.h"

#define RECORDS		40000
#define MUTATIONS	100000

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static size_t below(size_t n)
{
	return n ? rnd() % n : 0;
}

/* The largest data a record can have. */
#define DATA_MAX KRSI_DATA_MAX

/* The audit reader's room for a record's arguments, taken once. */
static struct event_str args_room[KRSI_ARGS_MAX];

struct record {
	struct krsi_event ev;
	unsigned char data[DATA_MAX];
};

/* Bytes that matter to the formats: NUL, quotes, backslashes, high bytes. */
static unsigned char interesting(void)
{
	static const unsigned char bytes[] = { 0, '"', '\\', '/', '\n', 0x7f,
					       0x80, 0xff, 'a', ' ', 'u', '0' };

	return rnd() & 1 ? bytes[below(sizeof(bytes))] : (unsigned char)rnd();
}

static void random_record(struct record *r, size_t *size)
{
	size_t i, len = below(8) ? below(300) : DATA_MAX;

	memset(r, 0, sizeof(*r));
	r->ev.time_ns = rnd();
	r->ev.kind = below(5);
	r->ev.pid = rnd();
	r->ev.uid = rnd();
	r->ev.verdict = -(int)below(200);
	r->ev.argc = below(4) ? below(20) : (uint32_t)rnd();
	r->ev.flags = rnd();
	for (i = 0; i < sizeof(r->ev.comm); i++)
		r->ev.comm[i] = interesting();
	for (i = 0; i < sizeof(r->ev.policy); i++)
		r->ev.policy[i] = below(4) ? 'a' + below(26) : interesting();
	for (i = 0; i < sizeof(r->ev.hook); i++)
		r->ev.hook[i] = interesting();
	for (i = 0; i < len; i++)
		r->data[i] = interesting();
	/* Lengths that fit, and lengths that lie. */
	r->ev.data_len = below(4) ? len : (uint32_t)rnd();
	r->ev.file_len = below(4) ? below(len + 1) : (uint16_t)rnd();
	r->ev.interp_len = below(2) ? 0 : below(4) ? below(len + 1) : (uint16_t)rnd();
	*size = sizeof(r->ev) + (below(8) ? len : below(len + 1));
}

/* The biggest honest record: every part full, every byte escaped. */
static void maximal_record(struct record *r, size_t *size)
{
	size_t i;

	memset(r, 0xff, sizeof(*r));
	r->ev.kind = KRSI_EVENT_EXEC;
	r->ev.flags = KRSI_CUT_FILE | KRSI_CUT_INTERP | KRSI_CUT_ARGS;
	r->ev.file_len = KRSI_PATH_MAX - 1;
	r->ev.interp_len = KRSI_PATH_MAX - 1;
	r->ev.data_len = DATA_MAX;
	r->ev.argc = KRSI_ARGS_MAX;
	for (i = 2 * (KRSI_PATH_MAX - 1); i < DATA_MAX; i += 2)
		r->data[i] = '\0';	/* 2048 one-byte arguments */
	*size = sizeof(*r);
}

/*
 * @r as JSON, parsed back and written again: the same line.  Returns the
 * line (the caller frees it) for the mutation round, or NULL.
 */
static char *round_trip(const struct record *r, size_t size, size_t *len)
{
	struct strbuf json = { 0 }, again = { 0 }, text = { 0 };
	struct event_view v, back;
	char *copy = NULL;
	bool ok;

	if (event_from_record(r, size, &v, args_room, KRSI_ARGS_MAX))
		return NULL;	/* shorter than a header: nothing to show */
	v.has_seq = true;
	v.seq = rnd();
	event_json(&v, &json);
	event_text(&v, &text);
	ok = !json.failed && !text.failed && !memchr(json.buf, '\n', json.len) &&
	     !memchr(text.buf, '\n', text.len);
	/* Within what the reader reserves for a line of that much data. */
	if (json.len > event_json_max(size - sizeof(r->ev))) {
		check(false, "a record of %zu bytes of data made a line of %zu bytes, "
		      "over the bound of %zu", size - sizeof(r->ev), json.len,
		      event_json_max(size - sizeof(r->ev)));
		ok = false;
	}
	copy = ok ? strdup(json.buf) : NULL;
	if (copy && !event_parse(copy, json.len, &back)) {
		event_json(&back, &again);
		ok = again.len == json.len && !memcmp(again.buf, json.buf, json.len);
		event_view_free(&back);
	} else {
		ok = false;
	}
	if (!ok)
		check(false, "round trip of a record: '%.200s' came back '%.200s'",
		      json.buf ? json.buf : "", again.buf ? again.buf : "");
	free(copy);
	*len = json.len;
	sb_free(&again);
	sb_free(&text);
	if (!ok) {
		sb_free(&json);
		return NULL;
	}
	return json.buf;
}

/* Damage @line at random: refused, or parsed and shown. */
static bool mutate_once(const char *line, size_t len)
{
	size_t n = len + 8, at, i, rounds = 1 + below(4);
	char *buf = malloc(n);
	struct event_view v;
	bool ok = true;

	if (!buf)
		return false;
	memcpy(buf, line, len);
	n = len;
	for (i = 0; i < rounds && n; i++) {
		at = below(n);
		switch (below(3)) {
		case 0: buf[at] = interesting(); break;		/* change */
		case 1: n = at; break;				/* cut */
		case 2: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;
		}
	}
	/* Exactly n bytes, no NUL after them: reading past is ASan's. */
	{
		char *exact = malloc(n ? n : 1);

		if (exact) {
			memcpy(exact, buf, n);
			if (!event_parse(exact, n, &v)) {
				struct strbuf out = { 0 };

				event_json(&v, &out);
				event_text(&v, &out);
				ok = !out.failed;
				event_view_free(&v);
				sb_free(&out);
			}
			free(exact);
		}
	}
	free(buf);
	return ok;
}

int main(void)
{
	size_t i, len, bad = 0, shown = 0, kept = 0;
	static struct record r;
	char *lines[64] = { 0 };
	size_t lens[64] = { 0 };

	printf("# seed 0x%llx\n", (unsigned long long)state);
	for (i = 0; i < RECORDS; i++) {
		size_t size;
		char *line;

		random_record(&r, &size);
		line = round_trip(&r, size, &len);
		if (!line)
			continue;
		shown++;
		/* Keep some lines for the mutation round. */
		if (kept < 64) {
			lines[kept] = line;
			lens[kept++] = len;
		} else {
			free(line);
		}
	}
	check(shown > RECORDS / 2, "%zu random records round-tripped, none differed", shown);

	maximal_record(&r, &len);
	{
		char *line = round_trip(&r, len, &len);

		check(line && len > 6 * 2 * (KRSI_PATH_MAX - 1) &&
		      len <= event_json_max(KRSI_DATA_MAX),
		      "the maximal record: a line of %zu bytes, round-tripped, within "
		      "the reader's %zu", len, event_json_max(KRSI_DATA_MAX));
		free(line);
	}
	/* More arguments than the room: the rest cut, and marked. */
	{
		struct record big;
		struct event_view v;

		memset(&big, 0, sizeof(big));
		big.ev.kind = KRSI_EVENT_EXEC;
		big.ev.data_len = 100;
		big.ev.argc = 100;
		check(!event_from_record(&big, sizeof(big.ev) + 100, &v, args_room, 10) &&
		      v.nr_args == 10 && (v.cut & KRSI_CUT_ARGS) && v.args == args_room,
		      "100 arguments with room for 10: 10 shown, the rest marked cut");
	}

	for (i = 0; i < MUTATIONS && kept; i++)
		bad += !mutate_once(lines[i % kept], lens[i % kept]);
	check(kept && !bad, "%d damaged lines refused or shown (%zu failed)", MUTATIONS, bad);
	for (i = 0; i < kept; i++)
		free(lines[i]);
	return check_exit();
}
