/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_TRAMPOLINE_H
#define KRSI_TRAMPOLINE_H

/*
 * Mainline's path for LSM programs, the BPF trampoline, for the tests that
 * compare it with KRSI's.  In Linux 6.1 only x86_64 and arm64 implement
 * arch_prepare_bpf_trampoline(): on s390x (and riscv64, ppc64, ...) an LSM
 * program loads, but its trampoline attach fails with the kernel's
 * ENOTSUPP (524), and KRSI is the only way to run it.  There the tests
 * check exactly that refusal, and the KRSI half of each comparison
 * against the values they expect, as they do on every architecture.
 */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <bpf/skel_internal.h>

#include "check.h"
#include "errname.h"

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_TRAMPOLINE 1
#else
#define HAVE_TRAMPOLINE 0
#endif

/* The kernel-internal ENOTSUPP, which the trampoline attach returns. */
#define TRAMP_ENOTSUPP 524

/*
 * A trampoline attach of an LSM program, as libbpf's
 * bpf_program__attach_lsm() makes it (BPF_RAW_TRACEPOINT_OPEN with no
 * name): a BPF link's descriptor, or a negative errno.
 */
static inline int tramp_attach(int prog_fd)
{
	int fd = skel_raw_tracepoint_open(NULL, prog_fd);

	return fd < 0 ? -errno : fd;
}

/*
 * Check what the trampoline attach of @what gave, @fd (tramp_attach()):
 * a link where the architecture has a trampoline, ENOTSUPP where it has
 * none.  True when @fd is a link to use and close.
 */
static inline bool check_tramp_attach(int fd, const char *what)
{
	if (HAVE_TRAMPOLINE)
		return check(fd >= 0, "trampoline: attach %s (%s)", what,
			     fd < 0 ? errname(-fd) : "ok");
	check(fd == -TRAMP_ENOTSUPP,
	      "trampoline: attach %s refused, this architecture has no BPF trampoline (%s, want ENOTSUPP)",
	      what, fd < 0 ? errname(-fd) : "attached");
	if (fd >= 0)
		close(fd);
	return false;
}

#endif
