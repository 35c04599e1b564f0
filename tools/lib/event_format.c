// SPDX-License-Identifier: GPL-2.0
#include "event_format.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errname.h"

struct out {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < o->size - o->len ? (size_t)n : o->size - o->len - 1;
}

/* @len bytes of @s up to its first NUL, with unprintable bytes as '?'. */
static void put_str(struct out *o, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i] && o->len + 1 < o->size; i++) {
		unsigned char c = s[i];

		o->buf[o->len++] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	o->buf[o->len] = '\0';
}

/* The bytes of data the record says it used, no more than it has. */
static size_t used_data(const struct krsi_event *ev)
{
	return ev->data_len < sizeof(ev->data) ? ev->data_len : sizeof(ev->data);
}

/*
 * An exec record's data: the file, NUL, its interpreter or nothing, NUL,
 * then the argument strings, which stop at argc (the environment follows
 * them on the stack).  exec_part() gives the part that starts at *@at and
 * its length, and moves *@at past it; NULL once the data is used up.
 */
static const char *exec_part(const struct krsi_event *ev, size_t data_len,
			     size_t *at, size_t *len)
{
	const char *part = ev->data + *at;

	if (*at >= data_len)
		return NULL;
	*len = strnlen(part, data_len - *at);
	*at += *len + 1;
	return part;
}

size_t event_format(const struct krsi_event *ev, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	size_t data_len = used_data(ev), at = 0, n = 0, arg;
	const char *part;

	if (!size)
		return 0;
	buf[0] = '\0';
	put(&o, "%5llu.%06llu pid %u uid %u ",
	    (unsigned long long)(ev->time_ns / 1000000000),
	    (unsigned long long)(ev->time_ns % 1000000000 / 1000),
	    ev->pid, ev->uid);
	put_str(&o, ev->comm, sizeof(ev->comm));
	put(&o, ": ");
	put_str(&o, ev->policy, sizeof(ev->policy));

	switch (ev->kind) {
	case KRSI_EVENT_EXEC:
		put(&o, " allowed exec ");
		part = exec_part(ev, data_len, &at, &n);
		put_str(&o, part ? part : "", n);
		part = exec_part(ev, data_len, &at, &n);
		if (part && n) {
			put(&o, " (interpreter ");
			put_str(&o, part, n);
			put(&o, ")");
		}
		put(&o, ":");
		for (arg = 0; arg < ev->argc &&
		     (part = exec_part(ev, data_len, &at, &n)); arg++) {
			put(&o, " ");
			put_str(&o, part, n);
		}
		break;
	case KRSI_EVENT_DENY:
	case KRSI_EVENT_WOULD_DENY:
		put(&o, " %s %s: ", ev->kind == KRSI_EVENT_DENY ? "denied" :
		    "would deny", errname(-ev->verdict));
		put_str(&o, ev->hook, sizeof(ev->hook));
		put(&o, " ");
		put_str(&o, ev->data, data_len);
		break;
	default:
		put(&o, " unknown event kind %u", ev->kind);
	}
	return o.len;
}

/*
 * @len bytes of @s up to its first NUL as a JSON string, quotes included.
 * Bytes that are not printable ASCII are escaped as \u00XX (each byte on
 * its own, as Latin-1), so the output is valid JSON and valid UTF-8
 * whatever the record holds.
 */
static void put_json_str(struct out *o, const char *s, size_t len)
{
	size_t i;

	put(o, "\"");
	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			put(o, "%c", c);
		else
			put(o, "\\u%04x", c);
	}
	put(o, "\"");
}

size_t event_format_json(const struct krsi_event *ev, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	size_t data_len = used_data(ev), at = 0, n = 0, arg;
	const char *part;

	if (!size)
		return 0;
	buf[0] = '\0';
	put(&o, "{\"time_ns\":%llu,\"pid\":%u,\"uid\":%u,\"comm\":",
	    (unsigned long long)ev->time_ns, ev->pid, ev->uid);
	put_json_str(&o, ev->comm, sizeof(ev->comm));
	put(&o, ",\"policy\":");
	put_json_str(&o, ev->policy, sizeof(ev->policy));

	switch (ev->kind) {
	case KRSI_EVENT_EXEC:
		put(&o, ",\"event\":\"exec\",\"file\":");
		part = exec_part(ev, data_len, &at, &n);
		put_json_str(&o, part ? part : "", n);
		put(&o, ",\"interpreter\":");
		part = exec_part(ev, data_len, &at, &n);
		if (part && n)
			put_json_str(&o, part, n);
		else
			put(&o, "null");
		put(&o, ",\"args\":[");
		for (arg = 0; arg < ev->argc &&
		     (part = exec_part(ev, data_len, &at, &n)); arg++) {
			put(&o, arg ? "," : "");
			put_json_str(&o, part, n);
		}
		put(&o, "]");
		break;
	case KRSI_EVENT_DENY:
	case KRSI_EVENT_WOULD_DENY:
		put(&o, ",\"event\":\"%s\",\"verdict\":\"%s\",\"hook\":",
		    ev->kind == KRSI_EVENT_DENY ? "deny" : "would_deny",
		    errname(-ev->verdict));
		put_json_str(&o, ev->hook, sizeof(ev->hook));
		put(&o, ",\"what\":");
		put_json_str(&o, ev->data, data_len);
		break;
	default:
		put(&o, ",\"event\":\"unknown\",\"kind\":%u", ev->kind);
	}
	put(&o, "}");
	/* A line cut short is not JSON: say so rather than print half. */
	if (o.len + 1 >= o.size)
		return 0;
	return o.len;
}
