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
 * Logging a record needs no memory the reader did not take at start:
 * its lines, the logs' and the stream's buffers, the batch and a
 * record's arguments are sized for the largest record a policy makes
 * (KRSI_DATA_MAX), taken before the lock and locked in memory, so that
 * no later mmap() or brk() is needed; a round ends, and its lines are
 * written, when the next would not fit.  Whatever still holds records
 * back (a record larger than that with no memory to grow, a log that
 * cannot be written, a policy whose buffers could not be taken) is said
 * at once in a record of the reader's, again every BEAT_MS while it
 * lasts, in the state that `krsi status` reads and in every heartbeat,
 * and the host calls that trail not verified.
 *
 * It stops only when PID 1 asks (SIGTERM, at shutdown): it logs what is
 * left and its stop record, and then powers the machine off itself, so
 * that nothing runs after the last record the host receives.
 *
 * Nothing may stop, starve or blind it after the lock: it claims its
 * place (progs/krsi_reader.h) in protect_init (no signal but its own and
 * PID 1's, no ptrace, no priority change), protect_log (the log and the
 * port are its alone) and krsi_lock, runs SCHED_FIFO, which no other
 * process may become, and tells the OOM killer never to choose it.  It
 * took its ring buffers' descriptors before the seal; after it nobody
 * else gets a writable one (krsi_lock, which lets the reader alone take
 * those of a signed policy loaded after the lock).  No memory knob
 * reaches it either (protect_init refuses them; its header lists them).
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
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/reboot.h>
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
#include "trail.h"

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

/*
 * The memory taken at start (about 2.5 MB, locked): the longest line of
 * a record, sealed for the stream; room for four in root's log and in
 * the stream, two in each user's; READER_ROOM more in each for the
 * reader's own records of a round (rotations, errors); the lines of
 * the reader's records made while one is being made (a rotation that
 * a line needs); the records of a round and their arguments.
 */
#define LINE_MAX_BYTES		event_json_max(KRSI_DATA_MAX)
#define SEALED_EXTRA		128	/* ,"stream":P,"seal":"..." */
#define READER_ROOM		(16 << 10)
#define LOG_ROOM		(4 * LINE_MAX_BYTES + READER_ROOM)
#define USER_LOG_ROOM		(2 * LINE_MAX_BYTES + READER_ROOM)
#define STREAM_ROOM		(4 * (LINE_MAX_BYTES + SEALED_EXTRA) + READER_ROOM)
#define READER_WHAT_MAX		1024
#define NESTED_LINES		2
#define NESTED_LINE_BYTES	event_json_max(READER_WHAT_MAX)
#define BATCH_MAX		4096
/* Stack the reader may use, touched before it is locked. */
#define STACK_BYTES		(256 << 10)
/* How long the port may take to send its last lines at the stop. */
#define DRAIN_MS		5000

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
	/* This round: records taken, and whether some were left for lack of room. */
	size_t drained;
	bool cut;
	unsigned long long last_ns;	/* the time of the last one taken */
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
	struct drained *batch;	/* BATCH_MAX of them */
	size_t nr_batch;
	struct event_str *args;	/* KRSI_ARGS_MAX: a record's arguments */
	/* The lines of records: the one being made, and those made meanwhile. */
	struct strbuf nested[NESTED_LINES];
	int depth;
	/* Each user's log's memory, taken at start, given when it is opened. */
	struct strbuf user_room[MAX_USERS];
	/* What holds records back, since when (0: nothing), and when last said. */
	struct {
		long long since_ms, said_ms;
		unsigned long bytes;
		char why[160];
	} held;
	/* This round: why records were held back, or "" */
	char holding[160];
	/*
	 * Per policy: the load whose buffers could not be taken, when, and
	 * why; and the first such, said in held_update().
	 */
	__u32 *failed_ids;
	long long *failed_ms;
	char (*failed_why)[48];
	char unread_policy[160];
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
	bool locked, logged_users_full, rotate_failed;
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

static struct event_str cstr(const char *s)
{
	return (struct event_str){ s, strlen(s) };
}

/* ---- the log ------------------------------------------------------------ */

static int emit(struct event_view *v, bool own);

/* A record of the reader's own, "event" @name, about user @uid. */
static void reader_view(struct event_view *v, const char *name, uid_t uid,
			const char *what)
{
	memset(v, 0, sizeof(*v));
	v->type = EVENT_READER;
	v->time_ns = boot_ns();
	v->pid = getpid();
	v->uid = uid;
	v->comm = cstr("krsi");
	v->policy = cstr("reader");
	v->event = cstr(name);
	v->what = cstr(what);
}

/*
 * The reader's own record, "event" @name, about user @uid: made on the
 * stack, with no allocation, cut to READER_WHAT_MAX bytes.
 */
__attribute__((format(printf, 3, 4)))
static void emit_reader(const char *name, uid_t uid, const char *fmt, ...)
{
	char what[READER_WHAT_MAX];
	struct event_view v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	reader_view(&v, name, uid, what);
	/* No room for it: counted, and said once there is (flush_all()). */
	if (emit(&v, true))
		d.reader_lost++;
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
	/* The memory its lines need was taken at start. */
	log_give_room(&d.users[d.nr_users].w, &d.user_room[d.nr_users]);
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
 * Whether @buf takes @need bytes more without growing: 0; -ENOSPC when
 * it must be written first; -ENOMEM when even empty it is too small and
 * cannot grow (a record longer than any a policy makes, with no memory
 * left).
 */
static int takes(struct strbuf *buf, size_t need)
{
	if (sb_room(buf) >= need)
		return 0;
	if (buf->len)
		return -ENOSPC;
	return sb_reserve(buf, need) ? 0 : -ENOMEM;
}

/*
 * Whether root's log, the user's and the stream take a line of @len
 * bytes now; a record from a ring leaves READER_ROOM in each for the
 * reader's own records of the round (@own).
 */
static int room_for(size_t len, struct log_writer *mine, bool own)
{
	size_t keep = own ? 0 : READER_ROOM;
	struct ring *r = d.emitting;
	int err = takes(&d.log.pending, len + keep);

	if (!err && mine)
		err = takes(&mine->pending, len + keep +
			    (r ? r->origin_line.len : 0));
	if (!err && d.port >= 0)
		err = takes(&d.stream, len + SEALED_EXTRA + keep);
	return err;
}

/*
 * Give @v the next sequence number and append it to the log, to its
 * user's log, and to the stream.  A rotation that the line needs comes
 * first, as a record of its own (made in a line of its own: this one is
 * in use).  @own: a record of the reader's, not a ring's.  0; -ENOSPC
 * when the buffers must be written first; -ENOMEM when there is no
 * memory for its line.  Unless 0, it is not logged, its number not
 * used, and the caller keeps it.
 */
static int emit(struct event_view *v, bool own)
{
	struct log_writer *mine = user_log(v->uid);
	struct strbuf *line;
	int err;

	if (d.depth > NESTED_LINES)
		return -ENOMEM;
	line = d.depth ? &d.nested[d.depth - 1] : &d.line;
	d.depth++;
	do {
		sb_reset(line);
		v->has_seq = true;
		v->seq = d.seq;
		event_json(v, line);
		sb_putc(line, '\n');
	} while (rotated(&d.log, line->len, 0) ||
		 (mine && rotated(mine, line->len, v->uid)));
	err = line->failed ? -ENOMEM : room_for(line->len, mine, own);
	if (!err) {
		/* Each takes it: nothing here allocates. */
		log_append(&d.log, line->buf, line->len);
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
	d.depth--;
	return err;
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
 * written at once; made in the reader's own lines, with no allocation.
 */
__attribute__((format(printf, 2, 3)))
static int stream_only(const char *name, const char *fmt, ...)
{
	char what[READER_WHAT_MAX];
	struct strbuf *line;
	struct event_view v;
	va_list ap;
	int err = 0;

	if (d.depth > NESTED_LINES)
		return -ENOMEM;
	line = d.depth ? &d.nested[d.depth - 1] : &d.line;
	d.depth++;	/* a record stream_write() makes takes the next */
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	reader_view(&v, name, 0, what);
	sb_reset(line);
	event_json(&v, line);
	/* What is pending goes first if both do not fit. */
	if (takes(&d.stream, line->len + SEALED_EXTRA) == -ENOSPC)
		err = stream_write();
	if (!err) {
		if (!d.stream.len)
			d.stream_first = d.seq;
		if (line->failed || takes(&d.stream, line->len + SEALED_EXTRA))
			d.stream.failed = true;
		else
			seal_line(&d.sealer, line->buf, line->len, &d.stream);
	}
	/* The key's line holds the key: nothing of it stays. */
	explicit_bzero(what, sizeof(what));
	if (line->buf)
		explicit_bzero(line->buf, line->len);
	sb_reset(line);
	d.depth--;
	return err ? err : stream_write();
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
	/* Every round drains every ring: without its wake-up (root's
	 * epoll watches used up, fs.epoll.max_user_watches), its records
	 * wait at most a round, a second once locked.
	 */
	if (epoll_ctl(d.epoll, EPOLL_CTL_ADD, fd,
		      &(struct epoll_event){ .events = EPOLLIN }))
		emit_reader("error", 0, "epoll %s: %s: its records are read every "
			    "round, not the moment they come", p->name, errname(errno));
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
	if (emit(&v, true) || what.failed)
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
		if (emit(&v, true))
			return false;
	}
	r->counted = true;
	return true;
}

static void close_ring(struct ring *r);
static void close_counter(struct counter *c);

/*
 * Take @p's ring buffers and counters, and claim the reader's place in
 * it: 0, or a negative errno with none of them taken (tried again).
 */
static int add_policy(const struct policy *p)
{
	size_t i, rings = d.nr_rings, counters = d.nr_counters;
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
	if (!err)
		return 0;
	while (d.nr_rings > rings)
		close_ring(&d.rings[--d.nr_rings]);
	while (d.nr_counters > counters)
		close_counter(&d.counters[--d.nr_counters]);
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
	char why[sizeof(d.unread_policy)] = "";
	size_t i, j;
	int err;

	d.scanned_ms = now_ms();
	for (i = 0; i < nr_policies; i++) {
		__u32 id = policy_id(&policies[i]);

		/* One whose buffers could not be taken: tried every BEAT_MS. */
		if (id == d.policy_ids[i] ||
		    (id == d.failed_ids[i] && d.scanned_ms - d.failed_ms[i] < BEAT_MS)) {
			if (id == d.failed_ids[i] && id)
				snprintf(why, sizeof(why), "the records of %s are not "
					 "read: %s", policies[i].name, d.failed_why[i]);
			continue;
		}
		for (j = 0; j < d.nr_rings; j++) {
			if (d.rings[j].p != &policies[i] || d.rings[j].gone)
				continue;
			d.rings[j].gone = true;
			d.rings[j].gone_why = id ? "replaced" : "detached";
		}
		for (j = 0; j < d.nr_counters; j++)
			d.counters[j].gone |= d.counters[j].p == &policies[i];
		d.policy_ids[i] = id;
		d.failed_ids[i] = 0;
		if (!id)
			continue;
		err = add_policy(&policies[i]);
		if (!err) {
			emit_reader("attach", 0, "reading %s", policies[i].name);
			continue;
		}
		/* Not read: records held back until its buffers are taken. */
		d.policy_ids[i] = 0;
		d.failed_ids[i] = id;
		d.failed_ms[i] = d.scanned_ms;
		snprintf(d.failed_why[i], sizeof(d.failed_why[i]), "take its buffers: %s",
			 errname(-err));
		snprintf(why, sizeof(why), "the records of %s are not read: %s",
			 policies[i].name, d.failed_why[i]);
		emit_reader("error", 0, "take the buffers of %s: %s: its records are "
			    "held back; tried again every %d s", policies[i].name,
			    errname(-err), BEAT_MS / 1000);
	}
	snprintf(d.unread_policy, sizeof(d.unread_policy), "%s", why);
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

/* A ring being drained: which, and how many more records it may give. */
struct drain {
	size_t ring, left;
};

/* ringbuf_walk()'s callback: a record of ring @ctx into the batch. */
static int keep(const void *rec, size_t size, unsigned long pos, void *ctx)
{
	const struct krsi_event *ev = rec;
	struct drain *dr = ctx;
	struct ring *r = &d.rings[dr->ring];
	unsigned long long t = size >= sizeof(*ev) ? ev->time_ns : 0;

	if (!dr->left || d.nr_batch == BATCH_MAX) {
		r->cut = true;	/* it stays, for the next round */
		return -ENOSPC;
	}
	dr->left--;
	d.batch[d.nr_batch] = (struct drained){
		t, dr->ring, d.nr_batch, pos, rec, size,
	};
	d.nr_batch++;
	r->last_ns = t;
	return 0;
}

/* What ring @i holds past what was read, @quota records at most: into the batch. */
static void drain_ring(size_t i, size_t quota)
{
	struct ring *r = &d.rings[i];
	struct drain dr = { i, quota };
	/* Only before the lock can another consumer move it: say so. */
	unsigned long taken = ringbuf_taken(&r->rb);

	if (taken)
		emit_reader("error", 0, "%lu bytes of %s's records taken by another reader",
			    taken, r->p->name);
	r->cut = false;
	ringbuf_walk(&r->rb, keep, &dr);
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
		if (emit(&v, true))
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
		if (emit(&v, true))
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

static void close_counter(struct counter *c)
{
	close(c->total_fd);
	close(c->uid_fd);
	free(c->uids);
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
		if (d.counters[i].gone)
			close_counter(&d.counters[i]);
		else
			d.counters[n++] = d.counters[i];
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

/* Records are held back this round, for @why. */
__attribute__((format(printf, 1, 2)))
static void hold_back(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d.holding, sizeof(d.holding), fmt, ap);
	va_end(ap);
}

/*
 * One round: what the rings hold, sorted by time, into the log, then
 * the counters; once written, the records leave their rings.  A record
 * of one drain of every ring is stamped before the drain, so sorting
 * them is enough; a ring cut short (BATCH_MAX records a round, shared
 * out) may hold older ones than another's last, so the round logs only
 * up to its last.  It ends early when the next line would not fit in
 * the buffers taken at start: what it logged is written and consumed,
 * the rest goes back to its ring.  Returns 0 when everything read is
 * logged, 1 when it ended early (go again at once), or a negative errno
 * when records are held back (d.holding says why): none of them is
 * consumed, and nothing more is taken until they are logged, so a
 * record is logged once, and lost never.
 */
static int round_trip(void)
{
	unsigned long long cutoff = ~0ULL;
	size_t i, quota;
	int err = 0, more = 0, e;

	d.holding[0] = '\0';
	if (d.log.pending.len) {
		err = flush_all();
		if (err) {
			hold_back("write " KRSI_LOG_DIR ": %s", errname(-err));
			return err;
		}
		consume();
	}
	d.nr_batch = 0;
	d.rotate_failed = false;
	log_kernel_lines();
	quota = d.nr_rings ? BATCH_MAX / d.nr_rings : 0;
	for (i = 0; i < d.nr_rings; i++) {
		drain_ring(i, quota);
		if (d.rings[i].cut && d.rings[i].last_ns < cutoff)
			cutoff = d.rings[i].last_ns;
	}
	qsort(d.batch, d.nr_batch, sizeof(*d.batch), by_time);
	for (i = 0; i < d.nr_batch; i++) {
		struct drained *b = &d.batch[i];
		struct ring *r = &d.rings[b->ring];
		struct event_view v;

		if (b->time_ns > cutoff) {
			unread_from(i);
			more = 1;
			break;
		}
		if (event_from_record(b->rec, b->size, &v, d.args, KRSI_ARGS_MAX)) {
			emit_reader("error", 0, "a record of %zu bytes, shorter than its header",
				    b->size);
			continue;
		}
		origin_of(r, &v);
		d.emitting = r;
		err = emit(&v, false);
		d.emitting = NULL;
		if (!err) {
			tally(r, &v);
			continue;
		}
		/* It and those after it go back to their rings, none consumed. */
		unread_from(i);
		if (err == -ENOSPC) {	/* the buffers are full: written below */
			err = 0;
			more = 1;
		} else {
			hold_back("a record of %s of %zu bytes: no memory for its line (%s)",
				r->p->name, b->size, errname(-err));
		}
		break;
	}
	/* A counter grows only when a buffer is full: once a second is
	 * enough, and spares every round a system call per policy.
	 */
	if (now_ms() - d.counted_ms >= COUNTERS_MS || stopping) {
		for (i = 0; i < d.nr_counters; i++)
			log_counter(&d.counters[i]);
		d.counted_ms = now_ms();
	}
	e = flush_all();
	if (e) {
		hold_back("write " KRSI_LOG_DIR ": %s", errname(-e));
		return e;
	}
	consume();
	return err ? err : more;
}

/* The bytes of records the rings hold that are not logged yet. */
static unsigned long held_bytes(void)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < d.nr_rings; i++)
		n += ringbuf_unconsumed(&d.rings[i].rb);
	return n;
}

/*
 * What holds records back, as the heartbeat, the stop record and the
 * state say it (TRAIL_HELD_MARK, which the host looks for), into @buf;
 * "" when nothing does.
 */
static const char *held_text(char *buf, size_t size)
{
	buf[0] = '\0';
	if (d.held.since_ms)
		snprintf(buf, size, TRAIL_HELD_MARK " for %lld s: %lu bytes of "
			 "records in their buffers: %s",
			 (now_ms() - d.held.since_ms) / 1000, d.held.bytes, d.held.why);
	return buf;
}

/*
 * After a round: whether records are held back (this round's failure, or
 * a policy whose buffers could not be taken), said in a record of the
 * reader's at once and every BEAT_MS while it lasts, and when it ends.
 */
static void held_update(void)
{
	const char *why = d.holding[0] ? d.holding : d.unread_policy[0] ?
			  d.unread_policy : NULL;
	char text[256];

	if (!why) {
		if (!d.held.since_ms)
			return;
		emit_reader("resume", 0, "records held back for %lld s are logged "
			    "again (%s)", (now_ms() - d.held.since_ms) / 1000, d.held.why);
		d.held.since_ms = 0;
		write_state();
		return;
	}
	d.held.bytes = held_bytes();
	snprintf(d.held.why, sizeof(d.held.why), "%s", why);
	if (!d.held.since_ms) {
		d.held.since_ms = now_ms();
		d.held.said_ms = 0;
	}
	if (d.held.said_ms && now_ms() - d.held.said_ms < BEAT_MS)
		return;
	d.held.said_ms = now_ms();
	emit_reader("error", 0, "%s", held_text(text, sizeof(text)));
	/* Its own line, streamed now: the records it names cannot be. */
	if (!flush_all())
		consume();
	write_state();
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
	char held[256];
	int err;

	if (d.port < 0 || now_ms() - d.beat_ms < BEAT_MS)
		return;
	d.beat_ms = now_ms();
	held_text(held, sizeof(held));
	err = stream_only("beat", "%llu records logged%s%s", d.seq,
			  held[0] ? "; " : "", held);
	(void)err;	/* stream_write() took it */
}

/* STACK_BYTES of stack in use once, so that mlockall() locks them in. */
static __attribute__((noinline)) void touch_stack(void)
{
	char stack[STACK_BYTES];

	explicit_bzero(stack, sizeof(stack));
}

/*
 * The memory logging a record needs, taken before the lock (see the
 * header): 0 or -ENOMEM.
 */
static int reserve(void)
{
	struct strbuf room = { 0 };
	bool ok;
	size_t i;

	d.batch = calloc(BATCH_MAX, sizeof(*d.batch));
	d.args = calloc(KRSI_ARGS_MAX, sizeof(*d.args));
	d.failed_ids = calloc(nr_policies, sizeof(*d.failed_ids));
	d.failed_ms = calloc(nr_policies, sizeof(*d.failed_ms));
	d.failed_why = calloc(nr_policies, sizeof(*d.failed_why));
	ok = d.batch && d.args && d.failed_ids && d.failed_ms && d.failed_why &&
	     sb_reserve(&d.line, LINE_MAX_BYTES) &&
	     sb_reserve(&d.stream, STREAM_ROOM) && sb_reserve(&room, LOG_ROOM);
	if (ok)
		log_give_room(&d.log, &room);
	for (i = 0; ok && i < NESTED_LINES; i++)
		ok = sb_reserve(&d.nested[i], NESTED_LINE_BYTES);
	for (i = 0; ok && i < MAX_USERS; i++)
		ok = sb_reserve(&d.user_room[i], USER_LOG_ROOM);
	sb_free(&room);
	return ok ? 0 : -ENOMEM;
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
	/* What it took (reserve()), and what it maps later, stays in memory. */
	touch_stack();
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		emit_reader("error", 0, "mlockall: %s: its memory may be paged out",
			    errname(errno));
}

/*
 * The state file, rewritten in place at a fixed size (the rest a line of
 * spaces): its memory is taken once, at start, so that a write of it
 * never needs more, and never leaves it empty.
 */
#define STATE_SIZE	512

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
 * when it last went round its loop (seconds of CLOCK_BOOTTIME, every
 * BEAT_MS), for `krsi status`: a reader stuck in a write or a wait
 * still runs, but says nothing new; and what holds records back, since
 * when, and how much.
 */
static char state_pid[64];

static int write_state(void)
{
	char state[STATE_SIZE], stream[96], held[256] = "";

	if (!d.sealing)
		snprintf(stream, sizeof(stream), "stream none");
	else if (d.port >= 0)
		snprintf(stream, sizeof(stream), "stream %s streaming", KRSI_STREAM_DEV);
	else
		snprintf(stream, sizeof(stream), "stream %s stopped %s", KRSI_STREAM_DEV,
			 d.stream_err);
	if (d.held.since_ms)
		snprintf(held, sizeof(held), "held %llu %lu %s\n",
			 boot_ns() / 1000000000ULL -
			 (unsigned long long)(now_ms() - d.held.since_ms) / 1000,
			 d.held.bytes, d.held.why);
	snprintf(state, sizeof(state), "%s%s\nalive %llu\n%s", state_pid, stream,
		 boot_ns() / 1000000000ULL, held);
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
	err = reserve();
	if (err) {
		error(err, "logd: the memory for its records");
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
	while ((err = round_trip()) == 1)
		;
	held_update();
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

/* The port's last lines on their way before the power goes: DRAIN_MS at most. */
static void drain_port(void)
{
	long long until = now_ms() + DRAIN_MS;
	int queued;

	while (d.port >= 0 && !ioctl(d.port, TIOCOUTQ, &queued) && queued > 0 &&
	       now_ms() < until)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
}

/*
 * Asked to stop (by PID 1, at shutdown): every other process ends first
 * (PID 1 excepted, which waits for the power to go), so that nothing
 * runs after the stop record; then what is left in the rings, every
 * load's denials, the stop record, and the power goes off, from here:
 * the last record the host receives is the last thing the machine does.
 * Without this, a child of PID 1 that root stops, or processes of
 * root's that starve PID 1, would decide when the machine stops, and
 * what ran in between would be in no log.
 */
static void stop(void)
{
	char held[256];
	size_t i;

	/* kill(-1) spares PID 1 and the caller; a fork racing it fails. */
	kill(-1, SIGKILL);
	/* Their last records in the rings before the last drain. */
	nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
	for (i = 0; i < 64 && round_trip() == 1; i++)
		;
	held_update();
	for (i = 0; i < d.nr_rings; i++)
		if (!log_denials(&d.rings[i], "stop"))
			d.reader_lost++;
	held_text(held, sizeof(held));
	emit_reader("stop", 0, "krsi logd stops: SIGTERM from PID 1; every other "
		    "process ended, the machine powers off now%s%s",
		    held[0] ? "; " : "", held);
	flush_all();
	drain_port();
	reboot(RB_AUTOBOOT);
	/* A line after the stop record: the host calls the trail not verified. */
	emit_reader("error", 0, "reboot: %s: the machine runs on after the stop record",
		    errname(errno));
	flush_all();
	write_state_text("stopped\n");
}

static void run(void)
{
	struct epoll_event ready[16];
	int err = 0;

	while (!stopping) {
		/* Records held back: tried again each second, not spun on
		 * (a ring that holds records always wakes epoll_wait).
		 */
		if (err < 0) {
			nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
		} else {
			int wait = err > 0 ? 0 : d.locked ? COUNTERS_MS : RESCAN_MS;

			if (epoll_wait(d.epoll, ready, 16, wait) < 0 && errno != EINTR)
				emit_reader("error", 0, "epoll_wait: %s", errname(errno));
		}
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
		held_update();
		beat();
		if (now_ms() - d.alive_ms >= BEAT_MS) {
			d.alive_ms = now_ms();
			write_state();
		}
	}
	stop();
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
