// SPDX-License-Identifier: GPL-2.0
/*
 * Signed policies, which the kernel loads and holds itself (patch 0023,
 * <linux/krsi.h>): make packs and signs every policy it builds into
 * /usr/lib/krsi/NAME.krsi (tools/pack/krsi-pack.c).  Writing one to
 * /sys/kernel/security/krsi/policies attaches it, or replaces the version
 * the kernel holds with a newer one: the one way to change policies after
 * `krsi lock`.  The kernel decides; this says why it refused.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/krsi.h>

#include "errname.h"
#include "hookfile.h"
#include "krsi.h"
#include "krsi_event.h"
#include "sysbpf.h"

/* The policy @what names: a path, or a policy make signed for the image. */
static void signed_path(const char *what, char *buf, size_t size)
{
	if (strchr(what, '/'))
		snprintf(buf, size, "%s", what);
	else
		snprintf(buf, size, "%s/%s.krsi", KRSI_SIGNED_DIR, what);
}

/* The whole file, malloc()ed, or NULL with errno set. */
static char *read_whole(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto out;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (buf && read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	*len = st.st_size;
out:
	close(fd);
	return buf;
}

/*
 * Call @fn with each policy of KRSI_POLICIES_FILE, its name and what the
 * kernel says of it, until @fn returns non-zero: that value, 0 at the
 * end, or a negative errno if the file could not be opened or read.
 */
static int each_held(int (*fn)(const char *name, const struct held_policy *held,
			       void *arg),
		     void *arg)
{
	FILE *f = fopen(KRSI_POLICIES_FILE, "re");
	char line[1024];
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		char name[KRSI_POLICY_NAME_LEN + 1];
		struct held_policy held;
		int off = 0;

		if (sscanf(line, "%32s %u %llx %llu %u %u%n", name,
			   &held.version, &held.load_id, &held.time_ns,
			   &held.pid, &held.uid, &off) != 6)
			continue;
		snprintf(held.links, sizeof(held.links), "%s",
			 line[off] == ' ' ? line + off + 1 : "");
		held.links[strcspn(held.links, "\n")] = 0;
		ret = fn(name, &held, arg);
	}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	return ret;
}

struct held_search {
	const char *name;
	struct held_policy *held;
};

static int held_named(const char *name, const struct held_policy *held,
		      void *arg)
{
	struct held_search *search = arg;

	if (strcmp(name, search->name))
		return 0;
	*search->held = *held;
	return 1;
}

int signed_held(const char *name, struct held_policy *held)
{
	struct held_search search = { name, held };

	return each_held(held_named, &search);
}

/* Why the kernel refused @hdr's policy with @err, in a user's words. */
static void explain(const char *path, const char *name, __u32 version,
		    int err)
{
	struct held_policy held;

	switch (err) {
	case ENOENT:
		fprintf(stderr, "  this kernel loads no signed policies "
			"(CONFIG_SECURITY_BPF_SIGNED)\n");
		break;
	case EPERM:
	case EACCES:
		fprintf(stderr, "  only root (CAP_MAC_ADMIN) may\n");
		break;
	case ENODATA:
		fprintf(stderr, "  it is not signed: make signs what it builds, "
			"and `make sign-policy FILE=%s` what was built elsewhere\n",
			path);
		break;
	case ENOKEY:
		fprintf(stderr, "  it is signed by a key the kernel does not trust "
			"(its builtin keyring has the build's key)\n");
		break;
	case EKEYREJECTED:
		fprintf(stderr, "  it was changed after it was signed\n");
		break;
	case EBADMSG:
	case ENOPKG:
		fprintf(stderr, "  its signature is malformed, or not one "
			"scripts/sign-file makes\n");
		break;
	case ESTALE:
		if (name && signed_held(name, &held) > 0)
			fprintf(stderr, "  the kernel holds version %u of %s; this "
				"is version %u, and only a higher one replaces it\n",
				held.version, name, version);
		else
			fprintf(stderr, "  not newer than the version the kernel holds\n");
		break;
	case EEXIST:
		fprintf(stderr, "  a program of the same name is on its hook, "
			"attached from user space: detach that policy first "
			"(before the lock)\n");
		break;
	case EINVAL:
		fprintf(stderr, "  not a policy this kernel can read "
			"(<linux/krsi.h>)\n");
		break;
	case EOPNOTSUPP:
		fprintf(stderr, "  a program acts, and this kernel only audits\n");
		break;
	}
	fprintf(stderr, "  (the kernel log says more: dmesg | grep 'krsi: policy')\n");
}

int signed_attach(const char *what)
{
	const struct krsi_policy_header *hdr = NULL;
	char path[PATH_MAX], name[KRSI_POLICY_NAME_LEN + 1];
	size_t len = 0;
	char *buf;
	int fd, err = 0;

	signed_path(what, path, sizeof(path));
	buf = read_whole(path, &len);
	if (!buf) {
		err = errno;
		fprintf(stderr, "krsi: %s: %s\n", path, errname(err));
		return -err;
	}
	snprintf(name, sizeof(name), "%s", what);
	if (len >= sizeof(*hdr) &&
	    !memcmp(buf, KRSI_POLICY_MAGIC, sizeof(hdr->magic))) {
		hdr = (const void *)buf;
		snprintf(name, sizeof(name), "%.*s", KRSI_POLICY_NAME_LEN,
			 hdr->name);
	}
	fd = open(KRSI_POLICIES_FILE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	else if (write(fd, buf, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (err) {
		fprintf(stderr, "krsi: %s: the kernel refused %s: %s\n", name,
			path, errname(err));
		explain(path, hdr ? name : NULL, hdr ? hdr->version : 0, err);
	} else {
		printf("krsi: %s version %u, signed, held by the kernel\n", name,
		       hdr ? hdr->version : 0);
	}
	free(buf);
	return -err;
}

static int get_fd_by_id(int cmd, __u32 id, __u32 flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_id = id;	/* prog_id and map_id are the same field */
	attr.open_flags = flags;
	return sys_bpf(cmd, &attr);
}

static bool is_prog(const struct policy *p, const char *obj)
{
	size_t i;

	for (i = 0; i < p->nr_progs; i++)
		if (!strcmp(p->progs[i].name, obj))
			return true;
	return false;
}

/*
 * The map of @prog_fd named @name, opened with @flags, or -ENOENT.  Map
 * names are the policy's variable names, cut to 15 characters as the
 * kernel keeps them (gen-policy.sh checks that none is longer).
 */
static int prog_map(int prog_fd, const char *name, __u32 flags)
{
	struct bpf_prog_info info;
	__u32 ids[64], i;
	int err;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (unsigned long)ids;
	err = sys_bpf_obj_info(prog_fd, &info, sizeof(info));
	if (err)
		return err;
	/*
	 * Each looked at read-only: after the lock only the audit reader
	 * gets a writable descriptor, and only of the maps it needs.
	 */
	for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bpf_map_info map;
		int fd = get_fd_by_id(BPF_MAP_GET_FD_BY_ID, ids[i], BPF_F_RDONLY);

		if (fd < 0)
			return fd;
		memset(&map, 0, sizeof(map));
		err = sys_bpf_obj_info(fd, &map, sizeof(map));
		close(fd);
		if (err)
			return err;
		if (!strncmp(map.name, name, sizeof(map.name) - 1))
			return get_fd_by_id(BPF_MAP_GET_FD_BY_ID, ids[i], flags);
	}
	return -ENOENT;
}

struct held_unknown_call {
	void (*fn)(const char *name, __u32 version, unsigned long long load_id,
		   void *arg);
	void *arg;
};

static int held_if_unknown(const char *name, const struct held_policy *held,
			   void *arg)
{
	const struct held_unknown_call *call = arg;
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (!strcmp(policies[i].name, name))
			return 0;
	call->fn(name, held->version, held->load_id, call->arg);
	return 0;
}

int held_unknown(void (*fn)(const char *name, __u32 version,
			    unsigned long long load_id, void *arg),
		 void *arg)
{
	struct held_unknown_call call = { fn, arg };
	int err = each_held(held_if_unknown, &call);

	/* No such file: a kernel that holds no signed policies. */
	return err == -ENOENT ? 0 : err;
}

bool signed_is_held(const char *name)
{
	struct held_policy held;

	return signed_held(name, &held) > 0;
}

int held_fd(const struct policy *p, const char *obj, __u32 flags)
{
	struct held_policy held;
	char *id, *save;
	int err = signed_held(p->name, &held), fd = -ENOENT;

	if (err <= 0)
		return err ? err : -ENOENT;
	for (id = strtok_r(held.links, " ", &save); id && fd == -ENOENT;
	     id = strtok_r(NULL, " ", &save)) {
		struct krsi_link_info link;
		struct bpf_prog_info prog;
		int link_fd, prog_fd;

		link_fd = get_fd_by_id(BPF_LINK_GET_FD_BY_ID, atoi(id), 0);
		if (link_fd < 0)
			return link_fd;
		err = krsi_link_info(link_fd, &link);
		prog_fd = err ? err : get_fd_by_id(BPF_PROG_GET_FD_BY_ID,
						   link.prog_id, 0);
		memset(&prog, 0, sizeof(prog));
		err = prog_fd < 0 ? prog_fd :
		      sys_bpf_obj_info(prog_fd, &prog, sizeof(prog));
		if (err)
			fd = err;
		else if (!is_prog(p, obj))
			fd = prog_map(prog_fd, obj, flags);
		else if (!strncmp(prog.name, obj, sizeof(prog.name) - 1))
			fd = link_fd;
		if (prog_fd >= 0)
			close(prog_fd);
		if (fd != link_fd)
			close(link_fd);
	}
	return fd;
}

int held_origin(const struct policy *p, struct krsi_origin *o)
{
	struct held_policy held;
	char *id, *save;
	int err = signed_held(p->name, &held);

	if (err <= 0)
		return err ? err : -ENOENT;
	memset(o, 0, sizeof(*o));
	o->load_id = held.load_id;
	o->time_ns = held.time_ns;
	o->version = held.version;
	o->pid = held.pid;
	o->uid = held.uid;
	/* The kernel keeps who, not with what: its own, or a write's (the
	 * readers put it in parentheses, as they put an executable). */
	snprintf(o->exe, sizeof(o->exe), "%s", held.pid ?
		 "written to " KRSI_POLICIES_FILE : "the kernel, at boot");
	for (id = strtok_r(held.links, " ", &save);
	     id && o->nr_progs < KRSI_ORIGIN_PROGS;
	     id = strtok_r(NULL, " ", &save)) {
		struct krsi_origin_prog *prog = &o->progs[o->nr_progs];
		struct krsi_link_info link;
		int fd = get_fd_by_id(BPF_LINK_GET_FD_BY_ID, atoi(id), 0);

		err = fd < 0 ? fd : krsi_link_info(fd, &link);
		if (fd >= 0)
			close(fd);
		if (err)
			return err;
		/* NUL-padded, as the policies write it: o was zeroed. */
		memcpy(prog->hook, link.hook,
		       strnlen(link.hook, sizeof(prog->hook) - 1));
		prog->prog_id = link.prog_id;
		prog->link_id = link.link_id;
		o->nr_progs++;
	}
	return 0;
}
