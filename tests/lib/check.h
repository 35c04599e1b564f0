/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_CHECK_H
#define KRSI_CHECK_H

/*
 * The smallest test library that does the job, shared by the host unit tests
 * and the in-guest tests. Each check prints one line the harness counts:
 *
 *	ok NAME
 *	not ok NAME: what was expected, what happened
 *
 * and check_exit() turns any failure into a non-zero exit status, so that a
 * test program that stops early is never mistaken for one that passed.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;

__attribute__((format(printf, 2, 3)))
static inline bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf(cond ? "ok " : "not ok ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		check_failures++;
	return cond;
}

static inline int check_exit(void)
{
	return check_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
