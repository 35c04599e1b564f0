// SPDX-License-Identifier: GPL-2.0
/*
 * A round of the reader: what the rings hold, sorted by time, to the
 * sinks, then the counters; once root's log has written them, the
 * records leave their rings (flush_then_consume(), the reader's one
 * rule).  A record
 * that was not logged goes back to its ring, and nothing more is taken
 * while records are held back: a record is logged once, and lost never
 * (a restarted reader may log one twice).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "errname.h"
#include "logd.h"

/* Records a round takes from the rings, shared out among them. */
#define BATCH_MAX		4096

/* A record drained from a ring, waiting to be sorted and logged. */
struct drained {
	__u64 time_ns;
	size_t ring, order;
	unsigned long pos;	/* where it is in its ring */
	const void *rec;
	size_t size;
};

static struct {
	struct drained *batch;	/* BATCH_MAX of them */
	size_t nr;
	struct event_str *args;	/* KRSI_ARGS_MAX: a record's arguments */
	char holding[160];	/* this round: why records were held back, or "" */
} b;

int batch_reserve(void)
{
	b.batch = calloc(BATCH_MAX, sizeof(*b.batch));
	b.args = calloc(KRSI_ARGS_MAX, sizeof(*b.args));
	return b.batch && b.args ? 0 : -ENOMEM;
}

const char *batch_holding(void)
{
	return b.holding;
}

/*
 * The reader's rule, in one place: the rings give back the space of what
 * root's log has written, and of nothing else.  The users' logs and the
 * stream never hold records back: a host that stops reading, or a
 * user's full log, must not stop the log; what they could not take, root's
 * log says (sinks_flush() returns root's log's error alone).
 */
int flush_then_consume(void)
{
	int err = sinks_flush();

	if (!err)
		sources_consume();
	return err;
}

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
	struct ring *r = ring_at(dr->ring);
	unsigned long long t = size >= sizeof(*ev) ? ev->time_ns : 0;

	if (!dr->left || b.nr == BATCH_MAX) {
		r->cut = true;	/* it stays, for the next round */
		return -ENOSPC;
	}
	dr->left--;
	b.batch[b.nr] = (struct drained){ t, dr->ring, b.nr, pos, rec, size };
	b.nr++;
	r->last_ns = t;
	return 0;
}

/* What ring @i holds past what was read, @quota records at most: into the batch. */
static void drain_ring(size_t i, size_t quota)
{
	struct ring *r = ring_at(i);
	struct drain dr = { i, quota };
	/* Only before the lock can another consumer move it: say so. */
	unsigned long taken = ringbuf_taken(&r->rb);

	if (taken)
		emit_reader("error", 0, "%lu bytes of %s's records taken by another reader",
			    taken, r->p->name);
	r->cut = false;
	ringbuf_walk(&r->rb, keep, &dr);
}

/* The records from @from on were not logged: their rings go back to them. */
static void unread_from(size_t from)
{
	size_t i, j;

	for (i = from; i < b.nr; i++) {
		for (j = from; j < i && b.batch[j].ring != b.batch[i].ring; j++)
			;
		if (j == i)	/* the first of its ring left */
			ring_at(b.batch[i].ring)->rb.pos = b.batch[i].pos;
	}
}

/* Records are held back this round, for @why. */
__attribute__((format(printf, 1, 2)))
static void hold_back(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b.holding, sizeof(b.holding), fmt, ap);
	va_end(ap);
}

/*
 * A record of one drain of every ring is stamped before the drain, so
 * sorting them is enough; a ring cut short (BATCH_MAX records a round,
 * shared out) may hold older ones than another's last, so the round
 * logs only up to its last.  It ends early when the next line would not
 * fit in the buffers taken at start: what it logged is written and
 * consumed, the rest goes back to its ring.
 */
int round_trip(void)
{
	unsigned long long cutoff = ~0ULL;
	size_t i, quota;
	int err = 0, more = 0, e;

	b.holding[0] = '\0';
	if (root_log_pending()) {
		err = flush_then_consume();
		if (err) {
			hold_back("write " KRSI_LOG_DIR ": %s", errname(-err));
			return err;
		}
	}
	b.nr = 0;
	sinks_round();
	log_kernel_lines();
	quota = nr_rings() ? BATCH_MAX / nr_rings() : 0;
	for (i = 0; i < nr_rings(); i++) {
		drain_ring(i, quota);
		if (ring_at(i)->cut && ring_at(i)->last_ns < cutoff)
			cutoff = ring_at(i)->last_ns;
	}
	qsort(b.batch, b.nr, sizeof(*b.batch), by_time);
	for (i = 0; i < b.nr; i++) {
		struct drained *d = &b.batch[i];
		struct ring *r = ring_at(d->ring);
		struct event_view v;

		if (d->time_ns > cutoff) {
			unread_from(i);
			more = 1;
			break;
		}
		if (event_from_record(d->rec, d->size, &v, b.args, KRSI_ARGS_MAX)) {
			emit_reader("error", 0, "a record of %zu bytes, shorter than its header",
				    d->size);
			continue;
		}
		origin_of(r, &v);
		err = emit(&v, false, &r->copy, NULL);
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
				  r->p->name, d->size, errname(-err));
		}
		break;
	}
	sources_count(logd_stopping);
	e = flush_then_consume();
	if (e) {
		hold_back("write " KRSI_LOG_DIR ": %s", errname(-e));
		return e;
	}
	return err ? err : more;
}
