// SPDX-License-Identifier: GPL-2.0
#include "btf_proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf_lookup.h"

/* BTF kinds, from include/uapi/linux/btf.h. */
enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF,
	K_VOLATILE, K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR,
	K_DATASEC, K_FLOAT, K_DECL_TAG, K_TYPE_TAG, K_ENUM64,
};

struct types {
	const struct btf_file *btf;
	const char **by_id;	/* each type's header, by id */
	uint32_t count;
};

static uint32_t u32_at(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static const char *name_of(const struct types *t, uint32_t off)
{
	return off < t->btf->strings_len ? t->btf->strings + off : "?";
}

static void put(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* Type @id as C spells it (without a declarator name), appended to @buf. */
static void put_type(const struct types *t, uint32_t id, char *buf,
		     size_t size, int depth)
{
	const char *p = id < t->count ? t->by_id[id] : NULL;
	uint32_t info, kind;
	size_t len;

	if (!id) {
		put(buf, size, "void");
		return;
	}
	if (!p || depth > 16) {
		put(buf, size, "?");
		return;
	}
	info = u32_at(p + 4);
	kind = (info >> 24) & 0x1f;
	switch (kind) {
	case K_STRUCT:
	case K_UNION:
	case K_ENUM:
	case K_ENUM64:
	case K_FWD:
		put(buf, size, "%s %s", kind == K_UNION ||
		    (kind == K_FWD && info >> 31) ? "union" :
		    kind == K_STRUCT || kind == K_FWD ? "struct" : "enum",
		    name_of(t, u32_at(p)));
		break;
	case K_INT:
	case K_TYPEDEF:
	case K_FLOAT:
		put(buf, size, "%s", name_of(t, u32_at(p)));
		break;
	case K_PTR:
		put_type(t, u32_at(p + 8), buf, size, depth + 1);
		len = strlen(buf);
		put(buf, size, len && buf[len - 1] == '*' ? "*" : " *");
		break;
	case K_CONST:
	case K_VOLATILE:
	case K_RESTRICT:
		put(buf, size, "%s ", kind == K_CONST ? "const" :
		    kind == K_VOLATILE ? "volatile" : "restrict");
		put_type(t, u32_at(p + 8), buf, size, depth + 1);
		break;
	case K_TYPE_TAG:
		put_type(t, u32_at(p + 8), buf, size, depth + 1);
		break;
	default:
		put(buf, size, "?");
	}
}

/* Index every type of @btf by id: 0 or -1. */
static int index_types(const struct btf_file *btf, struct types *t)
{
	const char *p;
	uint32_t n = 1;

	for (p = btf->types; p + 12 <= btf->types_end; n++)
		p += 12 + btf_extra(u32_at(p + 4));
	t->btf = btf;
	t->count = n;
	t->by_id = calloc(n, sizeof(*t->by_id));
	if (!t->by_id)
		return -1;
	for (p = btf->types, n = 1; p + 12 <= btf->types_end; n++) {
		t->by_id[n] = p;
		p += 12 + btf_extra(u32_at(p + 4));
	}
	return 0;
}

static int proto(const struct types *t, uint32_t func, const char *hook,
		 char *buf, size_t size)
{
	const char *fn = t->by_id[func], *fp, *param;
	uint32_t vlen, i;

	fp = u32_at(fn + 8) < t->count ? t->by_id[u32_at(fn + 8)] : NULL;
	if (!fp || ((u32_at(fp + 4) >> 24) & 0x1f) != K_FUNC_PROTO)
		return -EIO;
	vlen = u32_at(fp + 4) & 0xffff;
	buf[0] = '\0';
	put_type(t, u32_at(fp + 8), buf, size, 0);
	put(buf, size, " %s(", hook);
	for (i = 0, param = fp + 12; i < vlen; i++, param += 8) {
		size_t len;

		put(buf, size, i ? ", " : "");
		put_type(t, u32_at(param + 4), buf, size, 0);
		len = strlen(buf);
		put(buf, size, len && buf[len - 1] == '*' ? "%s" : " %s",
		    name_of(t, u32_at(param)));
	}
	put(buf, size, vlen ? ")" : "void)");
	return 0;
}

int btf_hook_proto(const char *hook, char *buf, size_t size)
{
	struct btf_file btf;
	struct types t = { 0 };
	char func[128];
	uint32_t id;
	int err = -EIO;

	if (!size)
		return -EINVAL;
	snprintf(func, sizeof(func), "bpf_lsm_%s", hook);
	if (btf_open(&btf) == 0 && index_types(&btf, &t) == 0) {
		id = btf_find_func(&btf, func);
		err = id ? proto(&t, id, hook, buf, size) : -ENOENT;
	}
	free(t.by_id);
	btf_close(&btf);
	return err;
}
