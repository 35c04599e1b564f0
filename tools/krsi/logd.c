// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi logd`: the audit reader.  /init starts it once the boot policies
 * are attached and before `krsi lock`; from then on it is the only
 * consumer of every policy's ring buffer, and what it drains goes into
 * the audit log, each record with its sequence number:
 *
 *	ring buffers --> sorted by time --> /var/log/krsi/log.N (root's)
 *	                                --> /var/log/krsi/uid/UID/log.N (each
 *	                                    user's own records, theirs to read)
 *	                                --> /dev/ttyS2, to the host (JSON lines)
 *
 * A record leaves its ring buffer only once it is in the log and on the
 * port: the consumer position moves after the writes, never before, so
 * a reader that dies loses nothing (a restarted one may log a record
 * twice).  What the policies could not report (counters lost and
 * refused, per user) is logged as it grows.  The log is rotated into
 * segments of a fixed size, the oldest removed, each rotation a record
 * of its own.
 *
 * Nothing may stop, starve or blind it after the lock: it claims its
 * place (progs/krsi_reader.h) in protect_init (no signal but its own and
 * PID 1's, no ptrace, no priority change), protect_log (the log and the
 * port are its alone) and krsi_lock, runs SCHED_FIFO, which no other
 * process may become, and tells the OOM killer never to choose it.  It
 * took its ring buffers' descriptors before the seal; after it nobody
 * else gets a writable one (krsi_lock, which lets the reader alone take
 * those of a signed policy loaded after the lock).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "auditlog.h"
#include "errname.h"
#include "event_format.h"
#include "krsi.h"
#include "krsi_stream.h"
#include "ringbuf.h"
#include "seal.h"
#include "sysbpf.h"

/* The log: 8 segments of 4 MB, some 150,000 records of 200 bytes. */
#define SEGMENT_SIZE		(4 << 20)
#define SEGMENTS		8
/* Each user's own: 2 segments of 512 KB, for at most 8 users (40 MB in all). */
#define USER_SEGMENT_SIZE	(512 << 10)
#define USER_SEGMENTS		2
#define MAX_USERS		8
/*
 * While unlocked, policies come and go: look for them this often.  After
 * the lock only a signed load changes one: an idle reader looks (and
 * reads the counters) once a second.
 */
#define RESCAN_MS		100
#define COUNTERS_MS		1000
/* The stream's heartbeat, which the host expects (run-qemu.sh), and how
 * often a stream that failed is opened again.
 */
#define BEAT_MS			10000
#define REOPEN_MS		5000
/* The uid of reports the per-user table had no room for. */
#define OTHER_UIDS		((__u32)-1)

/* Denials of one hook that the log holds, of the load a ring is of. */
struct tally {
	char hook[KRSI_HOOK_LEN];
	__u64 denied, would_deny;
};

/* One policy's ring buffer (tools/lib/ringbuf.c), consumed once logged. */
struct ring {
	const struct policy *p;
	struct ringbuf rb;
	bool gone;		/* its policy was detached: drain, then close */
	/*
	 * The denials ring only: who attached the load (its map origin, if
	 * it could be read), its map denial_counts (-1: none), what the
	 * log holds of its denials, why it went, and whether its counts
	 * are logged.
	 */
	struct krsi_origin origin;
	bool has_origin;
	/* The origin record as logged, and the users whose own log has it. */
	struct strbuf origin_line;
	uid_t origin_uids[MAX_USERS];
	size_t nr_origin_uids;
	int counts_fd;
	struct tally tallies[KRSI_ORIGIN_PROGS];
	size_t nr_tallies;
	const char *gone_why;
	bool counted;
};

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

struct user_log {
	uid_t uid;
	struct log_writer w;
};

/* A record drained from a ring, waiting to be sorted and logged. */
struct drained {
	__u64 time_ns;
	size_t ring, order;
	unsigned long pos;	/* where it is in its ring */
	const void *rec;
	size_t size;
};

static struct {
	struct ring *rings;
	size_t nr_rings;
	struct counter *counters;
	size_t nr_counters;
	__u32 *policy_ids;	/* per policy: its "denials" map, or 0 */
	/* The load ids of held policies this build does not know, said once. */
	unsigned long long *strangers;
	size_t nr_strangers;
	int strangers_err;	/* why the held policies could not be read, said once */
	struct drained *batch;
	size_t nr_batch, batch_cap;
	struct log_writer log;
	struct user_log users[MAX_USERS];
	size_t nr_users;
	int port;		/* the stream to the host, or -1 */
	struct sealer sealer;	/* the stream's next key (seal.h) */
	bool sealing;		/* the key went to the host: lines are sealed */
	unsigned long long stream_first;	/* seq of the first line not yet written */
	unsigned long long unstreamed;		/* seq from which the stream failed */
	long long beat_ms, reopen_ms, alive_ms;
	char stream_err[64];	/* why the stream stopped, or "" */
	int epoll;
	unsigned long long seq;
	struct strbuf line, stream;
	long long counted_ms;	/* when the counters were last read */
	long long scanned_ms;	/* when the policies were last looked for */
	unsigned long copies_lost;	/* users' copies without memory */
	unsigned long reader_lost;	/* the reader's own records, likewise */
	int state_fd;		/* KRSI_READER_STATE, rewritten in place */
	int port_path;		/* an O_PATH descriptor of the port's node */
	int kmsg;		/* /dev/kmsg: the kernel's lines on policies (kmsg.c) */
	bool locked, logged_users_full, rotate_failed, line_busy;
	/* The ring of the record being logged, for its origin (emit()). */
	struct ring *emitting;
	/* Where emit() copies the line it logged, if set. */
	struct strbuf *keep;
} d = { .port = -1, .epoll = -1, .state_fd = -1, .port_path = -1, .kmsg = -1 };

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static struct event_str cstr(const char *s)
{
	return (struct event_str){ s, strlen(s) };
}

/* ---- the log ------------------------------------------------------------ */

static bool emit(struct event_view *v);

/* A record of the reader's own, "event" @name, about user @uid. */
static void reader_view(struct event_view *v, const char *name, uid_t uid,
			const struct strbuf *what)
{
	memset(v, 0, sizeof(*v));
	v->type = EVENT_READER;
	v->time_ns = boot_ns();
	v->pid = getpid();
	v->uid = uid;
	v->comm = cstr("krsi");
	v->policy = cstr("reader");
	v->event = cstr(name);
	v->what = (struct event_str){ what->buf ? what->buf : "", what->len };
}

/* The reader's own record, "event" @name, about user @uid. */
__attribute__((format(printf, 3, 4)))
static void emit_reader(const char *name, uid_t uid, const char *fmt, ...)
{
	struct strbuf what = { 0 };
	struct event_view v;
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&what, fmt, ap);
	va_end(ap);
	reader_view(&v, name, uid, &what);
	/* No memory for it: counted, and said once there is (flush_all()). */
	if (!emit(&v))
		d.reader_lost++;
	sb_free(&what);
}

/*
 * Before a user's first denial by a load, the load's origin record in the
 * user's own log, as the log has it: krsi why, which reads only the
 * user's log, can then say who attached what denied them.
 */
static void copy_origin(struct log_writer *mine, const struct event_view *v)
{
	struct ring *r = d.emitting;
	size_t i;

	if (!r || !r->origin_line.len ||
	    (v->type != EVENT_DENY && v->type != EVENT_WOULD_DENY))
		return;
	for (i = 0; i < r->nr_origin_uids; i++)
		if (r->origin_uids[i] == v->uid)
			return;
	if (i == MAX_USERS)
		return;
	if (!log_append(mine, r->origin_line.buf, r->origin_line.len)) {
		d.copies_lost++;
		return;
	}
	r->origin_uids[r->nr_origin_uids++] = v->uid;
}

/* @uid's own log, opened (made) the first time: NULL when full. */
static struct log_writer *user_log(uid_t uid)
{
	char path[64];
	size_t i;
	int err;

	if (!uid || uid == OTHER_UIDS)
		return NULL;	/* root reads the whole log */
	for (i = 0; i < d.nr_users; i++)
		if (d.users[i].uid == uid)
			return &d.users[i].w;
	if (d.nr_users == MAX_USERS) {
		if (!d.logged_users_full) {
			d.logged_users_full = true;
			emit_reader("error", 0, "%d users have a log of their own: "
				    "no more are made (uid %u)", MAX_USERS, (unsigned)uid);
		}
		return NULL;
	}
	snprintf(path, sizeof(path), KRSI_USER_LOG_DIR "/%u", (unsigned)uid);
	err = log_open(&d.users[d.nr_users].w, path, 0500, 0400, uid,
		       USER_SEGMENT_SIZE, USER_SEGMENTS);
	if (err) {
		emit_reader("error", 0, "%s: %s", path, errname(-err));
		return NULL;
	}
	d.users[d.nr_users].uid = uid;
	return &d.users[d.nr_users++].w;
}

/*
 * Begin @w's next segment if a line of @len bytes would not fit, and log
 * that: true if it did (the line must be made again, its seq has moved).
 * A rotation that fails is logged once a round, and the line goes into
 * the segment it was for.
 */
static bool rotated(struct log_writer *w, size_t len, uid_t uid)
{
	unsigned long removed, seg = w->seg;
	char name[32];
	int err;

	if (d.rotate_failed || !log_full(w, len))
		return false;
	err = log_rotate(w, &removed);
	name[0] = '\0';
	if (uid)
		snprintf(name, sizeof(name), "uid/%u/", (unsigned)uid);
	if (w->seg == seg) {
		d.rotate_failed = true;
		emit_reader("error", uid, "rotate %slog.%lu: %s", name, seg,
			    errname(-err));
		return false;
	}
	if (removed)
		emit_reader("rotate", uid, "%slog.%lu begun, %slog.%lu removed",
			    name, w->seg, name, removed);
	else if (!err)
		emit_reader("rotate", uid, "%slog.%lu begun", name, w->seg);
	if (err)
		emit_reader("error", uid, "%slog.%lu begun, removing the oldest: %s",
			    name, w->seg, errname(-err));
	return true;
}

/*
 * Give @v the next sequence number and append it to the log, to its
 * user's log, and to the stream.  A rotation that the line needs comes
 * first, as a record of its own (made in a buffer of its own: this one's
 * is in use).  False when there was no memory for the line: it is not
 * logged, its number not used, and the caller keeps it.
 */
static bool emit(struct event_view *v)
{
	struct log_writer *mine = user_log(v->uid);
	struct strbuf own = { 0 }, *line = &own;
	bool borrowed = !d.line_busy, logged;

	if (borrowed) {
		line = &d.line;		/* kept from record to record */
		d.line_busy = true;
	}
	do {
		sb_reset(line);
		v->has_seq = true;
		v->seq = d.seq;
		event_json(v, line);
		sb_putc(line, '\n');
	} while (rotated(&d.log, line->len, 0) ||
		 (mine && rotated(mine, line->len, v->uid)));
	logged = !line->failed && log_append(&d.log, line->buf, line->len);
	if (logged) {
		d.seq++;
		if (mine)
			copy_origin(mine, v);
		if (mine && !log_append(mine, line->buf, line->len))
			d.copies_lost++;
		if (d.keep) {
			sb_reset(d.keep);
			sb_put(d.keep, line->buf, line->len);
		}
		if (d.port >= 0) {
			if (!d.stream.len)
				d.stream_first = v->seq;
			seal_line(&d.sealer, line->buf, line->len - 1, &d.stream);
		}
	}
	if (borrowed)
		d.line_busy = false;
	sb_free(&own);
	return logged;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

static int write_state(void);
static void stream_failed(int err);

/*
 * Write the stream's pending lines: 0, or the errno of the write that
 * failed.  The buffer is wiped, not only emptied: the key's line passes
 * through it.  A buffer that had no memory for a line is not written at
 * all, and the port stays open: the positions of its lines are missing
 * on the host, which says so, and the record after names them.
 */
static int stream_write(void)
{
	unsigned long long first = d.stream_first;
	bool no_memory = d.stream.failed;
	int err = no_memory ? -ENOMEM : write_all(d.port, d.stream.buf, d.stream.len);

	if (d.stream.buf)
		explicit_bzero(d.stream.buf, d.stream.len);
	sb_reset(&d.stream);
	if (no_memory)
		emit_reader("error", 0, "no memory: records %llu to %llu not streamed "
			    "(this log has them)", first, d.seq - 1);
	else if (err)
		stream_failed(err);
	return err;
}

/*
 * The stream's lines that are not the log's: the key, the heartbeat.  A
 * reader record without a number, sealed after what is pending, and
 * written at once.
 */
__attribute__((format(printf, 2, 3)))
static int stream_only(const char *name, const char *fmt, ...)
{
	struct strbuf what = { 0 }, line = { 0 };
	struct event_view v;
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&what, fmt, ap);
	va_end(ap);
	reader_view(&v, name, 0, &what);
	event_json(&v, &line);
	if (!d.stream.len)
		d.stream_first = d.seq;
	if (line.failed)
		d.stream.failed = true;
	else
		seal_line(&d.sealer, line.buf, line.len, &d.stream);
	/* The key's line holds the key: nothing of it stays. */
	if (what.buf)
		explicit_bzero(what.buf, what.len);
	if (line.buf)
		explicit_bzero(line.buf, line.len);
	sb_free(&what);
	sb_free(&line);
	return stream_write();
}

/*
 * The stream failed (the port hung up, say): close it, say so in the
 * log and in the reader's state, which `krsi status` reads, and open it
 * again every REOPEN_MS (reopen_stream()).  The lines of the failed
 * write may not have reached the host: the record after the reopening
 * names them, and their positions are missing there.
 */
static void stream_failed(int err)
{
	close(d.port);
	d.port = -1;
	d.unstreamed = d.stream_first;
	snprintf(d.stream_err, sizeof(d.stream_err), "%s", errname(-err));
	d.reopen_ms = now_ms();
	if (!d.sealing)
		return;
	emit_reader("error", 0, KRSI_STREAM_DEV ": %s: the stream stops here; "
		    "the reader opens it again every %d s", errname(-err), REOPEN_MS / 1000);
	write_state();
}

/*
 * Write what was emitted: the log, the users' logs, the stream.  0 once
 * the log has it all (the records may then leave their buffers), or the
 * log's negative errno.
 */
static int flush_all(void)
{
	int err = log_flush(&d.log), e;
	size_t i;

	for (i = 0; i < d.nr_users; i++)
		if ((e = log_flush(&d.users[i].w)))
			emit_reader("error", d.users[i].uid, "uid/%u/log.%lu: %s",
				    (unsigned)d.users[i].uid, d.users[i].w.seg,
				    errname(-e));
	if (d.reader_lost) {
		unsigned long lost = d.reader_lost;

		d.reader_lost = 0;
		emit_reader("error", 0, "no memory: %lu records of the reader's own "
			    "were not logged", lost);
		if (d.reader_lost)	/* nor that one: keep the count */
			d.reader_lost = lost;
	}
	if (d.copies_lost) {
		emit_reader("error", 0, "no memory: %lu records not copied to "
			    "their users' logs (they are in this one)",
			    d.copies_lost);
		d.copies_lost = 0;
	}
	if (d.port >= 0 && (d.stream.len || d.stream.failed))
		stream_write();
	return err;
}

/* ---- the sources -------------------------------------------------------- */

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
	int err;

	grown = realloc(d.rings, (d.nr_rings + 1) * sizeof(*d.rings));
	if (!grown)
		return -ENOMEM;
	d.rings = grown;
	r = &d.rings[d.nr_rings];
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->counts_fd = -1;
	err = ringbuf_map(&r->rb, fd, size);
	if (err)
		return err;
	if (epoll_ctl(d.epoll, EPOLL_CTL_ADD, fd,
		      &(struct epoll_event){ .events = EPOLLIN })) {
		err = -errno;
		ringbuf_unmap(&r->rb);
		return err;
	}
	d.nr_rings++;
	return 0;
}

static int add_counter(const struct policy *p, const char *total, const char *per_uid,
		       enum event_type type)
{
	int t = policy_map_fd(p, total, BPF_F_RDONLY);
	int u = policy_map_fd(p, per_uid, BPF_F_RDONLY);
	struct counter *c, *grown;

	grown = t >= 0 && u >= 0 ?
		realloc(d.counters, (d.nr_counters + 1) * sizeof(*d.counters)) : NULL;
	if (!grown) {
		int err = t < 0 ? t : u < 0 ? u : -ENOMEM;

		if (t >= 0)
			close(t);
		if (u >= 0)
			close(u);
		return err;
	}
	d.counters = grown;
	c = &d.counters[d.nr_counters++];
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->type = type;
	c->total_fd = t;
	c->uid_fd = u;
	return 0;
}

static bool has_map(const struct policy *p, const char *name)
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
	if (!has_map(p, "reader") || reader_claimed(p, getpid()) == 1)
		return 0;
	return reader_claim(p);
}

/*
 * Claim the reader's place in every attached policy that knows it, before
 * anything else (its errors are logged by rescan(), which tries again).
 */
static void claim_all(void)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (policy_pin_state(&policies[i]) > 0)
			claim_in(&policies[i]);
}

/* Fill in @v's program and link, when its record is of ring @r's load. */
static void origin_of(const struct ring *r, struct event_view *v)
{
	const struct krsi_origin *o = &r->origin;
	__u32 i;

	if (!r->has_origin || !v->has_load || v->load_id != o->load_id)
		return;
	for (i = 0; i < o->nr_progs && i < KRSI_ORIGIN_PROGS; i++) {
		const char *hook = o->progs[i].hook;

		if (v->hook.len != strnlen(hook, KRSI_HOOK_LEN) ||
		    memcmp(v->hook.s, hook, v->hook.len))
			continue;
		v->has_ids = true;
		v->prog_id = o->progs[i].prog_id;
		v->link_id = o->progs[i].link_id;
		return;
	}
}

/* A record of the reader's own, of @type, about ring @r's load. */
static void load_view(struct event_view *v, enum event_type type,
		      const struct ring *r)
{
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->time_ns = boot_ns();
	v->pid = getpid();
	v->comm = cstr("krsi");
	v->policy = cstr(r->p->name);
	v->has_load = true;
	v->load_id = r->origin.load_id;
	v->version = r->origin.version;
}

/*
 * The origin record of ring @r's load, once, in root's log: who attached
 * it, when, and its programs; kept to be copied into users' logs.
 */
static void log_origin(struct ring *r)
{
	const struct krsi_origin *o = &r->origin;
	struct strbuf what = { 0 };
	struct event_view v;
	__u32 i;

	for (i = 0; i < o->nr_progs && i < KRSI_ORIGIN_PROGS; i++)
		sb_printf(&what, "%s%.*s prog %u link %u", i ? ", " : "",
			  KRSI_HOOK_LEN, o->progs[i].hook, o->progs[i].prog_id,
			  o->progs[i].link_id);
	load_view(&v, EVENT_ORIGIN, r);
	v.attached_pid = o->pid;
	v.attached_uid = o->uid;
	v.attached_ns = o->time_ns;
	v.attached_exe = (struct event_str){ o->exe, strnlen(o->exe, sizeof(o->exe)) };
	v.what = (struct event_str){ what.buf ? what.buf : "", what.len };
	d.keep = &r->origin_line;
	/* No memory for it: counted; its denials then say no more than ids. */
	if (!emit(&v) || what.failed)
		d.reader_lost++;
	else	/* root's own log has it now */
		r->origin_uids[r->nr_origin_uids++] = 0;
	d.keep = NULL;
	sb_free(&what);
}

/*
 * Who attached the load whose denials ring @r is, and its counts of
 * denials: what the records of that load will name, and what is logged
 * when it goes.  A policy built without them, or a map that cannot be
 * read, leaves its records without an origin, and says so once.
 */
static void take_origin(struct ring *r)
{
	union bpf_attr attr;
	__u32 zero = 0;
	int fd = has_map(r->p, "origin") ?
		 policy_map_fd(r->p, "origin", BPF_F_RDONLY) : -ENOENT;

	if (fd >= 0) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		attr.key = (unsigned long)&zero;
		attr.value = (unsigned long)&r->origin;
		r->has_origin = !sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) &&
				r->origin.load_id;
		close(fd);
	}
	/* A policy the kernel holds, which nobody writes origin of: the
	 * kernel says who loaded it (signed.c). */
	if (!r->has_origin && !held_origin(r->p, &r->origin))
		r->has_origin = true;
	if (!r->has_origin)
		emit_reader("error", 0, "%s: who attached it is unknown (map origin: %s)",
			    r->p->name, fd < 0 ? errname(-fd) : "not written");
	else
		log_origin(r);
	r->counts_fd = has_map(r->p, "denial_counts") ?
		       policy_map_fd(r->p, "denial_counts", BPF_F_RDONLY) : -1;
}

/* One more of @v's denials in the log, for ring @r's load. */
static void tally(struct ring *r, const struct event_view *v)
{
	struct tally *t;
	size_t i;

	if (!r->has_origin || !v->has_load || v->load_id != r->origin.load_id ||
	    (v->type != EVENT_DENY && v->type != EVENT_WOULD_DENY) ||
	    v->hook.len >= KRSI_HOOK_LEN)
		return;
	for (i = 0; i < r->nr_tallies; i++)
		if (strlen(r->tallies[i].hook) == v->hook.len &&
		    !memcmp(r->tallies[i].hook, v->hook.s, v->hook.len))
			break;
	if (i == r->nr_tallies) {
		if (i == KRSI_ORIGIN_PROGS)
			return;
		memcpy(r->tallies[i].hook, v->hook.s, v->hook.len);
		r->tallies[i].hook[v->hook.len] = '\0';
		r->nr_tallies++;
	}
	t = &r->tallies[i];
	if (v->type == EVENT_DENY)
		t->denied++;
	else
		t->would_deny++;
}

/*
 * Log how many denials ring @r's load made on each hook, reported or not,
 * and how many of them the log holds, now that it went (@why).  False if
 * a record could not be logged: then none is taken as logged, and it is
 * tried again.
 */
static bool log_denials(struct ring *r, const char *why)
{
	char key[KRSI_HOOK_LEN], next[KRSI_HOOK_LEN];
	struct krsi_denial_count n;
	union bpf_attr attr;
	bool first = true;

	if (r->counted || r->counts_fd < 0 || !r->has_origin)
		return true;
	for (;;) {
		struct event_view v;
		struct tally *t = NULL;
		size_t i;

		memset(&attr, 0, sizeof(attr));
		attr.map_fd = r->counts_fd;
		attr.key = first ? 0 : (unsigned long)key;
		attr.next_key = (unsigned long)next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		first = false;
		memcpy(key, next, sizeof(key));
		attr.key = (unsigned long)key;
		attr.value = (unsigned long)&n;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			continue;
		key[KRSI_HOOK_LEN - 1] = '\0';
		for (i = 0; i < r->nr_tallies; i++)
			if (!strcmp(r->tallies[i].hook, key))
				t = &r->tallies[i];
		load_view(&v, EVENT_DENIALS, r);
		v.hook = cstr(key);
		origin_of(r, &v);
		v.denied = n.denied;
		v.would_deny = n.would_deny;
		v.logged = t ? t->denied + t->would_deny : 0;
		v.why = cstr(why);
		if (!emit(&v))
			return false;
	}
	r->counted = true;
	return true;
}

/* Take @p's ring buffers and counters, and claim the reader's place in it. */
static int add_policy(const struct policy *p)
{
	size_t i;
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
			take_origin(&d.rings[d.nr_rings - 1]);
	}
	if (!err && has_map(p, "lost_uid"))
		err = add_counter(p, "lost", "lost_uid", EVENT_LOST);
	if (!err && has_map(p, "refused_uid"))
		err = add_counter(p, "refused", "refused_uid", EVENT_REFUSED);
	if (err)
		emit_reader("error", 0, "take the buffers of %s: %s", p->name,
			    errname(-err));
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
	for (i = 0; i < d.nr_strangers; i++)
		if (d.strangers[i] == load_id)
			return;
	more = realloc(d.strangers, (d.nr_strangers + 1) * sizeof(*more));
	if (more) {
		d.strangers = more;
		d.strangers[d.nr_strangers++] = load_id;
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

	if (err && err != d.strangers_err)
		emit_reader("error", 0, "%s: %s: a policy the kernel holds that "
			    "this reader does not know is not seen",
			    KRSI_POLICIES_FILE, errname(-err));
	d.strangers_err = err;
}

/*
 * Follow the policies as they are attached, replaced and detached: the
 * sources of one that went stay until drained.  After the lock too: a
 * signed policy is loaded then, or replaces one, through the kernel.
 */
static void rescan(void)
{
	size_t i, j;

	d.scanned_ms = now_ms();
	for (i = 0; i < nr_policies; i++) {
		__u32 id = policy_id(&policies[i]);

		if (id == d.policy_ids[i])
			continue;
		for (j = 0; j < d.nr_rings; j++) {
			if (d.rings[j].p != &policies[i] || d.rings[j].gone)
				continue;
			d.rings[j].gone = true;
			d.rings[j].gone_why = id ? "replaced" : "detached";
		}
		for (j = 0; j < d.nr_counters; j++)
			d.counters[j].gone |= d.counters[j].p == &policies[i];
		d.policy_ids[i] = id;
		if (id && !add_policy(&policies[i]))
			emit_reader("attach", 0, "reading %s", policies[i].name);
	}
	report_strangers();
	d.locked = krsi_locked() > 0;
}

/* ---- draining ----------------------------------------------------------- */

static int by_time(const void *a, const void *b)
{
	const struct drained *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* ringbuf_walk()'s callback: a record of ring *@ctx into the batch. */
static int keep(const void *rec, size_t size, unsigned long pos, void *ctx)
{
	const struct krsi_event *ev = rec;
	size_t ring = *(const size_t *)ctx;
	struct drained *grown;

	if (d.nr_batch == d.batch_cap) {
		size_t cap = d.batch_cap ? 2 * d.batch_cap : 256;

		grown = realloc(d.batch, cap * sizeof(*d.batch));
		if (!grown)
			return -ENOMEM;
		d.batch = grown;
		d.batch_cap = cap;
	}
	d.batch[d.nr_batch] = (struct drained){
		size >= sizeof(*ev) ? ev->time_ns : 0, ring, d.nr_batch, pos, rec, size,
	};
	d.nr_batch++;
	return 0;
}

/* Every record ring @i holds past what was read: into the batch. */
static void drain_ring(size_t i)
{
	struct ring *r = &d.rings[i];
	/* Only before the lock can another consumer move it: say so. */
	unsigned long taken = ringbuf_taken(&r->rb);

	if (taken)
		emit_reader("error", 0, "%lu bytes of %s's records taken by another reader",
			    taken, r->p->name);
	ringbuf_walk(&r->rb, keep, &i);
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
		/* Not logged (no memory): counted again next time. */
		if (!emit(&v))
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
		if (!emit(&v))
			return;
	}
	c->other = total > sum ? total - sum : 0;
	c->total = total;
}

static void close_ring(struct ring *r)
{
	int fd = r->rb.fd;

	ringbuf_unmap(&r->rb);
	close(fd);
	if (r->counts_fd >= 0)
		close(r->counts_fd);
	sb_free(&r->origin_line);
}

/* Forget the sources of policies that went, now that they are drained. */
static void drop_gone(void)
{
	size_t i, n = 0;

	/* A gone load's counts first: kept until they are logged. */
	for (i = 0; i < d.nr_rings; i++)
		if (d.rings[i].gone && log_denials(&d.rings[i], d.rings[i].gone_why))
			close_ring(&d.rings[i]);
		else
			d.rings[n++] = d.rings[i];
	d.nr_rings = n;
	for (i = n = 0; i < d.nr_counters; i++) {
		if (d.counters[i].gone) {
			close(d.counters[i].total_fd);
			close(d.counters[i].uid_fd);
			free(d.counters[i].uids);
		} else {
			d.counters[n++] = d.counters[i];
		}
	}
	d.nr_counters = n;
}

/* The records from @from on were not logged: their rings go back to them. */
static void unread_from(size_t from)
{
	size_t i, j;

	for (i = from; i < d.nr_batch; i++) {
		for (j = from; j < i && d.batch[j].ring != d.batch[i].ring; j++)
			;
		if (j == i)	/* the first of its ring left */
			d.rings[d.batch[i].ring].rb.pos = d.batch[i].pos;
	}
}

/* Let the rings go of what is logged now, and of the policies that went. */
static void consume(void)
{
	size_t i;

	for (i = 0; i < d.nr_rings; i++)
		ringbuf_consume(&d.rings[i].rb);
	drop_gone();
}

/*
 * One round: everything the rings hold, sorted by time, into the log,
 * then the counters; once written, the records leave their rings.  What
 * could not be written stays pending, and nothing more is taken until it
 * is: a record is logged once, and lost never.  On this one-CPU guest a
 * program stamps and submits its record with nothing else running in
 * between, so the records of one drain of every ring are all those
 * stamped before it: sorting them is enough.
 */
/*
 * The kernel's lines about the policies it loaded or refused, each a
 * record of the reader's ("kernel"), in the order the kernel wrote them.
 * A load sends the reader to the new version's buffers at once: waiting
 * for its next look (RESCAN_MS after the last, or a second when idle)
 * missed a version replaced within that time.
 */
static void log_kernel_lines(void)
{
	bool loaded = false;
	char line[512];
	int n;

	while (d.kmsg >= 0 && (n = kmsg_next(d.kmsg, line, sizeof(line))) != 0) {
		if (n == 1) {
			emit_reader("kernel", 0, "%s", line);
			loaded |= kmsg_load_line(line);
		} else if (n == -EPIPE) {
			emit_reader("error", 0, "kernel log lines about policies lost: "
				    "overwritten before they were read");
		} else {
			emit_reader("error", 0, "/dev/kmsg: %s", errname(-n));
			break;
		}
	}
	if (loaded)
		rescan();
}

static int round_trip(void)
{
	size_t i;
	int err;

	if (d.log.pending.len) {
		err = flush_all();
		if (err)
			return err;
		consume();
	}
	d.nr_batch = 0;
	d.rotate_failed = false;
	log_kernel_lines();
	for (i = 0; i < d.nr_rings; i++)
		drain_ring(i);
	qsort(d.batch, d.nr_batch, sizeof(*d.batch), by_time);
	for (i = 0; i < d.nr_batch; i++) {
		struct event_view v;
		bool logged;

		if (event_from_record(d.batch[i].rec, d.batch[i].size, &v)) {
			emit_reader("error", 0, "a record of %zu bytes, shorter than its header",
				    d.batch[i].size);
			continue;
		}
		origin_of(&d.rings[d.batch[i].ring], &v);
		d.emitting = &d.rings[d.batch[i].ring];
		logged = emit(&v);
		d.emitting = NULL;
		if (logged)
			tally(&d.rings[d.batch[i].ring], &v);
		event_view_free(&v);
		if (!logged) {
			/* No memory for it: it and those after it go back to
			 * their rings, to be drained again, none consumed.
			 */
			unread_from(i);
			break;
		}
	}
	/* A counter grows only when a buffer is full: once a second is
	 * enough, and spares every round a system call per policy.
	 */
	if (now_ms() - d.counted_ms >= COUNTERS_MS || stopping) {
		for (i = 0; i < d.nr_counters; i++)
			log_counter(&d.counters[i]);
		d.counted_ms = now_ms();
	}
	err = flush_all();
	if (!err)
		consume();
	return err;
}

/* ---- starting ----------------------------------------------------------- */

/* The sequence number after the last record of the log, to go on from. */
static unsigned long long next_seq(void)
{
	unsigned long long next = 0;
	struct log_cursor c;
	struct event_view v;

	if (log_cursor_open(&c, KRSI_LOG_DIR))
		return 0;
	while (log_next(&c) == 1)
		if (!event_parse(c.line.buf, c.line.len, &v)) {
			if (v.has_seq && v.seq >= next)
				next = v.seq + 1;
			event_view_free(&v);
		}
	log_cursor_close(&c);
	return next;
}

/*
 * The stream's port: KRSI_STREAM_DEV, when QEMU gives it one (run-qemu.sh
 * --log FILE), raw, so that every byte goes as it is.  An 8250 port the
 * PC does not have still has its node, with no UART behind.  Its
 * descriptor, or -1 and why not in @why.
 */
static int open_port(char *why, size_t size)
{
	struct serial_struct ss;
	struct stat st;
	struct termios t;
	char node[32];
	int fd;

	/* The node the reader found at start, by its O_PATH descriptor,
	 * whatever has been put under its name since; and not blocking: a
	 * FIFO must not hold the reader.
	 */
	snprintf(node, sizeof(node), "/proc/self/fd/%d", d.port_path);
	fd = open(d.port_path >= 0 ? node : KRSI_STREAM_DEV,
		  O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, size, KRSI_STREAM_DEV ": %s", errname(errno));
		return -1;
	}
	/* By its number: a node made in its place is not the port. */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != makedev(KRSI_STREAM_MAJOR, KRSI_STREAM_MINOR) ||
	    fcntl(fd, F_SETFL, 0)) {
		close(fd);
		snprintf(why, size, KRSI_STREAM_DEV ": not the port's device %d:%d",
			 KRSI_STREAM_MAJOR, KRSI_STREAM_MINOR);
		return -1;
	}
	if (KRSI_STREAM_IS_UART && (ioctl(fd, TIOCGSERIAL, &ss) || ss.type == PORT_UNKNOWN)) {
		close(fd);
		snprintf(why, size, "no third serial port: run-qemu.sh --log FILE");
		return -1;
	}
	if (!tcgetattr(fd, &t)) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL;
		t.c_cflag &= ~CRTSCTS;
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/*
 * The stream to the host, begun with its first key (seal.h): the reader
 * starts before the lock, when nothing but /init runs, and the key's
 * line is the first the port carries.  From then on the reader alone
 * holds the key, one position ahead of the host's copy.
 */
static const char *open_stream(void)
{
	static char why[80];
	uint8_t key[SEAL_KEY_LEN];
	char hex[2 * SEAL_KEY_LEN + 1];
	size_t i;
	int fd, err;

	d.port_path = open(KRSI_STREAM_DEV, O_PATH | O_CLOEXEC);
	fd = open_port(why, sizeof(why));
	if (fd < 0)
		return why;
	if (getrandom(key, sizeof(key), 0) != sizeof(key)) {
		snprintf(why, sizeof(why), "none (no key: getrandom: %s)", errname(errno));
		close(fd);
		return why;
	}
	for (i = 0; i < SEAL_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	seal_start(&d.sealer, key);
	explicit_bzero(key, sizeof(key));
	d.port = fd;
	err = stream_only("seal", "%s", hex);
	explicit_bzero(hex, sizeof(hex));
	if (err) {
		seal_forget(&d.sealer);
		snprintf(why, sizeof(why), "none (" KRSI_STREAM_DEV ": %s)", errname(-err));
		return why;
	}
	d.sealing = true;
	d.beat_ms = now_ms();
	return KRSI_STREAM_DEV ", sealed";
}

/* A stream that failed, opened again: the chain of keys goes on. */
static void reopen_stream(void)
{
	char why[80];

	if (!d.sealing || d.port >= 0 || now_ms() - d.reopen_ms < REOPEN_MS)
		return;
	d.reopen_ms = now_ms();
	d.port = open_port(why, sizeof(why));
	if (d.port < 0)
		return;
	d.stream_err[0] = '\0';
	d.beat_ms = now_ms();
	emit_reader("stream", 0, KRSI_STREAM_DEV " open again: records %llu to %llu "
		    "may be missing there (this log has them)", d.unstreamed, d.seq - 1);
	write_state();
}

/* The heartbeat: the host hears from the reader every BEAT_MS. */
static void beat(void)
{
	int err;

	if (d.port < 0 || now_ms() - d.beat_ms < BEAT_MS)
		return;
	d.beat_ms = now_ms();
	err = stream_only("beat", "%llu records logged", d.seq);
	(void)err;	/* stream_write() took it */
}

/* Nothing takes its CPU, its memory or its terminal: see the header. */
static void guard_self(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct sigaction sa = { .sa_handler = SIG_IGN };
	static const int ignored[] = { SIGHUP, SIGPIPE, SIGINT, SIGQUIT, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	size_t i;
	int fd;

	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		sigaction(ignored[i], &sa, NULL);
	sa.sa_handler = on_term;	/* no SA_RESTART: epoll_wait returns */
	sigaction(SIGTERM, &sa, NULL);
	/* musl's sched_setscheduler() is ENOSYS by design: the system call. */
	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		emit_reader("error", 0, "SCHED_FIFO: %s", errname(errno));
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "-1000", 5) != 5)
		emit_reader("error", 0, "oom_score_adj: %s", errname(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * The state file, rewritten in place at a fixed size (the rest a line of
 * spaces): its memory is taken once, at start, so that a write of it
 * never needs more, and never leaves it empty.
 */
#define STATE_SIZE	192

static int write_state_text(const char *state)
{
	char buf[STATE_SIZE];
	size_t len = strlen(state);

	if (d.state_fd < 0)
		d.state_fd = open(KRSI_READER_STATE, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (d.state_fd < 0)
		return -errno;
	if (len > STATE_SIZE - 2)
		len = STATE_SIZE - 2;
	memcpy(buf, state, len);
	memset(buf + len, ' ', STATE_SIZE - 1 - len);
	buf[STATE_SIZE - 1] = '\n';
	if (pwrite(d.state_fd, buf, STATE_SIZE, 0) != STATE_SIZE)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * The reader's state (reader.c): its PID and start time, its stream's,
 * and when it last went round its loop (seconds of CLOCK_BOOTTIME,
 * every BEAT_MS), for `krsi status`: a reader stuck in a write or a wait
 * still runs, but says nothing new.
 */
static char state_pid[64];

static int write_state(void)
{
	char state[STATE_SIZE], stream[96];

	if (!d.sealing)
		snprintf(stream, sizeof(stream), "stream none");
	else if (d.port >= 0)
		snprintf(stream, sizeof(stream), "stream %s streaming", KRSI_STREAM_DEV);
	else
		snprintf(stream, sizeof(stream), "stream %s stopped %s", KRSI_STREAM_DEV,
			 d.stream_err);
	snprintf(state, sizeof(state), "%s%s\nalive %llu\n", state_pid, stream,
		 boot_ns() / 1000000000ULL);
	return write_state_text(state);
}

/* Everything the reader needs, taken before the lock: 0 or an errno. */
static int start(void)
{
	unsigned long long started;
	const char *stream;
	int err;

	d.policy_ids = calloc(nr_policies, sizeof(*d.policy_ids));
	d.epoll = epoll_create1(EPOLL_CLOEXEC);
	if (!d.policy_ids || d.epoll < 0) {
		fprintf(stderr, "krsi: logd: %s\n", errname(ENOMEM));
		return -ENOMEM;
	}
	/* Claimed first: protect_log lets no one else write the log. */
	claim_all();
	d.seq = next_seq();
	err = log_open(&d.log, KRSI_LOG_DIR, 0755, 0600, 0, SEGMENT_SIZE, SEGMENTS);
	if (!err && mkdir(KRSI_USER_LOG_DIR, 0755) && errno != EEXIST)
		err = -errno;
	if (err) {
		error(err, "logd: %s", KRSI_LOG_DIR);
		return err;
	}
	stream = open_stream();
	emit_reader("start", 0, "krsi logd: log " KRSI_LOG_DIR ", stream %s", stream);
	d.kmsg = kmsg_open();
	if (d.kmsg < 0)
		emit_reader("error", 0, "/dev/kmsg: %s: the kernel's lines on policies "
			    "are not logged", errname(-d.kmsg));
	else if (epoll_ctl(d.epoll, EPOLL_CTL_ADD, d.kmsg,
			   &(struct epoll_event){ .events = EPOLLIN }))
		emit_reader("error", 0, "epoll /dev/kmsg: %s", errname(errno));
	rescan();
	guard_self();
	err = round_trip();
	if (!err && proc_start_time(getpid(), &started) == 0) {
		snprintf(state_pid, sizeof(state_pid), "pid %d start %llu\n",
			 (int)getpid(), started);
		err = write_state();
	}
	if (err)
		error(err, "logd: write %s", KRSI_LOG_DIR);
	return err;
}

/* ---- running ------------------------------------------------------------ */

static void run(void)
{
	struct epoll_event ready[16];
	int err = 0;

	while (!stopping) {
		int wait = err ? 1000 : d.locked ? COUNTERS_MS : RESCAN_MS;
		int n = epoll_wait(d.epoll, ready, 16, wait);

		if (n < 0 && errno != EINTR)
			emit_reader("error", 0, "epoll_wait: %s", errname(errno));
		/* Woken by a record, it drains at once: a flood must not get
		 * ahead of it while it waits for more (without high-resolution
		 * timers a sleep of 2 ms lasts up to two jiffies, 8 ms, in
		 * which a user's denials at full speed filled their half of a
		 * buffer).  The policies are looked for at most once every
		 * RESCAN_MS.
		 */
		if (now_ms() - d.scanned_ms >= RESCAN_MS)
			rescan();
		reopen_stream();
		err = round_trip();
		beat();
		if (now_ms() - d.alive_ms >= BEAT_MS) {
			d.alive_ms = now_ms();
			write_state();
		}
		if (err)	/* kept; the records wait in their rings */
			emit_reader("error", 0, "write " KRSI_LOG_DIR ": %s",
				    errname(-err));
	}
	/* Asked to stop (by PID 1, at shutdown): what is left, every load's
	 * denials, then say so.
	 */
	round_trip();
	for (size_t i = 0; i < d.nr_rings; i++)
		if (!log_denials(&d.rings[i], "stop"))
			d.reader_lost++;
	emit_reader("stop", 0, "krsi logd stops: SIGTERM");
	flush_all();
	write_state_text("stopped\n");
}

/*
 * The reader runs in a child of its own session, which tells its parent
 * when it is ready: `krsi logd` returns once every ring buffer is held
 * and the log is written, so that /init may lock right after.
 */
int cmd_logd(int argc, char **argv)
{
	int ready[2], status = 1;
	pid_t pid;
	char c;

	if (args_none(argc, argv))
		return EXIT_USAGE;
	if (reader_state(&pid) == READER_RUNNING) {
		fprintf(stderr, "krsi: logd: the reader runs already (pid %d)\n", (int)pid);
		return 1;
	}
	if (pipe2(ready, O_CLOEXEC)) {
		error(-errno, "logd: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		error(-errno, "logd: fork");
		return 1;
	}
	if (pid > 0) {
		close(ready[1]);
		if (read(ready[0], &c, 1) == 1) {
			printf("krsi: logd: the audit reader runs (pid %d)\n", (int)pid);
			status = 0;
		}
		return status;
	}
	close(ready[0]);
	setsid();
	if (chdir("/") || start())
		_exit(1);
	/* Ready: from now on it speaks through the log alone. */
	if (write(ready[1], "", 1) != 1)
		_exit(1);
	close(ready[1]);
	{
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	run();
	_exit(0);
}
