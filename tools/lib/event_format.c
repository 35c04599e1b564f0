// SPDX-License-Identifier: GPL-2.0
#include "event_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errname.h"

static const char *const type_names[] = {
	[EVENT_UNKNOWN] = "unknown",
	[EVENT_EXEC] = "exec",
	[EVENT_DENY] = "deny",
	[EVENT_WOULD_DENY] = "would_deny",
	[EVENT_LOST] = "lost",
	[EVENT_REFUSED] = "refused",
	[EVENT_DENIALS] = "denials",
	[EVENT_ORIGIN] = "origin",
};

/* The parts an exec record can have cut, as JSON names them. */
static const struct {
	unsigned int flag;
	const char *name;
} cut_names[] = {
	{ KRSI_CUT_FILE, "file" },
	{ KRSI_CUT_INTERP, "interpreter" },
	{ KRSI_CUT_ARGS, "args" },
};

static struct event_str str(const char *s, size_t len)
{
	return (struct event_str){ s, len };
}

/* A fixed-size field of the record, up to its first NUL. */
static struct event_str field(const char *s, size_t size)
{
	return str(s, strnlen(s, size));
}

void event_view_free(struct event_view *v)
{
	free(v->args);
	v->args = NULL;
	v->nr_args = 0;
}

/*
 * The argument strings of an exec: NUL-terminated one after the other,
 * at most @argc of them, the last one possibly cut (no NUL), into the
 * room @args of @max_args: those beyond it are cut.
 */
static void split_args(struct event_view *v, const char *s, size_t len,
		       unsigned int argc, struct event_str *args, size_t max_args)
{
	size_t at, n = 0, most = len < argc ? len : argc;

	v->args = args;
	for (at = 0; at < len && n < most; n++) {
		size_t l = strnlen(s + at, len - at);

		if (n == max_args) {
			v->cut |= KRSI_CUT_ARGS;
			break;
		}
		args[n] = str(s + at, l);
		at += l + 1;
	}
	v->nr_args = n;
}

/*
 * A cut path holds the last bytes of the real one, which may begin in
 * the middle of a name: keep its last whole components.
 */
static struct event_str last_components(struct event_str path)
{
	const char *slash = memchr(path.s, '/', path.len);

	if (!slash || slash == path.s)
		return path;
	return str(slash, path.len - (slash - path.s));
}

int event_from_record(const void *rec, size_t size, struct event_view *v,
		      struct event_str *args, size_t max_args)
{
	const struct krsi_event *ev = rec;
	const char *data = (const char *)(ev + 1);
	size_t len, file, interp;

	memset(v, 0, sizeof(*v));
	if (size < sizeof(*ev))
		return -EINVAL;
	len = size - sizeof(*ev);
	if (ev->data_len < len)
		len = ev->data_len;
	v->time_ns = ev->time_ns;
	v->pid = ev->pid;
	v->uid = ev->uid;
	v->kind = ev->kind;
	v->comm = field(ev->comm, sizeof(ev->comm));
	v->policy = field(ev->policy, sizeof(ev->policy));

	switch (ev->kind) {
	case KRSI_EVENT_EXEC:
		v->type = EVENT_EXEC;
		file = ev->file_len < len ? ev->file_len : len;
		interp = ev->interp_len < len - file ? ev->interp_len : len - file;
		v->cut = ev->flags & (KRSI_CUT_FILE | KRSI_CUT_INTERP | KRSI_CUT_ARGS);
		v->file = str(data, file);
		if (v->cut & KRSI_CUT_FILE)
			v->file = last_components(v->file);
		v->has_interpreter = interp || (v->cut & KRSI_CUT_INTERP);
		v->interpreter = str(data + file, interp);
		if (v->cut & KRSI_CUT_INTERP)
			v->interpreter = last_components(v->interpreter);
		split_args(v, data + file + interp, len - file - interp,
			   ev->argc, args, max_args);
		return 0;
	case KRSI_EVENT_DENY:
	case KRSI_EVENT_WOULD_DENY:
		v->type = ev->kind == KRSI_EVENT_DENY ? EVENT_DENY : EVENT_WOULD_DENY;
		v->verdict = field(errname(-ev->verdict), 32);
		v->hook = field(ev->hook, sizeof(ev->hook));
		v->what = field(data, len);
		v->has_load = ev->load_id != 0;
		v->load_id = ev->load_id;
		v->version = ev->version;
		return 0;
	default:
		v->type = EVENT_UNKNOWN;
		return 0;
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static void json_str(struct strbuf *out, struct event_str s)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run;

	sb_putc(out, '"');
	while (i < s.len) {
		unsigned char c = s.s[i];

		/* Plain bytes in one copy: the audit reader writes every record. */
		for (run = i; run < s.len && json_plain(s.s[run]); run++)
			;
		if (run > i) {
			sb_put(out, s.s + i, run - i);
			i = run;
		} else if (c == '"' || c == '\\') {
			char esc[2] = { '\\', c };

			sb_put(out, esc, sizeof(esc));
			i++;
		} else {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			sb_put(out, esc, sizeof(esc));
			i++;
		}
	}
	sb_putc(out, '"');
}

static void json_field(struct strbuf *out, const char *name, struct event_str s)
{
	sb_puts(out, ",\"");
	sb_puts(out, name);
	sb_puts(out, "\":");
	json_str(out, s);
}

/* Which load made it, and its program and link on the hook, or null. */
static void json_load(const struct event_view *v, struct strbuf *out)
{
	if (!v->has_load)
		return;
	sb_printf(out, ",\"load\":\"%016llx\",\"version\":%u", v->load_id,
		  v->version);
	if (v->type == EVENT_ORIGIN)
		return;
	if (v->has_ids)
		sb_printf(out, ",\"prog_id\":%u,\"link_id\":%u", v->prog_id,
			  v->link_id);
	else
		sb_puts(out, ",\"prog_id\":null,\"link_id\":null");
}

/* What the view's "event" is: its type, or the reader's own name. */
static struct event_str event_name(const struct event_view *v)
{
	if (v->type == EVENT_READER)
		return v->event;
	return field(type_names[v->type], 16);
}

void event_json(const struct event_view *v, struct strbuf *out)
{
	size_t i, n = 0;

	sb_putc(out, '{');
	if (v->has_seq)
		sb_printf(out, "\"seq\":%llu,", v->seq);
	sb_printf(out, "\"time_ns\":%llu,\"pid\":%u,\"uid\":%u", v->time_ns,
		  v->pid, v->uid);
	json_field(out, "comm", v->comm);
	json_field(out, "policy", v->policy);
	json_field(out, "event", event_name(v));

	switch (v->type) {
	case EVENT_EXEC:
		json_field(out, "file", v->file);
		sb_puts(out, ",\"interpreter\":");
		if (v->has_interpreter)
			json_str(out, v->interpreter);
		else
			sb_puts(out, "null");
		sb_puts(out, ",\"args\":[");
		for (i = 0; i < v->nr_args; i++) {
			if (i)
				sb_putc(out, ',');
			json_str(out, v->args[i]);
		}
		sb_puts(out, "],\"cut\":[");
		for (i = 0; i < sizeof(cut_names) / sizeof(cut_names[0]); i++)
			if (v->cut & cut_names[i].flag)
				sb_printf(out, "%s\"%s\"", n++ ? "," : "",
					  cut_names[i].name);
		sb_putc(out, ']');
		break;
	case EVENT_DENY:
	case EVENT_WOULD_DENY:
		json_field(out, "verdict", v->verdict);
		json_field(out, "hook", v->hook);
		json_field(out, "what", v->what);
		json_load(v, out);
		break;
	case EVENT_ORIGIN:
		json_load(v, out);
		sb_printf(out, ",\"attached_pid\":%u,\"attached_uid\":%u",
			  v->attached_pid, v->attached_uid);
		json_field(out, "attached_exe", v->attached_exe);
		sb_printf(out, ",\"attached_ns\":%llu", v->attached_ns);
		json_field(out, "what", v->what);
		break;
	case EVENT_DENIALS:
		json_field(out, "hook", v->hook);
		json_load(v, out);
		sb_printf(out, ",\"denied\":%llu,\"would_deny\":%llu,\"logged\":%llu",
			  v->denied, v->would_deny, v->logged);
		json_field(out, "why", v->why);
		break;
	case EVENT_LOST:
	case EVENT_REFUSED:
		sb_printf(out, ",\"count\":%llu", v->count);
		break;
	case EVENT_READER:
		json_field(out, "what", v->what);
		break;
	case EVENT_UNKNOWN:
		sb_printf(out, ",\"kind\":%u", v->kind);
		break;
	}
	sb_putc(out, '}');
}

/* ---- text ---------------------------------------------------------------- */

/* @s with every byte that is not printable ASCII as '?'. */
static void text_str(struct strbuf *out, struct event_str s)
{
	size_t i;

	for (i = 0; i < s.len; i++) {
		unsigned char c = s.s[i];

		sb_putc(out, c >= 0x20 && c < 0x7f ? c : '?');
	}
}

/* A path of an exec, marked when it is only its last components. */
static void text_path(struct strbuf *out, struct event_str path, bool cut)
{
	if (cut)
		sb_puts(out, "[cut]");
	text_str(out, path);
}

void event_text(const struct event_view *v, struct strbuf *out)
{
	size_t i;

	sb_printf(out, "%5llu.%06llu ", v->time_ns / 1000000000,
		  v->time_ns % 1000000000 / 1000);
	switch (v->type) {
	case EVENT_LOST:
		sb_printf(out, "(%llu reports of uid %u lost by ", v->count, v->uid);
		text_str(out, v->policy);
		sb_puts(out, ": its buffer was full)");
		return;
	case EVENT_REFUSED:
		sb_printf(out, "(%llu execs of uid %u refused by ", v->count, v->uid);
		text_str(out, v->policy);
		sb_puts(out, ": no room for their records)");
		return;
	case EVENT_READER:
		text_str(out, v->policy);
		sb_puts(out, ": ");
		text_str(out, v->event);
		sb_puts(out, ": ");
		text_str(out, v->what);
		return;
	case EVENT_DENIALS:
		text_str(out, v->policy);
		sb_printf(out, " v%u (load %016llx), ", v->version, v->load_id);
		if (v->has_ids)
			sb_printf(out, "link %u (prog %u) on ", v->link_id, v->prog_id);
		else
			sb_puts(out, "on ");
		text_str(out, v->hook);
		sb_printf(out, ": denied %llu, would have denied %llu, %llu of these in the log; ",
			  v->denied, v->would_deny, v->logged);
		text_str(out, v->why);
		return;
	case EVENT_ORIGIN:
		text_str(out, v->policy);
		sb_printf(out, " v%u (load %016llx) attached by pid %u uid %u ", v->version,
			  v->load_id, v->attached_pid, v->attached_uid);
		text_str(out, v->attached_exe);
		sb_printf(out, " at %llu.%06llu: ", v->attached_ns / 1000000000,
			  v->attached_ns % 1000000000 / 1000);
		text_str(out, v->what);
		return;
	default:
		break;
	}
	sb_printf(out, "pid %u uid %u ", v->pid, v->uid);
	text_str(out, v->comm);
	sb_puts(out, ": ");
	text_str(out, v->policy);

	switch (v->type) {
	case EVENT_EXEC:
		sb_puts(out, " allowed exec ");
		text_path(out, v->file, v->cut & KRSI_CUT_FILE);
		if (v->has_interpreter) {
			sb_puts(out, " (interpreter ");
			text_path(out, v->interpreter, v->cut & KRSI_CUT_INTERP);
			sb_putc(out, ')');
		}
		sb_putc(out, ':');
		for (i = 0; i < v->nr_args; i++) {
			sb_putc(out, ' ');
			text_str(out, v->args[i]);
		}
		if (v->cut & KRSI_CUT_ARGS)
			sb_puts(out, " [args cut]");
		break;
	case EVENT_DENY:
	case EVENT_WOULD_DENY:
		sb_puts(out, v->type == EVENT_DENY ? " denied " : " would deny ");
		text_str(out, v->verdict);
		sb_puts(out, ": ");
		text_str(out, v->hook);
		sb_putc(out, ' ');
		text_str(out, v->what);
		break;
	default:
		sb_printf(out, " unknown event kind %u", v->kind);
	}
}
