/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_TRACEFMT_H
#define KRSI_TRACEFMT_H

#include <stdbool.h>

/*
 * The lines of KRSI's trace, /sys/kernel/security/krsi/trace (the
 * kernel's security/krsi/trace.c writes them), one per hook call:
 *
 *	pid=P tid=T comm=C hook=H ret=R by=L lsms=L1,L2 progs=P1,P2 obj=O
 *
 * R is the call's result and L the LSM that decided it ("none"), both "?"
 * for a call the trace had to write before it ended.  lsms are the LSMs
 * the framework called, in order ("-": none).  Each program that ran, in
 * run order, is KIND:ID:NAME:RET, KIND "krsi" or "bpf" (the BPF LSM's
 * trampoline), RET "?" where the trampoline's chain cannot tell 0 from
 * the hook's default or the call had not ended, "-" for a trampoline
 * program of a hook that returns nothing; ",+N" after the last says N more did not fit.  O is
 * the object ("-": none).  C and O have every space, backslash and
 * unprintable byte as \ooo.  A line "lost N" says N calls were not
 * written for want of room.
 */

#define TRACE_MAX_PROGS 102	/* KRSI_MAX_PROGS + BPF_MAX_TRAMP_LINKS */
#define TRACE_MAX_LSMS 16

struct trace_prog {
	bool tramp;		/* the BPF LSM's, else KRSI's */
	unsigned int id;
	char name[128];
	bool ret_known;
	bool no_value;		/* "-": a void hook's trampoline program */
	int ret;
};

struct trace_call {
	unsigned long long lost;	/* a "lost N" line: N, and nothing else */
	int pid, tid;
	char comm[64];
	char hook[64];
	bool ended;		/* ret and by are known */
	int ret;
	char by[32];
	char lsms[TRACE_MAX_LSMS][32];
	int nr_lsms;
	struct trace_prog progs[TRACE_MAX_PROGS];
	int nr_progs;
	unsigned int more;	/* programs that did not fit the line */
	char object[1024];	/* "" when none */
};

/*
 * Parse one line (without its newline) into @c, with comm and object
 * unescaped.  0, or -EINVAL for a line that is not the trace's.
 */
int trace_parse(const char *line, struct trace_call *c);

#endif
