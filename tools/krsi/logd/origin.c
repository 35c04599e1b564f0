// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's records about a ring's load: who attached it (its origin
 * record, once, in root's log, copied into a user's log before the
 * user's first denial by it), the program and link each of its records
 * names, and, when it goes, how many denials it made on each hook and
 * how many of them the log holds.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "errname.h"
#include "logd.h"
#include "sysbpf.h"

void origin_of(const struct ring *r, struct event_view *v)
{
	const struct krsi_origin *o = &r->origin;
	__u32 i;

	if (!r->has_origin || !v->has_load || v->load_id != o->load_id)
		return;
	for (i = 0; i < o->nr_progs && i < KRSI_ORIGIN_PROGS; i++) {
		const char *hook = o->progs[i].hook;

		if (v->hook.len != strnlen(hook, KRSI_HOOK_LEN) ||
		    memcmp(v->hook.s, hook, v->hook.len))
			continue;
		v->has_ids = true;
		v->prog_id = o->progs[i].prog_id;
		v->link_id = o->progs[i].link_id;
		return;
	}
}

/* A record of the reader's own, of @type, about ring @r's load. */
static void load_view(struct event_view *v, enum event_type type,
		      const struct ring *r)
{
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->time_ns = boot_ns();
	v->pid = getpid();
	v->comm = cstr("krsi");
	v->policy = cstr(r->p->name);
	v->has_load = true;
	v->load_id = r->origin.load_id;
	v->version = r->origin.version;
}

/*
 * The origin record of ring @r's load, once, in root's log: who attached
 * it, when, and its programs; kept to be copied into users' logs.
 */
static void log_origin(struct ring *r)
{
	const struct krsi_origin *o = &r->origin;
	struct strbuf what = { 0 };
	struct event_view v;
	__u32 i;

	for (i = 0; i < o->nr_progs && i < KRSI_ORIGIN_PROGS; i++)
		sb_printf(&what, "%s%.*s prog %u link %u", i ? ", " : "",
			  KRSI_HOOK_LEN, o->progs[i].hook, o->progs[i].prog_id,
			  o->progs[i].link_id);
	load_view(&v, EVENT_ORIGIN, r);
	v.attached_pid = o->pid;
	v.attached_uid = o->uid;
	v.attached_ns = o->time_ns;
	v.attached_exe = (struct event_str){ o->exe, strnlen(o->exe, sizeof(o->exe)) };
	v.what = (struct event_str){ what.buf ? what.buf : "", what.len };
	/* No memory for it: counted; its denials then say no more than ids. */
	if (emit(&v, true, NULL, &r->copy.line) || what.failed)
		record_lost();
	else	/* root's own log has it now */
		r->copy.uids[r->copy.nr_uids++] = 0;
	sb_free(&what);
}

/*
 * Who attached the load whose denials ring @r is, and its counts of
 * denials: what the records of that load will name, and what is logged
 * when it goes.  A policy built without them, or a map that cannot be
 * read, leaves its records without an origin, and says so once.
 */
void take_origin(struct ring *r)
{
	union bpf_attr attr;
	__u32 zero = 0;
	int fd = policy_has_map(r->p, "origin") ?
		 policy_map_fd(r->p, "origin", BPF_F_RDONLY) : -ENOENT;

	if (fd >= 0) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		attr.key = (unsigned long)&zero;
		attr.value = (unsigned long)&r->origin;
		r->has_origin = !sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) &&
				r->origin.load_id;
		close(fd);
	}
	/* A policy the kernel holds, which nobody writes origin of: the
	 * kernel says who loaded it (signed.c). */
	if (!r->has_origin && !held_origin(r->p, &r->origin))
		r->has_origin = true;
	if (!r->has_origin)
		emit_reader("error", 0, "%s: who attached it is unknown (map origin: %s)",
			    r->p->name, fd < 0 ? errname(-fd) : "not written");
	else
		log_origin(r);
	r->counts_fd = policy_has_map(r->p, "denial_counts") ?
		       policy_map_fd(r->p, "denial_counts", BPF_F_RDONLY) : -1;
}

void tally(struct ring *r, const struct event_view *v)
{
	struct tally *t;
	size_t i;

	if (!r->has_origin || !v->has_load || v->load_id != r->origin.load_id ||
	    (v->type != EVENT_DENY && v->type != EVENT_WOULD_DENY) ||
	    v->hook.len >= KRSI_HOOK_LEN)
		return;
	for (i = 0; i < r->nr_tallies; i++)
		if (strlen(r->tallies[i].hook) == v->hook.len &&
		    !memcmp(r->tallies[i].hook, v->hook.s, v->hook.len))
			break;
	if (i == r->nr_tallies) {
		if (i == KRSI_ORIGIN_PROGS)
			return;
		memcpy(r->tallies[i].hook, v->hook.s, v->hook.len);
		r->tallies[i].hook[v->hook.len] = '\0';
		r->nr_tallies++;
	}
	t = &r->tallies[i];
	if (v->type == EVENT_DENY)
		t->denied++;
	else
		t->would_deny++;
}

/*
 * Log how many denials ring @r's load made on each hook, reported or not,
 * and how many of them the log holds, now that it went (@why).  False if
 * a record could not be logged: then none is taken as logged, and it is
 * tried again.
 */
bool log_denials(struct ring *r, const char *why)
{
	char key[KRSI_HOOK_LEN], next[KRSI_HOOK_LEN];
	struct krsi_denial_count n;
	union bpf_attr attr;
	bool first = true;

	if (r->counted || r->counts_fd < 0 || !r->has_origin)
		return true;
	for (;;) {
		struct event_view v;
		struct tally *t = NULL;
		size_t i;

		memset(&attr, 0, sizeof(attr));
		attr.map_fd = r->counts_fd;
		attr.key = first ? 0 : (unsigned long)key;
		attr.next_key = (unsigned long)next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		first = false;
		memcpy(key, next, sizeof(key));
		attr.key = (unsigned long)key;
		attr.value = (unsigned long)&n;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			continue;
		key[KRSI_HOOK_LEN - 1] = '\0';
		for (i = 0; i < r->nr_tallies; i++)
			if (!strcmp(r->tallies[i].hook, key))
				t = &r->tallies[i];
		load_view(&v, EVENT_DENIALS, r);
		v.hook = cstr(key);
		origin_of(r, &v);
		v.denied = n.denied;
		v.would_deny = n.would_deny;
		v.logged = t ? t->denied + t->would_deny : 0;
		v.why = cstr(why);
		if (emit(&v, true, NULL, NULL))
			return false;
	}
	r->counted = true;
	return true;
}
