// SPDX-License-Identifier: GPL-2.0
/*
 * The stream sink: every record, sealed, to the host on a port of its
 * own (KRSI_STREAM_DEV, run-qemu.sh --log FILE), as JSON lines.  The
 * reader starts it before the lock, when nothing but /init runs, and its
 * first line is the first key (seal.h): from then on the reader alone
 * holds the key, one position ahead of the host's copy.  A heartbeat
 * every BEAT_MS tells the host the reader lives.
 *
 * The stream never holds records back: a host that stops reading must
 * not stop the log.  A write that fails closes the port, says "the
 * stream stops here" in the log, and the port is opened again every
 * REOPEN_MS; the record after names the records the host may not have,
 * and their positions are missing there.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"
#include "krsi_stream.h"
#include "logd.h"
#include "seal.h"

/* How often a stream that failed is opened again. */
#define REOPEN_MS		5000
/* How long the port may take to send its last lines at the stop. */
#define DRAIN_MS		5000
/* Room for four lines, sealed, and READER_ROOM more. */
#define STREAM_ROOM		(4 * (LINE_MAX_BYTES + SEALED_EXTRA) + READER_ROOM)

static struct {
	int port;		/* the port, or -1 */
	int port_path;		/* an O_PATH descriptor of the port's node */
	struct sealer sealer;	/* the stream's next key (seal.h) */
	bool sealing;		/* the key went to the host: lines are sealed */
	struct strbuf pending;	/* sealed lines, not yet written */
	unsigned long long first;	/* seq of the first line not yet written */
	unsigned long long unstreamed;	/* seq from which the stream failed */
	long long beat_ms, reopen_ms;
	char err[64];		/* why the stream stopped, or "" */
} st = { .port = -1, .port_path = -1 };

int stream_reserve(void)
{
	return sb_reserve(&st.pending, STREAM_ROOM) ? 0 : -ENOMEM;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * The stream failed (the port hung up, say): close it, say so in the
 * log and in the reader's state, which `krsi status` reads, and open it
 * again every REOPEN_MS (stream_reopen()).  The lines of the failed
 * write may not have reached the host: the record after the reopening
 * names them, and their positions are missing there.
 */
static void stream_failed(int err)
{
	close(st.port);
	st.port = -1;
	st.unstreamed = st.first;
	snprintf(st.err, sizeof(st.err), "%s", errname(-err));
	st.reopen_ms = now_ms();
	if (!st.sealing)
		return;
	emit_reader("error", 0, KRSI_STREAM_DEV ": %s: the stream stops here; "
		    "the reader opens it again every %d s", errname(-err), REOPEN_MS / 1000);
	write_state();
}

/*
 * Write the pending lines: 0, or the errno of the write that failed.
 * The buffer is wiped, not only emptied: the key's line passes through
 * it.  A buffer that had no memory for a line is not written at all,
 * and the port stays open: the positions of its lines are missing on
 * the host, which says so, and the record after names them.
 */
static int stream_write(void)
{
	unsigned long long first = st.first;
	bool no_memory = st.pending.failed;
	int err = no_memory ? -ENOMEM : write_all(st.port, st.pending.buf, st.pending.len);

	if (st.pending.buf)
		explicit_bzero(st.pending.buf, st.pending.len);
	sb_reset(&st.pending);
	if (no_memory)
		emit_reader("error", 0, "no memory: records %llu to %llu not streamed "
			    "(this log has them)", first, record_next_seq() - 1);
	else if (err)
		stream_failed(err);
	return err;
}

/*
 * The stream's lines that are not the log's: the key, the heartbeat.  A
 * reader record without a number, sealed after what is pending, and
 * written at once; made in the reader's own lines, with no allocation.
 */
__attribute__((format(printf, 2, 3)))
static int stream_only(const char *name, const char *fmt, ...)
{
	char what[READER_WHAT_MAX];
	struct strbuf *line = line_get();	/* a record stream_write() makes takes the next */
	struct event_view v;
	va_list ap;
	int err = 0;

	if (!line)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	reader_view(&v, name, 0, what);
	sb_reset(line);
	event_json(&v, line);
	/* What is pending goes first if both do not fit. */
	if (buf_takes(&st.pending, line->len + SEALED_EXTRA) == -ENOSPC)
		err = stream_write();
	if (!err) {
		if (!st.pending.len)
			st.first = record_next_seq();
		if (line->failed || buf_takes(&st.pending, line->len + SEALED_EXTRA))
			st.pending.failed = true;
		else
			seal_line(&st.sealer, line->buf, line->len, &st.pending);
	}
	/* The key's line holds the key: nothing of it stays. */
	explicit_bzero(what, sizeof(what));
	if (line->buf)
		explicit_bzero(line->buf, line->len);
	sb_reset(line);
	line_put();
	return err ? err : stream_write();
}

/*
 * The port: KRSI_STREAM_DEV, when QEMU gives it one (run-qemu.sh --log
 * FILE), raw, so that every byte goes as it is.  An 8250 port the PC
 * does not have still has its node, with no UART behind.  Its
 * descriptor, or -1 and why not in @why.
 */
static int open_port(char *why, size_t size)
{
	struct serial_struct ss;
	struct stat sb;
	struct termios t;
	char node[32];
	int fd;

	/* The node the reader found at start, by its O_PATH descriptor,
	 * whatever has been put under its name since; and not blocking: a
	 * FIFO must not hold the reader.
	 */
	snprintf(node, sizeof(node), "/proc/self/fd/%d", st.port_path);
	fd = open(st.port_path >= 0 ? node : KRSI_STREAM_DEV,
		  O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, size, KRSI_STREAM_DEV ": %s", errname(errno));
		return -1;
	}
	/* By its number: a node made in its place is not the port. */
	if (fstat(fd, &sb) || !S_ISCHR(sb.st_mode) ||
	    sb.st_rdev != makedev(KRSI_STREAM_MAJOR, KRSI_STREAM_MINOR) ||
	    fcntl(fd, F_SETFL, 0)) {
		close(fd);
		snprintf(why, size, KRSI_STREAM_DEV ": not the port's device %d:%d",
			 KRSI_STREAM_MAJOR, KRSI_STREAM_MINOR);
		return -1;
	}
	if (KRSI_STREAM_IS_UART && (ioctl(fd, TIOCGSERIAL, &ss) || ss.type == PORT_UNKNOWN)) {
		close(fd);
		snprintf(why, size, "no third serial port: run-qemu.sh --log FILE");
		return -1;
	}
	if (!tcgetattr(fd, &t)) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL;
		t.c_cflag &= ~CRTSCTS;
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

const char *stream_open(void)
{
	static char why[80];
	uint8_t key[SEAL_KEY_LEN];
	char hex[2 * SEAL_KEY_LEN + 1];
	size_t i;
	int fd, err;

	st.port_path = open(KRSI_STREAM_DEV, O_PATH | O_CLOEXEC);
	fd = open_port(why, sizeof(why));
	if (fd < 0)
		return why;
	if (getrandom(key, sizeof(key), 0) != sizeof(key)) {
		snprintf(why, sizeof(why), "none (no key: getrandom: %s)", errname(errno));
		close(fd);
		return why;
	}
	for (i = 0; i < SEAL_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	seal_start(&st.sealer, key);
	explicit_bzero(key, sizeof(key));
	st.port = fd;
	err = stream_only("seal", "%s", hex);
	explicit_bzero(hex, sizeof(hex));
	if (err) {
		seal_forget(&st.sealer);
		snprintf(why, sizeof(why), "none (" KRSI_STREAM_DEV ": %s)", errname(-err));
		return why;
	}
	st.sealing = true;
	st.beat_ms = now_ms();
	return KRSI_STREAM_DEV ", sealed";
}

/* The chain of keys goes on. */
void stream_reopen(void)
{
	char why[80];

	if (!st.sealing || st.port >= 0 || now_ms() - st.reopen_ms < REOPEN_MS)
		return;
	st.reopen_ms = now_ms();
	st.port = open_port(why, sizeof(why));
	if (st.port < 0)
		return;
	st.err[0] = '\0';
	st.beat_ms = now_ms();
	emit_reader("stream", 0, KRSI_STREAM_DEV " open again: records %llu to %llu "
		    "may be missing there (this log has them)", st.unstreamed,
		    record_next_seq() - 1);
	write_state();
}

void stream_beat(void)
{
	char held[256];
	int err;

	if (st.port < 0 || now_ms() - st.beat_ms < BEAT_MS)
		return;
	st.beat_ms = now_ms();
	held_text(held, sizeof(held));
	err = stream_only("beat", "%llu records logged%s%s", record_next_seq(),
			  held[0] ? "; " : "", held);
	(void)err;	/* stream_write() took it */
}

/* DRAIN_MS at most. */
void stream_drain(void)
{
	long long until = now_ms() + DRAIN_MS;
	int queued;

	while (st.port >= 0 && !ioctl(st.port, TIOCOUTQ, &queued) && queued > 0 &&
	       now_ms() < until)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
}

void stream_describe(char *buf, size_t size)
{
	if (!st.sealing)
		snprintf(buf, size, "stream none");
	else if (st.port >= 0)
		snprintf(buf, size, "stream %s streaming", KRSI_STREAM_DEV);
	else
		snprintf(buf, size, "stream %s stopped %s", KRSI_STREAM_DEV, st.err);
}

static int stream_room(size_t len, size_t keep, const struct origin_copy *copy,
		       void *dest)
{
	(void)copy;
	(void)dest;
	return st.port >= 0 ? buf_takes(&st.pending, len + SEALED_EXTRA + keep) : 0;
}

/* Sealed without its newline, which the seal's line ends with. */
static void stream_take(const struct event_view *v, const struct strbuf *line,
			struct origin_copy *copy, void *dest)
{
	(void)copy;
	(void)dest;
	if (st.port < 0)
		return;
	if (!st.pending.len)
		st.first = v->seq;
	seal_line(&st.sealer, line->buf, line->len - 1, &st.pending);
}

/* Never holds records back: a failed write is said in the log. */
static int stream_flush(void)
{
	if (st.port >= 0 && (st.pending.len || st.pending.failed))
		stream_write();
	return 0;
}

const struct sink stream_sink = {
	.room = stream_room,
	.write = stream_take,
	.flush = stream_flush,
};
