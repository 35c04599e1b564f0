// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_lsm_event_output(): a file_open program sends a record through a
 * BPF_MAP_TYPE_PERF_EVENT_ARRAY, attached through KRSI and through the
 * trampoline; a flag outside BPF_F_INDEX_MASK is refused.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"
#include "perfbuf.h"
#include "krsi_test.h"
#include "krsi_test.lskel.h"
#include "trampoline.h"

#define TARGET	"/tmp/krsi_events.target"
#define MAX_CPUS 64
#define PAGES	2	/* data pages per CPU, a power of two */

static struct krsi_test *skel;
static unsigned long target_ino;
static int nr_cpus;
static struct perfbuf bufs[MAX_CPUS];

/* One BPF output perf event per CPU, in the map at the CPU's index. */
static int open_perf_events(int map_fd)
{
	int cpu, err = 0;

	for (cpu = 0; cpu < nr_cpus && !err; cpu++)
		err = perfbuf_open(&bufs[cpu], map_fd, cpu, PAGES);
	return err;
}

static void close_perf_events(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++)
		perfbuf_close(&bufs[cpu]);
}

/* A test_event that carries our magic, tgid and inode counts one. */
static void count_ours(const void *raw, size_t size, void *ctx)
{
	struct test_event ev;

	if (size < sizeof(ev))
		return;
	memcpy(&ev, raw, sizeof(ev));
	if (ev.magic == TEST_MAGIC && ev.tgid == (__u32)getpid() &&
	    ev.ino == target_ino)
		++*(int *)ctx;
}

/* Read every record waiting on every CPU; count ours. */
static int count_events(void)
{
	int cpu, found = 0;

	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (bufs[cpu].base)
			perfbuf_drain(bufs[cpu].meta, bufs[cpu].data,
				      bufs[cpu].data_size, count_ours, &found, NULL);
	return found;
}

static void test_path(struct krsi_test *s, const char *path, bool krsi)
{
	int link_fd = -1, err;

	if (krsi) {
		err = krsi_attach("file_open", s->progs.event.prog_fd, 0);
		check_err(err, 0, "KRSI: attach event");
	} else {
		link_fd = tramp_attach(s->progs.event.prog_fd);
		if (!check_tramp_attach(link_fd, "event"))
			return;
	}
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
