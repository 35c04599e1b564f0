// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi events`: read what the attached policies report, live.
 *
 * Denials come through each policy's BPF ring buffer, audited execs through
 * audit_exec's perf event array (bpf_lsm_event_output()).  Both are read
 * the way libbpf's ring_buffer and perf_buffer do it, by mapping them;
 * light skeletons come without those readers, so they are written here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "event_format.h"
#include "krsi.h"

#define MAX_SOURCES	64
#define PERF_PAGES	8	/* data pages per CPU, a power of two */

struct source {
	int fd;			/* ring buffer map, or perf event */
	void *base;		/* what mmap() gave */
	size_t map_size;
	/* Ring buffer: consumer page, then producer page and data twice. */
	unsigned long *consumer, *producer;
	char *data;
	size_t data_size;
	/* Perf buffer: the control page, then the data. */
	struct perf_event_mmap_page *meta;
	bool perf;
};

static struct source sources[MAX_SOURCES];
static int nr_sources;
/* Perf event arrays lose the entries added through a descriptor when it
 * is closed: keep them open while reading.
 */
static int perf_maps[MAX_SOURCES];
static int nr_perf_maps;
static long printed;
static size_t page_size;

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	long ret = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return ret < 0 ? -errno : ret;
}

static int map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr attr;

	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

static void print_event(const void *rec, size_t size)
{
	struct krsi_event ev;
	char line[512];

	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, rec, size < sizeof(ev) ? size : sizeof(ev));
	event_format(&ev, line, sizeof(line));
	printf("%s\n", line);
	fflush(stdout);
	printed++;
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
	s->base = cons;
	s->consumer = cons;
	s->producer = prod;
	s->data = (char *)prod + page_size;
	s->data_size = info->max_entries;
	s->map_size = page_size + 2 * (size_t)info->max_entries;
	nr_sources++;
	return 0;
}

/* One BPF output perf event per CPU, each put in the map at its index. */
static int add_perf_array(int map_fd)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	for (cpu = 0; cpu < cpus && nr_sources < MAX_SOURCES; cpu++) {
		struct source *s = &sources[nr_sources];
		size_t size = (1 + PERF_PAGES) * page_size;
		union bpf_attr upd;
		int fd;

		fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		s->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (s->base == MAP_FAILED) {
			close(fd);
			return -errno;
		}
		s->fd = fd;
		s->perf = true;
		s->meta = s->base;
		s->data = (char *)s->base + page_size;
		s->data_size = PERF_PAGES * page_size;
		s->map_size = size;
		nr_sources++;

		memset(&upd, 0, sizeof(upd));
		upd.map_fd = map_fd;
		upd.key = (unsigned long)&cpu;
		upd.value = (unsigned long)&fd;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &upd))
			return -errno;
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
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
			print_event(rec + RINGBUF_HDR, len & ~RINGBUF_DISCARD);
		cons += ((len & ~RINGBUF_DISCARD) + RINGBUF_HDR + 7) & ~7UL;
		__atomic_store_n(s->consumer, cons, __ATOMIC_RELEASE);
	}
}

static void drain_perf(struct source *s)
{
	__u64 head = __atomic_load_n(&s->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = s->meta->data_tail;
	char rec[sizeof(struct perf_event_header) + 4 + sizeof(struct krsi_event) + 8];

	while (tail < head) {
		struct perf_event_header hdr;
		size_t i, size;

		/* Records may wrap around the end of the ring: copy them out. */
		for (i = 0; i < sizeof(hdr); i++)
			((char *)&hdr)[i] = s->data[(tail + i) % s->data_size];
		size = hdr.size < sizeof(rec) ? hdr.size : sizeof(rec);
		for (i = 0; i < size; i++)
			rec[i] = s->data[(tail + i) % s->data_size];
		if (hdr.type == PERF_RECORD_SAMPLE && size > sizeof(hdr) + 4) {
			__u32 raw_size;

			memcpy(&raw_size, rec + sizeof(hdr), 4);
			if (raw_size > size - sizeof(hdr) - 4)
				raw_size = size - sizeof(hdr) - 4;
			print_event(rec + sizeof(hdr) + 4, raw_size);
		} else if (hdr.type == PERF_RECORD_LOST) {
			printf("(events lost)\n");
		}
		if (!hdr.size)
			break;
		tail += hdr.size;
	}
	__atomic_store_n(&s->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int open_sources(void)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < nr_policies && !err; i++) {
		const struct policy *p = &policies[i];

		if (!policy_attached(p))
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
			err = map_info(fd, &info);
			if (!err && info.type == BPF_MAP_TYPE_RINGBUF)
				err = add_ringbuf(fd, &info);
			else if (!err && info.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
				perf_maps[nr_perf_maps++] = fd;
				err = add_perf_array(fd);
			}
			else
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

int events_run(long count, int timeout_ms)
{
	long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1;
	struct epoll_event ev = { .events = EPOLLIN };
	int ep, i, err;

	page_size = sysconf(_SC_PAGESIZE);
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
		if (epoll_ctl(ep, EPOLL_CTL_ADD, sources[i].fd, &ev)) {
			err = -errno;
			goto out;
		}
	}
	while (count < 0 || printed < count) {
		struct epoll_event ready[MAX_SOURCES];
		int wait = deadline < 0 ? 1000 : (int)(deadline - now_ms());

		if (deadline >= 0 && wait <= 0)
			break;
		if (epoll_wait(ep, ready, MAX_SOURCES, wait) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		/* Drain everything: an epoll wakeup may cover several. */
		for (i = 0; i < nr_sources; i++) {
			if (sources[i].perf)
				drain_perf(&sources[i]);
			else
				drain_ringbuf(&sources[i]);
		}
	}
out:
	for (i = 0; i < nr_sources; i++) {
		munmap(sources[i].base, sources[i].perf ? sources[i].map_size :
		       page_size);
		if (!sources[i].perf)
			munmap(sources[i].producer, sources[i].map_size);
		close(sources[i].fd);
	}
	for (i = 0; i < nr_perf_maps; i++)
		close(perf_maps[i]);
	close(ep);
	return err;
}
