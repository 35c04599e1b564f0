// SPDX-License-Identifier: GPL-2.0
/*
 * What every krsi command shares: its error messages, which name the
 * command's object and the errno, and its clock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "errname.h"
#include "krsi.h"

void error(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "krsi: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", errname(-err));
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}
