// SPDX-License-Identifier: GPL-2.0
/*
 * The audit stream cut under its reader: booted with krsi.tests=stream
 * and krsi.policies=audit_exec, that is without protect_log, which
 * refuses every route used here (tests/suites/boot/boot_bypass.c), root
 * opens the stream's port and hangs it up (TIOCVHANGUP), and keeps its
 * device node away for 40 s.  The reader must say the stream stopped
 * (krsi status exits 1, naming the errno; the log has the record), keep
 * the heartbeat's silence visible to the host (run-qemu.sh says it), open
 * the port again once it is back, by its device number only, and name
 * the records the host may miss; the host's check (host/stream.sh) finds
 * the gap in the sealed stream, at the line where it is.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

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

int main(void)
{
	check(!sh("krsi status | grep -q '^stream:   " KRSI_STREAM_DEV ", sealed'"),
	      "stream: the reader streams, sealed");
	check(!sh("krsi status >/dev/null"), "stream: krsi status exits 0");

	/* Hung up, then away, a node of another device in its place. */
	check_err(hang_up(), 0, "stream: root hangs up the stream's port (TIOCVHANGUP)");
	check(!rename(KRSI_STREAM_DEV, AWAY), "stream: root moves " KRSI_STREAM_DEV " away");
	check(!mknod(KRSI_STREAM_DEV, S_IFCHR | 0600, makedev(1, 3)),
	      "stream: and puts /dev/null's device under its name");
	/* A record, whose write finds the port hung up. */
	sh("/bin/true stream-cut");
	sleep(2);
	check(sh("krsi status >/dev/null 2>&1") != 0, "stream: krsi status exits 1 while it is cut");
	check(!sh("krsi status | grep -q '^stream:   STOPPED (" KRSI_STREAM_DEV ": EIO)'"),
	      "stream: krsi status says STOPPED, with the errno");
	check(!sh("krsi events | grep -q 'error " KRSI_STREAM_DEV ": EIO: the stream stops here'"),
	      "stream: the log says where the stream stopped");
	check(!sh("krsi events | grep -q 'open again'"),
	      "stream: the reader does not take another device for its port");

	/* Silent for longer than the host waits (run-qemu.sh, 30 s). */
	sleep(40);
	sh("/bin/true stream-still-cut");
	unlink(KRSI_STREAM_DEV);
	check(!rename(AWAY, KRSI_STREAM_DEV), "stream: the port back");
	/* Reopened within a second; the host's watch looks every 5 s. */
	sleep(8);
	check(!sh("krsi events | grep -q 'open again: records [0-9]* to [0-9]* may be missing there'"),
	      "stream: the reader opened it again, and named the records the host may miss");
	check(!sh("krsi status | grep -q '^stream:   " KRSI_STREAM_DEV ", sealed'") &&
	      !sh("krsi status >/dev/null"), "stream: krsi status says it streams, exits 0");
	return check_exit();
}
