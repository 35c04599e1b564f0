// SPDX-License-Identifier: GPL-2.0
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for @more bytes and the NUL; false (and @failed) if there is none. */
static bool grow(struct strbuf *sb, size_t more)
{
	size_t cap = sb->cap ? sb->cap : 256;
	char *buf;

	if (sb->failed)
		return false;
	if (more < sb->cap - sb->len)
		return true;
	while (cap - sb->len <= more) {
		if (cap > ((size_t)-1) / 2) {
			sb->failed = true;
			return false;
		}
		cap *= 2;
	}
	buf = realloc(sb->buf, cap);
	if (!buf) {
		sb->failed = true;
		return false;
	}
	sb->buf = buf;
	sb->cap = cap;
	return true;
}

bool sb_reserve(struct strbuf *sb, size_t more)
{
	if (sb->failed)
		return false;
	if (grow(sb, more)) {
		sb->buf[sb->len] = '\0';
		return true;
	}
	sb->failed = false;	/* nothing it held was lost */
	return false;
}

size_t sb_room(const struct strbuf *sb)
{
	return sb->cap ? sb->cap - sb->len - 1 : 0;
}

void sb_put(struct strbuf *sb, const char *s, size_t len)
{
	if (!grow(sb, len))
		return;
	memcpy(sb->buf + sb->len, s, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_put(sb, &c, 1);
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	size_t room = sb->cap - sb->len;
	va_list again;
	int n;

	if (sb->failed)
		return;
	/* Once into the room there is; again only if that was too small. */
	va_copy(again, ap);
	n = vsnprintf(sb->buf ? sb->buf + sb->len : NULL, sb->buf ? room : 0, fmt, ap);
	if (n < 0)
		sb->failed = true;
	else if ((size_t)n < room)
		sb->len += (size_t)n;
	else if (grow(sb, (size_t)n)) {
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, again);
		sb->len += (size_t)n;
	}
	va_end(again);
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->failed = false;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->failed = false;
}
