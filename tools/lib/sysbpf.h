/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_SYSBPF_H
#define KRSI_SYSBPF_H

#include <linux/bpf.h>

/*
 * bpf(@cmd, @attr): the result (0 or a descriptor), or a negative errno.
 * The one bpf(2) wrapper of the tools and tests; musl has none, and light
 * skeletons keep theirs private.
 */
long sys_bpf(int cmd, union bpf_attr *attr);

#endif
