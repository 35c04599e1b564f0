// SPDX-License-Identifier: GPL-2.0
/*
 * The audit stream cut under its reader: booted with krsi.tests=stream
 * and krsi.policies=audit_exec, that is without protect_log, which
 * refuses every route used here (tests/suites/boot/boot_bypass.c), root
 * takes the stream's port from the reader three ways:
 *  - it hangs the port up (TIOCVHANGUP), and puts /dev/null's device
 *    under the port's name: the reader's next write fails, krsi status
 *    says STOPPED with the errno and exits 1, the log says where; the
 *    reader opens the port again by the node it found at start (its
 *    O_PATH descriptor), not by the name, and names the records the host
 *    may miss, and the host finds them missing at that record;
 *  - on an 8250 port (x86_64), it stops the port's output
 *    (tcflow(TCOOFF)) for 45 s: the reader is stuck in its write, which
 *    krsi status must say (STALLED, exit 1), and the stream silent while
 *    the guest runs, which run-qemu.sh must say, and when it speaks
 *    again;
 *  - it writes a line of its own into the port, a record with a made-up
 *    seal, which run-qemu.sh must call forged while the guest still
 *    runs.
 * And it fills the log's file system: the reader holds the records back
 * (none consumed), says so at once and in every heartbeat, krsi status
 * and krsi doctor say STALLED with the reason and exit 1, and the host
 * calls the trail not verified; once root frees the space, the records
 * come, late, in order.
 * The host's side is host/stream.sh.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>

#include "guest.h"
#include "krsi_stream.h"

#define AWAY	KRSI_STREAM_DEV ".away"

static int sh(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
}

static int hang_up(void)
{
	int fd = open(KRSI_STREAM_DEV, O_WRONLY | O_NOCTTY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, TIOCVHANGUP))
		err = -errno;
	close(fd);
	return err;
}

static int forge(void)
{
	static const char line[] = "{\"seq\":1,\"time_ns\":1,\"pid\":1,\"uid\":0,"
		"\"comm\":\"forged-by-root\",\"policy\":\"reader\",\"event\":\"stop\","
		"\"what\":\"\",\"stream\":3,\"seal\":\"00000000000000000000000000000000\"}\n";
	int fd = open(KRSI_STREAM_DEV, O_WRONLY | O_NOCTTY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
		err = -errno;
	close(fd);
	return err;
}

/* Stop the port's output for @seconds, as flow control would. */
static int stop_output(unsigned int seconds)
{
	int fd = open(KRSI_STREAM_DEV, O_WRONLY | O_NOCTTY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (tcflow(fd, TCOOFF))
		err = -errno;
	sleep(seconds);
	if (tcflow(fd, TCOON) && !err)
		err = -errno;
	close(fd);
	return err;
}

int main(void)
{
	check(!sh("krsi status | grep -q '^stream:   " KRSI_STREAM_DEV ", sealed'"),
	      "stream: the reader streams, sealed");
	check(!sh("krsi status >/dev/null"), "stream: krsi status exits 0");

	/* Hung up, and another device under its name. */
	check_err(hang_up(), 0, "stream: root hangs up the stream's port (TIOCVHANGUP)");
	check(!rename(KRSI_STREAM_DEV, AWAY), "stream: root moves " KRSI_STREAM_DEV " away");
	check(!mknod(KRSI_STREAM_DEV, S_IFCHR | 0600, makedev(1, 3)),
	      "stream: and puts /dev/null's device under its name");
	/* A record, whose write finds the port hung up; the reader opens it
	 * again 5 s later.
	 */
	sh("/bin/true stream-cut");
	sleep(1);
	check(sh("krsi status >/dev/null 2>&1") != 0, "stream: krsi status exits 1 while it is cut");
	check(!sh("krsi status | grep -q '^stream:   STOPPED (" KRSI_STREAM_DEV ": EIO)'"),
	      "stream: krsi status says STOPPED, with the errno");
	check(!sh("krsi events | grep -q 'error " KRSI_STREAM_DEV ": EIO: the stream stops here'"),
	      "stream: the log says where the stream stopped");
	sleep(6);
	check(!sh("krsi events | grep -q 'open again: records [0-9]* to [0-9]* may be missing there'"),
	      "stream: the reader opened its port again, not the node under its name, "
	      "and named the records the host may miss");
	check(!sh("krsi status | grep -q '^stream:   " KRSI_STREAM_DEV ", sealed'") &&
	      !sh("krsi status >/dev/null"), "stream: krsi status says it streams, exits 0");
	unlink(KRSI_STREAM_DEV);
	rename(AWAY, KRSI_STREAM_DEV);

	/* Silent for longer than the host waits (run-qemu.sh, 30 s), and the
	 * reader stuck in its write meanwhile: krsi status must see it.  An
	 * 8250 port honours TCOOFF; a virtio console has no flow control to
	 * stop (hvc_console.c has no stop/start operations): arm64's stream
	 * goes on.
	 */
	if (KRSI_STREAM_IS_UART) {
		pid_t child = fork();
		int status = -1;

		if (child == 0)
			_exit(stop_output(45) ? 1 : 0);
		sleep(1);
		/* More than the port's 4 KB of lines: the reader's write waits. */
		sh("i=0; while [ $i -lt 60 ]; do /bin/true stream-stopped-$i; i=$((i + 1)); done");
		sleep(40);
		check(sh("krsi status >/dev/null 2>&1") != 0 &&
		      !sh("krsi status | grep -q '^reader: .*, but STALLED: nothing from it for [0-9]* s'"),
		      "stream: krsi status says the reader is stalled, and exits 1");
		check(sh("krsi doctor >/dev/null 2>&1") != 0 &&
		      !sh("krsi doctor | grep -q '^PROBLEM  the audit reader (pid [0-9]*) is STALLED: nothing from it for [0-9]* s'"),
		      "stream: krsi doctor says the reader is stalled, a problem");
		waitpid(child, &status, 0);
		check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "stream: root stopped the port's output for 45 s (TCOOFF), then let it go");
		sleep(8);
		check(!sh("krsi status >/dev/null"), "stream: krsi status exits 0 again");
	}

	/* The log's file system full: its writes fail (ENOSPC) and the
	 * records wait in their rings, said by the reader, krsi status and
	 * krsi doctor, and by the heartbeat to the host.
	 */
	check(!sh("dd if=/dev/zero of=/var/log/krsi/filler bs=64k 2>/dev/null; "
		  "test -s /var/log/krsi/filler"),
	      "stream: root fills the log's file system");
	sh("i=0; while [ $i -lt 60 ]; do /bin/true stream-held-$i; i=$((i + 1)); done");
	sleep(12);
	check(sh("krsi status >/dev/null 2>&1") != 0 &&
	      !sh("krsi status | grep -q '^reader: .*, but STALLED: records held back for "
		  "[0-9]* s ([0-9]* bytes in their buffers): write /var/log/krsi: ENOSPC'"),
	      "stream: krsi status says the reader holds records back, why, and exits 1");
	check(sh("krsi doctor >/dev/null 2>&1") != 0 &&
	      !sh("krsi doctor | grep -q '^PROBLEM  the audit reader (pid [0-9]*) is STALLED: "
		  "records held back for [0-9]* s, [0-9]* bytes in their buffers: write "
		  "/var/log/krsi: ENOSPC'"),
	      "stream: krsi doctor says so, a problem");
	check(!unlink("/var/log/krsi/filler"), "stream: root frees the space");
	sleep(3);
	check(!sh("krsi status >/dev/null"), "stream: krsi status exits 0 again");
	check(!sh("krsi events | grep -q 'reader: resume: records held back for [0-9]* s "
		  "are logged again (write /var/log/krsi: ENOSPC)'"),
	      "stream: the reader says the records held back are logged again");
	check(!sh("krsi events | grep -o 'stream-held-[0-9][0-9]*' | "
		  "awk '$0 != \"stream-held-\" n++ { exit 1 } END { exit n != 60 }'"),
	      "stream: all 60 of them in the log, once each, in order");

	/* A line of root's own, with a seal made up; run-qemu.sh checks
	 * what came every 10 s.
	 */
	check(!forge(), "stream: root writes a line of its own into the port");
	sleep(15);
	return check_exit();
}
