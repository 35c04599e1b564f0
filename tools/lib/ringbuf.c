// SPDX-License-Identifier: GPL-2.0
#include "ringbuf.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/bpf.h>

int ringbuf_map(struct ringbuf *rb, int fd, size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *cons, *prod;

	memset(rb, 0, sizeof(*rb));
	cons = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cons == MAP_FAILED)
		return -errno;
	prod = mmap(NULL, page + 2 * size, PROT_READ, MAP_SHARED, fd, page);
	if (prod == MAP_FAILED) {
		int err = -errno;

		munmap(cons, page);
		return err;
	}
	rb->fd = fd;
	rb->consumer = cons;
	rb->producer = prod;
	rb->data = (const char *)prod + page;
	rb->size = size;
	rb->map_size = page + 2 * size;
	rb->pos = __atomic_load_n(rb->consumer, __ATOMIC_ACQUIRE);
	return 0;
}

void ringbuf_unmap(struct ringbuf *rb)
{
	munmap(rb->consumer, sysconf(_SC_PAGESIZE));
	munmap((void *)rb->producer, rb->map_size);
	memset(rb, 0, sizeof(*rb));
}

size_t ringbuf_walk(struct ringbuf *rb,
		    int (*record)(const void *data, size_t size,
				  unsigned long pos, void *ctx),
		    void *ctx)
{
	/* Acquire: the records up to the producer position are written. */
	unsigned long prod = __atomic_load_n(rb->producer, __ATOMIC_ACQUIRE);
	size_t taken = 0;

	while (rb->pos < prod) {
		const char *hdr = rb->data + (rb->pos & (rb->size - 1));
		/* Acquire: a record's data is written before its length. */
		__u32 len = __atomic_load_n((const __u32 *)hdr, __ATOMIC_ACQUIRE);
		__u32 size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

		if ((len & BPF_RINGBUF_BUSY_BIT) ||
		    size > rb->size - BPF_RINGBUF_HDR_SZ)
			break;
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			if (record(hdr + BPF_RINGBUF_HDR_SZ, size, rb->pos, ctx))
				break;
			taken++;
		}
		rb->pos += (size + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
	}
	return taken;
}

unsigned long ringbuf_taken(struct ringbuf *rb)
{
	unsigned long cons = __atomic_load_n(rb->consumer, __ATOMIC_ACQUIRE);
	unsigned long taken = cons > rb->pos ? cons - rb->pos : 0;

	if (taken)
		rb->pos = cons;
	return taken;
}

unsigned long ringbuf_unconsumed(const struct ringbuf *rb)
{
	unsigned long prod = __atomic_load_n(rb->producer, __ATOMIC_ACQUIRE);
	unsigned long cons = __atomic_load_n(rb->consumer, __ATOMIC_ACQUIRE);

	return prod > cons ? prod - cons : 0;
}

void ringbuf_consume(struct ringbuf *rb)
{
	/* Release: the records are read before their space is given back. */
	__atomic_store_n(rb->consumer, rb->pos, __ATOMIC_RELEASE);
}
