// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_lsm_event_output(): a file_open program sends a record through a
 * BPF_MAP_TYPE_PERF_EVENT_ARRAY, attached through KRSI and through the
 * trampoline; a flag outside BPF_F_INDEX_MASK is refused.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_test.h"
#include "krsi_test.lskel.h"

#define TARGET	"/tmp/krsi_events.target"
#define MAX_CPUS 64
#define PAGES	2	/* data pages per CPU, a power of two */

static struct krsi_test *skel;
static unsigned long target_ino;
static int nr_cpus;
static int perf_fds[MAX_CPUS];
static void *rings[MAX_CPUS];
static size_t page_size;

/* One BPF output perf event per CPU, in the map at the CPU's index. */
static int open_perf_events(int map_fd)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		union bpf_attr upd;
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			return -errno;
		perf_fds[cpu] = fd;
		rings[cpu] = mmap(NULL, (1 + PAGES) * page_size,
				  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rings[cpu] == MAP_FAILED) {
			rings[cpu] = NULL;
			return -errno;
		}
		memset(&upd, 0, sizeof(upd));
		upd.map_fd = map_fd;
		upd.key = (unsigned long)&cpu;
		upd.value = (unsigned long)&fd;
		if (syscall(SYS_bpf, BPF_MAP_UPDATE_ELEM, &upd, sizeof(upd)))
			return -errno;
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	}
	return 0;
}

static void close_perf_events(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		if (rings[cpu])
			munmap(rings[cpu], (1 + PAGES) * page_size);
		if (perf_fds[cpu] > 0)
			close(perf_fds[cpu]);
		rings[cpu] = NULL;
		perf_fds[cpu] = 0;
	}
}

/*
 * Read every record waiting on every CPU; count the test_events that
 * carry our magic, tgid and inode.
 */
static int count_events(void)
{
	int cpu, found = 0;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct perf_event_mmap_page *meta = rings[cpu];
		char *data = (char *)rings[cpu] + page_size;
		__u64 size = PAGES * page_size;
		__u64 head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		__u64 tail = meta->data_tail;

		while (tail < head) {
			struct perf_event_header hdr;
			/* PERF_SAMPLE_RAW: a u32 size, then the data. */
			struct {
				__u32 size;
				struct test_event ev;
			} __attribute__((packed)) sample;

			/* Records may wrap around the end of the ring. */
			for (size_t i = 0; i < sizeof(hdr); i++)
				((char *)&hdr)[i] = data[(tail + i) % size];
			if (hdr.type == PERF_RECORD_SAMPLE &&
			    hdr.size >= sizeof(hdr) + sizeof(sample)) {
				for (size_t i = 0; i < sizeof(sample); i++)
					((char *)&sample)[i] =
						data[(tail + sizeof(hdr) + i) % size];
				if (sample.size >= sizeof(sample.ev) &&
				    sample.ev.magic == TEST_MAGIC &&
				    sample.ev.tgid == (__u32)getpid() &&
				    sample.ev.ino == target_ino)
					found++;
			}
			tail += hdr.size;
		}
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	return found;
}

static void test_path(struct krsi_test *s, const char *path, bool krsi)
{
	int link_fd = -1, err;

	if (krsi) {
		err = krsi_attach("file_open", s->progs.event.prog_fd, 0);
	} else {
		link_fd = skel_raw_tracepoint_open(NULL, s->progs.event.prog_fd);
		err = link_fd < 0 ? -errno : 0;
	}
	check_err(err, 0, krsi ? "KRSI: attach event" : "trampoline: attach event");
	count_events();
	check_err(try_open(TARGET), 0, "open the target");
	check(count_events() == 1, "%s: one event read from the perf buffer", path);
	check(s->bss->event_ret == 0, "%s: bpf_lsm_event_output() = %ld", path,
	      s->bss->event_ret);
	check(s->bss->event_bad_flags_ret == -EINVAL,
	      "%s: a flag outside BPF_F_INDEX_MASK gives EINVAL (%ld)", path,
	      s->bss->event_bad_flags_ret);
	if (krsi)
		check_err(krsi_detach("file_open", s->progs.event.prog_fd), 0,
			  "KRSI: detach event");
	else if (link_fd >= 0)
		close(link_fd);
	check_err(try_open(TARGET), 0, "open after detach");
	check(count_events() == 0, "%s: no event once detached", path);
}

int main(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_cpus > MAX_CPUS)
		nr_cpus = MAX_CPUS;
	target_ino = make_target(TARGET);
	skel = krsi_test__open_and_load();
	if (!check(target_ino && skel, "load krsi_test.bpf.o (%s)", errname(errno)))
		return check_exit();
	skel->bss->target_tgid = getpid();
	skel->bss->target_ino = target_ino;

	if (check_err(open_perf_events(skel->maps.events.map_fd), 0,
		      "one BPF output perf event per CPU")) {
		test_path(skel, "KRSI", true);
		test_path(skel, "trampoline", false);
	}

	close_perf_events();
	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
