/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_EVENT_FORMAT_H
#define KRSI_EVENT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "krsi_event.h"
#include "strbuf.h"

/*
 * The records of the audit log, in three forms: the kernel's (struct
 * krsi_event and its data, from a policy's ring buffer), one JSON object
 * per line (the log, the stream to the host, `krsi events --json`), and
 * one line of text (`krsi events`).  All three meet in struct event_view,
 * which points into the record or the line it was read from:
 *
 *	kernel record --event_from_record()--> view --event_json()--> line
 *	line --event_parse()--> view --event_text()--> text
 *
 * A JSON line has these fields, always in this order:
 *
 *	seq		the record's number in the log
 *	time_ns		nanoseconds since boot (CLOCK_BOOTTIME)
 *	pid, uid	numbers
 *	comm, policy	strings
 *	event		"exec", "deny", "would_deny", "lost", "refused",
 *			"unknown", or what the audit reader itself did
 *			("start", "stop", "rotate", "error")
 *	exec:	file (string), interpreter (string or null), args (array of
 *		strings, without the environment), cut (array: "file",
 *		"interpreter", "args", the parts that did not fit; a cut path
 *		holds the end of the real one, an empty one could not be
 *		resolved at all)
 *	deny, would_deny (a policy in audit mode):
 *		verdict (the errno's name, "EACCES"), hook, what (strings)
 *		then, when the record says which load of the policy made
 *		it: load (its id, 16 hex digits), version (the policy's),
 *		prog_id and link_id (of the program on this hook, as the
 *		reader found them in the policy's map origin; null when it
 *		did not)
 *	origin (the reader's, once per load of a policy, when it starts
 *		reading it; copied into a user's own log before the user's
 *		first denial by that load): load, version, attached_pid,
 *		attached_uid, attached_exe, attached_ns (CLOCK_BOOTTIME), and
 *		what: each program's hook, program id and link id
 *		("file_open prog 31 link 44, ...")
 *	denials (the reader's, when a load of a policy went: detached,
 *		replaced, or the reader stopped): hook, load, version,
 *		prog_id, link_id, denied and would_deny (every denial the
 *		load made on the hook, reported or not), logged (how many of
 *		those this log holds), why ("detached", "replaced", "stop")
 *	lost, refused: count, the reports of uid the policy lost since
 *		the last such record (refused: execs audit_exec refused)
 *	the reader's: what (a string)
 *	unknown: kind (number)
 *
 * Strings are escaped byte by byte: '"' and '\\' with a backslash, every
 * byte that is not printable ASCII as \u00XX, so a file name can neither
 * break the JSON nor forge a field.
 */

/* Bytes of a record or a line: not NUL-terminated, may hold anything. */
struct event_str {
	const char *s;
	size_t len;
};

enum event_type {
	EVENT_UNKNOWN,
	EVENT_EXEC,
	EVENT_DENY,
	EVENT_WOULD_DENY,
	EVENT_LOST,
	EVENT_REFUSED,
	EVENT_READER,		/* what the reader did: event is its name */
	EVENT_DENIALS,		/* a load's denials on a hook, when it went */
	EVENT_ORIGIN,		/* who attached a load, and its programs */
};

struct event_view {
	bool has_seq;
	unsigned long long seq, time_ns, count;
	unsigned int pid, uid, kind;
	enum event_type type;
	struct event_str comm, policy, event;
	/* exec */
	struct event_str file, interpreter;
	bool has_interpreter;
	unsigned int cut;		/* KRSI_CUT_* */
	struct event_str *args;		/* malloc()ed: event_view_free() */
	size_t nr_args;
	/* deny, would_deny; what also for the reader's; hook for denials */
	struct event_str verdict, hook, what;
	/* deny, would_deny, denials, origin: the load of the policy */
	bool has_load;
	unsigned long long load_id;
	unsigned int version;
	/* deny, would_deny, denials: its program and link (has_ids) */
	bool has_ids;
	unsigned int prog_id, link_id;
	/* origin: who attached the load */
	unsigned int attached_pid, attached_uid;
	unsigned long long attached_ns;
	struct event_str attached_exe;
	/* denials */
	unsigned long long denied, would_deny, logged;
	struct event_str why;
};

/*
 * The view of the kernel's record @rec of @size bytes.  An exec's
 * arguments go into @args, room for @max_args of them that the caller
 * holds (the audit reader takes it once, before the lock), so that a
 * record costs no allocation; those beyond it are cut (KRSI_CUT_ARGS).
 * KRSI_ARGS_MAX of them hold every argument a record can carry.  Nothing
 * in it is trusted: every length is clamped to what the record holds,
 * strings need not be terminated, the arguments stop at argc (the
 * environment follows them on the stack).  The view owns nothing (no
 * event_view_free()).  0, or -EINVAL for a record shorter than its header.
 */
int event_from_record(const void *rec, size_t size, struct event_view *v,
		      struct event_str *args, size_t max_args);

/*
 * The longest line event_json() makes of a record with @data_len bytes
 * of data: its fixed fields, and each byte escaped as \u00XX at worst.
 * The audit reader reserves that much for KRSI_DATA_MAX.
 */
#define EVENT_JSON_FIXED	1024
#define event_json_max(data_len)	(EVENT_JSON_FIXED + 6 * (size_t)(data_len))

/*
 * The view of one line of the log (@len bytes, no newline, writable: its
 * strings are decoded in place).  0, or -EINVAL for a line that is not
 * such an object (missing or repeated fields, bad escapes, numbers out of
 * range), -ENOMEM.  Fields it does not know are skipped.
 */
int event_parse(char *line, size_t len, struct event_view *v);

void event_view_free(struct event_view *v);

/* Append @v as one JSON object, without the newline. */
void event_json(const struct event_view *v, struct strbuf *out);

/*
 * Append @v as one line of text, without the newline; bytes that are not
 * printable are shown as '?', so that a file name cannot forge a line:
 *
 *	  12.345678 pid 57 uid 1000 sh: no_tmp_exec denied EACCES: bprm_check_security x
 *	  12.345679 pid 57 uid 1000 sh: wx would deny EACCES: mmap_file anon
 *	  12.400001 pid 58 uid 0 ls: audit_exec allowed exec /bin/busybox: ls -l /
 *	  12.400002 pid 59 uid 0 sh: audit_exec allowed exec /tmp/x.sh (interpreter /bin/busybox): /bin/sh /tmp/x.sh
 *	  12.400003 pid 60 uid 0 sh: audit_exec allowed exec [cut].../d/prog: ./prog [args cut]
 *	  12.500000 (3 reports of uid 1000 lost by wx: its buffer was full)
 *	  12.500000 (2 execs of uid 1000 refused by audit_exec: no room for their records)
 *	   0.912000 reader: start: log /var/log/krsi, stream /dev/ttyS2
 */
void event_text(const struct event_view *v, struct strbuf *out);

#endif
