// SPDX-License-Identifier: GPL-2.0
#include "json.h"

void json_str(FILE *out, const char *s)
{
	const unsigned char *c;

	fputc('"', out);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c >= 0x20 && *c < 0x7f)
			fputc(*c, out);
		else
			fprintf(out, "\\u%04x", *c);
	}
	fputc('"', out);
}
