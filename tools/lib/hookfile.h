/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_HOOKFILE_H
#define KRSI_HOOKFILE_H

/*
 * Attach and detach BPF LSM programs through KRSI hook files: the one place
 * in user space that knows the KRSI attach interface, shared by the krsi
 * tool and the tests.
 *
 * A program loaded for "lsm/<hook>" is attached with bpf(BPF_PROG_ATTACH),
 * attach_type BPF_LSM_MAC, attach_bpf_fd the program and target_fd the
 * hook's file opened read-write.  Every function returns 0 (or a file
 * descriptor) on success and a negative errno on failure.
 */
#include <sys/types.h>

#define KRSI_HOOK_DIR "/sys/kernel/security/bpf"

/* Open the file of @hook ("file_open") with open(2) @flags. */
int krsi_hook_open(const char *hook, int flags);

/*
 * Read the file of @hook, the names of its programs one per line, into
 * @buf, NUL-terminated: its length, or a negative errno.
 */
ssize_t krsi_hook_read(const char *hook, char *buf, size_t size);

/* Attach or detach @prog_fd on the hook file @hook_fd. */
int krsi_attach_fd(int hook_fd, int prog_fd, unsigned int flags);
int krsi_detach_fd(int hook_fd, int prog_fd);

/* The same, by hook name. */
int krsi_attach(const char *hook, int prog_fd, unsigned int flags);
int krsi_detach(const char *hook, int prog_fd);

#endif
