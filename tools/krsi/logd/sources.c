// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's sources: every attached policy's ring buffers (the
 * records it reports) and counters (the reports it lost, the execs it
 * refused, per user), found as policies are attached, replaced and
 * detached, and the epoll set the reader waits on.  The reader claims
 * its place in the policies that know it (progs/krsi_reader.h) before
 * it takes their buffers; the sources of a policy that went stay until
 * they are drained.  A policy the kernel holds that this build does not
 * know has records nobody reads: said, once per load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "errname.h"
#include "logd.h"
#include "sysbpf.h"

/*
 * While unlocked, policies come and go: look for them this often.  After
 * the lock only a signed load changes one: an idle reader looks (and
 * reads the counters) once a second.
 */
#define RESCAN_MS		100
#define COUNTERS_MS		1000

/* A policy's counter of reports lost (or execs refused), and per user. */
struct counter {
	const struct policy *p;
	enum event_type type;
	int total_fd, uid_fd;
	__u64 total, other;	/* as last logged */
	struct { __u32 uid; __u64 n; } *uids;
	size_t nr_uids;
	bool gone;
};

static struct {
	struct ring *rings;
	size_t nr_rings;
	struct counter *counters;
	size_t nr_counters;
	__u32 *policy_ids;	/* per policy: its "denials" map, or 0 */
	/*
	 * Per policy: the load whose buffers could not be taken, when, and
	 * why; and the first such, which held_update() says.
	 */
	__u32 *failed_ids;
	long long *failed_ms;
	char (*failed_why)[48];
	char unread[160];
	/* The load ids of held policies this build does not know, said once. */
	unsigned long long *strangers;
	size_t nr_strangers;
	int strangers_err;	/* why the held policies could not be read, said once */
	int epoll;
	long long scanned_ms;	/* when the policies were last looked for */
	long long counted_ms;	/* when the counters were last read */
	bool locked;
} src = { .epoll = -1 };

int sources_start(void)
{
	src.policy_ids = calloc(nr_policies, sizeof(*src.policy_ids));
	src.epoll = epoll_create1(EPOLL_CLOEXEC);
	return src.policy_ids && src.epoll >= 0 ? 0 : -ENOMEM;
}

int sources_reserve(void)
{
	src.failed_ids = calloc(nr_policies, sizeof(*src.failed_ids));
	src.failed_ms = calloc(nr_policies, sizeof(*src.failed_ms));
	src.failed_why = calloc(nr_policies, sizeof(*src.failed_why));
	return src.failed_ids && src.failed_ms && src.failed_why ? 0 : -ENOMEM;
}

size_t nr_rings(void)
{
	return src.nr_rings;
}

struct ring *ring_at(size_t i)
{
	return &src.rings[i];
}

bool sources_locked(void)
{
	return src.locked;
}

const char *sources_unread(void)
{
	return src.unread;
}

bool rescan_due(void)
{
	return now_ms() - src.scanned_ms >= RESCAN_MS;
}

/* Add @fd to the epoll set the reader waits on: 0 or an errno. */
static int watch(int fd)
{
	return epoll_ctl(src.epoll, EPOLL_CTL_ADD, fd,
			 &(struct epoll_event){ .events = EPOLLIN }) ? errno : 0;
}

bool sources_watch(int fd, const char *what)
{
	int err = watch(fd);

	if (err)
		emit_reader("error", 0, "epoll %s: %s", what, errname(err));
	return !err;
}

/* Not at all if @now; else RESCAN_MS, or COUNTERS_MS once locked. */
void sources_wait(bool now)
{
	struct epoll_event ready[16];
	int wait = now ? 0 : src.locked ? COUNTERS_MS : RESCAN_MS;

	if (epoll_wait(src.epoll, ready, 16, wait) < 0 && errno != EINTR)
		emit_reader("error", 0, "epoll_wait: %s", errname(errno));
}

static int map_id(int fd, __u32 *type, __u32 *max_entries, __u32 *id)
{
	struct bpf_map_info info;
	int err;

	memset(&info, 0, sizeof(info));
	err = sys_bpf_obj_info(fd, &info, sizeof(info));
	*type = info.type;
	*max_entries = info.max_entries;
	*id = info.id;
	return err;
}

static int add_ring(const struct policy *p, int fd, size_t size)
{
	struct ring *r, *grown;
	int err, werr;

	grown = realloc(src.rings, (src.nr_rings + 1) * sizeof(*src.rings));
	if (!grown)
		return -ENOMEM;
	src.rings = grown;
	r = &src.rings[src.nr_rings];
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->counts_fd = -1;
	err = ringbuf_map(&r->rb, fd, size);
	if (err)
		return err;
	/* Every round drains every ring: without its wake-up (root's
	 * epoll watches used up, fs.epoll.max_user_watches), its records
	 * wait at most a round, a second once locked.
	 */
	werr = watch(fd);
	if (werr)
		emit_reader("error", 0, "epoll %s: %s: its records are read every "
			    "round, not the moment they come", p->name, errname(werr));
	src.nr_rings++;
	return 0;
}

static int add_counter(const struct policy *p, const char *total, const char *per_uid,
		       enum event_type type)
{
	int t = policy_map_fd(p, total, BPF_F_RDONLY);
	int u = policy_map_fd(p, per_uid, BPF_F_RDONLY);
	struct counter *c, *grown;

	grown = t >= 0 && u >= 0 ?
		realloc(src.counters, (src.nr_counters + 1) * sizeof(*src.counters)) : NULL;
	if (!grown) {
		int err = t < 0 ? t : u < 0 ? u : -ENOMEM;

		if (t >= 0)
			close(t);
		if (u >= 0)
			close(u);
		return err;
	}
	src.counters = grown;
	c = &src.counters[src.nr_counters++];
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->type = type;
	c->total_fd = t;
	c->uid_fd = u;
	return 0;
}

bool policy_has_map(const struct policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr_maps; i++)
		if (!strcmp(p->maps[i].name, name))
			return true;
	return false;
}

/*
 * Claim the reader's place in @p if it knows the reader (a map "reader":
 * protect_init, protect_log, krsi_lock), unless this process has it.  Only
 * before the seal: after it, a replacement is given the claim by the
 * kernel, and a policy loaded then does not know the reader.
 */
static int claim_in(const struct policy *p)
{
	if (!policy_has_map(p, "reader") || reader_claimed(p, getpid()) == 1)
		return 0;
	return reader_claim(p);
}

/* Before anything else (its errors are logged by rescan(), which tries again). */
void claim_all(void)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (policy_pin_state(&policies[i]) > 0)
			claim_in(&policies[i]);
}

static void close_ring(struct ring *r)
{
	int fd = r->rb.fd;

	ringbuf_unmap(&r->rb);
	close(fd);
	if (r->counts_fd >= 0)
		close(r->counts_fd);
	sb_free(&r->copy.line);
}

static void close_counter(struct counter *c)
{
	close(c->total_fd);
	close(c->uid_fd);
	free(c->uids);
}

/*
 * Take @p's ring buffers and counters, and claim the reader's place in
 * it: 0, or a negative errno with none of them taken (tried again).
 */
static int add_policy(const struct policy *p)
{
	size_t i, rings = src.nr_rings, counters = src.nr_counters;
	int err = 0;

	/* Not known to it: logged, and its buffers taken all the same. */
	err = claim_in(p);
	if (err)
		emit_reader("error", 0, "claim in %s: %s%s", p->name, errname(-err),
			    err == -EPERM ? " (another process claimed it, or it "
			    "was loaded after the seal)" : "");
	err = 0;
	for (i = 0; i < p->nr_maps && !err; i++) {
		__u32 type, entries, id;
		int fd = policy_map_fd(p, p->maps[i].name, BPF_F_RDONLY);

		/* Held by the kernel, it kept only the maps its programs use. */
		if (fd == -ENOENT && signed_is_held(p->name))
			continue;
		if (fd < 0) {
			err = fd;
			break;
		}
		err = map_id(fd, &type, &entries, &id);
		close(fd);
		if (err || type != BPF_MAP_TYPE_RINGBUF)
			continue;
		/* Writable: the consumer position is the reader's to move. */
		fd = policy_map_fd(p, p->maps[i].name, 0);
		err = fd < 0 ? fd : add_ring(p, fd, entries);
		if (err && fd >= 0)
			close(fd);
		if (!err && !strcmp(p->maps[i].name, "denials"))
			take_origin(&src.rings[src.nr_rings - 1]);
	}
	if (!err && policy_has_map(p, "lost_uid"))
		err = add_counter(p, "lost", "lost_uid", EVENT_LOST);
	if (!err && policy_has_map(p, "refused_uid"))
		err = add_counter(p, "refused", "refused_uid", EVENT_REFUSED);
	if (!err)
		return 0;
	while (src.nr_rings > rings)
		close_ring(&src.rings[--src.nr_rings]);
	while (src.nr_counters > counters)
		close_counter(&src.counters[--src.nr_counters]);
	return err;
}

/* The id of @p's pinned map "denials": which copy of it is attached. */
static __u32 policy_id(const struct policy *p)
{
	int fd = policy_pin_state(p) > 0 ?
		 policy_map_fd(p, "denials", BPF_F_RDONLY) : -ENOENT;
	__u32 type, entries, id = 0;

	if (fd >= 0) {
		if (map_id(fd, &type, &entries, &id))
			id = 0;
		close(fd);
	}
	return id;
}

/* held_unknown()'s callback: say once per load that it is not read. */
static void stranger(const char *name, __u32 version,
		     unsigned long long load_id, void *arg)
{
	unsigned long long *more;
	size_t i;

	(void)arg;
	for (i = 0; i < src.nr_strangers; i++)
		if (src.strangers[i] == load_id)
			return;
	more = realloc(src.strangers, (src.nr_strangers + 1) * sizeof(*more));
	if (more) {
		src.strangers = more;
		src.strangers[src.nr_strangers++] = load_id;
	}
	emit_reader("error", 0, "%s version %u (load %016llx) is held by the "
		    "kernel, but this reader's build does not know it: its "
		    "records are not read", name, version, load_id);
}

/*
 * The reader knows a policy's maps from the skeleton its build has: a
 * policy the kernel holds under another name (signed elsewhere, `krsi
 * sign`) has records it cannot read.  Say so rather than lose them in
 * silence, and say once if the held policies cannot be read.
 */
static void report_strangers(void)
{
	int err = held_unknown(stranger, NULL);

	if (err && err != src.strangers_err)
		emit_reader("error", 0, "%s: %s: a policy the kernel holds that "
			    "this reader does not know is not seen",
			    KRSI_POLICIES_FILE, errname(-err));
	src.strangers_err = err;
}

/* After the lock too: a signed policy is loaded then, or replaces one. */
void rescan(void)
{
	char why[sizeof(src.unread)] = "";
	size_t i, j;
	int err;

	src.scanned_ms = now_ms();
	for (i = 0; i < nr_policies; i++) {
		__u32 id = policy_id(&policies[i]);

		/* One whose buffers could not be taken: tried every BEAT_MS. */
		if (id == src.policy_ids[i] ||
		    (id == src.failed_ids[i] && src.scanned_ms - src.failed_ms[i] < BEAT_MS)) {
			if (id == src.failed_ids[i] && id)
				snprintf(why, sizeof(why), "the records of %s are not "
					 "read: %s", policies[i].name, src.failed_why[i]);
			continue;
		}
		for (j = 0; j < src.nr_rings; j++) {
			if (src.rings[j].p != &policies[i] || src.rings[j].gone)
				continue;
			src.rings[j].gone = true;
			src.rings[j].gone_why = id ? "replaced" : "detached";
		}
		for (j = 0; j < src.nr_counters; j++)
			src.counters[j].gone |= src.counters[j].p == &policies[i];
		src.policy_ids[i] = id;
		src.failed_ids[i] = 0;
		if (!id)
			continue;
		err = add_policy(&policies[i]);
		if (!err) {
			emit_reader("attach", 0, "reading %s", policies[i].name);
			continue;
		}
		/* Not read: records held back until its buffers are taken. */
		src.policy_ids[i] = 0;
		src.failed_ids[i] = id;
		src.failed_ms[i] = src.scanned_ms;
		snprintf(src.failed_why[i], sizeof(src.failed_why[i]), "take its buffers: %s",
			 errname(-err));
		snprintf(why, sizeof(why), "the records of %s are not read: %s",
			 policies[i].name, src.failed_why[i]);
		emit_reader("error", 0, "take the buffers of %s: %s: its records are "
			    "held back; tried again every %d s", policies[i].name,
			    errname(-err), BEAT_MS / 1000);
	}
	snprintf(src.unread, sizeof(src.unread), "%s", why);
	report_strangers();
	src.locked = krsi_locked() > 0;
}

/*
 * A policy's counter: what grew since it was last logged, per user, and
 * for the users its table had no room for.
 */
static void log_counter(struct counter *c)
{
	union bpf_attr attr;
	__u64 total = 0, sum = 0, n;
	__u32 zero = 0, key, next, *prev = NULL;
	size_t i;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = c->total_fd;
	attr.key = (unsigned long)&zero;
	attr.value = (unsigned long)&total;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) || total == c->total)
		return;
	for (;;) {
		struct event_view v;

		memset(&attr, 0, sizeof(attr));
		attr.map_fd = c->uid_fd;
		attr.key = (unsigned long)prev;
		attr.next_key = (unsigned long)&next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		key = next;
		prev = &key;
		attr.key = (unsigned long)&key;
		attr.value = (unsigned long)&n;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			continue;
		sum += n;
		for (i = 0; i < c->nr_uids && c->uids[i].uid != key; i++)
			;
		if (i == c->nr_uids) {
			void *grown = realloc(c->uids, (i + 1) * sizeof(*c->uids));

			if (!grown)
				return;
			c->uids = grown;
			c->uids[c->nr_uids++].uid = key;
			c->uids[i].n = 0;
		}
		if (n == c->uids[i].n)
			continue;
		memset(&v, 0, sizeof(v));
		v.type = c->type;
		v.time_ns = boot_ns();
		v.uid = key;
		v.policy = cstr(c->p->name);
		v.count = n - c->uids[i].n;
		/* Not logged (no room): counted again next time. */
		if (emit(&v, true, NULL, NULL))
			return;
		c->uids[i].n = n;
	}
	/* What no per-user slot holds: users beyond the table, or a slot
	 * this walk missed (added meanwhile), which a later walk finds and
	 * reports as its own; the rest is only ever reported once.
	 */
	if (total > sum && total - sum > c->other) {
		struct event_view v = { .type = c->type, .uid = OTHER_UIDS };

		v.time_ns = boot_ns();
		v.policy = cstr(c->p->name);
		v.count = total - sum - c->other;
		if (emit(&v, true, NULL, NULL))
			return;
	}
	c->other = total > sum ? total - sum : 0;
	c->total = total;
}

/*
 * A counter grows only when a buffer is full: once a second is enough,
 * and spares every round a system call per policy.
 */
void sources_count(bool now)
{
	size_t i;

	if (now_ms() - src.counted_ms < COUNTERS_MS && !now)
		return;
	for (i = 0; i < src.nr_counters; i++)
		log_counter(&src.counters[i]);
	src.counted_ms = now_ms();
}

/*
 * Forget the rings of policies that went once they are drained and
 * given back, every record of theirs logged (a consume at the start of a
 * round comes before that round drains them), and their load's counts
 * logged too; and the counters of policies that went.
 */
static void drop_gone(void)
{
	size_t i, n = 0;

	for (i = 0; i < src.nr_rings; i++) {
		struct ring *r = &src.rings[i];

		if (r->gone && !ringbuf_unconsumed(&r->rb) &&
		    log_denials(r, r->gone_why))
			close_ring(r);
		else
			src.rings[n++] = *r;
	}
	src.nr_rings = n;
	for (i = n = 0; i < src.nr_counters; i++) {
		if (src.counters[i].gone)
			close_counter(&src.counters[i]);
		else
			src.counters[n++] = src.counters[i];
	}
	src.nr_counters = n;
}

void sources_consume(void)
{
	size_t i;

	for (i = 0; i < src.nr_rings; i++)
		ringbuf_consume(&src.rings[i].rb);
	drop_gone();
}

unsigned long sources_held_bytes(void)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < src.nr_rings; i++)
		n += ringbuf_unconsumed(&src.rings[i].rb);
	return n;
}
