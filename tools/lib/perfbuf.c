// SPDX-License-Identifier: GPL-2.0
#include "perfbuf.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysbpf.h"

int perfbuf_open(struct perfbuf *pb, int map_fd, int cpu, size_t pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	size_t page_size = sysconf(_SC_PAGESIZE);
	union bpf_attr upd;
	int err;

	memset(pb, 0, sizeof(*pb));
	pb->fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);
	if (pb->fd < 0)
		return -errno;
	pb->map_size = (1 + pages) * page_size;
	pb->base = mmap(NULL, pb->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			pb->fd, 0);
	if (pb->base == MAP_FAILED) {
		err = -errno;
		pb->base = NULL;
		goto fail;
	}
	pb->meta = pb->base;
	pb->data = (const char *)pb->base + page_size;
	pb->data_size = pages * page_size;

	memset(&upd, 0, sizeof(upd));
	upd.map_fd = map_fd;
	upd.key = (unsigned long)&cpu;
	upd.value = (unsigned long)&pb->fd;
	err = sys_bpf(BPF_MAP_UPDATE_ELEM, &upd);
	if (!err && ioctl(pb->fd, PERF_EVENT_IOC_ENABLE, 0))
		err = -errno;
	if (!err)
		return 0;
fail:
	perfbuf_close(pb);
	return err;
}

void perfbuf_close(struct perfbuf *pb)
{
	if (pb->base)
		munmap(pb->base, pb->map_size);
	if (pb->fd > 0)
		close(pb->fd);
	memset(pb, 0, sizeof(*pb));
}

/* @len bytes from offset @pos of the ring, wrapping around its end. */
static void ring_copy(void *to, const char *data, size_t data_size,
		      __u64 pos, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((char *)to)[i] = data[(pos + i) & (data_size - 1)];
}

int perfbuf_drain(struct perf_event_mmap_page *meta, const char *data,
		  size_t data_size,
		  void (*sample)(const void *raw, size_t size, void *ctx),
		  void *ctx, bool *lost)
{
	__u64 head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = meta->data_tail;
	int samples = 0;
	char rec[1024];

	while (tail < head) {
		struct perf_event_header hdr;
		size_t size;

		ring_copy(&hdr, data, data_size, tail, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;		/* corrupt: stop rather than spin */
		size = hdr.size < sizeof(rec) ? hdr.size : sizeof(rec);
		ring_copy(rec, data, data_size, tail, size);
		if (hdr.type == PERF_RECORD_SAMPLE && size >= sizeof(hdr) + 4) {
			__u32 raw_size;

			memcpy(&raw_size, rec + sizeof(hdr), 4);
			if (raw_size > size - sizeof(hdr) - 4)
				raw_size = size - sizeof(hdr) - 4;
			sample(rec + sizeof(hdr) + 4, raw_size, ctx);
			samples++;
		} else if (hdr.type == PERF_RECORD_LOST && lost) {
			*lost = true;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return samples;
}
