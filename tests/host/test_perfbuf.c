// SPDX-License-Identifier: GPL-2.0
/* Host unit test of perfbuf_drain() (tools/lib/perfbuf.c) on a made-up ring. */
#include <string.h>

#include "check.h"
#include "perfbuf.h"

#define RING 256

static char ring[RING];
static struct perf_event_mmap_page meta;
static __u64 head;

/* Write @len bytes at the ring's head, wrapping as the kernel does. */
static void put(const void *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		ring[(head + i) % RING] = ((const char *)p)[i];
	head += len;
}

static void put_sample(const char *raw, __u32 raw_size, __u32 claimed)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_SAMPLE,
		.size = sizeof(hdr) + 4 + raw_size,
	};

	put(&hdr, sizeof(hdr));
	put(&claimed, 4);
	put(raw, raw_size);
}

static char got[4][64];
static size_t got_size[4];
static int nr_got;

static void sample(const void *raw, size_t size, void *ctx)
{
	(void)ctx;
	if (nr_got < 4 && size <= sizeof(got[0])) {
		memcpy(got[nr_got], raw, size);
		got_size[nr_got] = size;
	}
	nr_got++;
}

int main(void)
{
	struct perf_event_header lost = { .type = PERF_RECORD_LOST, .size = 24 };
	char zeros[16] = { 0 };
	bool was_lost = false;
	int n;

	/* Start near the end, so that the second sample wraps around. */
	head = meta.data_tail = RING - 40;
	put_sample("first-16-bytes!", 16, 16);
	put_sample("wraps-around-end", 16, 16);
	put(&lost, sizeof(lost));
	put(zeros, 16);
	put_sample("cut-to-record", 8, 1000);	/* claims more than it has */
	meta.data_head = head;

	n = perfbuf_drain(&meta, ring, RING, sample, NULL, &was_lost);
	check(n == 3 && nr_got == 3, "three samples (%d, %d)", n, nr_got);
	check(got_size[0] == 16 && !memcmp(got[0], "first-16-bytes!", 16),
	      "the first sample, whole");
	check(got_size[1] == 16 && !memcmp(got[1], "wraps-around-end", 16),
	      "a sample that wraps around the ring's end, whole");
	check(got_size[2] == 8 && !memcmp(got[2], "cut-to-r", 8),
	      "a raw size larger than its record is cut to it (%zu)", got_size[2]);
	check(was_lost, "a lost record is reported");
	check(meta.data_tail == head, "everything consumed");
	check(perfbuf_drain(&meta, ring, RING, sample, NULL, NULL) == 0,
	      "nothing left on a second drain");

	/* A corrupt header must not make the reader spin. */
	memset(ring, 0, sizeof(ring));
	meta.data_tail = 0;
	meta.data_head = 64;
	check(perfbuf_drain(&meta, ring, RING, sample, NULL, NULL) == 0,
	      "a zero-sized record stops the drain");
	return check_exit();
}
