// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi events`: read what the attached policies report, live.
 *
 * Denials and audited execs come through each policy's BPF ring buffer; a
 * policy of one's own may also use a perf event array
 * (bpf_lsm_event_output()).  Both are read the way libbpf's ring_buffer
 * and perf_buffer do it, by mapping them; light skeletons come without
 * those readers, so they are written here.  Each policy counts the reports
 * that found its ring buffer full in its map "lost", shown as they grow.
 *
 * The buffers are merged into one stream in time order: a record waits
 * REORDER_NS after its time stamp for older ones from other buffers (a
 * program stamps a record before it submits it, so records reach their
 * buffers slightly out of order), then is printed as a line or, with
 * --json, as one JSON object (tools/lib/event_format.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "event_format.h"
#include "krsi.h"
#include "perfbuf.h"
#include "sysbpf.h"

#define MAX_SOURCES	64
#define PERF_PAGES	8	/* data pages per CPU, a power of two */
#define MAX_PENDING	1024
#define REORDER_NS	100000000ULL	/* 100 ms */

struct source {
	bool perf;
	/* Ring buffer: the map, its consumer page, then producer page and data
	 * mapped twice.
	 */
	int fd;
	void *consumer_page;
	unsigned long *consumer, *producer;
	const char *data;
	size_t data_size, map_size;
	/* Perf buffer: one CPU's slot of a perf event array. */
	struct perfbuf pb;
};

static struct source sources[MAX_SOURCES];
static int nr_sources;
/* Each policy's count of reports that found its ring buffer full. */
struct lost_counter {
	int fd;
	const char *policy;
	__u64 seen;
};
static struct lost_counter lost_counters[MAX_SOURCES];
static int nr_lost;
/* Perf event arrays lose the entries added through a descriptor when it
 * is closed: keep them open while reading.
 */
static int perf_maps[MAX_SOURCES];
static int nr_perf_maps;
static long printed, wanted = -1;
static bool json;
static size_t page_size;

/* Records drained but not printed yet, with their order of arrival. */
struct pending {
	struct krsi_event ev;
	unsigned long seq;
};
static struct pending pending[MAX_PENDING];
static int nr_pending;
static unsigned long arrivals;

static void print_event(const struct krsi_event *ev)
{
	char line[2048];

	if (json)
		event_format_json(ev, line, sizeof(line));
	else
		event_format(ev, line, sizeof(line));
	printf("%s\n", line);
	fflush(stdout);
	printed++;
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.time_ns != y->ev.time_ns)
		return x->ev.time_ns < y->ev.time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Print, oldest first, the pending records older than REORDER_NS, or all
 * of them with @all, as long as fewer than the wanted number are printed.
 */
static void flush(bool all)
{
	unsigned long long cutoff = all ? ~0ULL : boot_ns() - REORDER_NS;
	int i = 0;

	qsort(pending, nr_pending, sizeof(pending[0]), by_time);
	while (i < nr_pending && pending[i].ev.time_ns <= cutoff &&
	       (wanted < 0 || printed < wanted))
		print_event(&pending[i++].ev);
	memmove(pending, pending + i, (nr_pending - i) * sizeof(pending[0]));
	nr_pending -= i;
}

static void queue_event(const void *rec, size_t size)
{
	struct pending *p;

	if (nr_pending == MAX_PENDING)
		flush(true);
	p = &pending[nr_pending++];
	memset(&p->ev, 0, sizeof(p->ev));
	memcpy(&p->ev, rec, size < sizeof(p->ev) ? size : sizeof(p->ev));
	p->seq = arrivals++;
}

static int add_ringbuf(int map_fd, const struct bpf_map_info *info)
{
	struct source *s = &sources[nr_sources];
	void *cons, *prod;

	/* The consumer page is ours to write, the rest is read-only. */
	cons = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (cons == MAP_FAILED)
		return -errno;
	prod = mmap(NULL, page_size + 2 * (size_t)info->max_entries, PROT_READ,
		    MAP_SHARED, map_fd, page_size);
	if (prod == MAP_FAILED) {
		int err = -errno;

		munmap(cons, page_size);
		return err;
	}
	s->fd = map_fd;
	s->consumer_page = cons;
	s->consumer = cons;
	s->producer = prod;
	s->data = (const char *)prod + page_size;
	s->data_size = info->max_entries;
	s->map_size = page_size + 2 * (size_t)info->max_entries;
	nr_sources++;
	return 0;
}

/* One BPF output perf event per CPU, each put in the map at its index. */
static int add_perf_array(int map_fd)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int cpu, err;

	for (cpu = 0; cpu < cpus && nr_sources < MAX_SOURCES; cpu++) {
		struct source *s = &sources[nr_sources];

		err = perfbuf_open(&s->pb, map_fd, cpu, PERF_PAGES);
		if (err)
			return err;
		s->perf = true;
		nr_sources++;
	}
	return 0;
}

/* A ring buffer record: 8-byte header (length, busy and discard bits). */
#define RINGBUF_BUSY	(1U << 31)
#define RINGBUF_DISCARD	(1U << 30)
#define RINGBUF_HDR	8

static void drain_ringbuf(struct source *s)
{
	unsigned long cons = __atomic_load_n(s->consumer, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(s->producer, __ATOMIC_ACQUIRE);

	while (cons < prod) {
		const char *rec = s->data + (cons & (s->data_size - 1));
		unsigned int len = __atomic_load_n((const unsigned int *)rec,
						   __ATOMIC_ACQUIRE);

		if (len & RINGBUF_BUSY)
			break;
		if (!(len & RINGBUF_DISCARD))
			queue_event(rec + RINGBUF_HDR, len & ~RINGBUF_DISCARD);
		cons += ((len & ~RINGBUF_DISCARD) + RINGBUF_HDR + 7) & ~7UL;
		__atomic_store_n(s->consumer, cons, __ATOMIC_RELEASE);
	}
}

static void print_sample(const void *raw, size_t size, void *ctx)
{
	(void)ctx;
	queue_event(raw, size);
}

static void drain_perf(struct source *s)
{
	bool lost = false;

	perfbuf_drain(s->pb.meta, s->pb.data, s->pb.data_size, print_sample,
		      NULL, &lost);
	if (lost)
		printf(json ? "{\"lost\":null,\"source\":\"perf event array\"}\n" :
		       "(events lost from a perf event array)\n");
}

static int read_lost(const struct lost_counter *l, __u64 *value)
{
	union bpf_attr attr;
	__u32 zero = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = l->fd;
	attr.key = (unsigned long)&zero;
	attr.value = (unsigned long)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

/* Say how many reports each policy lost since the last look. */
static void report_lost(void)
{
	int i;

	for (i = 0; i < nr_lost; i++) {
		__u64 now;

		if (read_lost(&lost_counters[i], &now) || now == lost_counters[i].seen)
			continue;
		printf(json ? "{\"lost\":%llu,\"policy\":\"%s\"}\n" :
		       "(%llu events lost by %s: its buffer was full)\n",
		       (unsigned long long)(now - lost_counters[i].seen),
		       lost_counters[i].policy);
		fflush(stdout);
		lost_counters[i].seen = now;
	}
}

static int open_sources(void)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < nr_policies && !err; i++) {
		const struct policy *p = &policies[i];

		int pinned = policy_pin_state(p);

		if (pinned < 0) {
			/* Never "nothing to report" where it could not look. */
			error(pinned, "events: %s/%s%s", KRSI_PIN_DIR, p->name,
			      pinned == -EACCES ? " (needs root)" : "");
			return pinned;
		}
		if (!pinned)
			continue;
		for (j = 0; j < p->nr_maps && !err; j++) {
			struct bpf_map_info info;
			int fd = policy_map_fd(p, p->maps[j].name);

			if (fd < 0 || nr_sources >= MAX_SOURCES) {
				err = fd < 0 ? fd : -EMFILE;
				error(err, "events: map %s of %s", p->maps[j].name,
				      p->name);
				break;
			}
			memset(&info, 0, sizeof(info));
			err = sys_bpf_obj_info(fd, &info, sizeof(info));
			if (!err && info.type == BPF_MAP_TYPE_RINGBUF)
				err = add_ringbuf(fd, &info);
			else if (!err && info.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
				perf_maps[nr_perf_maps++] = fd;
				err = add_perf_array(fd);
			} else if (!err && !strcmp(p->maps[j].name, "lost")) {
				lost_counters[nr_lost].fd = fd;
				lost_counters[nr_lost++].policy = p->name;
			} else
				close(fd);	/* not an event map */
			if (err)
				error(err, "events: read map %s of %s",
				      p->maps[j].name, p->name);
		}
	}
	return err;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int events_run(long count, int timeout_ms, bool as_json)
{
	long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1;
	struct epoll_event ev = { .events = EPOLLIN };
	int ep, i, err;

	page_size = sysconf(_SC_PAGESIZE);
	wanted = count;
	json = as_json;
	err = open_sources();
	if (err)
		return err;
	if (!nr_sources) {
		error(-ENOENT, "events: no attached policy reports anything");
		return -ENOENT;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return -errno;
	for (i = 0; i < nr_sources; i++) {
		ev.data.u32 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, sources[i].perf ? sources[i].pb.fd :
			      sources[i].fd, &ev)) {
			err = -errno;
			goto out;
		}
	}
	/*
	 * Drain before looking at the clock: what was waiting when the reader
	 * started is always read, however long starting took (a guest on a
	 * busy host can take longer than -t), so that the next reader does
	 * not get it late.
	 */
	for (;;) {
		struct epoll_event ready[MAX_SOURCES];
		int wait;

		/* Everything: an epoll wakeup may cover several. */
		for (i = 0; i < nr_sources; i++) {
			if (sources[i].perf)
				drain_perf(&sources[i]);
			else
				drain_ringbuf(&sources[i]);
		}
		/* What was lost before this reader started counts too. */
		report_lost();
		flush(false);
		if (count >= 0 && printed >= count)
			break;
		/* Come back for the pending records once they are due. */
		wait = nr_pending ? REORDER_NS / 1000000 : 1000;
		if (deadline >= 0 && deadline - now_ms() < wait)
			wait = (int)(deadline - now_ms());
		if (deadline >= 0 && wait <= 0)
			break;
		if (epoll_wait(ep, ready, MAX_SOURCES, wait) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
	}
	flush(true);
out:
	for (i = 0; i < nr_sources; i++) {
		if (sources[i].perf) {
			perfbuf_close(&sources[i].pb);
			continue;
		}
		munmap(sources[i].consumer_page, page_size);
		munmap(sources[i].producer, sources[i].map_size);
		close(sources[i].fd);
	}
	for (i = 0; i < nr_perf_maps; i++)
		close(perf_maps[i]);
	for (i = 0; i < nr_lost; i++)
		close(lost_counters[i].fd);
	close(ep);
	return err;
}
