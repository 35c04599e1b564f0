/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_PERFBUF_H
#define KRSI_PERFBUF_H

/*
 * A reader for one CPU's slot of a BPF_MAP_TYPE_PERF_EVENT_ARRAY, which is
 * where bpf_lsm_event_output() writes: what libbpf's perf_buffer does,
 * which light skeletons come without.  The audit log takes ring buffers
 * (krsi logd); this is for a policy's own reader of the v1 helper, as
 * tests/suites/base/krsi_events reads it.
 */
#include <stdbool.h>
#include <stddef.h>

#include <linux/perf_event.h>

struct perfbuf {
	int fd;				/* the perf event */
	void *base;			/* the mapping: control page, then data */
	size_t map_size;
	struct perf_event_mmap_page *meta;
	const char *data;
	size_t data_size;		/* a power of two */
};

/*
 * Open a BPF output perf event on @cpu with @pages data pages (a power of
 * two), map it, store it at index @cpu of the perf event array @map_fd and
 * enable it.  The entry lasts while both the event and the descriptor
 * @map_fd it was stored through are open.  0 or a negative errno.
 */
int perfbuf_open(struct perfbuf *pb, int map_fd, int cpu, size_t pages);
void perfbuf_close(struct perfbuf *pb);

/*
 * Call @sample with the raw data of each PERF_SAMPLE_RAW record waiting in
 * @data (of @data_size bytes, as the kernel wrote it from @meta's tail to
 * its head), then consume them.  Records that wrap around the end of the
 * ring are copied out whole; a raw size larger than its record is cut to
 * it.  Returns the number of samples; *@lost (if not NULL) is set when
 * the kernel reports records it had to drop.
 */
int perfbuf_drain(struct perf_event_mmap_page *meta, const char *data,
		  size_t data_size,
		  void (*sample)(const void *raw, size_t size, void *ctx),
		  void *ctx, bool *lost);

#endif
