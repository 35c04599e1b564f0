// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of tools/lib/seal.c and trail.c: SHA-256 and HMAC
 * against their standards' vectors, then a stream sealed as the audit
 * reader seals it, checked whole and after each change an attacker could
 * make to the host's copy: a line forged, changed, dropped, replayed,
 * reordered, a stream cut, a key of one's own, the last line cut short.
 * Each must be found, and at the line where it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "seal.h"
#include "trail.h"

static void hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_sha256(void)
{
	/* FIPS 180-4's examples, and one of more than a block. */
	static const struct { const char *in, *out; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char got[65];
	uint8_t out[32];
	struct sha256 s;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha256_init(&s);
		sha256_update(&s, v[i].in, strlen(v[i].in));
		sha256_final(&s, out);
		hex(out, 32, got);
		check(!strcmp(got, v[i].out), "sha256(\"%.8s...\") is the standard's (%s)",
		      v[i].in, got);
	}
	/* A million 'a', fed in odd pieces. */
	sha256_init(&s);
	for (i = 0; i < 1000000; i += 7) {
		static const char a[7] = "aaaaaaa";

		sha256_update(&s, a, 1000000 - i < 7 ? 1000000 - i : 7);
	}
	sha256_final(&s, out);
	hex(out, 32, got);
	check(!strcmp(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	      "sha256 of a million 'a' in pieces of 7 (%s)", got);
}

static void test_hmac(void)
{
	/* RFC 4231, test cases 1, 2 and 6 (a key longer than a block). */
	uint8_t key1[20], key6[131], out[32];
	char got[65];

	memset(key1, 0x0b, sizeof(key1));
	hmac_sha256(key1, sizeof(key1), "Hi There", 8, out);
	hex(out, 32, got);
	check(!strcmp(got, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
	      "hmac-sha256, RFC 4231 case 1");
	hmac_sha256((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, out);
	hex(out, 32, got);
	check(!strcmp(got, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
	      "hmac-sha256, RFC 4231 case 2");
	memset(key6, 0xaa, sizeof(key6));
	hmac_sha256(key6, sizeof(key6),
		    "Test Using Larger Than Block-Size Key - Hash Key First", 54, out);
	hex(out, 32, got);
	check(!strcmp(got, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
	      "hmac-sha256, RFC 4231 case 6");
}

/* A stream as the reader writes it: key line, records 0..N-1, stop. */
#define RECORDS	20
static char *lines[RECORDS + 2];
static size_t nr_lines;

static void make_stream(void)
{
	uint8_t key[SEAL_KEY_LEN];
	char keyhex[2 * SEAL_KEY_LEN + 1], rec[256];
	struct sealer s;
	struct strbuf out = { 0 };
	size_t i;

	for (i = 0; i < SEAL_KEY_LEN; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	hex(key, SEAL_KEY_LEN, keyhex);
	seal_start(&s, key);
	nr_lines = 0;
	for (i = 0; i < RECORDS + 2; i++) {
		if (i == 0)
			snprintf(rec, sizeof(rec), "{\"time_ns\":1,\"pid\":5,\"uid\":0,"
				 "\"comm\":\"krsi\",\"policy\":\"reader\",\"event\":\"seal\","
				 "\"what\":\"%s\"}", keyhex);
		else if (i == RECORDS + 1)
			snprintf(rec, sizeof(rec), "{\"seq\":%zu,\"time_ns\":9,\"pid\":5,"
				 "\"uid\":0,\"comm\":\"krsi\",\"policy\":\"reader\","
				 "\"event\":\"stop\",\"what\":\"krsi logd stops\"}", i - 1);
		else
			snprintf(rec, sizeof(rec), "{\"seq\":%zu,\"time_ns\":%zu,\"pid\":7,"
				 "\"uid\":1000,\"comm\":\"cat\",\"policy\":\"protect_secret\","
				 "\"event\":\"deny\",\"verdict\":\"EACCES\",\"hook\":\"file_open\","
				 "\"what\":\"the secret\"}", i - 1, i + 1);
		sb_reset(&out);
		seal_line(&s, rec, strlen(rec), &out);
		lines[nr_lines++] = strdup(out.buf);
	}
	seal_forget(&s);
	sb_free(&out);
}

/* How long the machine of a one-boot check ran, as the host saw it, and
 * the longest it heard nothing from it. */
static double ran_s = -1, silent_s;

/* Check the stream made of @order (indexes into lines, -1 ends; a line
 * of @extra where -2 is), and print what the check said.
 */
static int verify(const int *order, const char *extra, bool one_boot,
		  struct trail_counts *c, char **said)
{
	char *text = NULL, *report = NULL;
	size_t len = 0, rlen = 0;
	FILE *in = open_memstream(&text, &len), *out;
	int i, ret;

	for (i = 0; order[i] != -1; i++)
		fputs(order[i] == -2 ? extra : lines[order[i]], in);
	fclose(in);
	in = len ? fmemopen(text, len, "r") : fopen("/dev/null", "r");
	out = open_memstream(&report, &rlen);
	ret = trail_verify(in, "t", out, &(struct trail_options){ one_boot, ran_s, silent_s },
			   c);
	fclose(in);
	fclose(out);
	free(text);
	/* One line, as the harness counts them. */
	for (i = 0; report && report[i]; i++)
		if (report[i] == '\n')
			report[i] = report[i + 1] ? ';' : '\0';
	*said = report;
	return ret;
}

static int *seq_all(int *buf)
{
	size_t i;

	for (i = 0; i < nr_lines; i++)
		buf[i] = (int)i;
	buf[i] = -1;
	return buf;
}

static void test_trail(void)
{
	struct trail_counts c;
	int order[2 * (RECORDS + 2) + 4];
	char *said, forged[512], *p;
	size_t i;
	int ret;

	make_stream();
	ret = verify(seq_all(order), NULL, true, &c, &said);
	check(ret == 0 && c.streams == 1 && c.records == RECORDS && !c.forged && !c.cut,
	      "a whole stream verifies: %lu records, ends with the stop record (%d)",
	      c.records, ret);
	free(said);

	/* One byte of a record changed: forged, at its line. */
	seq_all(order);
	order[5] = -2;
	snprintf(forged, sizeof(forged), "%s", lines[5]);
	p = strstr(forged, "EACCES");
	p[1] = 'B';
	ret = verify(order, forged, true, &c, &said);
	check(ret == 1 && c.forged == 1 && strstr(said, "t:6: forged"),
	      "a record changed by one byte: forged, line 6 (%s)", said);
	free(said);

	/* A line of one's own: no seal, or a seal made up. */
	seq_all(order);
	order[3] = -2;
	ret = verify(order, "{\"seq\":2,\"policy\":\"reader\",\"event\":\"stop\"}\n",
		     true, &c, &said);
	check(ret == 1 && c.forged == 1 && c.dropped == 1 && strstr(said, "t:4: forged") &&
	      strstr(said, "t:5: dropped: 1 lines"),
	      "a line of one's own instead of record 2: forged at line 4, the record "
	      "dropped (%s)", said);
	free(said);

	/* A record dropped: the next one says how many, and where. */
	for (i = 0, ret = 0; i < nr_lines; i++)
		if (i != 7)
			order[ret++] = (int)i;
	order[ret] = -1;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.dropped == 1 && !c.forged &&
	      strstr(said, "t:8: dropped: 1 lines missing before this one (positions 7 to 7)"),
	      "a record dropped: 1 line missing, said at line 8 (%s)", said);
	free(said);

	/* A record replayed after the next, and two swapped. */
	seq_all(order);
	memmove(order + 6, order + 5, (nr_lines - 4) * sizeof(int));
	order[6] = 4;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.replayed == 1 && !c.forged && !c.dropped &&
	      strstr(said, "t:7: replayed: position 4 again"),
	      "a record streamed twice: replayed, line 7 (%s)", said);
	free(said);
	seq_all(order);
	order[8] = 9;
	order[9] = 8;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.dropped == 1 && c.replayed == 1 && strstr(said, "t:10: replayed"),
	      "two records swapped: one dropped before the first, replayed after (%s)", said);
	free(said);

	/* Cut: the stream stops before the stop record, and a forged one. */
	seq_all(order);
	order[12] = -1;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.cut == 1 && !c.forged && strstr(said, "t:12: cut"),
	      "a stream cut after line 12: cut, not an end (%s)", said);
	free(said);
	/* After the cut, a stop record of one's own at the next position. */
	order[12] = -2;
	order[13] = -1;
	snprintf(forged, sizeof(forged), "%s", lines[nr_lines - 1]);
	p = strstr(forged, "\"stream\":");
	memcpy(p + 9, "12", 2);
	ret = verify(order, forged, true, &c, &said);
	check(ret == 1 && c.cut == 1 && c.dropped == 0 && c.forged == 1 &&
	      strstr(said, "t:13: forged: position 12"),
	      "a cut stream given a stop record of one's own: forged, still cut (%s)", said);
	free(said);

	/* A key of one's own, after the cut: a second stream in one boot. */
	seq_all(order);
	order[12] = 0;
	order[13] = 1;
	order[14] = -1;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.begun == 1 && c.cut == 2 && strstr(said, "t:13: begun"),
	      "a key line again mid-stream: begun, and the first stream cut (%s)", said);
	free(said);
	/* Two whole boots in one file are two streams, when not one boot. */
	seq_all(order);
	memcpy(order + nr_lines, order, nr_lines * sizeof(int));
	order[2 * nr_lines] = -1;
	ret = verify(order, NULL, false, &c, &said);
	check(ret == 0 && c.streams == 2 && !c.begun,
	      "two boots' streams, each ended, in one file (%s)", said);
	free(said);
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.begun == 1, "the same as one boot's trail: begun");
	free(said);

	/* How long the machine ran after its stop record reached the host:
	 * the moment the reader's power-off takes, or a machine that ran on
	 * with nothing logged.
	 */
	ran_s = 0.4;
	ret = verify(seq_all(order), NULL, true, &c, &said);
	check(ret == 0 && !c.ran_on && strstr(said, "the machine stopped 0.4 s after it "
	      "reached the host"), "a machine that stopped 0.4 s after its stop "
	      "record: verified (%s)", said);
	free(said);
	ran_s = 20;
	ret = verify(seq_all(order), NULL, true, &c, &said);
	check(ret == 1 && c.ran_on == 1 && strstr(said, "ran on: the machine ran 20 s "
	      "after the reader's stop record reached the host"),
	      "a machine that ran 20 s after its stop record: ran on (%s)", said);
	free(said);
	/* A stream cut is a finding of its own, not a run-on. */
	seq_all(order);
	order[12] = -1;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.cut == 1 && !c.ran_on, "a cut stream: cut, no run-on said");
	free(said);
	ran_s = -1;
	silent_s = 35;
	ret = verify(seq_all(order), NULL, true, &c, &said);
	check(ret == 1 && c.silent == 1 && strstr(said, "silent: the host heard nothing "
	      "on the stream for 35 s"), "a stream the host heard nothing from for 35 s "
	      "as the machine ran: silent (%s)", said);
	free(said);
	silent_s = 0;

	/* The last line cut short, and a file with no key at all. */
	seq_all(order);
	snprintf(forged, sizeof(forged), "%.*s", 40, lines[nr_lines - 1]);
	order[nr_lines - 1] = -2;
	ret = verify(order, forged, true, &c, &said);
	check(ret == 1 && c.cut == 1 && strstr(said, "no newline"),
	      "the stop record cut short: forged, and the stream cut (%s)", said);
	free(said);
	order[0] = -1;
	ret = verify(order, NULL, true, &c, &said);
	check(ret == 1 && c.cut == 1 && strstr(said, "no stream"),
	      "an empty trail: no stream (%s)", said);
	free(said);

	/* Records logged but not streamed: every position there, numbers
	 * missing (the reader's port was down).
	 */
	{
		static const unsigned int seqs[] = { 0, 1, 2, 7, 8 };
		struct strbuf out = { 0 };
		uint8_t key[SEAL_KEY_LEN] = { 7 };
		char keyhex[2 * SEAL_KEY_LEN + 1], rec[256], *text = NULL, *report = NULL;
		size_t tlen = 0, rlen = 0;
		struct sealer sl;
		FILE *in, *o;

		hex(key, SEAL_KEY_LEN, keyhex);
		seal_start(&sl, key);
		snprintf(rec, sizeof(rec), "{\"time_ns\":1,\"pid\":5,\"uid\":0,\"comm\":\"krsi\","
			 "\"policy\":\"reader\",\"event\":\"seal\",\"what\":\"%s\"}", keyhex);
		seal_line(&sl, rec, strlen(rec), &out);
		for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]) + 2; i++) {
			if (i < sizeof(seqs) / sizeof(seqs[0]))
				snprintf(rec, sizeof(rec), "{\"seq\":%u,\"time_ns\":2,\"pid\":7,"
					 "\"uid\":0,\"comm\":\"x\",\"policy\":\"reader\","
					 "\"event\":\"attach\",\"what\":\"\"}", seqs[i]);
			else if (i == sizeof(seqs) / sizeof(seqs[0]))	/* line 7 */
				snprintf(rec, sizeof(rec), "{\"time_ns\":2,\"pid\":7,\"uid\":0,"
					 "\"comm\":\"x\",\"policy\":\"reader\",\"event\":\"beat\","
					 "\"what\":\"9 records logged; " TRAIL_HELD_MARK " for 12 s: "
					 "400 bytes of records in their buffers: write /var/log/krsi: "
					 "ENOSPC\"}");
			else	/* line 8: a stop with records still held back */
				snprintf(rec, sizeof(rec), "{\"seq\":9,\"time_ns\":3,\"pid\":7,"
					 "\"uid\":0,\"comm\":\"x\",\"policy\":\"reader\","
					 "\"event\":\"stop\",\"what\":\"krsi logd stops; "
					 TRAIL_HELD_MARK " for 20 s: 500 bytes of records in their "
					 "buffers: write /var/log/krsi: ENOSPC\"}");
			seal_line(&sl, rec, strlen(rec), &out);
		}
		/* Then 100 lines of made-up positions far ahead: the keys
		 * there are computed once (marks), not once a line.
		 */
		for (i = 0; i < 100; i++)
			sb_printf(&out, "{\"seq\":1,\"stream\":%lu,\"seal\":\"%032x\"}\n",
				  (1UL << 20) - 1 - i, 0);
		in = fmemopen(out.buf, out.len, "r");
		o = open_memstream(&report, &rlen);
		ret = trail_verify(in, "t", o, &(struct trail_options){ true, -1, 0 }, &c);
		fclose(in);
		fclose(o);
		for (i = 0; report[i]; i++)
			if (report[i] == '\n' && report[i + 1])
				report[i] = ';';
		check(ret == 1 && c.missing == 4 && c.forged == 100 && c.dropped == 0 &&
		      strstr(report, "t:5: missing: records 3 to 6 are not in this copy"),
		      "records not streamed: 4 missing, said at line 5; 100 lines far ahead "
		      "forged, their keys found from marks (%.200s)", report);
		check(c.withheld == 2 && strstr(report, "t:7: withheld: the reader holds "
		      "records back, not logged: \"9 records logged; " TRAIL_HELD_MARK) &&
		      strstr(report, "t:8: withheld: the reader holds records back, not "
		      "logged: \"krsi logd stops; " TRAIL_HELD_MARK),
		      "a heartbeat saying records are held back, and a stream that ends "
		      "with records held back: withheld, at lines 7 and 8");
		free(report);
		free(text);
		(void)tlen;
		sb_free(&out);
		seal_forget(&sl);
	}

	/* The log's line back from the stream's. */
	{
		struct strbuf log = { 0 };
		bool ok = !seal_unwrap(lines[3], strlen(lines[3]) - 1, &log) &&
			  !strstr(log.buf, "stream") && log.buf[log.len - 1] == '}' &&
			  !strncmp(log.buf, lines[3], log.len - 1);

		check(ok, "seal_unwrap() gives the log's line (%s)", log.buf ? log.buf : "");
		sb_free(&log);
	}
	for (i = 0; i < nr_lines; i++)
		free(lines[i]);
}

int main(void)
{
	test_sha256();
	test_hmac();
	test_trail();
	return check_exit();
}
