/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_SEAL_H
#define KRSI_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/*
 * The seal of the audit stream, after journald's Forward Secure Sealing:
 * the audit reader seals every line it streams to the host with a MAC
 * under a key that evolves with every line, and forgets each key once
 * used.  The first key is the stream's first line, which reaches the host
 * before the lock, before anything but /init and the reader runs; from
 * then on the host can check every line and nobody in the guest can seal
 * one: not a line of their own (they have no key), not an old line again
 * or out of its place (its key is that of another position), and not
 * a line before one they saw (the keys only go forward).
 *
 * A streamed line is the log's line L, a JSON object, with two fields
 * more:
 *
 *	L without its '}' + ,"stream":P + ,"seal":"MAC" + }
 *
 * P is the line's position in the stream (the key's line is 0), MAC the
 * first SEAL_MAC_LEN bytes of HMAC-SHA256(key P, everything before
 * ,"seal"), in hex.  Key P+1 is SHA-256(SEAL_EVOLVE || key P).
 */
#define SEAL_KEY_LEN	32
#define SEAL_MAC_LEN	16
#define SEAL_EVOLVE	"krsi seal: next key"
/* ,"seal":"<32 hex digits>"} */
#define SEAL_TAIL_LEN	(sizeof(",\"seal\":\"") - 1 + 2 * SEAL_MAC_LEN + 2)

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);
void hmac_sha256(const uint8_t *key, size_t key_len, const void *data,
		 size_t len, uint8_t out[32]);

/* The sealing side: the key of the next position, and that position. */
struct sealer {
	uint8_t key[SEAL_KEY_LEN];
	unsigned long long pos;
};

/* Start at position 0 with @key (the caller wipes its copy). */
void seal_start(struct sealer *s, const uint8_t key[SEAL_KEY_LEN]);
/* Append @line (a JSON object, no newline) to @out, sealed, with '\n';
 * the key moves on and the one used is gone.
 */
void seal_line(struct sealer *s, const char *line, size_t len, struct strbuf *out);
/* Wipe the key. */
void seal_forget(struct sealer *s);

/* The next key: SHA-256(SEAL_EVOLVE || @key), in place. */
void seal_evolve(uint8_t key[SEAL_KEY_LEN]);

/*
 * Split a streamed @line of @len bytes (no newline): its position, its
 * MAC, and the length of what the MAC covers.  0, or -EINVAL for a line
 * that has no seal.
 */
int seal_parse(const char *line, size_t len, unsigned long long *pos,
	       uint8_t mac[SEAL_MAC_LEN], size_t *covered);
/* Whether @mac is the seal of the @covered bytes of @line under @key. */
bool seal_check(const uint8_t key[SEAL_KEY_LEN], const char *line,
		size_t covered, const uint8_t mac[SEAL_MAC_LEN]);
/* The log's line of a streamed one: the same bytes without the two
 * fields (into @out, replacing what it held).  0 or -EINVAL.
 */
int seal_unwrap(const char *line, size_t len, struct strbuf *out);

/* @n bytes of hex (2n digits) into @out: 0 or -EINVAL. */
int seal_unhex(const char *hex, size_t n, uint8_t *out);

#endif
