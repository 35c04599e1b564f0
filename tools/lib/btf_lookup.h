/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_BTF_LOOKUP_H
#define KRSI_BTF_LOOKUP_H

/*
 * The BTF id of a function of the running kernel, read from
 * /sys/kernel/btf/vmlinux: for tests that load LSM programs with a bare
 * bpf(BPF_PROG_LOAD) for hooks no skeleton names, and for `krsi hook`,
 * which prints a hook's prototype (btf_proto.c).  Written by hand: the
 * static musl programs have no libbpf (whose btf__find_by_name_kind() this
 * is).  Only as much of the format as finding a FUNC by name needs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct btf_file {
	char *data;
	size_t size;
	const char *types, *types_end, *strings;
	uint32_t strings_len;
};

/* Read /sys/kernel/btf/vmlinux into @btf; 0 or -1. */
static inline int btf_open(struct btf_file *btf)
{
	struct {
		uint16_t magic;
		uint8_t version, flags;
		uint32_t hdr_len, type_off, type_len, str_off, str_len;
	} hdr;
	FILE *f = fopen("/sys/kernel/btf/vmlinux", "re");
	size_t cap = 1 << 20, n;

	memset(btf, 0, sizeof(*btf));
	if (!f)
		return -1;
	btf->data = malloc(cap);
	while (btf->data && (n = fread(btf->data + btf->size, 1, cap - btf->size, f)) > 0) {
		btf->size += n;
		if (btf->size == cap)
			btf->data = realloc(btf->data, cap *= 2);
	}
	fclose(f);
	if (!btf->data || btf->size < sizeof(hdr))
		return -1;
	memcpy(&hdr, btf->data, sizeof(hdr));
	if (hdr.magic != 0xeb9f ||
	    (size_t)hdr.hdr_len + hdr.str_off + hdr.str_len > btf->size ||
	    (size_t)hdr.hdr_len + hdr.type_off + hdr.type_len > btf->size)
		return -1;
	btf->types = btf->data + hdr.hdr_len + hdr.type_off;
	btf->types_end = btf->types + hdr.type_len;
	btf->strings = btf->data + hdr.hdr_len + hdr.str_off;
	btf->strings_len = hdr.str_len;
	return 0;
}

static inline void btf_close(struct btf_file *btf)
{
	free(btf->data);
	btf->data = NULL;
}

/* Bytes that follow a type's common 12-byte header, by kind. */
static inline size_t btf_extra(uint32_t info)
{
	uint32_t kind = (info >> 24) & 0x1f, vlen = info & 0xffff;

	switch (kind) {
	case 1: case 14: case 17: return 4;		/* INT, VAR, DECL_TAG */
	case 3: return 12;				/* ARRAY */
	case 4: case 5: case 15: case 19: return 12 * vlen; /* STRUCT, UNION, DATASEC, ENUM64 */
	case 6: case 13: return 8 * vlen;		/* ENUM, FUNC_PROTO */
	default: return 0;
	}
}

/* The id of the FUNC called @name, or 0. */
static inline uint32_t btf_find_func(const struct btf_file *btf, const char *name)
{
	const char *p = btf->types;
	uint32_t id = 1;

	while (p + 12 <= btf->types_end) {
		uint32_t name_off, info;

		memcpy(&name_off, p, 4);
		memcpy(&info, p + 4, 4);
		if (((info >> 24) & 0x1f) == 12 && name_off < btf->strings_len &&
		    !strcmp(btf->strings + name_off, name))
			return id;
		p += 12 + btf_extra(info);
		id++;
	}
	return 0;
}

#endif
