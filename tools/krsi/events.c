// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi events` and `krsi why`: read the audit log that the audit reader
 * (`krsi logd`) writes, as journalctl reads the journal.  Reading takes
 * nothing away: any number of readers see the same records, in the
 * order of their sequence numbers.  Root reads the whole log; every
 * other user reads their own records, from the log the reader keeps for
 * them (KRSI_USER_LOG_DIR/UID, theirs alone to read).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditlog.h"
#include "errname.h"
#include "event_format.h"
#include "krsi.h"
#include "trail.h"

#define FOLLOW_MS	100

/* What `krsi events` shows, and how. */
struct events_options {
	long last;		/* the last N records, or -1 for all */
	bool follow;		/* then follow the log */
	int timeout_ms;		/* stop following after this, or -1 */
	bool json;
	bool mine;		/* the caller's own records, from their log */
	const char *policy;	/* only this policy's records, or NULL */
	long long uid;		/* only this user's records, or -1 */
	unsigned long long since_ns, since_seq;
};

struct reading {
	const struct events_options *o;
	uid_t uid;		/* --mine: the caller's */
	struct strbuf copy, text;
	unsigned long unreadable;
	int write_err;		/* the first write to stdout that failed */
};

/*
 * Keep the errno of the first write to stdout that failed (@failed, with
 * errno cleared before it): stdio drops a buffer it could not write, so a
 * later flush would succeed, and only the failed write's errno says why
 * (ENOSPC, EPIPE).
 */
static void note_write(struct reading *r, bool failed)
{
	if (failed && !r->write_err)
		r->write_err = errno ? -errno : -EIO;
}

static void flush_out(struct reading *r)
{
	errno = 0;
	note_write(r, fflush(stdout) || ferror(stdout));
}

/* Parse @line (a copy: parsing decodes in place) and say if it is wanted. */
static bool parse(struct reading *r, const struct strbuf *line, struct event_view *v)
{
	const struct events_options *o = r->o;

	sb_reset(&r->copy);
	sb_put(&r->copy, line->buf, line->len);
	if (r->copy.failed || event_parse(r->copy.buf, r->copy.len, v)) {
		r->unreadable++;
		return false;
	}
	if ((o->policy && (v->policy.len != strlen(o->policy) ||
			   memcmp(v->policy.s, o->policy, v->policy.len))) ||
	    (o->uid >= 0 && v->uid != (unsigned long long)o->uid) ||
	    (o->mine && v->uid != r->uid) ||
	    v->time_ns < o->since_ns || (v->has_seq && v->seq < o->since_seq)) {
		event_view_free(v);
		return false;
	}
	return true;
}

static void print(struct reading *r, const struct strbuf *line,
		  const struct event_view *v)
{
	errno = 0;
	if (r->o->json) {
		fwrite(line->buf, 1, line->len, stdout);
	} else {
		sb_reset(&r->text);
		event_text(v, &r->text);
		fwrite(r->text.buf ? r->text.buf : "", 1, r->text.len, stdout);
	}
	putchar('\n');
	note_write(r, ferror(stdout));
}

static void print_line(struct reading *r, const struct strbuf *line)
{
	struct event_view v;

	if (parse(r, line, &v)) {
		print(r, line, &v);
		event_view_free(&v);
	}
}

/* The log to read: root's whole log, or the caller's own. */
static const char *log_dir(const struct events_options *o, char *buf, size_t size)
{
	if (!o->mine || !getuid())
		return KRSI_LOG_DIR;
	snprintf(buf, size, KRSI_USER_LOG_DIR "/%u", (unsigned)getuid());
	return buf;
}

/* Open the log for command @cmd ("events", "why"), or say why not. */
static int open_log(const char *cmd, const struct events_options *o,
		    struct log_cursor *c, const char **dir)
{
	static char buf[64];
	int err;

	*dir = log_dir(o, buf, sizeof(buf));
	err = log_cursor_open(c, *dir);
	if (err == -ENOENT && o->mine && getuid())
		error(err, "%s: %s: no record of yours yet", cmd, *dir);
	else if (err)
		error(err, "%s: %s%s", cmd, *dir, err == -EACCES ?
		      " (needs root; krsi events --mine shows your own)" : "");
	return err;
}

/*
 * Never "nothing" where it could not look: lines it could not read,
 * segments removed before it got to them, a reader that does not run.
 * 0, or 1 when something of that is so.
 */
static int say_what_is_missing(const struct reading *r, const struct log_cursor *c,
			       const char *dir)
{
	int status = 0, state;
	pid_t pid;

	if (r->unreadable) {
		fprintf(stderr, "krsi: events: %lu lines of %s are not records\n",
			r->unreadable, dir);
		status = 1;
	}
	if (c->skipped) {
		fprintf(stderr, "krsi: events: %lu segments of %s were removed "
			"(rotated out) before they were read\n", c->skipped, dir);
		status = 1;
	}
	if (c->emptied) {
		fprintf(stderr, "krsi: events: %lu segments of %s were removed "
			"(rotated out) while they were read: records after those "
			"shown from them may be missing\n", c->emptied, dir);
		status = 1;
	}
	state = reader_state(&pid);
	if (state != READER_RUNNING) {
		fprintf(stderr, "krsi: events: the audit reader is %s: nothing is "
			"logged %s\n", reader_state_name(state),
			state == READER_STOPPED ? "after its stop record" : "any more");
		status = 1;
	}
	return status;
}

/* The sequence number of @line, whatever the filters: 0 or -EINVAL. */
static int line_seq(struct reading *r, const struct strbuf *line,
		    unsigned long long *seq)
{
	struct event_view v;
	int err;

	sb_reset(&r->copy);
	sb_put(&r->copy, line->buf, line->len);
	err = r->copy.failed ? -ENOMEM : event_parse(r->copy.buf, r->copy.len, &v);
	if (!err && !v.has_seq)
		err = -EINVAL;
	if (!err)
		*seq = v.seq;
	if (!err)
		event_view_free(&v);
	return err;
}

/*
 * -n N: the last N records that match, read from the newest segment
 * back, so that the last few of a long log cost one segment; printed
 * oldest first.  *@newest is the newest segment, and *@next the number
 * of the record after the last one there (0: none), where following
 * goes on.  0 or a negative errno.
 */
static int print_last(struct reading *r, struct log_cursor *c, long n,
		      unsigned long *newest, unsigned long long *next)
{
	struct strbuf seg = { 0 }, line = { 0 }, *found = NULL, *grown;
	unsigned long *segs = NULL;
	size_t nr_segs = 0, nr = 0, cap = 0, i;
	int err = log_segments(c->dir, &segs, &nr_segs);
	bool newest_line;

	*newest = nr_segs ? segs[nr_segs - 1] : 0;
	*next = 0;
	for (i = nr_segs; !err && i-- > 0 && nr < (size_t)n;) {
		size_t end;

		err = log_read_segment(c->dir, segs[i], &seg);
		if (err == -ENOENT) {
			err = 0;	/* rotated out meanwhile, and older ones too */
			break;
		}
		/* Whole lines only, from the last back. */
		end = seg.len;
		while (end && seg.buf[end - 1] != '\n')
			end--;
		newest_line = i == nr_segs - 1;
		while (!err && end && nr < (size_t)n) {
			size_t start = end - 1;
			struct event_view v;
			unsigned long long seq;

			while (start && seg.buf[start - 1] != '\n')
				start--;
			sb_reset(&line);
			sb_put(&line, seg.buf + start, end - 1 - start);
			if (newest_line && !line_seq(r, &line, &seq))
				*next = seq + 1;
			newest_line = false;
			end = start;
			if (!parse(r, &line, &v))
				continue;
			event_view_free(&v);
			/* Grown as records are found: N is the caller's. */
			if (nr == cap) {
				cap = cap ? 2 * cap : 64;
				grown = realloc(found, cap * sizeof(*found));
				if (!grown) {
					err = -ENOMEM;
					break;
				}
				memset(grown + nr, 0, (cap - nr) * sizeof(*grown));
				found = grown;
			}
			sb_put(&found[nr], line.buf, line.len);
			err = found[nr++].failed ? -ENOMEM : 0;
		}
	}
	for (i = nr; !err && i > 0; i--)
		print_line(r, &found[i - 1]);
	for (i = 0; i < nr; i++)
		sb_free(&found[i]);
	free(found);
	free(segs);
	sb_free(&seg);
	sb_free(&line);
	return err;
}

static int events_run(const struct events_options *o)
{
	struct reading r = { .o = o, .uid = getuid() };
	struct events_options from = *o;
	struct log_cursor c;
	const char *dir;
	long deadline = o->timeout_ms >= 0 ? now_ms() + o->timeout_ms : -1;
	unsigned long newest;
	int status, got = 0;

	if (open_log("events", o, &c, &dir))
		return 1;
	if (o->last >= 0) {
		unsigned long long next;

		/* Following goes on after the last record read. */
		got = print_last(&r, &c, o->last, &newest, &next);
		if (next > from.since_seq)
			from.since_seq = next;
		log_cursor_from(&c, newest);
		r.o = &from;
	} else {
		/* What the log holds now. */
		while ((got = log_next(&c)) == 1)
			print_line(&r, &c.line);
	}
	flush_out(&r);
	/* Then what comes, until the deadline. */
	while (got >= 0 && o->follow && !r.write_err &&
	       (deadline < 0 || now_ms() < deadline)) {
		struct timespec pause = { 0, FOLLOW_MS * 1000000L };

		nanosleep(&pause, NULL);
		while ((got = log_next(&c)) == 1)
			print_line(&r, &c.line);
		flush_out(&r);
	}
	if (got < 0)
		error(got, "events: read %s%s", dir, got == -EACCES && !o->mine ?
		      " (needs root; krsi events --mine shows your own)" : "");
	status = say_what_is_missing(&r, &c, dir) || got < 0;
	/* Records that could not be written (a full file system, say) are
	 * not "printed": say so, and fail.
	 */
	flush_out(&r);
	if (r.write_err) {
		error(r.write_err, "events: write the records");
		status = 1;
	}
	sb_free(&r.copy);
	sb_free(&r.text);
	log_cursor_close(&c);
	return status;
}

static const struct policy *policy_named(struct event_str name)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (strlen(policies[i].name) == name.len &&
		    !memcmp(policies[i].name, name.s, name.len))
			return &policies[i];
	return NULL;
}

/* What a denial of @v's means, and where to read more. */
/* Which program, link and load of its policy made denial @v, and who
 * attached that load (@o, its origin record, or NULL). */
static void explain_origin(const struct event_view *v, const struct event_view *o)
{
	if (!v->has_load)
		return;
	if (v->has_ids)
		printf("\nMade by program %u on link %u of %.*s, version %u (load %016llx),\n",
		       v->prog_id, v->link_id, (int)v->policy.len, v->policy.s,
		       v->version, v->load_id);
	else
		printf("\nMade by %.*s, version %u (load %016llx),\n", (int)v->policy.len,
		       v->policy.s, v->version, v->load_id);
	if (o)
		printf("attached by pid %u, uid %u (%.*s), at %llu.%06llu s of uptime.\n",
		       o->attached_pid, o->attached_uid, (int)o->attached_exe.len,
		       o->attached_exe.s, o->attached_ns / 1000000000,
		       o->attached_ns % 1000000000 / 1000);
	else
		printf("attached by whom, your log does not say: the audit reader could\n"
		       "not read who attached that load (krsi events as root says why).\n");
}

static void explain(const struct event_view *v)
{
	const struct policy *p = policy_named(v->policy);

	if (v->type == EVENT_REFUSED)
		printf("\nThose execs were refused because their records might not have been\n"
		       "written: the audit reader was behind.  Try again once it has caught up.\n");
	if (!p)
		return;
	printf("\n%s: %s\n", p->name, p->about);
	if (v->hook.len)
		printf("\nThe hook, its arguments and every program on it (as root):\n"
		       "  krsi hook %.*s\n", (int)v->hook.len, v->hook.s);
	printf("The header of progs/%s.bpf.c lists every route to what the policy\n"
	       "protects, the hook that closes it, and the limits that remain.\n",
	       p->name);
}

/*
 * `krsi why`: the caller's last denial, from the caller's own records,
 * with the policy's guarantee and what to read about it.
 */
/*
 * The origin records (who attached a load) that the reader copied into
 * the caller's log, the last WHY_ORIGINS of them: the caller's denials
 * name their load, these who attached it.
 */
#define WHY_ORIGINS 16

struct origins {
	struct strbuf lines[WHY_ORIGINS];
	size_t next;
};

static void keep_origin(struct origins *k, const struct strbuf *line)
{
	static const char mark[] = "\"event\":\"origin\"";
	struct strbuf *slot;

	if (!line->len || !memmem(line->buf, line->len, mark, sizeof(mark) - 1))
		return;
	slot = &k->lines[k->next++ % WHY_ORIGINS];
	sb_reset(slot);
	sb_put(slot, line->buf, line->len);
}

/* Explain where denial @v came from, with its load's origin if kept. */
static void why_origin(struct origins *k, const struct event_view *v)
{
	struct event_view o;
	size_t i;

	for (i = 0; v->has_load && i < WHY_ORIGINS; i++) {
		struct strbuf *line = &k->lines[i];

		if (!line->len || line->failed || event_parse(line->buf, line->len, &o))
			continue;
		if (o.type == EVENT_ORIGIN && o.load_id == v->load_id) {
			explain_origin(v, &o);
			event_view_free(&o);
			return;
		}
		event_view_free(&o);
	}
	explain_origin(v, NULL);
}

static int why_run(void)
{
	struct events_options o = { .mine = true, .uid = -1, .last = -1 };
	struct reading r = { .o = &o, .uid = getuid() };
	struct strbuf denial = { 0 };
	struct origins origins = { 0 };
	struct log_cursor c;
	struct event_view v;
	const char *dir;
	int got, status = 1;
	size_t i;

	if (open_log("why", &o, &c, &dir))
		return 1;
	while ((got = log_next(&c)) == 1) {
		keep_origin(&origins, &c.line);
		if (parse(&r, &c.line, &v)) {
			if (v.type == EVENT_DENY || v.type == EVENT_REFUSED) {
				sb_reset(&denial);
				sb_put(&denial, c.line.buf, c.line.len);
			}
			event_view_free(&v);
		}
	}
	if (got < 0)
		error(got, "why: read %s", dir);
	else if (!denial.len)
		fprintf(stderr, "krsi: why: no denial of uid %u in %s\n",
			(unsigned)r.uid, dir);
	else if (parse(&r, &denial, &v)) {
		printf("Your last denial (record %llu):\n    ", v.seq);
		o.json = false;
		print(&r, &denial, &v);
		why_origin(&origins, &v);
		explain(&v);
		event_view_free(&v);
		status = 0;
	}
	for (i = 0; i < WHY_ORIGINS; i++)
		sb_free(&origins.lines[i]);
	sb_free(&denial);
	sb_free(&r.copy);
	sb_free(&r.text);
	log_cursor_close(&c);
	return status;
}

/*
 * `krsi events --verify FILE`: check a host's copy of the audit stream
 * (run-qemu.sh --log FILE), on the host or in the guest: every finding
 * with its line, then the verdict.  0 when it all holds, else 1.
 */
static int verify_run(const char *path, const struct trail_options *o)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	struct trail_counts c;
	int ret;

	if (!f) {
		error(-errno, "events: --verify %s", path);
		return 1;
	}
	ret = trail_verify(f, path, stdout, o, &c);
	if (f != stdin)
		fclose(f);
	if (ret < 0) {
		error(ret, "events: --verify: read %s", path);
		return 1;
	}
	if (!ret)
		printf("%s: verified: %lu lines, %lu streams, %lu records, every line "
		       "sealed in its place, every stream ends with the reader's stop "
		       "record\n", path, c.lines, c.streams, c.records);
	else
		printf("%s: NOT VERIFIED: %lu lines, %lu streams: %lu forged, %lu dropped, "
		       "%lu replayed or reordered, %lu records missing, %lu cut, %lu "
		       "begun unexpectedly, %lu saying records held back, %lu run on "
		       "after the stop, %lu silent while running\n", path, c.lines,
		       c.streams, c.forged, c.dropped, c.replayed, c.missing, c.cut,
		       c.begun, c.withheld, c.ran_on, c.silent);
	fflush(stdout);
	return ret ? 1 : 0;
}

/* A number of events or seconds for `krsi events`: positive, or -1. */
static double positive(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0)) {
		fprintf(stderr, "krsi: events: %s wants a positive number, not '%s'\n",
			opt, arg);
		return -1;
	}
	return v;
}

/* Seconds the host measured for --ran: 0 or more, or -1. */
static double seconds(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0)) {
		fprintf(stderr, "krsi: events: %s wants seconds, 0 or more, not '%s'\n",
			opt, arg);
		return -1;
	}
	return v;
}

/* A whole number for --uid and --seq: 0 or more, or -1. */
static long long whole(const char *opt, const char *arg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0) {
		fprintf(stderr, "krsi: events: %s wants a whole number, not '%s'\n",
			opt, arg);
		return -1;
	}
	return v;
}

/* `krsi events [OPTIONS]`: its options, then events_run(). */
int cmd_events(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "mine", no_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "uid", required_argument, NULL, 'u' },
		{ "since", required_argument, NULL, 's' },
		{ "seq", required_argument, NULL, 'q' },
		{ "follow", no_argument, NULL, 'f' },
		{ "verify", required_argument, NULL, 'V' },
		{ "one-boot", no_argument, NULL, 'B' },
		{ "ran", required_argument, NULL, 'R' },
		{ "silent", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct events_options o = { .last = -1, .timeout_ms = -1, .uid = -1 };
	struct trail_options t = { .ran_s = -1 };
	const char *verify = NULL;
	int others = 0;
	double v;
	long long n;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:t:f", longopts, NULL)) != -1) {
		others += opt != 'V' && opt != 'B' && opt != 'R' && opt != 'S';
		switch (opt) {
		case 'n':
			v = positive("-n", optarg);
			/* (long)v of a value beyond its range is undefined. */
			if (v < 0)
				return EXIT_USAGE;
			if (v > 1e15 || v != (long)v) {
				fprintf(stderr, "krsi: events: -n wants a whole number up to "
					"10^15, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o.last = (long)v;
			break;
		case 't':
			/* Following for SECONDS, as `krsi events -t` always did. */
			v = positive("-t", optarg);
			if (v < 0)
				return EXIT_USAGE;
			if (v > 86400 * 24) {
				fprintf(stderr, "krsi: events: -t wants seconds up to 24 days "
					"(2073600), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o.timeout_ms = (int)(v * 1000);
			o.follow = true;
			break;
		case 's':
			v = positive("--since", optarg);
			if (v < 0 || v > 1e10) {
				if (v > 1e10)
					fprintf(stderr, "krsi: events: --since wants seconds of uptime, up to 10^10\n");
				return EXIT_USAGE;
			}
			o.since_ns = (unsigned long long)(v * 1e9);
			break;
		case 'u':
		case 'q':
			n = whole(opt == 'u' ? "--uid" : "--seq", optarg);
			if (opt == 'u' && n > 0xffffffffLL)
				fprintf(stderr, "krsi: events: --uid wants a uid up to %u, not '%s'\n",
					0xffffffffU, optarg);
			if (n < 0 || (opt == 'u' && n > 0xffffffffLL))
				return EXIT_USAGE;
			if (opt == 'u')
				o.uid = n;
			else
				o.since_seq = n;
			break;
		case 'p':
			/* A policy's name, or the reader's own records. */
			if (strcmp(optarg, "reader") && !policy_find(optarg))
				return EXIT_USAGE;
			o.policy = optarg;
			break;
		case 'f': o.follow = true; break;
		case 'j': o.json = true; break;
		case 'm': o.mine = true; break;
		case 'V': verify = optarg; break;
		case 'B': t.one_boot = true; break;
		case 'R':
			/* How long the machine ran after the file last grew,
			 * as run-qemu.sh measured it (0 allowed). */
			v = seconds("--ran", optarg);
			if (v < 0 || v > 1e9) {
				if (v > 1e9)
					fprintf(stderr, "krsi: events: --ran wants seconds, up to 10^9\n");
				return EXIT_USAGE;
			}
			t.ran_s = v;
			break;
		case 'S':
			/* The longest silence run-qemu.sh heard. */
			v = positive("--silent", optarg);
			if (v < 0 || v > 1e9) {
				if (v > 1e9)
					fprintf(stderr, "krsi: events: --silent wants seconds, up to 10^9\n");
				return EXIT_USAGE;
			}
			t.silent_s = v;
			break;
		default:
			fprintf(stderr, "krsi: events: krsi help lists its options\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "krsi: events: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (t.one_boot && !verify) {
		fprintf(stderr, "krsi: events: --one-boot goes with --verify FILE\n");
		return EXIT_USAGE;
	}
	if ((t.ran_s >= 0 || t.silent_s > 0) && !t.one_boot) {
		fprintf(stderr, "krsi: events: --ran and --silent go with --verify FILE "
			"--one-boot\n");
		return EXIT_USAGE;
	}
	if (verify && others) {
		fprintf(stderr, "krsi: events: --verify FILE takes no other option "
			"but --one-boot, --ran and --silent\n");
		return EXIT_USAGE;
	}
	if (verify)
		return verify_run(verify, &t);
	return events_run(&o);
}

int cmd_why(int argc, char **argv)
{
	if (args_none(argc, argv))
		return EXIT_USAGE;
	return why_run();
}
