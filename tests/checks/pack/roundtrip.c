// SPDX-License-Identifier: GPL-2.0
/*
 * The round trip of a hook argument through KRSI's context slot, for
 * tests/checks/pack.sh: pack each class of argument with the kernel's own
 * macros (security/krsi/pack.h) and read it back the way a BPF program
 * does (BPF_PROG() casts the 64-bit slot to the argument's type,
 * BPF_PROG2() reads a small struct through a union with the integer of its
 * size).  Compiled, not run: with constants throughout, clang folds
 * krsi_pack_roundtrip() to "return 0" when every value survives, for
 * whatever target it compiles, big-endian ones included.
 *
 * KRSI_PACK_H names the header to test, so that the check can also show
 * it catches the byte-copying definition the kernel used before.
 */
#include <stdbool.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef struct { u32 val; } kuid_t;
typedef struct { u32 val; } kgid_t;
enum lockdown_reason { LOCKDOWN_NONE, LOCKDOWN_MODULE_SIGNATURE, LOCKDOWN_BPF_READ };

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define memcpy __builtin_memcpy

#include KRSI_PACK_H

/* The low 32 bits of the slot, as the verifier and BPF_PROG() read an int. */
static int read_int(u64 slot)
{
	return (int)slot;
}

static u32 read_uid(u64 slot)
{
	union { u32 z; kuid_t x; } u = { .z = (u32)slot };

	return u.x.val;
}

int krsi_pack_roundtrip(void)
{
	int neg = -5;
	unsigned int top = 0xc0de0001u;
	unsigned long all = ~0ul;
	bool yes = true;
	enum lockdown_reason what = LOCKDOWN_BPF_READ;
	kuid_t uid = { 1234 };
	kgid_t gid = { 0xffffffffu };
	const char *ptr = (const char *)0x1000;
	u64 ctx[8] = { 0 };
	int bad = 0;

	krsi_pack(ctx, 0, neg);
	bad |= (read_int(ctx[0]) != -5) << 0;
	bad |= (ctx[0] != (u64)-5) << 1;		/* sign-extended */
	krsi_pack(ctx, 1, top);
	bad |= (ctx[1] != 0xc0de0001u) << 2;	/* zero-extended */
	krsi_pack(ctx, 2, all);
	bad |= (ctx[2] != ~0ull) << 3;
	krsi_pack(ctx, 3, yes);
	bad |= (ctx[3] != 1) << 4;
	krsi_pack(ctx, 4, what);
	bad |= (read_int(ctx[4]) != LOCKDOWN_BPF_READ) << 5;
	krsi_pack_struct(ctx, 5, uid);
	bad |= (read_uid(ctx[5]) != 1234) << 6;
	krsi_pack_struct(ctx, 6, gid);
	bad |= (ctx[6] != 0xffffffffu) << 7;
	krsi_pack_ptr(ctx, 7, ptr);
	bad |= (ctx[7] != 0x1000) << 8;
	return bad;
}
