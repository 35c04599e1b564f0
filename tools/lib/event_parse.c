// SPDX-License-Identifier: GPL-2.0
/*
 * event_parse(): one line of the audit log back into a view.  The log is
 * written by the audit reader alone, but a line is still read as input
 * that may be anything (a file cut short, a line made by hand): every
 * byte is checked, nothing is read past the line, and strings are
 * decoded where they stand, each no longer than its escaped form.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "event_format.h"

struct cursor {
	char *p, *end;
};

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

static bool take(struct cursor *c, char ch)
{
	skip_space(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static bool take_word(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	skip_space(c);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return false;
	c->p += n;
	return true;
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* \uXXXX: a byte below 0x100 (how the reader escapes), else UTF-8. */
static char *put_code(char *w, unsigned int u)
{
	if (u < 0x100) {
		*w++ = (char)u;
	} else if (u < 0x800) {
		*w++ = (char)(0xc0 | u >> 6);
		*w++ = (char)(0x80 | (u & 0x3f));
	} else {
		*w++ = (char)(0xe0 | u >> 12);
		*w++ = (char)(0x80 | ((u >> 6) & 0x3f));
		*w++ = (char)(0x80 | (u & 0x3f));
	}
	return w;
}

/* A JSON string, decoded in place into @s. */
static int parse_string(struct cursor *c, struct event_str *s)
{
	char *w;

	if (!take(c, '"'))
		return -EINVAL;
	s->s = w = c->p;
	while (c->p < c->end && *c->p != '"') {
		unsigned char ch = *c->p++;
		int i, d;
		unsigned int u = 0;

		if (ch < 0x20)
			return -EINVAL;		/* raw control bytes are not JSON */
		if (ch != '\\') {
			*w++ = ch;
			continue;
		}
		if (c->p == c->end)
			return -EINVAL;
		switch (ch = *c->p++) {
		case '"': case '\\': case '/': *w++ = ch; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'u':
			if (c->end - c->p < 4)
				return -EINVAL;
			for (i = 0; i < 4; i++) {
				d = hex_digit(*c->p++);
				if (d < 0)
					return -EINVAL;
				u = u << 4 | d;
			}
			w = put_code(w, u);
			break;
		default:
			return -EINVAL;
		}
	}
	if (c->p == c->end)
		return -EINVAL;
	c->p++;			/* the closing quote */
	s->len = w - s->s;
	return 0;
}

static int parse_number(struct cursor *c, unsigned long long max,
			unsigned long long *n)
{
	unsigned long long v = 0;
	const char *start;

	skip_space(c);
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned int d = *c->p++ - '0';

		if (v > (max - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (c->p == start || (c->p - start > 1 && *start == '0'))
		return -EINVAL;
	*n = v;
	return 0;
}

static int parse_uint(struct cursor *c, unsigned int *n)
{
	unsigned long long v;
	int err = parse_number(c, UINT_MAX, &v);

	if (!err)
		*n = (unsigned int)v;
	return err;
}

/* An array of strings; @add gets each one. */
static int parse_strings(struct cursor *c, struct event_view *v,
			 int (*add)(struct event_view *, struct event_str))
{
	struct event_str s;
	int err;

	if (!take(c, '['))
		return -EINVAL;
	if (take(c, ']'))
		return 0;
	do {
		err = parse_string(c, &s);
		if (!err)
			err = add(v, s);
		if (err)
			return err;
	} while (take(c, ','));
	return take(c, ']') ? 0 : -EINVAL;
}

static int add_arg(struct event_view *v, struct event_str s)
{
	struct event_str *args;

	/* Full at 0, 1, 2, 4, 8...: grown by doubling, whatever the line. */
	if (!(v->nr_args & (v->nr_args - 1))) {
		size_t cap = v->nr_args ? v->nr_args * 2 : 1;

		args = realloc(v->args, cap * sizeof(*args));
		if (!args)
			return -ENOMEM;
		v->args = args;
	}
	v->args[v->nr_args++] = s;
	return 0;
}

static int add_cut(struct event_view *v, struct event_str s)
{
	static const char *const names[] = { "file", "interpreter", "args" };
	static const unsigned int flags[] = {
		KRSI_CUT_FILE, KRSI_CUT_INTERP, KRSI_CUT_ARGS,
	};
	size_t i;

	for (i = 0; i < 3; i++)
		if (s.len == strlen(names[i]) && !memcmp(s.s, names[i], s.len)) {
			v->cut |= flags[i];
			return 0;
		}
	return -EINVAL;
}

/* Skip a value of a field this reader does not know. */
static int skip_value(struct cursor *c)
{
	unsigned long long n;
	struct event_str s;

	skip_space(c);
	if (c->p == c->end)
		return -EINVAL;
	if (*c->p == '"')
		return parse_string(c, &s);
	if (*c->p == '[') {
		/* Only arrays of strings, as this log writes. */
		struct event_view scratch = { 0 };
		int err = parse_strings(c, &scratch, add_arg);

		event_view_free(&scratch);
		return err;
	}
	if (take_word(c, "null") || take_word(c, "true") || take_word(c, "false"))
		return 0;
	return parse_number(c, ULLONG_MAX, &n);
}

/* The fields, each at most once; bit i of @seen for fields[i]. */
enum {
	F_SEQ, F_TIME, F_PID, F_UID, F_COMM, F_POLICY, F_EVENT, F_FILE,
	F_INTERP, F_ARGS, F_CUT, F_VERDICT, F_HOOK, F_WHAT, F_COUNT, F_KIND,
	F_LOAD, F_VERSION, F_PROG_ID, F_LINK_ID, F_ATTACHED_PID,
	F_ATTACHED_UID, F_ATTACHED_EXE, F_ATTACHED_NS, F_DENIED,
	F_WOULD_DENY, F_LOGGED, F_WHY,
	NR_FIELDS
};

static const char *const fields[NR_FIELDS] = {
	"seq", "time_ns", "pid", "uid", "comm", "policy", "event", "file",
	"interpreter", "args", "cut", "verdict", "hook", "what", "count", "kind",
	"load", "version", "prog_id", "link_id", "attached_pid",
	"attached_uid", "attached_exe", "attached_ns", "denied",
	"would_deny", "logged", "why",
};

_Static_assert(NR_FIELDS <= 32, "the fields seen are bits of an unsigned int");

/* "load": 16 hex digits, never 0. */
static int parse_load(struct cursor *c, struct event_view *v)
{
	struct event_str s;
	char hex[17], *end;
	int err = parse_string(c, &s);

	if (err || s.len != 16)
		return -EINVAL;
	memcpy(hex, s.s, 16);
	hex[16] = '\0';
	v->load_id = strtoull(hex, &end, 16);
	if (*end || !v->load_id || strspn(hex, "0123456789abcdef") != 16)
		return -EINVAL;
	v->has_load = true;
	return 0;
}

/* A program's or link's id, or null where the reader did not find it. */
static int parse_id(struct cursor *c, struct event_view *v, unsigned int *id)
{
	if (take_word(c, "null"))
		return 0;
	v->has_ids = true;
	return parse_uint(c, id);
}

static int field_of(struct event_str key)
{
	int i;

	for (i = 0; i < NR_FIELDS; i++)
		if (key.len == strlen(fields[i]) && !memcmp(key.s, fields[i], key.len))
			return i;
	return -1;
}

static int parse_field(struct cursor *c, struct event_view *v, int f)
{
	switch (f) {
	case F_SEQ:
		v->has_seq = true;
		return parse_number(c, ULLONG_MAX, &v->seq);
	case F_TIME: return parse_number(c, ULLONG_MAX, &v->time_ns);
	case F_COUNT: return parse_number(c, ULLONG_MAX, &v->count);
	case F_PID: return parse_uint(c, &v->pid);
	case F_UID: return parse_uint(c, &v->uid);
	case F_KIND: return parse_uint(c, &v->kind);
	case F_COMM: return parse_string(c, &v->comm);
	case F_POLICY: return parse_string(c, &v->policy);
	case F_EVENT: return parse_string(c, &v->event);
	case F_FILE: return parse_string(c, &v->file);
	case F_VERDICT: return parse_string(c, &v->verdict);
	case F_HOOK: return parse_string(c, &v->hook);
	case F_WHAT: return parse_string(c, &v->what);
	case F_INTERP:
		if (take_word(c, "null"))
			return 0;
		v->has_interpreter = true;
		return parse_string(c, &v->interpreter);
	case F_ARGS: return parse_strings(c, v, add_arg);
	case F_CUT: return parse_strings(c, v, add_cut);
	case F_LOAD: return parse_load(c, v);
	case F_VERSION: return parse_uint(c, &v->version);
	case F_PROG_ID: return parse_id(c, v, &v->prog_id);
	case F_LINK_ID: return parse_id(c, v, &v->link_id);
	case F_ATTACHED_PID: return parse_uint(c, &v->attached_pid);
	case F_ATTACHED_UID: return parse_uint(c, &v->attached_uid);
	case F_ATTACHED_EXE: return parse_string(c, &v->attached_exe);
	case F_ATTACHED_NS: return parse_number(c, ULLONG_MAX, &v->attached_ns);
	case F_DENIED: return parse_number(c, ULLONG_MAX, &v->denied);
	case F_WOULD_DENY: return parse_number(c, ULLONG_MAX, &v->would_deny);
	case F_LOGGED: return parse_number(c, ULLONG_MAX, &v->logged);
	case F_WHY: return parse_string(c, &v->why);
	}
	return -EINVAL;
}

#define IDS (1U << F_PROG_ID | 1U << F_LINK_ID)
#define ATTACHED (1U << F_ATTACHED_PID | 1U << F_ATTACHED_UID | \
		  1U << F_ATTACHED_EXE | 1U << F_ATTACHED_NS)

/* The type its "event" names, and whether the fields it needs are there. */
static int check_fields(struct event_view *v, unsigned int seen)
{
	static const struct {
		const char *name;
		enum event_type type;
		unsigned int needs;
	} types[] = {
		{ "exec", EVENT_EXEC, 1 << F_FILE | 1 << F_INTERP | 1 << F_ARGS | 1 << F_CUT },
		{ "deny", EVENT_DENY, 1 << F_VERDICT | 1 << F_HOOK | 1 << F_WHAT },
		{ "would_deny", EVENT_WOULD_DENY, 1 << F_VERDICT | 1 << F_HOOK | 1 << F_WHAT },
		{ "lost", EVENT_LOST, 1 << F_COUNT },
		{ "refused", EVENT_REFUSED, 1 << F_COUNT },
		{ "unknown", EVENT_UNKNOWN, 1 << F_KIND },
		{ "denials", EVENT_DENIALS, 1 << F_HOOK | 1 << F_LOAD | 1 << F_VERSION |
		  IDS | 1 << F_DENIED | 1 << F_WOULD_DENY | 1 << F_LOGGED | 1 << F_WHY },
		{ "origin", EVENT_ORIGIN, 1 << F_LOAD | 1 << F_VERSION | ATTACHED |
		  1 << F_WHAT },
	};
	unsigned int common = 1 << F_TIME | 1 << F_PID | 1 << F_UID |
			      1 << F_COMM | 1 << F_POLICY | 1 << F_EVENT;
	unsigned int needs = 1 << F_WHAT;	/* the reader's own events */
	size_t i;

	v->type = EVENT_READER;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (v->event.len == strlen(types[i].name) &&
		    !memcmp(v->event.s, types[i].name, v->event.len)) {
			v->type = types[i].type;
			needs = types[i].needs;
		}
	needs |= common;
	if ((seen & needs) != needs)
		return -EINVAL;
	/*
	 * A load's version comes with its id; a denial's program and link
	 * with both; who attached it only in an origin record.
	 */
	if (!(seen & 1 << F_LOAD) != !(seen & 1 << F_VERSION))
		return -EINVAL;
	if (seen & IDS && ((seen & IDS) != IDS || !(seen & 1 << F_LOAD) ||
			   v->type == EVENT_ORIGIN))
		return -EINVAL;
	if (seen & ATTACHED && v->type != EVENT_ORIGIN)
		return -EINVAL;
	return 0;
}

int event_parse(char *line, size_t len, struct event_view *v)
{
	struct cursor c = { line, line + len };
	unsigned int seen = 0;
	struct event_str key;
	int err = 0, f;

	memset(v, 0, sizeof(*v));
	if (!take(&c, '{'))
		return -EINVAL;
	if (!take(&c, '}')) {
		do {
			err = parse_string(&c, &key);
			if (err || !take(&c, ':')) {
				err = -EINVAL;
				break;
			}
			f = field_of(key);
			if (f >= 0 && (seen & (1U << f))) {
				err = -EINVAL;	/* a field given twice */
				break;
			}
			if (f >= 0)
				seen |= 1U << f;
			err = f >= 0 ? parse_field(&c, v, f) : skip_value(&c);
		} while (!err && take(&c, ','));
	}
	if (!err && !take(&c, '}'))
		err = -EINVAL;
	skip_space(&c);
	if (!err && c.p != c.end)
		err = -EINVAL;
	if (!err)
		err = check_fields(v, seen);
	if (err)
		event_view_free(v);
	return err;
}
