/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_GUEST_H
#define KRSI_GUEST_H

/*
 * Helpers for the in-guest tests of KRSI: a target file that only the test
 * programs judge, reading a hook file, and checks on errno values that
 * print the errno's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "errname.h"
#include "hookfile.h"

/*
 * Check that @err (0 or a negative errno) is @want (0 or a negative errno),
 * naming both errnos.
 */
static inline bool check_err(int err, int want, const char *what)
{
	return check(err == want, "%s: %s (want %s)", what,
		     err ? errname(-err) : "ok", want ? errname(-want) : "ok");
}

/*
 * @s with its newlines shown as spaces, for one-line messages; the result
 * stays valid until the second next call.
 */
static inline const char *oneline(const char *s)
{
	static char bufs[2][256];
	static int next;
	char *buf = bufs[next++ % 2];
	size_t i;

	for (i = 0; s[i] && i < sizeof(bufs[0]) - 1; i++)
		buf[i] = s[i] == '\n' ? ' ' : s[i];
	buf[i] = '\0';
	return buf;
}

/*
 * Run @fn in a child process, as user (and group) @uid unless @uid is 0,
 * and return what it returned: 0 or a negative errno; -ECHILD when the
 * child could not become @uid or did not exit normally.
 */
static inline int in_child(uid_t uid, int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(200);
		_exit(-fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 200)
		return -ECHILD;
	return -WEXITSTATUS(status);
}

/* Create an empty file at @path and return its inode number, 0 on error. */
static inline unsigned long make_target(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return 0;
	close(fd);
	if (stat(path, &st))
		return 0;
	return st.st_ino;
}

/* Open and close @path: 0, or the negative errno open() failed with. */
static inline int try_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * The content of /sys/kernel/security/bpf/@hook, the hook's programs one
 * per line, in @buf; "?" when it cannot be read.
 */
static inline const char *hook_list(const char *hook, char *buf, size_t size)
{
	if (krsi_hook_read(hook, buf, size) < 0)
		snprintf(buf, size, "?");
	return buf;
}

#endif
