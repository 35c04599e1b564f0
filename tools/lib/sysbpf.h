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

/*
 * bpf(BPF_OBJ_GET_INFO_BY_FD) of the program, map or link @fd into @info,
 * @size bytes whose input fields (buffers and their lengths) the caller
 * has set and the others zeroed: 0 or a negative errno.
 */
int sys_bpf_obj_info(int fd, void *info, __u32 size);

/*
 * bpf(@cmd) of the element @key of map @fd, with @value (lookup, update
 * with flags 0, delete): 0 or a negative errno.
 */
int sys_bpf_map_elem(int cmd, int fd, const void *key, void *value);

/* bpf(BPF_MAP_FREEZE) of map @fd: 0 or a negative errno (-EBUSY: frozen). */
int sys_bpf_map_freeze(int fd);

#endif
