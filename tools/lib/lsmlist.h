/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_LSMLIST_H
#define KRSI_LSMLIST_H

#include <stdbool.h>

/*
 * Is @name one of the comma-separated LSM names in @list (the content of
 * /sys/kernel/security/lsm, as "capability,krsi,bpf")? Whole names only:
 * "bpf" is not found in "krsibpf".
 */
bool lsm_list_contains(const char *list, const char *name);

/*
 * Is a filesystem of type @fstype mounted on @dir, according to @mounts (the
 * content of /proc/mounts: "device dir fstype options 0 0" per line)?
 */
bool mounts_have(const char *mounts, const char *dir, const char *fstype);

#endif
