/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_STRBUF_H
#define KRSI_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A string that grows as it is written, so that no input can overrun it:
 * every record, line and path the tools format goes through one.  An
 * allocation that fails sets @failed, and the writes after it do nothing;
 * the text is always NUL-terminated when @buf is not NULL.
 */
struct strbuf {
	char *buf;
	size_t len, cap;
	bool failed;
};

void sb_putc(struct strbuf *sb, char c);
void sb_put(struct strbuf *sb, const char *s, size_t len);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * Room for @more bytes past what it holds, taken now, so that writing
 * that much later needs no allocation: false (and nothing changed) if
 * there is no memory for it.
 */
bool sb_reserve(struct strbuf *sb, size_t more);
/* The bytes it takes before it must grow. */
size_t sb_room(const struct strbuf *sb);
/* Empty it, keeping its memory. */
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

#endif
