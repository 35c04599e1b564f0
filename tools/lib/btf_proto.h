/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_BTF_PROTO_H
#define KRSI_BTF_PROTO_H

#include <stddef.h>

/*
 * The C prototype of LSM hook @hook as the running kernel's BTF has its
 * bpf_lsm_<hook>() (what an LSM program is verified against), written as
 * "int file_open(struct file *file)" into @buf.  0, or -ENOENT for no such
 * hook, -EIO for BTF that cannot be read.  Written by hand for the same
 * reason as btf_lookup.h.
 */
int btf_hook_proto(const char *hook, char *buf, size_t size);

#endif
