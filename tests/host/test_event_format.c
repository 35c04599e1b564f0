// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of tools/lib/event_format.c and event_parse.c: kernel
 * records to JSON lines and text, and JSON lines back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "event_format.h"

/* A kernel record: the header, then up to this much data. */
struct record {
	struct krsi_event ev;
	char data[3 * KRSI_PATH_MAX];
};

static struct record base(unsigned int kind, const char *policy)
{
	struct record r;

	memset(&r, 0, sizeof(r));
	r.ev.time_ns = 12345678901ULL;
	r.ev.kind = kind;
	r.ev.pid = 57;
	r.ev.uid = 1000;
	strcpy(r.ev.comm, "sh");
	strcpy(r.ev.policy, policy);
	return r;
}

/* A denial of EACCES by @policy on @hook of @what. */
static struct record denial(unsigned int kind, const char *policy,
			    const char *hook, const char *what)
{
	struct record r = base(kind, policy);

	strcpy(r.ev.hook, hook);
	r.ev.verdict = -13;
	strcpy(r.data, what);
	r.ev.data_len = strlen(what);
	return r;
}

/* An exec: @file, @interp, then @args_len bytes of arguments. */
static struct record exec_of(const char *file, const char *interp,
			     const char *args, size_t args_len, unsigned int argc)
{
	struct record r = base(KRSI_EVENT_EXEC, "audit_exec");

	r.ev.file_len = strlen(file);
	r.ev.interp_len = strlen(interp);
	memcpy(r.data, file, r.ev.file_len);
	memcpy(r.data + r.ev.file_len, interp, r.ev.interp_len);
	memcpy(r.data + r.ev.file_len + r.ev.interp_len, args, args_len);
	r.ev.data_len = r.ev.file_len + r.ev.interp_len + args_len;
	r.ev.argc = argc;
	strcpy(r.ev.hook, "bprm_committed_creds");
	return r;
}

/* The room for a record's arguments, as the audit reader holds it. */
static struct event_str args[KRSI_ARGS_MAX];

static size_t size_of(const struct record *r)
{
	return sizeof(r->ev) + r->ev.data_len;
}

/* @r as text and as JSON, each compared with what is wanted. */
static void check_record(const struct record *r, const char *text,
			 const char *json, const char *what)
{
	struct strbuf out = { 0 };
	struct event_view v;

	if (!check(!event_from_record(r, size_of(r), &v, args, KRSI_ARGS_MAX), "%s: a view", what))
		return;
	event_text(&v, &out);
	check(!strcmp(out.buf, text), "%s: '%s' (want '%s')", what, out.buf, text);
	sb_reset(&out);
	event_json(&v, &out);
	check(!strcmp(out.buf, json), "json: %s: '%s' (want '%s')", what,
	      out.buf, json);
	sb_free(&out);
}

#define HEAD "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,\"comm\":\"sh\","
#define TIME "   12.345678 "

static void test_records(void)
{
	struct record r;

	r = denial(KRSI_EVENT_DENY, "no_tmp_exec", "bprm_check_security", "x");
	check_record(&r, TIME "pid 57 uid 1000 sh: no_tmp_exec denied EACCES: bprm_check_security x",
		     HEAD "\"policy\":\"no_tmp_exec\",\"event\":\"deny\",\"verdict\":\"EACCES\","
		     "\"hook\":\"bprm_check_security\",\"what\":\"x\"}", "a denial");

	r = denial(KRSI_EVENT_WOULD_DENY, "wx", "mmap_file", "anon");
	check_record(&r, TIME "pid 57 uid 1000 sh: wx would deny EACCES: mmap_file anon",
		     HEAD "\"policy\":\"wx\",\"event\":\"would_deny\",\"verdict\":\"EACCES\","
		     "\"hook\":\"mmap_file\",\"what\":\"anon\"}", "a policy in audit mode");

	r = denial(KRSI_EVENT_DENY, "wx", "mmap_file", "anon");
	r.ev.load_id = 0x00c0ffee12345678ULL;
	r.ev.version = 2;
	check_record(&r, TIME "pid 57 uid 1000 sh: wx denied EACCES: mmap_file anon",
		     HEAD "\"policy\":\"wx\",\"event\":\"deny\",\"verdict\":\"EACCES\","
		     "\"hook\":\"mmap_file\",\"what\":\"anon\",\"load\":\"00c0ffee12345678\","
		     "\"version\":2,\"prog_id\":null,\"link_id\":null}",
		     "a denial naming its load, whose program and link the record alone does not know");

	r = exec_of("/bin/ls", "", "ls\0-l\0/\0HOME=/\0", 15, 3);
	check_record(&r, TIME "pid 57 uid 1000 sh: audit_exec allowed exec /bin/ls: ls -l /",
		     HEAD "\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"/bin/ls\","
		     "\"interpreter\":null,\"args\":[\"ls\",\"-l\",\"/\"],\"cut\":[]}",
		     "an exec with its arguments, not its environment");

	r = exec_of("/tmp/x.sh", "/bin/busybox", "sh\0a\"b\\\0", 8, 2);
	check_record(&r, TIME "pid 57 uid 1000 sh: audit_exec allowed exec /tmp/x.sh (interpreter /bin/busybox): sh a\"b\\",
		     HEAD "\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"/tmp/x.sh\","
		     "\"interpreter\":\"/bin/busybox\",\"args\":[\"sh\",\"a\\\"b\\\\\"],\"cut\":[]}",
		     "a script: quotes and backslashes escaped");

	/* An empty argument is an empty word. */
	r = exec_of("/bin/echo", "", "echo\0\0x\0", 8, 3);
	check_record(&r, TIME "pid 57 uid 1000 sh: audit_exec allowed exec /bin/echo: echo  x",
		     HEAD "\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"/bin/echo\","
		     "\"interpreter\":null,\"args\":[\"echo\",\"\",\"x\"],\"cut\":[]}",
		     "an empty argument");

	/* Bytes of a file name that are not printable: '?' and \u00XX. */
	r = exec_of("/tmp/a\nb\xff", "", "x\0", 2, 1);
	r.ev.comm[0] = '\n';
	check_record(&r, TIME "pid 57 uid 1000 ?h: audit_exec allowed exec /tmp/a?b?: x",
		     "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,\"comm\":\"\\u000ah\","
		     "\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"/tmp/a\\u000ab\\u00ff\","
		     "\"interpreter\":null,\"args\":[\"x\"],\"cut\":[]}",
		     "control and high bytes");

	/* Cut: a path's last bytes, shown from its first whole component. */
	r = exec_of("ong-name/d/prog", "", "./prog\0", 7, 2);
	r.ev.flags = KRSI_CUT_FILE | KRSI_CUT_ARGS;
	check_record(&r, TIME "pid 57 uid 1000 sh: audit_exec allowed exec [cut]/d/prog: ./prog [args cut]",
		     HEAD "\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"/d/prog\","
		     "\"interpreter\":null,\"args\":[\"./prog\"],\"cut\":[\"file\",\"args\"]}",
		     "a path and arguments cut, marked");

	r = exec_of("", "", "true\0", 5, 1);
	r.ev.flags = KRSI_CUT_FILE;
	check_record(&r, TIME "pid 57 uid 1000 sh: audit_exec allowed exec [cut]: true",
		     HEAD "\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"\","
		     "\"interpreter\":null,\"args\":[\"true\"],\"cut\":[\"file\"]}",
		     "a path the kernel could not resolve: empty and cut");

	r = base(99, "p");
	check_record(&r, TIME "pid 57 uid 1000 sh: p unknown event kind 99",
		     HEAD "\"policy\":\"p\",\"event\":\"unknown\",\"kind\":99}", "an unknown kind");
}

/*
 * What the record says is never trusted: lengths past its end, parts
 * longer than the data, a comm with no NUL, more arguments than there.
 */
static void test_untrusted(void)
{
	struct strbuf out = { 0 };
	struct event_view v;
	struct record r;

	r = exec_of("/bin/ls", "", "ls\0", 3, 1000);
	memset(r.ev.comm, 'c', sizeof(r.ev.comm));
	r.ev.data_len = 60000;
	r.ev.file_len = 50000;
	r.ev.interp_len = 50000;
	check(!event_from_record(&r, sizeof(r.ev) + 10, &v, args, KRSI_ARGS_MAX),
	      "lengths beyond the record: a view");
	event_text(&v, &out);
	check(!strcmp(out.buf, TIME "pid 57 uid 1000 cccccccccccccccc: audit_exec allowed exec /bin/lsls?:"),
	      "what the record holds, no more: '%s'", out.buf);
	sb_free(&out);

	check(event_from_record(&r, sizeof(r.ev) - 1, &v, args, KRSI_ARGS_MAX) == -EINVAL,
	      "a record shorter than its header is refused");

	/* The argument count says 1000: the arguments are what is there. */
	r = exec_of("/bin/ls", "", "a\0b\0c", 5, 1000);
	check(!event_from_record(&r, size_of(&r), &v, args, KRSI_ARGS_MAX) && v.nr_args == 3 &&
	      v.args[2].len == 1, "argc beyond the data: %zu arguments", v.nr_args);
}

/* JSON lines back into views, and out again the same. */
static void test_parse(void)
{
	static const char *const lines[] = {
		"{\"seq\":7,\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,\"comm\":\"sh\","
		"\"policy\":\"audit_exec\",\"event\":\"exec\",\"file\":\"/tmp/a\\u000ab\\u00ff\","
		"\"interpreter\":\"/bin/busybox\",\"args\":[\"x\",\"\",\"q\\\"\\\\\"],\"cut\":[\"args\"]}",
		"{\"seq\":8,\"time_ns\":1,\"pid\":2,\"uid\":0,\"comm\":\"cat\",\"policy\":\"protect_secret\","
		"\"event\":\"deny\",\"verdict\":\"EACCES\",\"hook\":\"file_open\",\"what\":\"/etc/krsi/secret\"}",
		"{\"seq\":9,\"time_ns\":3,\"pid\":0,\"uid\":1000,\"comm\":\"\",\"policy\":\"wx\","
		"\"event\":\"lost\",\"count\":12}",
		"{\"seq\":10,\"time_ns\":3,\"pid\":0,\"uid\":1000,\"comm\":\"\",\"policy\":\"audit_exec\","
		"\"event\":\"refused\",\"count\":18446744073709551615}",
		"{\"seq\":0,\"time_ns\":900000000,\"pid\":45,\"uid\":0,\"comm\":\"krsi\",\"policy\":\"reader\","
		"\"event\":\"start\",\"what\":\"log /var/log/krsi\"}",
		"{\"seq\":11,\"time_ns\":3,\"pid\":1,\"uid\":2,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"unknown\",\"kind\":99}",

		/* a denial with its load and origin, one whose origin the reader
		 * did not find, and a load's count of denials when it went
		 */
		"{\"seq\":12,\"time_ns\":1,\"pid\":2,\"uid\":1000,\"comm\":\"cat\",\"policy\":\"protect_secret\","
		"\"event\":\"deny\",\"verdict\":\"EACCES\",\"hook\":\"file_open\",\"what\":\"/etc/krsi/secret\","
		"\"load\":\"00c0ffee12345678\",\"version\":3,\"prog_id\":31,\"link_id\":44}",
		"{\"seq\":13,\"time_ns\":1,\"pid\":2,\"uid\":1000,\"comm\":\"cat\",\"policy\":\"wx\","
		"\"event\":\"would_deny\",\"verdict\":\"EACCES\",\"hook\":\"mmap_file\",\"what\":\"anon\","
		"\"load\":\"ffffffffffffffff\",\"version\":1,\"prog_id\":null,\"link_id\":null}",
		"{\"seq\":15,\"time_ns\":4,\"pid\":45,\"uid\":0,\"comm\":\"krsi\",\"policy\":\"protect_secret\","
		"\"event\":\"origin\",\"load\":\"00c0ffee12345678\",\"version\":3,\"attached_pid\":52,"
		"\"attached_uid\":0,\"attached_exe\":\"/usr/bin/krsi\",\"attached_ns\":1860000000,"
		"\"what\":\"file_open prog 31 link 44, file_permission prog 32 link 45\"}",
		"{\"seq\":14,\"time_ns\":5,\"pid\":45,\"uid\":0,\"comm\":\"krsi\",\"policy\":\"protect_secret\","
		"\"event\":\"denials\",\"hook\":\"file_open\",\"load\":\"00c0ffee12345678\",\"version\":3,"
		"\"prog_id\":31,\"link_id\":44,\"denied\":7,\"would_deny\":0,\"logged\":5,"
		"\"why\":\"detached\"}",
	};
	struct strbuf out = { 0 };
	struct event_view v;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *line = strdup(lines[i]);

		if (check(!event_parse(line, strlen(line), &v), "parse line %zu", i)) {
			sb_reset(&out);
			event_json(&v, &out);
			check(!strcmp(out.buf, lines[i]), "line %zu out again: '%s'", i, out.buf);
			event_view_free(&v);
		}
		free(line);
	}

	/* A load's count of denials, as krsi events shows it. */
	{
		char line[] = "{\"seq\":14,\"time_ns\":12345678901,\"pid\":45,\"uid\":0,\"comm\":\"krsi\","
			"\"policy\":\"protect_secret\",\"event\":\"denials\",\"hook\":\"file_open\","
			"\"load\":\"00c0ffee12345678\",\"version\":3,\"prog_id\":31,\"link_id\":44,"
			"\"denied\":7,\"would_deny\":0,\"logged\":5,\"why\":\"detached\"}";

		if (check(!event_parse(line, strlen(line), &v), "parse a count of denials")) {
			sb_reset(&out);
			event_text(&v, &out);
			check(!strcmp(out.buf, TIME "protect_secret v3 (load 00c0ffee12345678), link 44 "
				      "(prog 31) on file_open: denied 7, would have denied 0, 5 of these "
				      "in the log; detached"),
			      "its text: '%s'", out.buf);
			event_view_free(&v);
		}
	}

	/* Parsed back, a line shows as the record it came from. */
	{
		char line[] = "{\"seq\":7,\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,"
			"\"comm\":\"sh\",\"policy\":\"audit_exec\",\"event\":\"exec\","
			"\"file\":\"/tmp/a\\u000ab\",\"interpreter\":null,\"args\":[\"ls\"],"
			"\"cut\":[\"file\"]}";

		if (check(!event_parse(line, strlen(line), &v), "parse an exec")) {
			sb_reset(&out);
			event_text(&v, &out);
			check(!strcmp(out.buf, TIME "pid 57 uid 1000 sh: audit_exec allowed exec [cut]/tmp/a?b: ls"),
			      "its text: '%s'", out.buf);
			event_view_free(&v);
		}
	}
	sb_free(&out);
}

/* Lines that are not records: refused, whatever is wrong with them. */
static void test_malformed(void)
{
	static const char *const bad[] = {
		"",
		"{",
		"[]",
		"{}",
		"{\"time_ns\":1}",
		/* a needed field missing: exec without cut */
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"audit_exec\","
		"\"event\":\"exec\",\"file\":\"/x\",\"interpreter\":null,\"args\":[]}",
		/* a field twice */
		"{\"time_ns\":1,\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		/* a uid beyond 32 bits, a time beyond 64 */
		"{\"time_ns\":1,\"pid\":2,\"uid\":4294967296,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		"{\"time_ns\":18446744073709551616,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		/* bad escapes, a raw control byte, a string not closed */
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\\x\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\\u12\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\n\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"abc",
		/* something after the object, a negative number, a leading zero */
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}x",
		"{\"time_ns\":-1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		"{\"time_ns\":01,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\","
		"\"event\":\"lost\",\"count\":1}",
		/* a load id that is not 16 hex digits, or 0; a version without
		 * a load; a part of the origin; a count of denials without why
		 */
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"deny\","
		"\"verdict\":\"EPERM\",\"hook\":\"h\",\"what\":\"\",\"load\":\"c0ffee\",\"version\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"deny\","
		"\"verdict\":\"EPERM\",\"hook\":\"h\",\"what\":\"\",\"load\":\"0000000000000000\",\"version\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"deny\","
		"\"verdict\":\"EPERM\",\"hook\":\"h\",\"what\":\"\",\"load\":\"000000000000000G\",\"version\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"deny\","
		"\"verdict\":\"EPERM\",\"hook\":\"h\",\"what\":\"\",\"version\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"deny\","
		"\"verdict\":\"EPERM\",\"hook\":\"h\",\"what\":\"\",\"load\":\"00c0ffee12345678\","
		"\"version\":1,\"prog_id\":3}",
		/* who attached it, in a denial rather than an origin record;
		 * an origin record without what
		 */
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"deny\","
		"\"verdict\":\"EPERM\",\"hook\":\"h\",\"what\":\"\",\"load\":\"00c0ffee12345678\","
		"\"version\":1,\"attached_pid\":3,\"attached_uid\":0,\"attached_exe\":\"x\",\"attached_ns\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"origin\","
		"\"load\":\"00c0ffee12345678\",\"version\":1,\"attached_pid\":3,\"attached_uid\":0,"
		"\"attached_exe\":\"x\",\"attached_ns\":1}",
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\",\"event\":\"denials\","
		"\"hook\":\"h\",\"load\":\"00c0ffee12345678\",\"version\":1,\"prog_id\":1,"
		"\"link_id\":1,\"denied\":1,\"would_deny\":0,\"logged\":1}",
		/* a cut part this log does not have */
		"{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"audit_exec\","
		"\"event\":\"exec\",\"file\":\"/x\",\"interpreter\":null,\"args\":[],\"cut\":[\"x\"]}",
	};
	struct event_view v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *line = strdup(bad[i]);

		check(event_parse(line, strlen(line), &v) == -EINVAL,
		      "malformed line %zu refused", i);
		free(line);
	}
	{
		char line[] = "{\"time_ns\":1,\"pid\":2,\"uid\":3,\"comm\":\"\",\"policy\":\"p\","
			"\"event\":\"lost\",\"count\":1,\"later\":[\"a\"],\"more\":null}";

		check(!event_parse(line, strlen(line), &v) && v.count == 1,
		      "fields this reader does not know are skipped");
	}
}

int main(void)
{
	test_records();
	test_untrusted();
	test_parse();
	test_malformed();
	return check_exit();
}
