/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_JSON_H
#define KRSI_JSON_H

/*
 * The one piece of JSON the krsi command writes by hand (a static musl
 * build has no JSON library to lean on): a string, quoted and escaped.
 * '"' and '\' get a backslash; every byte that is not printable ASCII is
 * written as \u00XX on its own, so the output is valid JSON and UTF-8
 * whatever the string held.
 */
#include <stdio.h>

void json_str(FILE *out, const char *s);

#endif
