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
 * hook's file opened read-write; or with bpf(BPF_LINK_CREATE) and the same
 * target, which makes a KRSI link, attached for as long as it lives.
 * Every function returns 0 (or a file descriptor) on success and a
 * negative errno on failure.
 */
#include <sys/types.h>

#include <linux/types.h>

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

/* The same attach, with replace_bpf_fd @replace_fd (for BPF_F_REPLACE). */
int krsi_attach_replace_fd(int hook_fd, int prog_fd, int replace_fd,
			   unsigned int flags);

/* The same, by hook name. */
int krsi_attach(const char *hook, int prog_fd, unsigned int flags);
int krsi_detach(const char *hook, int prog_fd);

/*
 * The ids of @hook's programs in run order (bpf(BPF_PROG_QUERY) on its
 * file): their number, of which at most @max are stored in @ids.
 */
int krsi_hook_query(const char *hook, __u32 *ids, __u32 max);

/*
 * bpf(BPF_LINK_CREATE) of @prog_fd on @hook_fd with @flags: a KRSI link's
 * descriptor when @flags is BPF_F_KRSI_HOOK, which says that @hook_fd is a
 * hook file (without it the kernel takes the BPF LSM's trampoline).
 */
int krsi_link_create_fd(int hook_fd, int prog_fd, unsigned int flags);

/* A KRSI link of @prog_fd on the file of @hook: its descriptor. */
int krsi_link_create(const char *hook, int prog_fd);

/*
 * Swap the program of the link @link_fd for @prog_fd, in place; with
 * BPF_F_REPLACE in @flags, only if its program is @old_prog_fd.
 */
int krsi_link_update(int link_fd, int prog_fd, int old_prog_fd,
		     unsigned int flags);

/* Detach the link @link_fd now, whoever else holds it. */
int krsi_link_detach(int link_fd);

/* What the kernel says of a link: an empty @hook once it is detached. */
struct krsi_link_info {
	__u32 link_id;
	__u32 prog_id;
	__u32 type;		/* BPF_LINK_TYPE_KRSI for a KRSI link */
	char hook[64];
};

int krsi_link_info(int link_fd, struct krsi_link_info *info);

#endif
