// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of tools/lib/tracefmt.c: the lines of KRSI's trace. */
#include <string.h>

#include "check.h"
#include "tracefmt.h"

static struct trace_call c;

static void test_full_line(void)
{
	const char *line = "pid=57 tid=58 comm=my\\040cat hook=file_open ret=-13 by=krsi "
			   "lsms=capability,krsi progs=krsi:45:secret_open:-13,bpf:46:deny:? "
			   "obj=/tmp/a\\040b\\134c\\012";

	if (!check(!trace_parse(line, &c), "a whole line parses"))
		return;
	check(c.pid == 57 && c.tid == 58, "pid and tid");
	check(!strcmp(c.comm, "my cat"), "comm unescaped (%s)", c.comm);
	check(!strcmp(c.hook, "file_open"), "hook");
	check(c.ended && c.ret == -13 && !strcmp(c.by, "krsi"), "result and decider");
	check(c.nr_lsms == 2 && !strcmp(c.lsms[0], "capability") &&
	      !strcmp(c.lsms[1], "krsi"), "the LSMs called, in order");
	check(c.nr_progs == 2, "two programs (%d)", c.nr_progs);
	check(!c.progs[0].tramp && c.progs[0].id == 45 &&
	      !strcmp(c.progs[0].name, "secret_open") && c.progs[0].ret_known &&
	      c.progs[0].ret == -13, "KRSI's program, its id, name and value");
	check(c.progs[1].tramp && c.progs[1].id == 46 && !c.progs[1].ret_known,
	      "the trampoline's program, its value unknown");
	check(!strcmp(c.object, "/tmp/a b\\c\n"), "object unescaped");
	check(c.more == 0 && c.lost == 0, "nothing more, nothing lost");
}

static void test_short_forms(void)
{
	check(!trace_parse("pid=1 tid=1 comm=init hook=capable ret=0 by=none lsms=- progs=- obj=-",
			   &c) && c.nr_lsms == 0 && c.nr_progs == 0 && !c.object[0],
	      "'-' for no LSM, no program, no object");
	check(!trace_parse("pid=1 tid=1 comm=x hook=file_open ret=? by=? lsms=- progs=krsi:1:a:0,+3 obj=-",
			   &c) && !c.ended && c.nr_progs == 1 && c.more == 3,
	      "a call written before it ended, and programs that did not fit");
	check(!trace_parse("lost 12", &c) && c.lost == 12, "a lost line");
	check(!trace_parse("pid=1 tid=1 comm=x hook=file_free_security ret=0 by=none lsms=bpf progs=bpf:7:f:- obj=-",
			   &c) && c.nr_progs == 1 && c.progs[0].no_value && !c.progs[0].ret_known,
	      "a void hook's trampoline program: no value");
}

static void test_bad_lines(void)
{
	static const char *const bad[] = {
		"",
		"lost",
		"lost 0",
		"lost 12x",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=- obj=- more=1",
		"tid=1 pid=1 comm=x hook=h ret=0 by=none lsms=- progs=- obj=-",
		"pid=1  tid=1 comm=x hook=h ret=0 by=none lsms=- progs=- obj=-",
		"pid=x tid=1 comm=x hook=h ret=0 by=none lsms=- progs=- obj=-",
		"pid=1 tid=1 comm=x hook=h ret=? by=krsi lsms=- progs=- obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=? lsms=- progs=- obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=tramp:1:a:0 obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=krsi:0:a:0 obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=krsi:1:a obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=krsi:1:a:1x obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=+2,krsi:1:a:0 obj=-",
		"pid=1 tid=1 comm=x\\04 hook=h ret=0 by=none lsms=- progs=- obj=-",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=- progs=- obj=\\9",
		"pid=1 tid=1 comm=x hook=h ret=0 by=none lsms=a,,b progs=- obj=-",
		"pid=1 tid=1 comm=x hook=h ret=99999999999 by=none lsms=- progs=- obj=-",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(trace_parse(bad[i], &c) != 0, "refused: '%s'", bad[i]);
}

int main(void)
{
	test_full_line();
	test_short_forms();
	test_bad_lines();
	return check_exit();
}
