/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_EVENT_FORMAT_H
#define KRSI_EVENT_FORMAT_H

#include <stddef.h>
#include <linux/types.h>

#include "krsi_event.h"

/*
 * One line of `krsi events` for @ev, without the newline, into @buf:
 *
 *	  12.345678 pid 57 uid 1000 sh: no_tmp_exec denied EACCES: bprm_check_security x
 *	  12.345679 pid 57 uid 1000 sh: wx would deny EACCES: mmap_file anon (audit mode)
 *	  12.400001 pid 58 uid 0 ls: audit_exec allowed exec /bin/busybox: ls -l /
 *	  12.400002 pid 59 uid 0 sh: audit_exec allowed exec /tmp/x.sh (interpreter /bin/busybox): /bin/sh /tmp/x.sh
 *
 * The record comes from the kernel but is treated as untrusted: strings
 * need not be terminated, lengths are clamped, exec arguments stop at argc
 * (the environment follows them on the stack), and bytes that are not
 * printable are shown as '?', so that a file name cannot forge a line.
 * Returns the length of the line.
 */
size_t event_format(const struct krsi_event *ev, char *buf, size_t size);

/*
 * The same event as one JSON object (`krsi events --json`), with these
 * fields, always in this order:
 *
 *	time_ns		nanoseconds since boot (CLOCK_BOOTTIME)
 *	pid, uid	numbers
 *	comm, policy	strings
 *	event		"exec", "deny", "would_deny" or "unknown"
 *	exec:	file (string), interpreter (string or null), args (array of
 *		strings, without the environment)
 *	deny, would_deny (a policy in audit mode):
 *		verdict (the errno's name, "EACCES"), hook, what (strings)
 *	unknown: kind (number)
 *
 * Strings are escaped byte by byte: '"' and '\\' with a backslash, every
 * byte that is not printable ASCII as \u00XX.  Returns the length, or 0
 * if @size was too small for the whole object (nothing half-written is
 * valid).
 */
size_t event_format_json(const struct krsi_event *ev, char *buf, size_t size);

#endif
