// SPDX-License-Identifier: GPL-2.0
/* Host unit test of tools/lib/event_format.c. */
#include <string.h>

#include "check.h"
#include "event_format.h"

static struct krsi_event base(unsigned int kind)
{
	struct krsi_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = 12345678901ULL;
	ev.kind = kind;
	ev.pid = 57;
	ev.uid = 1000;
	strcpy(ev.comm, "sh");
	return ev;
}

/* A denial (or would-be denial) of EACCES by @policy on @hook of @what. */
static struct krsi_event denial(unsigned int kind, const char *policy,
				const char *hook, const char *what)
{
	struct krsi_event ev = base(kind);

	strcpy(ev.policy, policy);
	strcpy(ev.hook, hook);
	ev.verdict = -13;
	strcpy(ev.data, what);
	ev.data_len = strlen(what) + 1;
	return ev;
}

static void check_line(const struct krsi_event *ev, const char *want,
		       const char *what)
{
	char line[512];

	event_format(ev, line, sizeof(line));
	check(!strcmp(line, want), "%s: '%s' (want '%s')", what, line, want);
}

static void check_json(const struct krsi_event *ev, const char *want,
		       const char *what)
{
	char line[1024];

	event_format_json(ev, line, sizeof(line));
	check(!strcmp(line, want), "json: %s: '%s' (want '%s')", what, line, want);
}

/* `krsi events --json`: the fields of the header, escaping, truncation. */
static void test_json(void)
{
	struct krsi_event ev;
	char small[64];

	ev = denial(KRSI_EVENT_DENY, "no_tmp_exec", "bprm_check_security", "/tmp/x");
	check_json(&ev, "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,"
		   "\"comm\":\"sh\",\"policy\":\"no_tmp_exec\",\"event\":\"deny\","
		   "\"verdict\":\"EACCES\",\"hook\":\"bprm_check_security\","
		   "\"what\":\"/tmp/x\"}", "a denial");

	ev = base(KRSI_EVENT_EXEC);
	strcpy(ev.policy, "audit_exec");
	memcpy(ev.data, "/tmp/x.sh\0/bin/busybox\0sh\0a\"b\\\0", 31);
	ev.data_len = 31;
	ev.argc = 2;
	check_json(&ev, "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,"
		   "\"comm\":\"sh\",\"policy\":\"audit_exec\",\"event\":\"exec\","
		   "\"file\":\"/tmp/x.sh\",\"interpreter\":\"/bin/busybox\","
		   "\"args\":[\"sh\",\"a\\\"b\\\\\"]}",
		   "an exec: quotes and backslashes escaped");

	ev = base(KRSI_EVENT_EXEC);
	strcpy(ev.policy, "audit_exec");
	memcpy(ev.data, "/bin/ls\0\0ls\0", 11);
	ev.data_len = 11;
	ev.argc = 1;
	ev.comm[0] = '\n';
	ev.comm[1] = (char)0xff;
	check_json(&ev, "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,"
		   "\"comm\":\"\\u000a\\u00ff\",\"policy\":\"audit_exec\",\"event\":\"exec\","
		   "\"file\":\"/bin/ls\",\"interpreter\":null,\"args\":[\"ls\"]}",
		   "no interpreter is null, control and high bytes as \\u00XX");

	ev = denial(KRSI_EVENT_WOULD_DENY, "wx", "mmap_file", "anon");
	check_json(&ev, "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,"
		   "\"comm\":\"sh\",\"policy\":\"wx\",\"event\":\"would_deny\","
		   "\"verdict\":\"EACCES\",\"hook\":\"mmap_file\",\"what\":\"anon\"}",
		   "a policy in audit mode");

	ev = base(77);
	strcpy(ev.policy, "p");
	check_json(&ev, "{\"time_ns\":12345678901,\"pid\":57,\"uid\":1000,"
		   "\"comm\":\"sh\",\"policy\":\"p\",\"event\":\"unknown\",\"kind\":77}",
		   "an unknown kind");

	ev = base(KRSI_EVENT_DENY);
	check(event_format_json(&ev, small, sizeof(small)) == 0,
	      "json: an object that does not fit is not written half");
}

int main(void)
{
	struct krsi_event ev;
	char small[16];
	size_t n;

	ev = base(KRSI_EVENT_DENY);
	strcpy(ev.policy, "no_tmp_exec");
	strcpy(ev.hook, "bprm_check_security");
	ev.verdict = -13;
	ev.data_len = 2;
	strcpy(ev.data, "x");
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: no_tmp_exec denied EACCES: bprm_check_security x",
		   "a denial");

	ev = base(KRSI_EVENT_EXEC);
	strcpy(ev.policy, "audit_exec");
	memcpy(ev.data, "/bin/ls\0\0ls\0-l\0/\0HOME=/\0", 24);
	ev.data_len = 24;
	ev.argc = 3;
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: audit_exec allowed exec /bin/ls: ls -l /",
		   "an exec with its arguments, not its environment");

	/* Arguments cut by the record size: what fits is shown. */
	ev.data_len = 13;
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: audit_exec allowed exec /bin/ls: ls -",
		   "an exec cut short");

	/* Untrusted bytes: no NUL in comm, control characters in data. */
	ev = base(KRSI_EVENT_DENY);
	memset(ev.comm, 'c', sizeof(ev.comm));
	strcpy(ev.policy, "wx");
	strcpy(ev.hook, "mmap_file");
	ev.verdict = -1;
	strcpy(ev.data, "a\nb\x1b");
	ev.data_len = 1000;
	check_line(&ev, "   12.345678 pid 57 uid 1000 cccccccccccccccc: wx denied EPERM: mmap_file a?b?",
		   "unterminated and unprintable bytes, data_len too big");

	ev = denial(KRSI_EVENT_WOULD_DENY, "wx", "mmap_file", "anon");
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: wx would deny EACCES: mmap_file anon",
		   "a policy in audit mode");

	ev = base(99);
	strcpy(ev.policy, "p");
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: p unknown event kind 99",
		   "an unknown kind");

	/* An empty argument is shown, as an empty word. */
	ev = base(KRSI_EVENT_EXEC);
	strcpy(ev.policy, "audit_exec");
	ev.argc = 3;
	memcpy(ev.data, "/bin/echo\0\0echo\0\0x\0", 20);
	ev.data_len = 20;
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: audit_exec allowed exec /bin/echo: echo  x",
		   "an empty argument");

	/* A script: the file, then the interpreter that ran it. */
	ev = base(KRSI_EVENT_EXEC);
	strcpy(ev.policy, "audit_exec");
	ev.argc = 2;
	memcpy(ev.data, "/tmp/x.sh\0/bin/busybox\0/bin/sh\0/tmp/x.sh\0", 41);
	ev.data_len = 41;
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: audit_exec allowed exec /tmp/x.sh (interpreter /bin/busybox): /bin/sh /tmp/x.sh",
		   "a script and its interpreter");

	/* A record that ends after the file: no interpreter, no arguments. */
	ev = base(KRSI_EVENT_EXEC);
	strcpy(ev.policy, "audit_exec");
	ev.argc = 2;
	memcpy(ev.data, "/bin/ls", 7);
	ev.data_len = 7;
	check_line(&ev, "   12.345678 pid 57 uid 1000 sh: audit_exec allowed exec /bin/ls:",
		   "a record cut after the file");

	ev = base(KRSI_EVENT_EXEC);
	n = event_format(&ev, small, sizeof(small));
	check(n == strlen(small) && n == sizeof(small) - 1,
	      "a small buffer is filled and terminated (%zu)", n);
	test_json();
	return check_exit();
}
