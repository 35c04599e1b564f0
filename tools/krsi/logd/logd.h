/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_LOGD_H
#define KRSI_LOGD_H

/*
 * The audit reader's stages, one file each, each with its own state
 * (logd.c has the whole picture):
 *
 *	sources.c	the policies' rings and counters, the reader's claims,
 *			the epoll set it waits on
 *	batch.c		a round: drain every ring, order by time, hand each
 *			record to the sinks, then consume, or give back
 *	origin.c	who attached a load, and its denials as the log holds
 *			them: the reader's records about a ring's load
 *	record.c	a record's line and sequence number, into every sink;
 *			the reader's own records
 *	sink_log.c	root's log, rotated
 *	sink_user_log.c	each user's own log, with the origin of their denials
 *	sink_stream.c	the sealed stream to the host: port, seal, heartbeat
 *	state.c		what the reader says of itself: its state file, and
 *			what holds records back
 *	kmsg.c		the kernel's lines about the policies it loads
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/types.h>

#include "auditlog.h"
#include "event_format.h"
#include "krsi.h"
#include "ringbuf.h"
#include "strbuf.h"

/* Users with a log of their own, at most. */
#define MAX_USERS		8
/* The uid of reports the per-user table had no room for. */
#define OTHER_UIDS		((__u32)-1)
/*
 * While something holds records back, it is said again this often; the
 * stream's heartbeat, which the host expects (run-qemu.sh); and how
 * often a policy whose buffers could not be taken is tried again.
 */
#define BEAT_MS			10000
/*
 * The longest line of a record; what sealing adds to it on the stream
 * (,"stream":P,"seal":"..."); and the room every sink keeps, after a
 * ring's record, for the reader's own records of the round (rotations,
 * errors).
 */
#define LINE_MAX_BYTES		event_json_max(KRSI_DATA_MAX)
#define SEALED_EXTRA		128
#define READER_ROOM		(16 << 10)
/* The longest "what" of a record of the reader's own. */
#define READER_WHAT_MAX		1024

/* ---- logd.c: the command, and the reader's start, loop and stop ---- */

/* PID 1 asked the reader to stop (SIGTERM). */
extern volatile sig_atomic_t logd_stopping;
unsigned long long boot_ns(void);
struct event_str cstr(const char *s);

/* ---- record.c ---- */

/*
 * A load's origin record as the log has it, and the users whose own log
 * has it: before a user's first denial by the load, the logs sink copies
 * it into the user's log.
 */
struct origin_copy {
	struct strbuf line;
	uid_t uids[MAX_USERS];
	size_t nr_uids;
};

/* The memory of a record's lines, taken at start: 0 or -ENOMEM. */
int record_reserve(void);
/* The number the next record gets; where the log goes on from. */
unsigned long long record_next_seq(void);
void record_seq_from(unsigned long long seq);
/*
 * Give @v the next number and its line to every sink (@own: a record of
 * the reader's, not a ring's; @copy: its load's origin, for the users'
 * logs; @keep: where to copy the line, or NULL).  0; -ENOSPC when a sink
 * must be flushed first; -ENOMEM when there is no memory for its line.
 * Unless 0, no sink took it and its number is not used.
 */
int emit(struct event_view *v, bool own, struct origin_copy *copy,
	 struct strbuf *keep);
/* A record of the reader's own, "event" @name about user @uid. */
void reader_view(struct event_view *v, const char *name, uid_t uid,
		 const char *what);
__attribute__((format(printf, 3, 4)))
void emit_reader(const char *name, uid_t uid, const char *fmt, ...);
/* A record of the reader's own that had no room: said at the next flush. */
void record_lost(void);
/* A line of the reader's own to make, or NULL when nested too deep. */
struct strbuf *line_get(void);
void line_put(void);
/*
 * Whether @buf takes @need bytes more without growing: 0; -ENOSPC when
 * it must be written first; -ENOMEM when even empty it is too small and
 * cannot grow.
 */
int buf_takes(struct strbuf *buf, size_t need);
/*
 * Every sink writes what it took: 0 once each has, or has logged what it
 * could not (the users' logs, the stream); a negative errno while one
 * still holds lines (root's log), which must not leave their rings.
 */
int sinks_flush(void);
/* A new round begins, for every sink. */
void sinks_round(void);

/*
 * A sink: where every record's line goes.  emit() asks each for room
 * before the line gets its number, then gives it to each; flush()
 * writes what it took.  @dest is the sink's own, per record: where the
 * line goes (a user's log), NULL for a sink without prepare().  round,
 * prepare and rotate are for sinks that need them (NULL otherwise).
 */
struct sink {
	/* A new round: a rotation that fails is said once a round. */
	void (*round)(void);
	/* Once per record, before its line is made. */
	void (*prepare)(const struct event_view *v, void **dest);
	/*
	 * Begin a new segment if a line of @len bytes would not fit: true
	 * if it did (and logged that): the line is made again, its number
	 * moved.
	 */
	bool (*rotate)(const struct event_view *v, size_t len, void *dest);
	/* Whether it takes @len bytes now, leaving @keep: as buf_takes(). */
	int (*room)(size_t len, size_t keep, const struct origin_copy *copy,
		    void *dest);
	/* Take the line, which room() said fits. */
	void (*write)(const struct event_view *v, const struct strbuf *line,
		      struct origin_copy *copy, void *dest);
	/* Write what it took: as sinks_flush(). */
	int (*flush)(void);
};

/* ---- sink_log.c ---- */

extern const struct sink root_log_sink;
/* Open root's log: 0 or a negative errno. */
int root_log_open(void);
int root_log_reserve(void);
/* Does root's log hold lines not yet written? */
bool root_log_pending(void);
/*
 * Begin @w's next segment if a line of @len bytes would not fit, and log
 * that, as a record about @uid: true if it did.  A rotation that fails
 * is logged once (*@failed, until the next round), and the line goes
 * into the segment it was for.
 */
bool log_rotated(struct log_writer *w, size_t len, uid_t uid, bool *failed);

/* ---- sink_user_log.c ---- */

extern const struct sink user_logs_sink;
/* Make the users' folder: 0 or a negative errno. */
int user_logs_open(void);
int user_logs_reserve(void);

/* ---- sink_stream.c ---- */

extern const struct sink stream_sink;
int stream_reserve(void);
/* Open the stream and send its first key: what the start record says. */
const char *stream_open(void);
/* A stream that failed, opened again every REOPEN_MS. */
void stream_reopen(void);
/* The heartbeat, every BEAT_MS. */
void stream_beat(void);
/* The port's last lines on their way, at the stop. */
void stream_drain(void);
/* The stream, as the state file says it. */
void stream_describe(char *buf, size_t size);

/* ---- sources.c ---- */

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
	/* This round: whether records were left for lack of room. */
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
	struct origin_copy copy;
	int counts_fd;
	struct tally tallies[KRSI_ORIGIN_PROGS];
	size_t nr_tallies;
	const char *gone_why;
	bool counted;
};

int sources_start(void);
int sources_reserve(void);
/* Claim the reader's place in every attached policy that knows it. */
void claim_all(void);
/* Follow the policies as they are attached, replaced and detached. */
void rescan(void);
/* Whether it is time to look for them again. */
bool rescan_due(void);
/* Whether the policies were locked at the last look. */
bool sources_locked(void);
/* Wake the reader when @fd is readable; false (and said) if it cannot. */
bool sources_watch(int fd, const char *what);
/* Wait for a record: not at all if @now, else a round's time. */
void sources_wait(bool now);
/* The rings, for a round. */
size_t nr_rings(void);
struct ring *ring_at(size_t i);
/* Log what the counters grew by (once a second, or now if @now). */
void sources_count(bool now);
/* Give the rings what is logged, and forget the policies that went. */
void sources_consume(void);
/* The bytes of records the rings hold that are not logged yet. */
unsigned long sources_held_bytes(void);
/* Why a policy's records are not read, or "". */
const char *sources_unread(void);
/* Does @p have a map @name? */
bool policy_has_map(const struct policy *p, const char *name);

/* ---- origin.c ---- */

/* Who attached ring @r's load, and its counts of denials: once, at add. */
void take_origin(struct ring *r);
/* Fill in @v's program and link, when its record is of ring @r's load. */
void origin_of(const struct ring *r, struct event_view *v);
/* One more of @v's denials in the log, for ring @r's load. */
void tally(struct ring *r, const struct event_view *v);
/* Log ring @r's load's denials, now that it went (@why): false if not. */
bool log_denials(struct ring *r, const char *why);

/* ---- batch.c ---- */

int batch_reserve(void);
/*
 * One round: 0 when everything read is logged, 1 when it ended early
 * (go again at once), or a negative errno when records are held back
 * (batch_holding() says why).
 */
int round_trip(void);
/* Why records were held back this round, or "". */
const char *batch_holding(void);
/* The reader's rule: the rings give up only what root's log wrote. */
int flush_then_consume(void);

/* ---- state.c ---- */

/* After a round: whether records are held back, said while it lasts. */
void held_update(void);
/* What holds records back, as the heartbeat says it, or "". */
const char *held_text(char *buf, size_t size);
/* The state file: what `krsi status` reads. */
int write_state(void);
int write_state_text(const char *state);
/* Ready: the state names the reader's PID from now on. */
int state_ready(void);
/* Rewritten every BEAT_MS: when the reader last went round its loop. */
void state_alive(void);

/* ---- kmsg.c ---- */

/* Open /dev/kmsg and watch it (its failure logged). */
void kmsg_start(void);
/* The kernel's lines about policies since the last call, as records. */
void log_kernel_lines(void);

#endif
