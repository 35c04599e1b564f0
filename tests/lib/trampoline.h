/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_TRAMPOLINE_H
#define KRSI_TRAMPOLINE_H

/*
 * Mainline's path for LSM programs, the BPF trampoline, for the tests that
 * compare it with KRSI's.  In Linux 6.1 a trampoline attaches to a kernel
 * function (bpf_lsm_file_open, say) on x86_64 alone: arm64 builds
 * trampolines but has no ftrace direct calls before 6.4 and pokes no
 * kernel text, s390x has none before 6.3 (riscv64, ppc64: later still).
 * Elsewhere an LSM program loads, but its trampoline attach fails with
 * the kernel's ENOTSUPP (524), and KRSI is the only way to run it.  There
 * the tests check exactly that refusal, and the KRSI half of each
 * comparison against the values they expect, as they do on every
 * architecture.
 */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <bpf/skel_internal.h>

#include "check.h"
#include "errname.h"

#if defined(__x86_64__)
#define LSM_TRAMPOLINE 1
#else
#define LSM_TRAMPOLINE 0
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
 * a link where an LSM program attaches by trampoline, ENOTSUPP
 * elsewhere.  True when @fd is a link to use and close.
 */
static inline bool check_tramp_attach(int fd, const char *what)
{
	if (LSM_TRAMPOLINE)
		return check(fd >= 0, "trampoline: attach %s (%s)", what,
			     fd < 0 ? errname(-fd) : "ok");
	check(fd == -TRAMP_ENOTSUPP,
	      "trampoline: attach %s refused, 6.1 attaches no trampoline to a kernel function here (%s, want ENOTSUPP)",
	      what, fd < 0 ? errname(-fd) : "attached");
	if (fd >= 0)
		close(fd);
	return false;
}

#endif
