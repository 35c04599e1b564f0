// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-pack: a policy the krsi tool embeds, as a file that the kernel
 * loads itself (<linux/krsi.h>, CONFIG_SECURITY_BPF_SIGNED): its light
 * skeleton's loader program and data, the initial values of its maps,
 * and where the kernel writes what only the loading machine knows (the
 * load's id, and the device and inode of the paths that the policy's
 * KRSI_CONFIG_ lines name).  make signs what it writes with the kernel's
 * scripts/sign-file, and puts the signed policies in the image and the
 * boot policies in the kernel.
 *
 * It runs at build time on the target's byte order (under qemu-user for
 * another architecture), loads nothing, and needs no kernel: it runs each
 * skeleton's own open, configure and load functions, with the load that
 * the skeleton would hand to the kernel captured instead.
 *
 * Each policy's latches (latches[] below) are signed as such
 * (KRSI_POLICY_MAP_LATCH): once frozen, every newer version keeps them.
 *
 * usage: krsi-pack [-V VERSION] [-F MAP] [-L MAP] [-R OLD=NEW]... [-N AS] NAME OUT
 *		the policy NAME (as version VERSION, for the tests), with its
 *		map MAP frozen by the kernel as it loads (KRSI_POLICY_MAP_FROZEN:
 *		krsi_lock's lock, for a kernel that locks at boot); for the
 *		tests, with its map MAP a latch too (-L), with a map or
 *		program OLD named NEW, of the same length,
 *		up to 4 times (a version without a map its predecessor froze),
 *		or the policy named AS (one the krsi tool does not know)
 *        krsi-pack --boot OUT FILE...	signed policies, for the kernel
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/skel_internal.h>
#include <linux/krsi.h>

static int pack_capture(struct bpf_load_and_run_opts *opts);
static void *pack_prep_map_data(const void *val, size_t mmap_sz, size_t val_sz);
static void pack_free_map_data(void *p, __u64 addr, size_t sz);
/* The skeletons below call these instead of libbpf's. */
#define bpf_load_and_run pack_capture
#define skel_prep_map_data pack_prep_map_data
#define skel_free_map_data pack_free_map_data

#include "policies.h"	/* generated: every progs/NAME.bpf.c */

/* What pack_capture() returns, so that the skeleton's load stops there. */
#define CAPTURED	(-ECANCELED)

/* The policy's version, or what -V says it is. */
static __u32 krsi_load_version, version_override;
/* The map -F names, or NULL. */
static const char *frozen_map;
/* The map -L names, or NULL. */
static const char *latch_map;

/*
 * The latches (KRSI_POLICY_MAP_LATCH): the maps whose freezing is a
 * decision for the boot, which a newer signed version of their policy
 * keeps, frozen with their values: krsi_lock's lock and seal (`krsi
 * lock`), and the reader's claim of every policy that knows the reader
 * (progs/krsi_reader.h; NULL: any policy).  Any other map a user freezes
 * is the policy's own state, which a newer version starts again.
 */
static const struct {
	const char *policy, *map;
} latches[] = {
	{ "krsi_lock", "lock" },
	{ "krsi_lock", "seal" },
	{ NULL, "reader" },
};
/* -R OLD=NEW, up to MAX_RENAMES times: a name and its new name. */
#define MAX_RENAMES	4
static struct {
	char *from;
	const char *to;
} renames[MAX_RENAMES];
static size_t nr_renames;
/* -N AS: the name the policy is packed under, or NULL for its own. */
static const char *packed_as;

/* The initial values the skeleton prepared, by address. */
struct initial_value {
	void *addr;
	size_t size;
};

static struct {
	struct initial_value values[KRSI_POLICY_MAX_MAPS];
	size_t nr_values;
	struct krsi_policy_param params[KRSI_POLICY_MAX_PARAMS];
	size_t nr_params;
	struct bpf_load_and_run_opts opts;
	int overflow;
} pack;

static void *pack_prep_map_data(const void *val, size_t mmap_sz, size_t val_sz)
{
	void *addr;

	(void)mmap_sz;
	if (pack.nr_values == KRSI_POLICY_MAX_MAPS) {
		pack.overflow = 1;
		return NULL;
	}
	/* Whole words: the kernel writes parameters of 8 bytes. */
	addr = calloc(1, (val_sz + 7) & ~(size_t)7);
	if (!addr)
		return NULL;
	memcpy(addr, val, val_sz);
	pack.values[pack.nr_values].addr = addr;
	pack.values[pack.nr_values].size = val_sz;
	pack.nr_values++;
	return addr;
}

static void pack_free_map_data(void *p, __u64 addr, size_t sz)
{
	(void)addr;
	(void)sz;
	free(p);
}

static int pack_capture(struct bpf_load_and_run_opts *opts)
{
	pack.opts = *opts;
	return CAPTURED;
}

/*
 * -R: every "OLD\0" of the loader's data @data, a map's or a program's
 * name where the loader creates it and in the object's BTF strings, made
 * "NEW\0" (of the same length, so that no offset moves).  The number
 * renamed, or -EINVAL.
 */
static int rename_in(char *data, size_t size, const char *from, const char *to)
{
	size_t len = strlen(from) + 1, i;
	int n = 0;

	if (strlen(to) + 1 != len)
		return -EINVAL;
	for (i = 0; i + len <= size; i++)
		if (!memcmp(data + i, from, len) && (i == 0 || !data[i - 1])) {
			memcpy(data + i, to, len);
			n++;
		}
	return n;
}

/* Every -R in a copy of the loader's data, which then replaces it. */
static int rename_all(void)
{
	char *data = malloc(pack.opts.data_sz);
	size_t i;
	int n = 1;

	if (!data)
		return -ENOMEM;
	memcpy(data, pack.opts.data, pack.opts.data_sz);
	for (i = 0; i < nr_renames && n > 0; i++) {
		n = rename_in(data, pack.opts.data_sz, renames[i].from,
			      renames[i].to);
		if (n <= 0)
			fprintf(stderr, "krsi-pack: -R %s=%s: %s\n", renames[i].from,
				renames[i].to, n ? "not of the same length" :
				"no such name in the loader's data");
	}
	if (n <= 0) {
		free(data);
		return n ?: -ENOENT;
	}
	pack.opts.data = data;
	return 0;
}

/* The parameter at @at, in one of the initial values. */
static int add_param(__u32 kind, const void *at, const char *path)
{
	struct krsi_policy_param *param;
	size_t i;

	if (pack.nr_params == KRSI_POLICY_MAX_PARAMS) {
		pack.overflow = 1;
		return -E2BIG;
	}
	param = &pack.params[pack.nr_params];
	for (i = 0; i < pack.nr_values; i++) {
		const char *base = pack.values[i].addr;

		if ((const char *)at >= base &&
		    (const char *)at < base + pack.values[i].size)
			break;
	}
	if (i == pack.nr_values) {
		fprintf(stderr, "krsi-pack: a parameter outside the initial values\n");
		return -EINVAL;
	}
	if (path && strlen(path) >= sizeof(param->path)) {
		fprintf(stderr, "krsi-pack: %s: longer than %zu bytes\n", path,
			sizeof(param->path) - 1);
		return -ENAMETOOLONG;
	}
	memset(param, 0, sizeof(*param));
	param->kind = kind;
	/* For now the value's index; the map's once the maps are known. */
	param->map = i;
	param->offset = (const char *)at - (const char *)pack.values[i].addr;
	if (path)
		strcpy(param->path, path);
	pack.nr_params++;
	return 0;
}

/* What tools/krsi/policy.c looks up when it loads; the kernel, here. */
int krsi_config_version(__u32 *version)
{
	if (version_override)
		*version = version_override;
	krsi_load_version = *version;
	return 0;
}

int krsi_config_load_id(__u64 *load_id)
{
	return add_param(KRSI_PARAM_LOAD_ID, load_id, NULL);
}

int krsi_config_dev(const char *path, __u32 *dev)
{
	return add_param(KRSI_PARAM_DEV, dev, path);
}

int krsi_config_ino(const char *path, __u64 *ino)
{
	return add_param(KRSI_PARAM_INO, ino, path);
}

/* A map's name and its place among the skeleton's map descriptors. */
struct pack_map {
	const char *name;
	size_t index;
};

struct pack_policy {
	const char *name;
	const struct pack_map *maps;
	void *(*open)(void);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	int (*configure)(void *skel);
	size_t maps_offset;
	size_t nr_maps;
	size_t nr_progs;
};

#define nr_descs(skel, field, type) \
	(sizeof(((struct skel *)0)->field) / sizeof(type))
#define POLICY_FUNCS(skel)						\
	static void *skel##_open_skel(void) { return skel##__open(); }	\
	static int skel##_load_skel(void *s) { return skel##__load(s); }	\
	static void skel##_destroy_skel(void *s) { skel##__destroy(s); }
KRSI_POLICIES(POLICY_FUNCS)

#define MAP_INDEX(skel, map) { #map,					\
	(offsetof(struct skel, maps.map) - offsetof(struct skel, maps)) /	\
	sizeof(struct bpf_map_desc) },
#define POLICY_MAPS(skel)						\
	static const struct pack_map skel##_maps[] = {			\
		KRSI_MAPS_##skel(MAP_INDEX) { NULL, 0 }			\
	};
KRSI_POLICIES(POLICY_MAPS)

#define POLICY(skel) {							\
	.name = #skel,							\
	.maps = skel##_maps,						\
	.open = skel##_open_skel,					\
	.load = skel##_load_skel,					\
	.destroy = skel##_destroy_skel,					\
	.configure = KRSI_CONFIGURE_##skel,				\
	.maps_offset = offsetof(struct skel, maps),			\
	.nr_maps = nr_descs(skel, maps, struct bpf_map_desc),		\
	.nr_progs = nr_descs(skel, progs, struct bpf_prog_desc),	\
},
static const struct pack_policy policies[] = {
	KRSI_POLICIES(POLICY)
};

static int write_all(FILE *out, const void *buf, size_t len)
{
	return len && fwrite(buf, len, 1, out) != 1 ? -EIO : 0;
}

/*
 * Give @p's map @name (none if NULL) @flag in @maps: 0, or -ENOENT if @p
 * has no map of that name, which is an error (said) if @required.
 */
static int mark_map(const struct pack_policy *p, struct krsi_policy_map *maps,
		    const char *name, __u32 flag, bool required)
{
	size_t i;

	for (i = 0; name && p->maps[i].name; i++) {
		if (!strcmp(p->maps[i].name, name)) {
			maps[p->maps[i].index].flags |= flag;
			return 0;
		}
	}
	if (!name)
		return 0;
	if (required)
		fprintf(stderr, "krsi-pack: %s: no map '%s'\n", p->name, name);
	return -ENOENT;
}

/* The policy, laid out as <linux/krsi.h> says, unsigned. */
static int write_policy(FILE *out, const struct pack_policy *p, void *skel)
{
	struct krsi_policy_map maps[KRSI_POLICY_MAX_MAPS] = {};
	const struct initial_value *values[KRSI_POLICY_MAX_MAPS] = {};
	__u32 value_map[KRSI_POLICY_MAX_MAPS];
	const struct bpf_map_desc *descs;
	struct krsi_policy_header hdr;
	__u32 init_sz = 0;
	size_t i, j;
	int err = 0;

	if (p->nr_maps > KRSI_POLICY_MAX_MAPS ||
	    strlen(packed_as ?: p->name) >= sizeof(hdr.name)) {
		fprintf(stderr, "krsi-pack: %s: too many maps, or too long a name\n",
			packed_as ?: p->name);
		return -E2BIG;
	}
	/* Which map each initial value is for. */
	descs = (const void *)((const char *)skel + p->maps_offset);
	for (j = 0; j < pack.nr_values; j++)
		value_map[j] = KRSI_POLICY_MAX_MAPS;
	for (i = 0; i < p->nr_maps; i++) {
		maps[i].max_entries = descs[i].max_entries;
		for (j = 0; j < pack.nr_values; j++) {
			if ((__u64)(long)pack.values[j].addr !=
			    descs[i].initial_value)
				continue;
			values[i] = &pack.values[j];
			value_map[j] = i;
			maps[i].init_off = init_sz;
			maps[i].init_sz = (values[i]->size + 7) & ~7U;
			init_sz += maps[i].init_sz;
		}
	}
	if (mark_map(p, maps, frozen_map, KRSI_POLICY_MAP_FROZEN, true) ||
	    mark_map(p, maps, latch_map, KRSI_POLICY_MAP_LATCH, true))
		return -ENOENT;
	/* A policy without a map the table names has no such latch. */
	for (j = 0; j < sizeof(latches) / sizeof(latches[0]); j++)
		if (!latches[j].policy || !strcmp(latches[j].policy, p->name))
			mark_map(p, maps, latches[j].map, KRSI_POLICY_MAP_LATCH,
				 false);
	for (i = 0; i < pack.nr_params; i++) {
		pack.params[i].map = value_map[pack.params[i].map];
		if (pack.params[i].map == KRSI_POLICY_MAX_MAPS) {
			fprintf(stderr, "krsi-pack: %s: a parameter in no map\n",
				p->name);
			return -EINVAL;
		}
	}

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, KRSI_POLICY_MAGIC, sizeof(hdr.magic));
	strcpy(hdr.name, packed_as ?: p->name);
	hdr.version = krsi_load_version;
	hdr.nr_maps = p->nr_maps;
	hdr.nr_progs = p->nr_progs;
	hdr.nr_params = pack.nr_params;
	hdr.init_sz = init_sz;
	hdr.insns_sz = pack.opts.insns_sz;
	hdr.data_sz = pack.opts.data_sz;

	err = write_all(out, &hdr, sizeof(hdr));
	if (!err)
		err = write_all(out, maps, p->nr_maps * sizeof(maps[0]));
	if (!err)
		err = write_all(out, pack.params,
				pack.nr_params * sizeof(pack.params[0]));
	/* The values were allocated in whole words (pack_prep_map_data()). */
	for (i = 0; i < p->nr_maps && !err; i++)
		if (values[i])
			err = write_all(out, values[i]->addr, maps[i].init_sz);
	if (!err)
		err = write_all(out, pack.opts.insns, pack.opts.insns_sz);
	if (!err)
		err = write_all(out, pack.opts.data, pack.opts.data_sz);
	return err;
}

static int pack_policy(const char *name, const char *path)
{
	const struct pack_policy *p = NULL;
	void *skel = NULL;
	FILE *out = NULL;
	size_t i;
	int err;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcmp(policies[i].name, name))
			p = &policies[i];
	err = -ENOENT;
	if (!p) {
		fprintf(stderr, "krsi-pack: no policy '%s'\n", name);
		goto out;
	}
	err = -ENOMEM;
	skel = p->open();
	if (!skel)
		goto fail;
	err = p->configure(skel);
	if (err)
		goto fail;
	err = p->load(skel);
	if (err != CAPTURED)
		goto fail;
	err = -E2BIG;
	if (pack.overflow)
		goto fail;
	if (nr_renames) {
		err = rename_all();
		if (err)
			goto fail;
	}
	out = fopen(path, "w");
	err = out ? write_policy(out, p, skel) : -errno;
	if (nr_renames)
		free((void *)pack.opts.data);
	if (out && fclose(out) && !err)
		err = -errno;
	if (err)
		goto fail;
	goto out;
fail:
	fprintf(stderr, "krsi-pack: %s: cannot write %s: %s\n", name, path,
		strerror(-err));
out:
	if (skel)
		p->destroy(skel);
	return err;
}

/* The whole of @path, in *@buf, *@len bytes; malloc()ed. */
static int read_file(const char *path, char **buf, long *len)
{
	FILE *in = fopen(path, "r");
	int err = 0;

	*buf = NULL;
	if (!in || fseek(in, 0, SEEK_END) || (*len = ftell(in)) < 0 ||
	    fseek(in, 0, SEEK_SET))
		err = -errno;
	else if (!(*buf = malloc(*len + 1)))
		err = -ENOMEM;
	else if (fread(*buf, 1, *len, in) != (size_t)*len)
		err = -EIO;
	if (in)
		fclose(in);
	if (err)
		fprintf(stderr, "krsi-pack: %s: %s\n", path, strerror(-err));
	return err;
}

/* Each file, preceded by its length and padded to 8 bytes (boot.c). */
static int pack_boot(const char *path, char **files, int nr)
{
	static const char pad[8];
	FILE *out = fopen(path, "w");
	int i, err = out ? 0 : -errno;

	for (i = 0; i < nr && !err; i++) {
		char *buf;
		long len = 0;

		err = read_file(files[i], &buf, &len);
		if (!err) {
			__u32 len32 = len;

			err = write_all(out, &len32, sizeof(len32));
			if (!err)
				err = write_all(out, buf, len);
			if (!err)
				err = write_all(out, pad,
						-(len + sizeof(len32)) & 7);
		}
		free(buf);
	}
	if (out && fclose(out) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "krsi-pack: cannot write %s: %s\n", path,
			strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	int status;

	if (argc >= 3 && !strcmp(argv[1], "--boot"))
		return pack_boot(argv[2], argv + 3, argc - 3) ? 1 : 0;
	while (argc >= 5 && argv[1][0] == '-') {
		const char *eq = strchr(argv[2], '=');
		char *end = "";

		if (!strcmp(argv[1], "-V")) {
			version_override = strtoul(argv[2], &end, 10);
		} else if (!strcmp(argv[1], "-F")) {
			frozen_map = argv[2];
		} else if (!strcmp(argv[1], "-L")) {
			latch_map = argv[2];
		} else if (!strcmp(argv[1], "-N")) {
			packed_as = argv[2];
		} else if (!strcmp(argv[1], "-R") && eq &&
			   nr_renames < MAX_RENAMES) {
			renames[nr_renames].to = eq + 1;
			renames[nr_renames].from = strndup(argv[2], eq - argv[2]);
			if (!renames[nr_renames++].from)
				break;
		} else {
			break;
		}
		if (*end || (!strcmp(argv[1], "-V") && !version_override))
			break;
		argc -= 2;
		argv += 2;
	}
	if (argc != 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: krsi-pack [-V VERSION] [-F MAP] [-L MAP] [-R OLD=NEW]... [-N AS] NAME OUT\n"
				"       krsi-pack --boot OUT FILE...\n");
		status = 2;
	} else {
		status = pack_policy(argv[1], argv[2]) ? 1 : 0;
	}
	while (nr_renames)
		free(renames[--nr_renames].from);
	return status;
}
