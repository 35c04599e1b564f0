/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_RINGBUF_H
#define KRSI_RINGBUF_H

/*
 * A consumer of one BPF_MAP_TYPE_RINGBUF, where the policies' audit
 * records go (bpf_ringbuf_output(), bpf_ringbuf_reserve()): what
 * libbpf's ring_buffer does, which light skeletons come without.
 *
 * The map's memory, as kernel/bpf/ringbuf.c lays it out for mmap():
 *
 *	page 0		the consumer position: the reader's to write
 *	page 1		the producer position: the kernel's, read-only
 *	page 2...	the data, @size bytes (a power of two), mapped twice
 *			in a row, so that a record that wraps around the
 *			end of the ring reads as one piece
 *
 * Positions only grow; a position's place in the data is pos & (size - 1).
 * Each record is an 8-byte header (BPF_RINGBUF_HDR_SZ: its length, with
 * the BUSY bit while a program still writes it and the DISCARD bit if it
 * gave it up, then the kernel's page offset) and the data, padded to 8
 * bytes.  Records are committed out of order across CPUs, but read in
 * order: a reader stops at the first BUSY one.  A producer reuses space
 * only once the consumer position has moved past it, so a reader that
 * moves it only after a record is safely kept loses nothing.
 */
#include <stddef.h>

struct ringbuf {
	int fd;				/* the map, not owned */
	unsigned long *consumer;	/* page 0 */
	const unsigned long *producer;	/* page 1 */
	const char *data;		/* 2 * size bytes: the data twice */
	size_t size;			/* a power of two */
	size_t map_size;		/* of the producer's mapping */
	unsigned long pos;		/* read up to here */
};

/*
 * Map the ring buffer map @fd of @size data bytes (its max_entries): the
 * consumer page writable, the rest read-only.  rb->pos starts at the
 * consumer position.  0 or a negative errno.
 */
int ringbuf_map(struct ringbuf *rb, int fd, size_t size);
void ringbuf_unmap(struct ringbuf *rb);

/*
 * Call @record with each record committed past rb->pos, in order, skipping
 * discarded ones, and move rb->pos past each that it took (returned 0).
 * Stop at a record still being written, at a length no record can have,
 * or at the first record @record refuses (non-zero), which stays to be
 * read again.  @pos is where the record starts, for a caller that must
 * give it back (rb->pos = pos).  Returns the number of records taken.
 */
size_t ringbuf_walk(struct ringbuf *rb,
		    int (*record)(const void *data, size_t size,
				  unsigned long pos, void *ctx),
		    void *ctx);

/*
 * Another consumer (anyone with a writable descriptor of the map) moved
 * the consumer position past what this one read: the bytes it took, with
 * rb->pos moved up to it, or 0.
 */
unsigned long ringbuf_taken(struct ringbuf *rb);

/*
 * The bytes the producers wrote that are not given back yet: what the
 * ring holds for this consumer, records and their headers.
 */
unsigned long ringbuf_unconsumed(const struct ringbuf *rb);

/* Give the space up to rb->pos back to the producers. */
void ringbuf_consume(struct ringbuf *rb);

#endif
