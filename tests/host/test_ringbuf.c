// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the ring buffer consumer (tools/lib/ringbuf.c) on a
 * ring built by hand as the kernel lays it out: the data twice in a row,
 * as the kernel maps it, records with their busy and discard bits.
 */
#include <string.h>

#include <linux/bpf.h>

#include "check.h"
#include "ringbuf.h"

#define SIZE 256

static unsigned long consumer, producer;
static _Alignas(8) char data[2 * SIZE];

/* Write @len bytes at position @pos, in both copies of the data. */
static void put(unsigned long pos, const void *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		data[(pos + i) % SIZE] = ((const char *)p)[i];
		data[(pos + i) % SIZE + SIZE] = ((const char *)p)[i];
	}
}

/* A record of @text at the producer position, with @bits in its length. */
static unsigned long put_record(const char *text, __u32 bits)
{
	unsigned long at = producer;
	__u32 hdr[2] = { (__u32)strlen(text) | bits, 0 };

	put(at, hdr, sizeof(hdr));
	put(at + BPF_RINGBUF_HDR_SZ, text, strlen(text));
	producer += (strlen(text) + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
	return at;
}

/* Set the length word of the record at @at, as the kernel's commit does. */
static void set_len(unsigned long at, __u32 len)
{
	put(at, &len, sizeof(len));
}

static char got[8][64];
static unsigned long got_pos[8];
static int nr_got;
static int refuse_from = 100;	/* the first record number to refuse */

static int record(const void *p, size_t size, unsigned long pos, void *ctx)
{
	(void)ctx;
	if (nr_got >= refuse_from || nr_got >= 8 || size >= sizeof(got[0]))
		return -1;
	memcpy(got[nr_got], p, size);
	got[nr_got][size] = '\0';
	got_pos[nr_got++] = pos;
	return 0;
}

int main(void)
{
	struct ringbuf rb = {
		.fd = -1, .consumer = &consumer, .producer = &producer,
		.data = data, .size = SIZE,
	};
	unsigned long busy, second;
	size_t n;

	/* Start near the end, so that a record wraps around it. */
	consumer = producer = rb.pos = SIZE - 40;
	put_record("first record", 0);		/* 12 bytes: 24 in the ring */
	second = put_record("wraps around the end", 0);
	put_record("thrown away", BPF_RINGBUF_DISCARD_BIT);
	put_record("third", 0);
	busy = put_record("still being written", BPF_RINGBUF_BUSY_BIT);
	put_record("after the busy one", 0);

	n = ringbuf_walk(&rb, record, NULL);
	check(n == 3 && nr_got == 3, "three records taken (%zu, %d)", n, nr_got);
	check(!strcmp(got[0], "first record"), "the first, whole (%s)", got[0]);
	check(!strcmp(got[1], "wraps around the end") && got_pos[1] == second,
	      "a record across the end of the ring, whole, with its position (%s)",
	      got[1]);
	check(!strcmp(got[2], "third"), "a discarded record skipped (%s)", got[2]);
	check(rb.pos == busy, "the walk stops at a record still being written");
	check(consumer == SIZE - 40, "the consumer position is not moved by a walk");

	check(ringbuf_unconsumed(&rb) == producer - (SIZE - 40),
	      "what the ring holds is everything not given back, read or not (%lu)",
	      ringbuf_unconsumed(&rb));
	ringbuf_consume(&rb);
	check(consumer == busy, "consume gives back what was read");
	check(ringbuf_unconsumed(&rb) == producer - busy,
	      "and then what is past it (%lu)", ringbuf_unconsumed(&rb));

	check(ringbuf_walk(&rb, record, NULL) == 0 && nr_got == 3,
	      "nothing more while the record is busy");
	set_len(busy, (__u32)strlen("still being written"));
	n = ringbuf_walk(&rb, record, NULL);
	check(n == 2 && !strcmp(got[3], "still being written") &&
	      !strcmp(got[4], "after the busy one"),
	      "once committed, it and the next are read (%zu)", n);
	check(rb.pos == producer, "read up to the producer position");

	/* A record the caller cannot keep stays, to be read again. */
	refuse_from = nr_got + 1;
	put_record("kept", 0);
	put_record("refused", 0);
	n = ringbuf_walk(&rb, record, NULL);
	check(n == 1 && !strcmp(got[5], "kept") && rb.pos < producer,
	      "a refused record stops the walk and stays (%zu)", n);
	refuse_from = 100;
	check(ringbuf_walk(&rb, record, NULL) == 1 && !strcmp(got[6], "refused"),
	      "and is read by the next walk (%s)", got[6]);

	/* Another consumer moved the position: the bytes it took. */
	ringbuf_consume(&rb);
	put_record("taken by another", 0);
	consumer = producer;
	check(ringbuf_taken(&rb) == 24 && rb.pos == producer,
	      "what another consumer took is counted, and skipped");
	check(ringbuf_taken(&rb) == 0, "and counted once");

	/* A length no record can have (corrupt, or not a ring) stops it. */
	put_record("x", 0);
	set_len(rb.pos, SIZE);
	check(ringbuf_walk(&rb, record, NULL) == 0 && rb.pos < producer,
	      "a record longer than the ring stops the walk");
	return check_exit();
}
