/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_ERRNAME_H
#define KRSI_ERRNAME_H

/*
 * The symbolic name of an errno value ("EPERM"), so that every error message
 * names the errno rather than a number. Returns "E?" for values it does not
 * know. musl has no strerrorname_np(), hence this table.
 */
const char *errname(int err);

#endif
