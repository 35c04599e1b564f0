// SPDX-License-Identifier: GPL-2.0
/*
 * The policies the krsi tool embeds, as light skeletons, and what it takes
 * to attach one: load it, attach each program to its hook file as a KRSI
 * link, and pin the links and maps in bpffs, so that the programs stay
 * attached after this process has gone and later commands (detach,
 * replace, events, lock) find them.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "errname.h"
#include "hookfile.h"
#include "krsi.h"
#include "krsi_event.h"
#include "sysbpf.h"
#include "policies.h"	/* generated: every progs/NAME.bpf.c */

__u64 krsi_load_id;
__u32 krsi_load_version;

_Static_assert(KRSI_ORIGIN_PROGS >= KRSI_MAX_POLICY_PROGS,
	       "an origin record holds every program of a policy");

/* The kernel's dev_t, as the policies compare it with s_dev. */
static __u32 kernel_dev(dev_t dev)
{
	return (major(dev) << 20) | minor(dev);
}

static int stat_path(const char *path, struct stat *st)
{
	if (stat(path, st)) {
		int err = -errno;

		error(err, "stat %s", path);
		return err;
	}
	return 0;
}

int krsi_config_version(__u32 *version)
{
	krsi_load_version = *version;
	return 0;
}

int krsi_config_load_id(__u64 *load_id)
{
	*load_id = krsi_load_id;
	return 0;
}

int krsi_config_dev(const char *path, __u32 *dev)
{
	struct stat st;
	int err = stat_path(path, &st);

	if (!err)
		*dev = kernel_dev(st.st_dev);
	return err;
}

int krsi_config_ino(const char *path, __u64 *ino)
{
	struct stat st;
	int err = stat_path(path, &st);

	if (!err)
		*ino = st.st_ino;
	return err;
}

/* One table entry per policy, from its skeleton and its generated table. */
#define PROG(skel, prog, hook) \
	{ #prog, #hook, offsetof(struct skel, progs.prog.prog_fd) },
#define MAP(skel, map) { #map, offsetof(struct skel, maps.map.map_fd) },
#define POLICY_FUNCS(skel)						\
	static void *skel##_open_skel(void) { return skel##__open(); }	\
	static int skel##_load_skel(void *s) { return skel##__load(s); }	\
	static void skel##_destroy_skel(void *s) { skel##__destroy(s); }	\
	static const struct policy_prog skel##_progs[] = {		\
		KRSI_PROGS_##skel(PROG)					\
	};								\
	static const struct policy_map skel##_maps[] = {		\
		KRSI_MAPS_##skel(MAP)					\
	};
KRSI_POLICIES(POLICY_FUNCS)

#define POLICY(skel) {							\
	.name = #skel,							\
	.about = KRSI_ABOUT_##skel,					\
	.open = skel##_open_skel,					\
	.load = skel##_load_skel,					\
	.destroy = skel##_destroy_skel,					\
	.configure = KRSI_CONFIGURE_##skel,				\
	.progs = skel##_progs,						\
	.nr_progs = sizeof(skel##_progs) / sizeof(skel##_progs[0]),	\
	.maps = skel##_maps,						\
	.nr_maps = sizeof(skel##_maps) / sizeof(skel##_maps[0]),	\
},

/* Every progs/NAME.bpf.c, by name: a new file is a new policy. */
const struct policy policies[] = {
	KRSI_POLICIES(POLICY)
};
const size_t nr_policies = sizeof(policies) / sizeof(policies[0]);

const struct policy *policy_of(const char *hook, const char *prog)
{
	size_t i, j;

	for (i = 0; i < nr_policies; i++)
		for (j = 0; j < policies[i].nr_progs; j++)
			if (!strcmp(policies[i].progs[j].hook, hook) &&
			    !strcmp(policies[i].progs[j].name, prog))
				return &policies[i];
	return NULL;
}

const struct policy *policy_find(const char *name)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (!strcmp(policies[i].name, name))
			return &policies[i];
	fprintf(stderr, "krsi: no policy '%s'; the policies are:", name);
	for (i = 0; i < nr_policies; i++)
		fprintf(stderr, " %s", policies[i].name);
	fprintf(stderr, "\n");
	return NULL;
}

static int skel_fd(void *skel, size_t offset)
{
	return *(int *)((char *)skel + offset);
}

static void pin_path(char *buf, const struct policy *p, const char *obj)
{
	snprintf(buf, PATH_MAX, "%s/%s%s%s", KRSI_PIN_DIR, p->name,
		 obj ? "/" : "", obj ? obj : "");
}

static int pin(const struct policy *p, const char *obj, int fd)
{
	char path[PATH_MAX];
	union bpf_attr attr;

	pin_path(path, p, obj);
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	attr.bpf_fd = fd;
	unlink(path);		/* a replacement takes the old one's place */
	return sys_bpf(BPF_OBJ_PIN, &attr);
}

/* A descriptor of what @p pinned as @obj, opened with @flags (BPF_F_RDONLY). */
static int pinned(const struct policy *p, const char *obj, __u32 flags)
{
	char path[PATH_MAX];
	union bpf_attr attr;

	int fd;

	pin_path(path, p, obj);
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	attr.file_flags = flags;
	fd = sys_bpf(BPF_OBJ_GET, &attr);
	/* Not pinned: the kernel may hold it (signed.c). */
	return fd == -ENOENT ? held_fd(p, obj, flags) : fd;
}

int policy_pin_state(const struct policy *p)
{
	struct held_policy held;
	char path[PATH_MAX];
	struct stat st;
	int err;

	pin_path(path, p, NULL);
	if (!stat(path, &st))
		return 1;
	if (errno != ENOENT)
		return -errno;
	/* No pins; held by the kernel (signed.c) counts as attached. */
	err = signed_held(p->name, &held);
	return err == -ENOENT ? 0 : err;
}

bool policy_attached(const struct policy *p)
{
	return policy_pin_state(p) == 1;
}

/* Does the hook file of @prog list it?  1, 0, or a negative errno. */
static int prog_listed(const struct policy_prog *prog)
{
	char buf[4096], *line, *save;
	ssize_t len = krsi_hook_read(prog->hook, buf, sizeof(buf));

	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strcmp(line, prog->name))
			return 1;
	return 0;
}

int policy_enforced(const struct policy *p)
{
	size_t i;
	int listed = 0;

	for (i = 0; i < p->nr_progs; i++) {
		int err = prog_listed(&p->progs[i]);

		if (err < 0)
			return err;
		listed += err;
	}
	return listed == (int)p->nr_progs;
}

int policy_map_fd(const struct policy *p, const char *map, __u32 flags)
{
	return pinned(p, map, flags);
}

/* The map "policy_mode" of a loaded skeleton, or -ENOENT. */
static int skel_mode_fd(const struct policy *p, void *skel)
{
	size_t i;

	for (i = 0; i < p->nr_maps; i++)
		if (!strcmp(p->maps[i].name, "policy_mode"))
			return skel_fd(skel, p->maps[i].fd_offset);
	return -ENOENT;
}

static int write_mode(int fd, __u32 mode)
{
	__u32 zero = 0;

	return sys_bpf_map_elem(BPF_MAP_UPDATE_ELEM, fd, &zero, &mode);
}

int policy_mode(const struct policy *p)
{
	int fd = policy_map_fd(p, "policy_mode", BPF_F_RDONLY), err;
	__u32 zero = 0, mode = 0;

	if (fd < 0)
		return fd;
	err = sys_bpf_map_elem(BPF_MAP_LOOKUP_ELEM, fd, &zero, &mode);
	close(fd);
	return err ? err : (int)mode;
}

int policy_set_mode(const struct policy *p, enum krsi_mode mode)
{
	int fd, err, state = policy_pin_state(p);

	if (state <= 0) {
		err = state ? state : -ENOENT;
		error(err, "%s %s: %s", mode == KRSI_MODE_AUDIT ? "audit" : "enforce",
		      p->name, state == -EACCES ? KRSI_PIN_DIR " (needs root)" :
		      "not attached");
		return err;
	}
	fd = policy_map_fd(p, "policy_mode", 0);
	err = fd < 0 ? fd : write_mode(fd, mode);
	if (fd >= 0)
		close(fd);
	if (err)
		error(err, "%s %s: map policy_mode", mode == KRSI_MODE_AUDIT ?
		      "audit" : "enforce", p->name);
	return err;
}

static int make_pin_dir(const struct policy *p)
{
	char path[PATH_MAX];

	if (mkdir(KRSI_PIN_DIR, 0700) && errno != EEXIST)
		return -errno;
	pin_path(path, p, NULL);
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Close what is not -1 in @fds[0..@n - 1]: an unpinned link detaches. */
static void close_fds(int *fds, size_t n)
{
	while (n--)
		if (fds[n] >= 0)
			close(fds[n]);
}

/*
 * Attach each program of a loaded policy: a new link on its hook, or, when
 * @replace, its program swapped into the pinned link of the one it
 * replaces (BPF_LINK_UPDATE: in place, with no moment without a program).
 * @links gets the new links' descriptors, -1 for an updated one.
 */
static int attach_progs(const struct policy *p, void *skel, bool replace,
			int *links)
{
	size_t i;
	int err = 0;

	for (i = 0; i < p->nr_progs; i++)
		links[i] = -1;
	for (i = 0; !err && i < p->nr_progs; i++) {
		const struct policy_prog *prog = &p->progs[i];
		int prog_fd = skel_fd(skel, prog->fd_offset);
		int old = replace ? pinned(p, prog->name, 0) : -ENOENT;

		if (old >= 0) {
			err = krsi_link_update(old, prog_fd, 0, 0);
			close(old);
		} else if (old == -ENOENT) {
			links[i] = krsi_link_create(prog->hook, prog_fd);
			err = links[i] < 0 ? links[i] : 0;
		} else {
			err = old;
		}
		if (err)
			error(err, "%s %s: %s on hook %s", replace ? "replace" :
			      "attach", p->name, prog->name, prog->hook);
	}
	return err;
}

/* A new load's id: random, so that no two loads share one; never 0. */
static int new_load_id(void)
{
	do {
		if (getrandom(&krsi_load_id, sizeof(krsi_load_id), 0) !=
		    sizeof(krsi_load_id))
			return -errno;
	} while (!krsi_load_id);
	return 0;
}

static int prog_id(int prog_fd, __u32 *id)
{
	struct bpf_prog_info info;
	int err;

	memset(&info, 0, sizeof(info));
	err = sys_bpf_obj_info(prog_fd, &info, sizeof(info));
	*id = info.id;
	return err;
}

/*
 * Record who attached this load of @p and its programs' and links' ids
 * in its map "origin" (krsi_event.h), before it is pinned: @links are the
 * new links, -1 where a pinned link was updated.
 */
static int write_origin(const struct policy *p, void *skel, const int *links)
{
	struct krsi_origin o;
	struct timespec now;
	union bpf_attr attr;
	__u32 zero = 0;
	ssize_t n;
	size_t i;
	int err = 0, fd = -ENOENT;

	memset(&o, 0, sizeof(o));
	o.load_id = krsi_load_id;
	o.version = krsi_load_version;
	clock_gettime(CLOCK_BOOTTIME, &now);
	o.time_ns = (__u64)now.tv_sec * 1000000000ULL + now.tv_nsec;
	o.pid = getpid();
	o.uid = getuid();
	n = readlink("/proc/self/exe", o.exe, sizeof(o.exe) - 1);
	if (n < 0)
		snprintf(o.exe, sizeof(o.exe), "?");
	o.nr_progs = p->nr_progs;
	for (i = 0; !err && i < p->nr_progs; i++) {
		struct krsi_origin_prog *op = &o.progs[i];
		struct krsi_link_info info;

		snprintf(op->hook, sizeof(op->hook), "%s", p->progs[i].hook);
		err = prog_id(skel_fd(skel, p->progs[i].fd_offset), &op->prog_id);
		if (!err)
			err = links[i] >= 0 ? krsi_link_info(links[i], &info) :
					      policy_link(p, i, &info);
		op->link_id = err ? 0 : info.link_id;
	}
	for (i = 0; i < p->nr_maps; i++)
		if (!strcmp(p->maps[i].name, "origin"))
			fd = skel_fd(skel, p->maps[i].fd_offset);
	if (!err && fd < 0)
		err = fd;
	if (!err) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		attr.key = (unsigned long)&zero;
		attr.value = (unsigned long)&o;
		err = sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
	}
	return err;
}

int policy_attach(const struct policy *p, bool replace, int mode)
{
	const char *what = replace ? "replace" : "attach";
	int links[KRSI_MAX_POLICY_PROGS];
	int err, origin_err = 0;
	size_t i;
	void *skel;

	/* A replacement runs in the mode of what it replaces. */
	if (mode < 0)
		mode = policy_mode(p) == KRSI_MODE_AUDIT ? KRSI_MODE_AUDIT :
		       KRSI_MODE_ENFORCE;

	if (!replace && policy_attached(p)) {
		error(-EEXIST, "attach %s: already attached", p->name);
		return -EEXIST;
	}
	if (p->nr_progs > KRSI_MAX_POLICY_PROGS) {
		error(-E2BIG, "%s %s: more than %d programs", what, p->name,
		      KRSI_MAX_POLICY_PROGS);
		return -E2BIG;
	}
	err = new_load_id();
	if (err) {
		error(err, "%s %s: getrandom for its load's id", what, p->name);
		return err;
	}
	skel = p->open();
	if (!skel) {
		err = -errno;
		error(err, "%s %s: open", what, p->name);
		return err;
	}
	err = p->configure ? p->configure(skel) : 0;
	if (err)
		goto out;
	err = p->load(skel);
	if (err) {
		err = err < 0 ? err : -errno;
		error(err, "%s %s: load", what, p->name);
		goto out;
	}
	/* Before its first program is attached: no call sees another mode. */
	err = skel_mode_fd(p, skel);
	err = err < 0 ? err : write_mode(err, mode);
	if (err) {
		error(err, "%s %s: map policy_mode", what, p->name);
		goto out;
	}
	/*
	 * On failure the new links close, and so detach; a replacement that
	 * failed half way keeps the programs it swapped in already.
	 */
	err = attach_progs(p, skel, replace, links);
	if (err)
		goto close;
	/*
	 * Before the pins, by which the reader finds the policy: its first
	 * record already has its origin.  A new attach that cannot say who
	 * made it is undone (its links close); a replacement is in place
	 * already, and its records will say their origin is unknown.
	 */
	origin_err = write_origin(p, skel, links);
	if (origin_err) {
		error(origin_err, "%s %s: map origin", what, p->name);
		err = origin_err;
		if (!replace)
			goto close;
	}
	err = make_pin_dir(p);
	for (i = 0; !err && i < p->nr_progs; i++)
		if (links[i] >= 0)
			err = pin(p, p->progs[i].name, links[i]);
	for (i = 0; !err && i < p->nr_maps; i++)
		err = pin(p, p->maps[i].name, skel_fd(skel, p->maps[i].fd_offset));
	if (err) {
		error(err, "%s %s: pin in %s", what, p->name, KRSI_PIN_DIR);
		policy_unpin(p);
	}
close:
	close_fds(links, p->nr_progs);
out:
	p->destroy(skel);
	return err ? err : origin_err;
}

void policy_unpin(const struct policy *p)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < p->nr_progs; i++) {
		pin_path(path, p, p->progs[i].name);
		unlink(path);
	}
	for (i = 0; i < p->nr_maps; i++) {
		pin_path(path, p, p->maps[i].name);
		unlink(path);
	}
	pin_path(path, p, NULL);
	rmdir(path);
}

int policy_link(const struct policy *p, size_t prog, struct krsi_link_info *info)
{
	int fd = pinned(p, p->progs[prog].name, 0), err;

	if (fd < 0)
		return fd;
	err = krsi_link_info(fd, info);
	close(fd);
	return err;
}

int policy_detach(const struct policy *p)
{
	int err = 0, fd, e, state = policy_pin_state(p);
	struct held_policy held;
	size_t i;

	if (state > 0 && signed_held(p->name, &held) > 0) {
		error(-EPERM, "detach %s: held by the kernel, signed (version %u): "
		      "a newer signed version replaces it, nothing detaches it",
		      p->name, held.version);
		return -EPERM;
	}
	if (state <= 0) {
		/* Not "not attached" where it could not look. */
		err = state ? state : -ENOENT;
		error(err, "detach %s: %s", p->name, state == -EACCES ?
		      KRSI_PIN_DIR " (needs root)" : "not attached");
		return err;
	}
	/* Detached now, whoever else holds a descriptor of the links. */
	for (i = 0; i < p->nr_progs; i++) {
		const struct policy_prog *prog = &p->progs[i];

		fd = pinned(p, prog->name, 0);
		e = fd < 0 ? fd : krsi_link_detach(fd);
		if (fd >= 0)
			close(fd);
		if (e) {
			error(e, "detach %s: the link of %s on hook %s", p->name,
			      prog->name, prog->hook);
			err = err ? err : e;
		}
	}
	if (!err)
		policy_unpin(p);
	return err;
}
