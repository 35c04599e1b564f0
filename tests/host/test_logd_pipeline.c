// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the audit reader's round and records
 * (tools/krsi/logd/batch.c and record.c), the stages between the rings
 * and the sinks: two rings built by hand as the kernel lays them out,
 * three sinks that fail on command (as root's log, the users' logs and
 * the stream), and every other stage a stand-in.
 *
 * The rule under test: a record leaves its ring (the consumer position
 * moves past it) only once root's log has written it; the users' logs
 * and the stream never hold records back (a write of theirs that fails
 * loses its lines, which the real sinks say in root's log); a record is
 * written once, with its own sequence number, in time order.  Checked
 * at every consume, with a failure (a sink out of room, out of memory,
 * a write that fails) injected at each step of a run in turn.
 */
#include <errno.h>
#include <string.h>

#include <linux/bpf.h>

#include "check.h"
#include "errname.h"
#include "logd.h"

/* ---- rings built by hand ---------------------------------------------- */

#define SIZE		8192
#define NR_RINGS	2
#define PER_RING	12
#define NR_RECORDS	(NR_RINGS * PER_RING)

struct hand_ring {
	unsigned long consumer, producer;
	_Alignas(8) char data[2 * SIZE];
};

static struct hand_ring hand[NR_RINGS];
static struct policy fake_policies[NR_RINGS] = { { .name = "first" }, { .name = "second" } };
static struct ring rings[NR_RINGS];

static void put(struct hand_ring *h, unsigned long pos, const void *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		h->data[(pos + i) % SIZE] = ((const char *)p)[i];
		h->data[(pos + i) % SIZE + SIZE] = ((const char *)p)[i];
	}
}

/* A denial of ring @r at @time_ns, whose "what" names it: "r<R>-<N>". */
static void put_denial(int r, int n, __u64 time_ns)
{
	struct hand_ring *h = &hand[r];
	struct krsi_event ev = {
		.time_ns = time_ns, .kind = KRSI_EVENT_DENY, .verdict = -EPERM,
	};
	char what[32];
	__u32 hdr[2];

	snprintf(what, sizeof(what), "r%d-%02d", r, n);
	ev.data_len = strlen(what);
	snprintf(ev.policy, sizeof(ev.policy), "%s", fake_policies[r].name);
	snprintf(ev.hook, sizeof(ev.hook), "file_open");
	hdr[0] = sizeof(ev) + ev.data_len;
	hdr[1] = 0;
	put(h, h->producer, hdr, sizeof(hdr));
	put(h, h->producer + BPF_RINGBUF_HDR_SZ, &ev, sizeof(ev));
	put(h, h->producer + BPF_RINGBUF_HDR_SZ + sizeof(ev), what, ev.data_len);
	h->producer += (hdr[0] + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
}

/* Both rings, their records interleaved in time; starting near the end
 * of the ring, so that some wrap around it.
 */
static void fill_rings(void)
{
	int r, n;

	for (r = 0; r < NR_RINGS; r++) {
		memset(&hand[r], 0, sizeof(hand[r]));
		hand[r].consumer = hand[r].producer = SIZE - 304;
		rings[r] = (struct ring){
			.p = &fake_policies[r],
			.rb = { .fd = -1, .consumer = &hand[r].consumer,
				.producer = &hand[r].producer, .data = hand[r].data,
				.size = SIZE, .pos = SIZE - 304 },
			.counts_fd = -1,
		};
		for (n = 0; n < PER_RING; n++)
			put_denial(r, n, 1000 + 10 * n + 3 * r);
	}
}

/* ---- sinks that fail on command ----------------------------------------- */

#define MAX_LINES	256

struct fake_sink {
	const char *name;
	/* Taken, not yet flushed; flushed: the records' "what" and number. */
	char pending[MAX_LINES][16];
	unsigned long long pending_seq[MAX_LINES];
	size_t nr_pending;
	char flushed[MAX_LINES][16];
	unsigned long long flushed_seq[MAX_LINES];
	size_t nr_flushed;
	/* Lost by a write that failed, in a sink that does not hold them. */
	char lost[MAX_LINES][16];
	size_t nr_lost;
	size_t capacity;	/* lines it takes before it must be flushed */
	bool holds;		/* a failed write keeps its lines: root's log */
};

static struct fake_sink fake_log, fake_users, fake_stream;

/* The step of a run (every room() and flush() of every sink), and the
 * one that fails, with what.
 */
static int step, fail_step = -1, fail_err;

static int injected(void)
{
	return step++ == fail_step ? fail_err : 0;
}

static int fake_room(struct fake_sink *s, size_t len)
{
	int err = injected();

	(void)len;
	if (err)
		return err;
	return s->nr_pending < s->capacity ? 0 : -ENOSPC;
}

static void fake_write(struct fake_sink *s, const struct event_view *v)
{
	size_t n = v->what.len < 15 ? v->what.len : 15;

	if (s->nr_pending == MAX_LINES)
		return;
	/* The reader's own records are kept too, under their event's name. */
	if (v->type == EVENT_READER)
		n = 0;
	memcpy(s->pending[s->nr_pending], v->what.s, n);
	s->pending[s->nr_pending][n] = '\0';
	s->pending_seq[s->nr_pending++] = v->seq;
}

static int fake_flush(struct fake_sink *s)
{
	int err = injected();
	size_t i;

	if (err && s->holds)
		return err;	/* its lines stay pending */
	for (i = 0; err && i < s->nr_pending && s->nr_lost < MAX_LINES; i++)
		memcpy(s->lost[s->nr_lost++], s->pending[i], 16);
	for (i = 0; !err && i < s->nr_pending && s->nr_flushed < MAX_LINES; i++) {
		memcpy(s->flushed[s->nr_flushed], s->pending[i], 16);
		s->flushed_seq[s->nr_flushed++] = s->pending_seq[i];
	}
	s->nr_pending = 0;
	return 0;
}

/* Each fake is its own destination. */
#define FAKE_SINK(NAME, FAKE)							\
static void NAME##_prepare(const struct event_view *v, void **dest)		\
{										\
	(void)v;								\
	*dest = &FAKE;								\
}										\
static int NAME##_room(size_t len, size_t keep, const struct origin_copy *copy,	\
		       void *dest)						\
{										\
	(void)keep;								\
	(void)copy;								\
	return fake_room(dest, len);						\
}										\
static void NAME##_write(const struct event_view *v, const struct strbuf *line,	\
			 struct origin_copy *copy, void *dest)			\
{										\
	(void)line;								\
	(void)copy;								\
	fake_write(dest, v);							\
}										\
static int NAME##_flush(void)							\
{										\
	return fake_flush(&FAKE);						\
}										\
const struct sink NAME##_sink = {						\
	.prepare = NAME##_prepare, .room = NAME##_room, .write = NAME##_write,	\
	.flush = NAME##_flush,							\
}

FAKE_SINK(root_log, fake_log);
FAKE_SINK(user_logs, fake_users);
FAKE_SINK(stream, fake_stream);

bool root_log_pending(void)
{
	return fake_log.nr_pending;
}

/* ---- the other stages, stood in for ------------------------------------- */

volatile sig_atomic_t logd_stopping;
static int consume_violations;

unsigned long long boot_ns(void)
{
	return 0;
}

struct event_str cstr(const char *s)
{
	return (struct event_str){ s, strlen(s) };
}

size_t nr_rings(void)
{
	return NR_RINGS;
}

struct ring *ring_at(size_t i)
{
	return &rings[i];
}

void sources_count(bool now)
{
	(void)now;
}

static bool flushed_in(const struct fake_sink *s, const char *what)
{
	size_t i;

	for (i = 0; i < s->nr_flushed; i++)
		if (!strcmp(s->flushed[i], what))
			return true;
	return false;
}

/*
 * ringbuf_walk()'s callback, up to the position a consume gives back
 * (@ctx): each record given back must be in root's log.
 */
static int given_back(const void *rec, size_t size, unsigned long pos, void *ctx)
{
	const struct krsi_event *ev = rec;
	char what[16];
	size_t n = size - sizeof(*ev) < 15 ? size - sizeof(*ev) : 15;

	if (pos >= *(unsigned long *)ctx)
		return 1;
	memcpy(what, ev + 1, n);
	what[n] = '\0';
	if (!flushed_in(&fake_log, what)) {
		consume_violations++;
		printf("# %s given back before root's log wrote it\n", what);
	}
	return 0;
}

/* What a consume gives back is checked against the sinks first. */
void sources_consume(void)
{
	size_t i;

	for (i = 0; i < NR_RINGS; i++) {
		struct ringbuf given = rings[i].rb;
		unsigned long upto = rings[i].rb.pos;

		given.pos = *given.consumer;
		ringbuf_walk(&given, given_back, &upto);
		ringbuf_consume(&rings[i].rb);
	}
}

unsigned long sources_held_bytes(void)
{
	return 0;
}

const char *sources_unread(void)
{
	return "";
}

void origin_of(const struct ring *r, struct event_view *v)
{
	(void)r;
	(void)v;
}

void tally(struct ring *r, const struct event_view *v)
{
	(void)r;
	(void)v;
}

void log_kernel_lines(void)
{
}

/* ---- the runs ------------------------------------------------------------ */

static void reset(size_t capacity)
{
	fake_log = (struct fake_sink){ .name = "root's log", .capacity = capacity,
				       .holds = true };
	fake_users = (struct fake_sink){ .name = "users' logs", .capacity = capacity };
	fake_stream = (struct fake_sink){ .name = "stream", .capacity = capacity };
	fill_rings();
	step = 0;
	consume_violations = 0;
	record_seq_from(100);
}

static bool drained(void)
{
	size_t i;

	for (i = 0; i < NR_RINGS; i++)
		if (hand[i].consumer != hand[i].producer)
			return false;
	return !fake_log.nr_pending && !fake_users.nr_pending &&
	       !fake_stream.nr_pending;
}

/* Rounds as the reader's loop runs them, until every record is given back. */
static int run(int *held_back)
{
	int rounds = 0, err;

	*held_back = 0;
	while (!drained() && rounds++ < 200) {
		err = round_trip();
		if (err < 0)
			(*held_back)++;
	}
	return rounds;
}

/*
 * What a sink flushed: every ring record once, in time order, with
 * numbers that only grow; root's log has every record and every number
 * from 100 on, one after the other; another sink may have lost records
 * to a failed write, but not one it also wrote.
 */
static bool whole(const struct fake_sink *s, char *why, size_t size)
{
	int seen[NR_RINGS][PER_RING] = { { 0 } };
	unsigned long long last_time = 0;
	size_t i;
	int r, n;

	for (i = 0; i < s->nr_flushed + s->nr_lost; i++) {
		bool lost = i >= s->nr_flushed;
		const char *what = lost ? s->lost[i - s->nr_flushed] : s->flushed[i];

		if (!lost && (s->holds ? s->flushed_seq[i] != 100 + i :
			      i && s->flushed_seq[i] <= s->flushed_seq[i - 1])) {
			snprintf(why, size, "%s: line %zu has number %llu", s->name, i,
				 s->flushed_seq[i]);
			return false;
		}
		if (!what[0])
			continue;	/* a record of the reader's own */
		if (sscanf(what, "r%d-%d", &r, &n) != 2 || r < 0 ||
		    r >= NR_RINGS || n < 0 || n >= PER_RING) {
			snprintf(why, size, "%s: a line of no ring (%s)", s->name, what);
			return false;
		}
		if (seen[r][n]++) {
			snprintf(why, size, "%s: %s written twice", s->name, what);
			return false;
		}
		if (!lost && 1000ULL + 10 * n + 3 * r < last_time) {
			snprintf(why, size, "%s: %s out of time order", s->name, what);
			return false;
		}
		if (!lost)
			last_time = 1000ULL + 10 * n + 3 * r;
	}
	if (s->holds && s->nr_lost) {
		snprintf(why, size, "%s: %zu lines lost", s->name, s->nr_lost);
		return false;
	}
	for (r = 0; r < NR_RINGS; r++)
		for (n = 0; n < PER_RING; n++)
			if (!seen[r][n]) {
				snprintf(why, size, "%s: r%d-%02d missing", s->name, r, n);
				return false;
			}
	return true;
}

static bool run_is_whole(char *why, size_t size)
{
	return whole(&fake_log, why, size) && whole(&fake_users, why, size) &&
	       whole(&fake_stream, why, size);
}

int main(void)
{
	static const int errs[] = { -ENOSPC, -ENOMEM, -EIO };
	char why[128] = "";
	int held_back, rounds, steps, e, err;

	if (batch_reserve() || record_reserve()) {
		check(false, "logd pipeline: the memory a round needs");
		return check_exit();
	}

	/* Everything fits: one round. */
	reset(MAX_LINES);
	rounds = run(&held_back);
	check(rounds == 1 && !held_back && run_is_whole(why, sizeof(why)) &&
	      !consume_violations,
	      "logd pipeline: both rings, in time order, numbered, in one round "
	      "(%d rounds%s%s)", rounds, why[0] ? ": " : "", why);

	/* Sinks that take 5 lines at a time: rounds that end early. */
	reset(5);
	rounds = run(&held_back);
	check(rounds > 4 && !held_back && run_is_whole(why, sizeof(why)) &&
	      !consume_violations,
	      "logd pipeline: a sink out of room ends the round; the rest goes "
	      "back to its ring and comes next (%d rounds%s%s)", rounds,
	      why[0] ? ": " : "", why);

	/* Root's log cannot be written: nothing leaves the rings. */
	reset(MAX_LINES);
	fail_step = 3 * NR_RECORDS;	/* root's log's flush, after every room() */
	fail_err = -EIO;
	err = round_trip();
	check(err == -EIO && hand[0].consumer == SIZE - 304 &&
	      hand[1].consumer == SIZE - 304,
	      "logd pipeline: a log write that fails gives nothing back (%d)", err);
	check(!strcmp(batch_holding(), "write " KRSI_LOG_DIR ": EIO"),
	      "logd pipeline: and says why records are held back (%s)", batch_holding());
	fail_step = -1;
	rounds = run(&held_back);
	check(run_is_whole(why, sizeof(why)) && !consume_violations,
	      "logd pipeline: written once when the log takes them again "
	      "(%d rounds%s%s)", rounds, why[0] ? ": " : "", why);

	/* The stream cannot be written: it holds nothing back. */
	reset(MAX_LINES);
	fail_step = 3 * NR_RECORDS + 2;	/* the stream's flush */
	fail_err = -EIO;
	err = round_trip();
	fail_step = -1;
	check(err == 0 && hand[0].consumer == hand[0].producer &&
	      hand[1].consumer == hand[1].producer &&
	      fake_stream.nr_lost == NR_RECORDS && fake_log.nr_flushed == NR_RECORDS,
	      "logd pipeline: a stream that cannot be written holds nothing back, "
	      "root's log has every record (%d, %zu lost)", err, fake_stream.nr_lost);

	/* A failure at each step of a run in turn, of each kind. */
	reset(4);
	fail_step = -1;
	run(&held_back);
	steps = step;
	for (e = 0; e < 3; e++) {
		int at, failed_at = -1;

		for (at = 0; at < steps && failed_at < 0; at++) {
			reset(4);
			fail_step = at;
			fail_err = errs[e];
			why[0] = '\0';
			run(&held_back);
			if (!drained() || !run_is_whole(why, sizeof(why)) ||
			    consume_violations)
				failed_at = at;
		}
		fail_step = -1;
		if (failed_at >= 0 && !why[0])
			snprintf(why, sizeof(why), "%d records given back unflushed",
				 consume_violations);
		check(failed_at < 0, "logd pipeline: %s at each of %d steps: every "
		      "record once, in order, given back only once flushed (%s%d%s%s)",
		      errname(-errs[e]), steps, failed_at < 0 ? "failures: " : "not with step ",
		      failed_at < 0 ? steps : failed_at, failed_at < 0 ? "" : ": ",
		      failed_at < 0 ? "" : why);
	}
	return check_exit();
}
