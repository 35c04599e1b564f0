// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt.h"

/* Copy @src (@len bytes, \ooo escapes) into @dst of @size, unescaped. */
static int unescape(char *dst, size_t size, const char *src, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		int c = (unsigned char)src[i];

		if (c == '\\') {
			if (i + 3 >= len)
				return -EINVAL;
			if (src[i + 1] < '0' || src[i + 1] > '3' ||
			    src[i + 2] < '0' || src[i + 2] > '7' ||
			    src[i + 3] < '0' || src[i + 3] > '7')
				return -EINVAL;
			c = (src[i + 1] - '0') * 64 + (src[i + 2] - '0') * 8 +
			    (src[i + 3] - '0');
			i += 3;
		}
		if (n + 1 >= size)
			return -EINVAL;
		dst[n++] = (char)c;
	}
	dst[n] = '\0';
	return 0;
}

/* @s as a whole int (strtol), into @v. */
static int whole_int(const char *s, size_t len, int *v)
{
	char buf[24], *end;
	long l;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	l = strtol(buf, &end, 10);
	if (errno || *end || l < -2147483647L - 1 || l > 2147483647L)
		return -EINVAL;
	*v = (int)l;
	return 0;
}

static int copy(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		return -EINVAL;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* "a,b,c" into @c->lsms. */
static int parse_lsms(struct trace_call *c, const char *s, size_t len)
{
	size_t i = 0;

	if (len == 1 && s[0] == '-')
		return 0;
	while (i <= len) {
		size_t j = i;

		while (j < len && s[j] != ',')
			j++;
		if (j == i || c->nr_lsms == TRACE_MAX_LSMS ||
		    copy(c->lsms[c->nr_lsms++], sizeof(c->lsms[0]), s + i, j - i))
			return -EINVAL;
		i = j + 1;
	}
	return 0;
}

/* One KIND:ID:NAME:RET. */
static int parse_prog(struct trace_prog *p, const char *s, size_t len)
{
	const char *end = s + len, *colon[3];
	int i, id;

	for (i = 0; i < 3; i++) {
		colon[i] = memchr(i ? colon[i - 1] + 1 : s, ':',
				  end - (i ? colon[i - 1] + 1 : s));
		if (!colon[i])
			return -EINVAL;
	}
	if ((size_t)(colon[0] - s) == 4 && !memcmp(s, "krsi", 4))
		p->tramp = false;
	else if ((size_t)(colon[0] - s) == 3 && !memcmp(s, "bpf", 3))
		p->tramp = true;
	else
		return -EINVAL;
	if (whole_int(colon[0] + 1, colon[1] - colon[0] - 1, &id) || id <= 0)
		return -EINVAL;
	p->id = (unsigned int)id;
	if (copy(p->name, sizeof(p->name), colon[1] + 1, colon[2] - colon[1] - 1))
		return -EINVAL;
	/* "?": not known; "-": a void hook's trampoline program, no value. */
	p->no_value = end - colon[2] == 2 && colon[2][1] == '-';
	p->ret_known = !p->no_value && !(end - colon[2] == 2 && colon[2][1] == '?');
	if (p->ret_known)
		return whole_int(colon[2] + 1, end - colon[2] - 1, &p->ret);
	return 0;
}

static int parse_progs(struct trace_call *c, const char *s, size_t len)
{
	size_t i = 0;

	if (len == 1 && s[0] == '-')
		return 0;
	while (i < len) {
		size_t j = i;
		int more;

		while (j < len && s[j] != ',')
			j++;
		if (s[i] == '+') {
			if (j != len || whole_int(s + i + 1, j - i - 1, &more) ||
			    more <= 0)
				return -EINVAL;
			c->more = (unsigned int)more;
		} else if (c->nr_progs == TRACE_MAX_PROGS ||
			   parse_prog(&c->progs[c->nr_progs++], s + i, j - i)) {
			return -EINVAL;
		}
		i = j + 1;
	}
	return 0;
}

int trace_parse(const char *line, struct trace_call *c)
{
	static const char *const keys[] = {
		"pid", "tid", "comm", "hook", "ret", "by", "lsms", "progs", "obj",
	};
	const char *s = line;
	size_t k;

	memset(c, 0, sizeof(*c));
	if (!strncmp(line, "lost ", 5)) {
		char *end;

		errno = 0;
		c->lost = strtoull(line + 5, &end, 10);
		return errno || *end || end == line + 5 || !c->lost ? -EINVAL : 0;
	}
	/* Every key, in this order, each once. */
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t klen = strlen(keys[k]), len;
		const char *v;
		int err = 0;

		if (k && *s++ != ' ')
			return -EINVAL;
		if (strncmp(s, keys[k], klen) || s[klen] != '=')
			return -EINVAL;
		v = s + klen + 1;
		len = strcspn(v, " ");
		if (!len)
			return -EINVAL;
		switch (k) {
		case 0:
			err = whole_int(v, len, &c->pid);
			break;
		case 1:
			err = whole_int(v, len, &c->tid);
			break;
		case 2:
			err = unescape(c->comm, sizeof(c->comm), v, len);
			break;
		case 3:
			err = copy(c->hook, sizeof(c->hook), v, len);
			break;
		case 4:
			c->ended = !(len == 1 && v[0] == '?');
			if (c->ended)
				err = whole_int(v, len, &c->ret);
			break;
		case 5:
			err = copy(c->by, sizeof(c->by), v, len);
			if (!err && (!c->ended) != !strcmp(c->by, "?"))
				err = -EINVAL;
			break;
		case 6:
			err = parse_lsms(c, v, len);
			break;
		case 7:
			err = parse_progs(c, v, len);
			break;
		case 8:
			if (!(len == 1 && v[0] == '-'))
				err = unescape(c->object, sizeof(c->object), v, len);
			break;
		}
		if (err)
			return -EINVAL;
		s = v + len;
	}
	return *s ? -EINVAL : 0;
}
