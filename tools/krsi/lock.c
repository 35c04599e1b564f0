// SPDX-License-Identifier: GPL-2.0
/*
 * The lock (progs/krsi_lock.bpf.c): `krsi lock` freezes its map, after
 * which krsi_lock refuses every change to BPF programs until reboot, and
 * whether that happened, which the other commands ask.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "krsi.h"
#include "sysbpf.h"

int map_frozen(int fd)
{
	char path[64], line[128];
	int frozen = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "frozen: %d", &frozen) == 1)
			break;
	fclose(f);
	return frozen;
}

static const struct policy *lock_policy(void)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (!strcmp(policies[i].name, "krsi_lock"))
			return &policies[i];
	return NULL;
}

/* Is krsi_lock's map @name frozen?  1, 0, or a negative errno. */
static int latch_frozen(const struct policy *p, const char *name)
{
	int fd = policy_map_fd(p, name, BPF_F_RDONLY), frozen;

	if (fd < 0)
		return fd;
	frozen = map_frozen(fd);
	close(fd);
	return frozen;
}

int krsi_locked(void)
{
	const struct policy *p = lock_policy();
	int lock, seal, pinned = p ? policy_pin_state(p) : 0;

	if (pinned <= 0)
		return pinned < 0 ? pinned : -ENOENT;
	lock = latch_frozen(p, "lock");
	if (lock <= 0)
		return lock;
	seal = latch_frozen(p, "seal");
	return seal < 0 ? seal : seal ? KRSI_SEALED : KRSI_LOCKED;
}

/* Freeze krsi_lock's map @name: 1 if it was frozen already, 0, or -errno. */
static int latch_freeze(const struct policy *p, const char *name)
{
	int fd = policy_map_fd(p, name, 0), err;

	if (fd < 0)
		return fd;
	err = sys_bpf_map_freeze(fd);
	close(fd);
	return err == -EBUSY ? 1 : err;
}

int cmd_lock(int argc, char **argv)
{
	const struct policy *p = lock_policy();
	int pinned, lock, seal;

	if (args_none(argc, argv))
		return EXIT_USAGE;
	pinned = p ? policy_pin_state(p) : -ENOENT;
	if (pinned <= 0) {
		/* Not "not attached" where it could not look. */
		error(pinned ? pinned : -ENOENT, "lock: %s/krsi_lock%s", KRSI_PIN_DIR,
		      pinned == -EACCES ? " (needs root)" : ": krsi_lock is not attached");
		return 1;
	}
	lock = krsi_locked();
	if (lock == KRSI_SEALED) {
		printf("krsi: already locked\n");
		return 0;
	}
	/*
	 * The lock first: sealed but unlocked is no state to leave.  A
	 * kernel that locks at boot froze it (krsi_lock refuses a writable
	 * descriptor of it then).
	 */
	lock = lock == KRSI_LOCKED ? 1 : latch_freeze(p, "lock");
	if (lock < 0) {
		error(lock, "lock: freeze map lock of krsi_lock");
		return 1;
	}
	seal = latch_freeze(p, "seal");
	if (seal < 0) {
		error(seal, "lock: freeze map seal of krsi_lock");
		return 1;
	}
	printf(lock && seal ? "krsi: already locked\n" : "krsi: locked until reboot\n");
	return 0;
}
