// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of tools/lib/auditlog.c, in a scratch directory: the
 * writer's segments and rotation, readers that follow it (two at once,
 * across rotations, a line written in two parts), a segment rotated out
 * while held open, a writer starting again after a cut line, memory
 * given to a writer before its lines come (the audit reader's, taken
 * before the lock), and 100,000 records read back in order, none missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auditlog.h"
#include "check.h"

static char dir[] = "/tmp/test_auditlog.XXXXXX";
static char path[sizeof(dir) + 16];

static void append_line(struct log_writer *w, unsigned long n)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "{\"seq\":%lu}\n", n);

	log_append(w, line, len);
}

/* The number a line holds, or -1. */
static long line_number(const struct log_cursor *c)
{
	unsigned long n;

	return sscanf(c->line.buf, "{\"seq\":%lu}", &n) == 1 ? (long)n : -1;
}

static bool segment_exists(const char *log, unsigned long seg)
{
	char name[256];
	struct stat st;

	snprintf(name, sizeof(name), "%s/log.%lu", log, seg);
	return !stat(name, &st);
}

static void test_rotation(void)
{
	unsigned long removed, segs_removed = 0;
	struct log_writer w;
	struct log_cursor a, b;
	unsigned long n, next_a = 0, next_b = 0;
	bool in_order = true;
	int err;

	snprintf(path, sizeof(path), "%s/main", dir);
	err = log_open(&w, path, 0755, 0600, getuid(), 100, 3);
	if (!check(!err, "open a new log: %d", err))
		return;
	check(w.seg == 1, "a new log begins with log.1");
	log_cursor_open(&a, path);
	log_cursor_open(&b, path);
	/* Lines of 11 to 13 bytes, segments of at most 100: rotations. */
	for (n = 0; n < 100; n++) {
		if (log_full(&w, 13)) {
			err = log_rotate(&w, &removed);
			if (err)
				break;
			segs_removed += removed != 0;
		}
		append_line(&w, n);
		if (n % 7 == 0)
			err = log_flush(&w);
		if (err)
			break;
		/* b reads the first line, then nothing until the end. */
		if (n == 0 && log_next(&b) == 1)
			next_b = line_number(&b) + 1;
		/* Reader a keeps up line by line, b only now and then. */
		while (log_next(&a) == 1)
			next_a += line_number(&a) == (long)next_a;
	}
	check(!err && !log_flush(&w), "100 lines written with rotations");
	check(w.seg > 10 && segs_removed > 5, "%lu segments begun, %lu removed",
	      w.seg, segs_removed);
	check(!segment_exists(path, w.seg - 3) && segment_exists(path, w.seg - 2) &&
	      segment_exists(path, w.seg), "only the last 3 segments are kept");
	while (log_next(&a) == 1)
		next_a += line_number(&a) == (long)next_a;
	check(next_a == 100, "a reader that follows sees every line in order: %lu",
	      next_a);
	/*
	 * b held log.1 open: it reads all of it, then says how many segments
	 * were removed before it got to them, then reads the rest in order.
	 */
	while (log_next(&b) == 1) {
		long got = line_number(&b);

		in_order &= got >= (long)next_b;
		next_b = got + 1;
	}
	check(next_b == 100 && in_order && b.skipped == w.seg - 4,
	      "a reader left behind reads its segment, skips %lu removed, reads the rest",
	      b.skipped);
	log_cursor_close(&a);
	log_cursor_close(&b);

	/* A reader opened now starts at the oldest segment kept. */
	log_cursor_open(&a, path);
	err = log_next(&a);
	check(err == 1 && line_number(&a) > 50,
	      "a new reader starts at the oldest segment kept: %d, %ld", err,
	      err == 1 ? line_number(&a) : -1);
	log_cursor_close(&a);
	log_close(&w);

	/* Opened again, the log goes on in its newest segment. */
	n = w.seg;
	err = log_open(&w, path, 0755, 0600, getuid(), 100, 3);
	check(!err && w.seg == n && w.size > 0,
	      "opened again, it goes on where it was (log.%lu)", w.seg);
	log_close(&w);
}

/* A line written in two parts is read once it is whole. */
static void test_partial_line(void)
{
	struct log_writer w;
	struct log_cursor c;

	snprintf(path, sizeof(path), "%s/partial", dir);
	if (log_open(&w, path, 0755, 0600, getuid(), 1 << 20, 2))
		return;
	log_cursor_open(&c, path);
	log_append(&w, "{\"seq\":1", 8);
	log_flush(&w);
	check(log_next(&c) == 0, "half a line is not a line yet");
	log_append(&w, "}\n", 2);
	log_flush(&w);
	check(log_next(&c) == 1 && line_number(&c) == 1, "once whole, it is read");
	check(log_next(&c) == 0, "and then nothing more");
	log_cursor_close(&c);
	log_close(&w);
}

/*
 * A segment rotated out gives its pages back even while someone holds it
 * open (else whoever may read a segment could hold each one until the
 * log's file system is full), and a reader that held it says it was cut
 * short rather than nothing.
 */
static void test_removed_while_held(void)
{
	unsigned long n, removed = 0;
	struct log_writer w;
	struct log_cursor c;
	struct stat st;
	char name[256];
	int held, got = 0, err = 0;

	snprintf(path, sizeof(path), "%s/held", dir);
	if (!check(!log_open(&w, path, 0755, 0600, getuid(), 100, 2),
		   "open a log of two 100-byte segments"))
		return;
	snprintf(name, sizeof(name), "%s/log.1", path);
	held = open(name, O_RDONLY);
	log_cursor_open(&c, path);
	for (n = 0; n < 3; n++)
		append_line(&w, n);
	log_flush(&w);
	check(log_next(&c) == 1 && line_number(&c) == 0,
	      "a reader reads log.1's first record");
	for (n = 3; n < 40 && !err; n++) {
		if (log_full(&w, 20))
			err = log_rotate(&w, &removed);
		append_line(&w, n);
		err = err ? err : log_flush(&w);
	}
	check(!err && removed >= 1 && !segment_exists(path, 1),
	      "log.1 rotated out: %d", err);
	if (fstat(held, &st))
		st.st_size = -1;
	check(st.st_size == 0 && st.st_nlink == 0,
	      "log.1, still held open, holds no data: %lld bytes",
	      (long long)st.st_size);
	while (log_next(&c) == 1)
		got++;
	check(c.emptied == 1, "the reader that was reading it says so (%lu)",
	      c.emptied);
	close(held);
	log_cursor_close(&c);
	log_close(&w);
}

/* A writer that stopped mid-line: the next one begins on a line of its own. */
static void test_restart_after_cut(void)
{
	struct log_writer w;
	struct log_cursor c;
	unsigned long removed;
	int lines = 0, last = -1;

	snprintf(path, sizeof(path), "%s/cut", dir);
	if (log_open(&w, path, 0755, 0600, getuid(), 1 << 20, 2))
		return;
	/* Rotating what was never written: nothing to write, no fault. */
	check(!log_rotate(&w, &removed), "a new writer rotates at once");
	log_append(&w, "{\"seq\":1}\n{\"seq\":2", 18);
	log_flush(&w);
	log_close(&w);
	if (!check(!log_open(&w, path, 0755, 0600, getuid(), 1 << 20, 2),
		   "open it again"))
		return;
	append_line(&w, 3);
	log_flush(&w);
	log_cursor_open(&c, path);
	while (log_next(&c) == 1) {
		lines++;
		last = line_number(&c);
	}
	check(lines == 3 && last == 3,
	      "the cut line is a line of its own, the next record whole: "
	      "%d lines, the last %d", lines, last);
	log_cursor_close(&c);
	log_close(&w);
}

/* 100,000 records, written as the reader writes them, read back. */
static void test_many(void)
{
	unsigned long n, seen = 0, removed;
	struct log_writer w;
	struct log_cursor c, d;
	bool in_order = true;
	int err = 0;

	snprintf(path, sizeof(path), "%s/many", dir);
	if (!check(!log_open(&w, path, 0755, 0600, getuid(), 4 << 20, 8),
		   "open a log for 100,000 records"))
		return;
	for (n = 0; n < 100000 && !err; n++) {
		if (log_full(&w, 20))
			err = log_rotate(&w, &removed);
		append_line(&w, n);
		if (n % 1000 == 999)
			err = log_flush(&w);
	}
	check(!err && !log_flush(&w), "100,000 records written");
	log_cursor_open(&c, path);
	log_cursor_open(&d, path);
	for (n = 0; log_next(&c) == 1; n++)
		in_order &= line_number(&c) == (long)n;
	/* A second reader at the same time sees the same records. */
	while (log_next(&d) == 1)
		seen++;
	check(n == 100000 && in_order, "read back: %lu records, in order", n);
	check(seen == n, "a second reader sees the same %lu", seen);
	log_cursor_close(&c);
	log_cursor_close(&d);
	log_close(&w);
}

/*
 * Memory given to a writer, what was pending kept: lines up to its size
 * go where it is, with no allocation, and flushing keeps it.
 */
static void test_room(void)
{
	struct strbuf room = { 0 };
	struct log_writer w;
	char line[1000];
	const char *where;
	bool moved = false;
	int i, err;

	snprintf(path, sizeof(path), "%s/room", dir);
	err = log_open(&w, path, 0755, 0600, getuid(), 1 << 20, 2);
	if (!check(!err, "open a log for the room test: %d", err))
		return;
	log_append(&w, "{\"seq\":0}\n", 10);
	check(sb_reserve(&room, 64 << 10) && room.len == 0, "64 KB taken");
	log_give_room(&w, &room);
	where = w.pending.buf;
	check(room.buf == NULL && w.pending.len == 10 && log_room(&w) >= (64 << 10),
	      "given: what was pending kept, %zu bytes of room", log_room(&w));
	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	for (i = 0; i < 60; i++) {
		log_append(&w, line, sizeof(line));
		moved |= w.pending.buf != where;
	}
	check(!moved, "60 KB of lines appended where the room is, none moved");
	check(!log_flush(&w) && w.pending.len == 0 && w.pending.buf == where &&
	      log_room(&w) >= (64 << 10), "flushed, the room kept for the next lines");
	log_close(&w);
	sb_free(&room);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_rotation();
	test_partial_line();
	test_removed_while_held();
	test_restart_after_cut();
	test_many();
	test_room();
	if (system("rm -rf /tmp/test_auditlog.*"))
		check(false, "remove the scratch directory");
	return check_exit();
}
