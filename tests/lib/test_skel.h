/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_TEST_SKEL_H
#define KRSI_TEST_SKEL_H

/*
 * tests/progs/krsi_test.bpf.c, loaded as a light skeleton, its programs
 * judging only this process's opens of one target file.
 */
#include <unistd.h>

#include "guest.h"
#include "krsi_test.lskel.h"

/*
 * Create @target and load the programs for it: the skeleton, or NULL
 * after a "not ok" line that says what failed.
 */
static inline struct krsi_test *load_for_target(const char *target)
{
	unsigned long ino = make_target(target);
	struct krsi_test *skel;

	if (!check(ino != 0, "create %s", target))
		return NULL;
	skel = krsi_test__open_and_load();
	if (!check(skel != NULL, "load krsi_test.bpf.o (%s)", errname(errno)))
		return NULL;
	skel->bss->target_tgid = getpid();
	skel->bss->target_ino = ino;
	return skel;
}

#endif
