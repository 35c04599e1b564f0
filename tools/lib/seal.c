// SPDX-License-Identifier: GPL-2.0
/*
 * The audit stream's seal (seal.h): SHA-256 (FIPS 180-4) and HMAC (RFC
 * 2104), written here because the tools are static musl binaries and
 * musl has no cryptography (a library such as OpenSSL would be larger
 * than the krsi tool for two functions), then the evolving key and the
 * sealed line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "seal.h"

static const uint32_t k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10);
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
		     k256[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = s->len % 64;

	s->len += len;
	while (len) {
		size_t n = 64 - used < len ? 64 - used : len;

		memcpy(s->buf + used, p, n);
		used += n;
		p += n;
		len -= n;
		if (used == 64) {
			sha256_block(s, s->buf);
			used = 0;
		}
	}
}

void sha256_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = { 0x80 };
	size_t n = (s->len % 64 < 56 ? 56 : 120) - s->len % 64;
	int i;

	for (i = 0; i < 8; i++)
		pad[n + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, n + 8);
	for (i = 0; i < 32; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
	memset(s, 0, sizeof(*s));
}

void hmac_sha256(const uint8_t *key, size_t key_len, const void *data,
		 size_t len, uint8_t out[32])
{
	uint8_t k[64] = { 0 }, pad[64];
	struct sha256 s;
	int i;

	if (key_len > 64) {
		sha256_init(&s);
		sha256_update(&s, key, key_len);
		sha256_final(&s, k);
	} else {
		memcpy(k, key, key_len);
	}
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	sha256_update(&s, data, len);
	sha256_final(&s, out);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	sha256_update(&s, out, 32);
	sha256_final(&s, out);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

void seal_evolve(uint8_t key[SEAL_KEY_LEN])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, SEAL_EVOLVE, sizeof(SEAL_EVOLVE) - 1);
	sha256_update(&s, key, SEAL_KEY_LEN);
	sha256_final(&s, key);
}

/* A wipe the compiler may not leave out as a dead store. */
static void wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

void seal_start(struct sealer *s, const uint8_t key[SEAL_KEY_LEN])
{
	memcpy(s->key, key, SEAL_KEY_LEN);
	s->pos = 0;
}

void seal_forget(struct sealer *s)
{
	wipe(s->key, sizeof(s->key));
}

void seal_line(struct sealer *s, const char *line, size_t len, struct strbuf *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t mac[32];
	size_t start = out->len, i;

	/* The object without its '}', then its position. */
	sb_put(out, line, len ? len - 1 : 0);
	sb_printf(out, ",\"stream\":%llu", s->pos);
	if (!out->failed)
		hmac_sha256(s->key, SEAL_KEY_LEN, out->buf + start, out->len - start, mac);
	sb_puts(out, ",\"seal\":\"");
	for (i = 0; i < SEAL_MAC_LEN; i++) {
		sb_putc(out, hex[mac[i] >> 4]);
		sb_putc(out, hex[mac[i] & 15]);
	}
	sb_puts(out, "\"}\n");
	/* Used: the key of this position is gone from now on. */
	seal_evolve(s->key);
	s->pos++;
	wipe(mac, sizeof(mac));
}

int seal_unhex(const char *hex, size_t n, uint8_t *out)
{
	size_t i;

	for (i = 0; i < 2 * n; i++) {
		char c = hex[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -EINVAL;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | d : d << 4);
	}
	return 0;
}

int seal_parse(const char *line, size_t len, unsigned long long *pos,
	       uint8_t mac[SEAL_MAC_LEN], size_t *covered)
{
	static const char field[] = ",\"stream\":";
	size_t end, i;

	if (len < SEAL_TAIL_LEN + sizeof(field) ||
	    memcmp(line + len - SEAL_TAIL_LEN, ",\"seal\":\"", 9) ||
	    memcmp(line + len - 2, "\"}", 2) ||
	    seal_unhex(line + len - SEAL_TAIL_LEN + 9, SEAL_MAC_LEN, mac))
		return -EINVAL;
	end = len - SEAL_TAIL_LEN;
	/* The position: the digits right before the seal. */
	for (i = end; i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9'; i--)
		;
	if (i == end || end - i > 19 || i < sizeof(field) - 1 ||
	    memcmp(line + i - (sizeof(field) - 1), field, sizeof(field) - 1) ||
	    (line[i] == '0' && end - i > 1))
		return -EINVAL;
	*pos = 0;
	for (; i < end; i++)
		*pos = *pos * 10 + (unsigned)(line[i] - '0');
	*covered = end;
	return 0;
}

bool seal_check(const uint8_t key[SEAL_KEY_LEN], const char *line,
		size_t covered, const uint8_t mac[SEAL_MAC_LEN])
{
	uint8_t want[32];
	unsigned int diff = 0;
	size_t i;

	hmac_sha256(key, SEAL_KEY_LEN, line, covered, want);
	for (i = 0; i < SEAL_MAC_LEN; i++)
		diff |= want[i] ^ mac[i];
	return !diff;
}

int seal_unwrap(const char *line, size_t len, struct strbuf *out)
{
	uint8_t mac[SEAL_MAC_LEN];
	unsigned long long pos;
	size_t covered;
	const char *field;

	sb_reset(out);
	if (seal_parse(line, len, &pos, mac, &covered))
		return -EINVAL;
	/* Cut at ,"stream": (the last one: seal_parse() found it there). */
	for (field = line + covered - 1; field > line && *field != ','; field--)
		;
	sb_put(out, line, field - line);
	sb_putc(out, '}');
	return out->failed ? -ENOMEM : 0;
}
