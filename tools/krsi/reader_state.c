// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the audit reader (`krsi logd`) runs, as `krsi status`, `krsi
 * events` and /init ask it: the reader writes its PID and start time to
 * KRSI_READER_STATE when it starts and "stopped" when it stops; a PID
 * alone could be another process's by now, the start time tells.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "krsi.h"
#include "sysbpf.h"

int proc_start_time(pid_t pid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	int field, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	/* Counted after the name, which may hold anything: field 3 is the
	 * state (a zombie has ended), field 22 the start time.
	 */
	p = strrchr(buf, ')');
	if (p && (p[2] == 'Z' || p[2] == 'X'))
		return -ESRCH;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", start) != 1)
		return -EINVAL;
	return 0;
}

int reader_state(pid_t *pid)
{
	unsigned long long start, now;
	FILE *f = fopen(KRSI_READER_STATE, "re");
	int n;

	*pid = 0;
	if (!f)
		return -errno;
	n = fscanf(f, "pid %d start %llu", pid, &start);
	fclose(f);
	if (n != 2)
		return READER_STOPPED;
	if (proc_start_time(*pid, &now) || now != start)
		return READER_DEAD;
	return READER_RUNNING;
}

int reader_stream(char *port, size_t port_size, char *why, size_t why_size)
{
	char line[160], dev[64], state[16], err[32];
	FILE *f = fopen(KRSI_READER_STATE, "re");
	int ret = -ENOENT, n;

	port[0] = why[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "stream none\n")) {
			ret = STREAM_NONE;
			break;
		}
		n = sscanf(line, "stream %63s %15s %31s", dev, state, err);
		if (n >= 2 && !strcmp(state, "streaming"))
			ret = STREAM_ON;
		else if (n >= 2 && !strcmp(state, "stopped"))
			ret = STREAM_STOPPED;
		else
			continue;
		snprintf(port, port_size, "%s", dev);
		snprintf(why, why_size, "%s", n == 3 ? err : "?");
		break;
	}
	fclose(f);
	return ret;
}

int reader_silent(unsigned long long *seconds)
{
	unsigned long long alive = 0;
	struct timespec now;
	char line[160];
	FILE *f = fopen(KRSI_READER_STATE, "re");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "alive %llu", &alive) == 1;
	fclose(f);
	if (!found)
		return -ENOENT;
	clock_gettime(CLOCK_BOOTTIME, &now);
	*seconds = (unsigned long long)now.tv_sec > alive ? now.tv_sec - alive : 0;
	return 0;
}

int reader_held(unsigned long long *seconds, unsigned long *bytes, char *why,
		size_t why_size)
{
	unsigned long long since = 0;
	struct timespec now;
	char line[600];
	FILE *f = fopen(KRSI_READER_STATE, "re");
	int n, found = 0;

	*seconds = 0;
	*bytes = 0;
	why[0] = '\0';
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "held %llu %lu %n", &since, bytes, &n) != 2)
			continue;
		found = 1;
		line[strcspn(line, "\n")] = '\0';
		snprintf(why, why_size, "%s", line + n);
	}
	fclose(f);
	clock_gettime(CLOCK_BOOTTIME, &now);
	if (found && (unsigned long long)now.tv_sec > since)
		*seconds = now.tv_sec - since;
	return found;
}

const char *reader_state_name(int state)
{
	switch (state) {
	case READER_RUNNING: return "running";
	case READER_STOPPED: return "stopped";
	case READER_DEAD: return "NOT RUNNING: it ended without stopping";
	case -ENOENT: return "not started";
	}
	return "unknown";
}

/* A policy's claim of the audit reader, as progs/krsi_reader.h lays it out. */
struct reader_claim {
	__u32 tgid;
	__u32 pad;
	__u64 start;
};

int reader_claim(const struct policy *p)
{
	struct reader_claim claim = { .tgid = (__u32)getpid() };
	unsigned long long start;
	__u32 zero = 0;
	int fd, err = proc_start_time(getpid(), &start);

	if (err)
		return err;
	claim.start = start;
	fd = policy_map_fd(p, "reader", 0);
	if (fd < 0)
		return fd;
	err = sys_bpf_map_elem(BPF_MAP_UPDATE_ELEM, fd, &zero, &claim);
	if (!err)
		err = sys_bpf_map_freeze(fd);
	close(fd);
	/* Read back: what counts is what the policy now holds. */
	if (!err && reader_claimed(p, getpid()) != 1)
		err = -EPERM;
	return err;
}

int reader_claimed(const struct policy *p, pid_t pid)
{
	struct reader_claim claim;
	unsigned long long start;
	__u32 zero = 0;
	int fd = policy_map_fd(p, "reader", BPF_F_RDONLY), frozen, err;

	if (fd < 0)
		return fd;
	err = sys_bpf_map_elem(BPF_MAP_LOOKUP_ELEM, fd, &zero, &claim);
	frozen = err ? err : map_frozen(fd);
	close(fd);
	if (frozen < 0)
		return frozen;
	err = proc_start_time(pid, &start);
	if (err)
		return err;
	return frozen && claim.tgid == (__u32)pid && claim.start == start;
}

int reader_known_to(const char *policy, pid_t pid)
{
	const struct policy *p = NULL;
	size_t i;
	int err;

	for (i = 0; i < nr_policies && !p; i++)
		if (!strcmp(policies[i].name, policy))
			p = &policies[i];
	err = p ? policy_pin_state(p) : -ENOENT;
	if (err <= 0)
		return err ? err : -ENOENT;
	return reader_claimed(p, pid);
}
