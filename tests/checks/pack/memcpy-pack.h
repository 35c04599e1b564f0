/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What security/krsi/hooks.c did before it stored arguments by value:
 * copy the argument's bytes into the start of its slot.  tests/checks/pack.sh
 * must find it wrong on a big-endian target.
 */
#define krsi_pack(ctx, i, arg)		memcpy(&(ctx)[i], &(arg), sizeof(arg))
#define krsi_pack_ptr(ctx, i, arg)	krsi_pack(ctx, i, arg)
#define krsi_pack_struct(ctx, i, arg)	krsi_pack(ctx, i, arg)
