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

size_t event_format(const struct krsi_event *ev, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	size_t data_len = ev->data_len < sizeof(ev->data) ? ev->data_len :
			  sizeof(ev->data);
	size_t i, n, arg;

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
		/* data: the file, NUL, the interpreter or nothing, NUL, then
		 * the argument strings.
		 */
		put(&o, " allowed exec ");
		n = strnlen(ev->data, data_len);
		put_str(&o, ev->data, n);
		i = n + 1;
		n = i < data_len ? strnlen(ev->data + i, data_len - i) : 0;
		if (n) {
			put(&o, " (interpreter ");
			put_str(&o, ev->data + i, n);
			put(&o, ")");
		}
		put(&o, ":");
		/* The environment follows the arguments: stop at argc. */
		for (i += n + 1, arg = 0; i < data_len && arg < ev->argc;
		     i += n + 1, arg++) {
			n = strnlen(ev->data + i, data_len - i);
			put(&o, " ");
			put_str(&o, ev->data + i, n);
		}
		break;
	case KRSI_EVENT_DENY:
		put(&o, " denied %s: ", errname(-ev->verdict));
		put_str(&o, ev->hook, sizeof(ev->hook));
		put(&o, " ");
		put_str(&o, ev->data, data_len);
		break;
	default:
		put(&o, " unknown event kind %u", ev->kind);
	}
	return o.len;
}
