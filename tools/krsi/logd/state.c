// SPDX-License-Identifier: GPL-2.0
/*
 * What the reader says of itself.  Its state file (KRSI_READER_STATE,
 * which reader_state.c reads for `krsi status`): its PID and start time, its
 * stream's, when it last went round its loop (seconds of
 * CLOCK_BOOTTIME, every BEAT_MS: a reader stuck in a write or a wait
 * still runs, but says nothing new), and what holds records back.
 * Whatever holds them back (a record larger than the memory taken at
 * start, a log that cannot be written, a policy whose buffers could not
 * be taken) is said at once in a record of the reader's, again every
 * BEAT_MS while it lasts, in the state and in every heartbeat, and the
 * host calls that trail not verified.
 */
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "logd.h"
#include "trail.h"

/*
 * The state file, rewritten in place at a fixed size (the rest a line of
 * spaces): its memory is taken once, at start, so that a write of it
 * never needs more, and never leaves it empty.
 */
#define STATE_SIZE	512

static struct {
	/* What holds records back, since when (0: nothing), and when last said. */
	long long since_ms, said_ms;
	unsigned long bytes;
	char why[160];
} held;

static struct {
	int fd;
	char pid[64];		/* "pid PID start TIME\n" once ready */
	long long alive_ms;	/* when last rewritten */
} state = { .fd = -1 };

const char *held_text(char *buf, size_t size)
{
	buf[0] = '\0';
	if (held.since_ms)
		snprintf(buf, size, TRAIL_HELD_MARK " for %lld s: %lu bytes of "
			 "records in their buffers: %s",
			 (now_ms() - held.since_ms) / 1000, held.bytes, held.why);
	return buf;
}

/* This round's failure, or a policy whose buffers could not be taken. */
void held_update(void)
{
	const char *why = batch_holding()[0] ? batch_holding() :
			  sources_unread()[0] ? sources_unread() : NULL;
	char text[256];

	if (!why) {
		if (!held.since_ms)
			return;
		emit_reader("resume", 0, "records held back for %lld s are logged "
			    "again (%s)", (now_ms() - held.since_ms) / 1000, held.why);
		held.since_ms = 0;
		write_state();
		return;
	}
	held.bytes = sources_held_bytes();
	snprintf(held.why, sizeof(held.why), "%s", why);
	if (!held.since_ms) {
		held.since_ms = now_ms();
		held.said_ms = 0;
	}
	if (held.said_ms && now_ms() - held.said_ms < BEAT_MS)
		return;
	held.said_ms = now_ms();
	emit_reader("error", 0, "%s", held_text(text, sizeof(text)));
	/* Its own line, streamed now: the records it names cannot be. */
	flush_then_consume();
	write_state();
}

int write_state_text(const char *text)
{
	char buf[STATE_SIZE];
	size_t len = strlen(text);

	if (state.fd < 0)
		state.fd = open(KRSI_READER_STATE, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (state.fd < 0)
		return -errno;
	if (len > STATE_SIZE - 2)
		len = STATE_SIZE - 2;
	memcpy(buf, text, len);
	memset(buf + len, ' ', STATE_SIZE - 1 - len);
	buf[STATE_SIZE - 1] = '\n';
	if (pwrite(state.fd, buf, STATE_SIZE, 0) != STATE_SIZE)
		return errno ? -errno : -EIO;
	return 0;
}

int write_state(void)
{
	char text[STATE_SIZE], stream[96], why[256] = "";

	stream_describe(stream, sizeof(stream));
	if (held.since_ms)
		snprintf(why, sizeof(why), "held %llu %lu %s\n",
			 boot_ns() / 1000000000ULL -
			 (unsigned long long)(now_ms() - held.since_ms) / 1000,
			 held.bytes, held.why);
	snprintf(text, sizeof(text), "%s%s\nalive %llu\n%s", state.pid, stream,
		 boot_ns() / 1000000000ULL, why);
	return write_state_text(text);
}

int state_ready(void)
{
	unsigned long long started;
	int err = proc_start_time(getpid(), &started);

	if (err)
		return 0;	/* the state names no PID: the reader is "unknown" */
	snprintf(state.pid, sizeof(state.pid), "pid %d start %llu\n",
		 (int)getpid(), started);
	return write_state();
}

void state_alive(void)
{
	if (now_ms() - state.alive_ms < BEAT_MS)
		return;
	state.alive_ms = now_ms();
	write_state();
}
