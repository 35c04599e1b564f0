// SPDX-License-Identifier: GPL-2.0
/*
 * Booted with krsi.tests=records and audit_exec attached without
 * no_tmp_exec (run-tests.sh): programs run from anywhere, so the audit
 * guarantee stands on its own.  Every record names the file the kernel
 * ran, or marks what is cut; never something the caller chose: paths of
 * 255, 256 and 4,000 bytes in full, one longer than PATH_MAX as its last
 * components, marked; a file name of every byte but NUL and '/'; argv[0]
 * and comm set to another program's; a symlink; a memfd; arguments that
 * do not fit, marked.  The records are read back from the log as JSON
 * and parsed with the tools' own parser.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "event_format.h"
#include "strbuf.h"

#define TINY	"/tests/tiny"	/* a static program that exits 0 */
#define BASE	"/tmp/records"

static char *copy_of_tiny;
static size_t tiny_size;

/* The last record's number, to read only what comes after. */
static unsigned long long last_seq(void)
{
	unsigned long long seq = 0;
	FILE *f = popen("krsi events --json -n 1", "r");

	if (f) {
		if (fscanf(f, "{\"seq\":%llu,", &seq) != 1)
			seq = 0;
		pclose(f);
	}
	return seq;
}

/* Put a copy of TINY at @path (relative to the working directory). */
static bool install(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	bool ok = fd >= 0 && write(fd, copy_of_tiny, tiny_size) == (ssize_t)tiny_size;

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * Run @path with @argv, the caller named @comm first (prctl), from the
 * directory @dir: its pid, or -1 if it did not run.
 */
static pid_t run(const char *dir, const char *path, char *const argv[],
		 const char *comm)
{
	char *envp[] = { "HOME=/", NULL };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if ((dir && chdir(dir)) || (comm && prctl(PR_SET_NAME, comm)))
			_exit(126);
		execve(path, argv, envp);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return pid;
}

/* The exec record of process @pid after record @since, parsed: 0 or -ENOENT. */
struct found {
	struct strbuf raw, line;	/* the JSON line, and the one parsed */
	struct event_view v;
};

static int record_of(pid_t pid, unsigned long long since, struct found *f)
{
	char cmd[96], buf[65536];
	int tries, err = -ENOENT;
	FILE *p;

	memset(f, 0, sizeof(*f));
	/* The reader runs SCHED_FIFO: the record is there at once; allow 2 s. */
	for (tries = 0; tries < 20 && err; tries++) {
		snprintf(cmd, sizeof(cmd), "krsi events --json --policy audit_exec --seq %llu",
			 since + 1);
		p = popen(cmd, "r");
		while (p && err && fgets(buf, sizeof(buf), p)) {
			size_t len = strcspn(buf, "\n");

			sb_reset(&f->line);
			sb_put(&f->line, buf, len);
			if (event_parse(f->line.buf, len, &f->v))
				continue;
			if (f->v.type == EVENT_EXEC && f->v.pid == (unsigned)pid) {
				/* Parsed again into a copy that stays. */
				sb_reset(&f->line);
				sb_put(&f->line, buf, len);
				sb_put(&f->raw, buf, len);
				event_view_free(&f->v);
				err = event_parse(f->line.buf, len, &f->v);
			} else {
				event_view_free(&f->v);
			}
		}
		if (p)
			pclose(p);
		if (err)
			usleep(100000);
	}
	return err;
}

static void found_free(struct found *f)
{
	event_view_free(&f->v);
	sb_free(&f->line);
	sb_free(&f->raw);
}

static bool is(struct event_str s, const char *want, size_t len)
{
	return s.len == len && !memcmp(s.s, want, len);
}

/* Run @path (absolute) and check that its record names it, uncut. */
static void check_named(const char *path, const char *what)
{
	char *argv[] = { "tiny", NULL };
	unsigned long long since = last_seq();
	pid_t pid = run(NULL, path, argv, NULL);
	struct found f;

	if (!check(pid > 0, "%s: it runs", what))
		return;
	if (!check(!record_of(pid, since, &f), "%s: its record is in the log", what))
		return;
	check(is(f.v.file, path, strlen(path)) && !f.v.cut,
	      "%s: the record names it in full (%zu bytes), nothing cut", what,
	      f.v.file.len);
	found_free(&f);
}

/*
 * A path of exactly @len bytes, BASE/d.../d.../tiny, its directories at
 * most @width bytes long, made: malloc()ed, or NULL.
 */
static char *deep_path(size_t len, size_t width)
{
	size_t at = strlen(BASE), left = len - at - strlen("/tiny");
	char *path = len > at + 5 ? malloc(len + 1) : NULL;

	if (!path || left == 1) {
		free(path);
		return NULL;
	}
	memcpy(path, BASE, at);
	while (left) {
		size_t take = left < width + 1 ? left : width + 1;

		if (left - take == 1)
			take--;		/* never a lone '/' at the end */
		path[at] = '/';
		memset(path + at + 1, 'd', take - 1);
		at += take;
		left -= take;
		path[at] = '\0';
		mkdir(path, 0755);
	}
	memcpy(path + at, "/tiny", 6);
	return path;
}

static void test_lengths(void)
{
	static const size_t lengths[] = { 254, 255, 256, 300, 4000 };
	size_t i;

	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		char *path = deep_path(lengths[i], 200), what[64];

		snprintf(what, sizeof(what), "a path of %zu bytes", lengths[i]);
		if (check(path && strlen(path) == lengths[i] && install(path),
			  "%s: made", what))
			check_named(path, what);
		free(path);
	}
}

/*
 * A path longer than PATH_MAX: run as ./tiny from its directory, reached
 * by chdir() in steps.  Its record: the last whole components, cut.
 */
static void test_beyond_path_max(void)
{
	char *top = deep_path(4000, 200), *argv[] = { "./tiny", NULL };
	char name[201], real[8192];
	unsigned long long since;
	struct found f;
	size_t len;
	pid_t pid;
	int i;

	if (!top)
		return;
	top[strlen(top) - 5] = '\0';		/* the directory of the 4000 */
	memset(name, 'e', 200);
	name[200] = '\0';
	snprintf(real, sizeof(real), "%s", top);
	check(!chdir(top), "chdir into the 4,000-byte directory");
	for (i = 0; i < 3; i++) {
		mkdir(name, 0755);
		if (chdir(name))
			break;
		len = strlen(real);
		snprintf(real + len, sizeof(real) - len, "/%s", name);
	}
	len = strlen(real);
	snprintf(real + len, sizeof(real) - len, "/tiny");
	check(i == 3 && install("tiny") && strlen(real) > 4096,
	      "a program at a path of %zu bytes, beyond PATH_MAX", strlen(real));
	since = last_seq();
	pid = run(NULL, "./tiny", argv, NULL);
	if (check(pid > 0, "it runs, as ./tiny") &&
	    check(!record_of(pid, since, &f), "beyond PATH_MAX: its record is in the log")) {
		len = f.v.file.len;
		check((f.v.cut & KRSI_CUT_FILE) && len > 3000 && len < 4096 &&
		      f.v.file.s[0] == '/' &&
		      !memcmp(f.v.file.s, real + strlen(real) - len, len),
		      "beyond PATH_MAX: the record holds its last %zu bytes, whole components, marked cut",
		      len);
		check(strstr(f.raw.buf, "\"cut\":[\"file\"]") != NULL,
		      "beyond PATH_MAX: the JSON line says \"cut\":[\"file\"]");
		found_free(&f);
	}
	if (chdir("/"))
		check(false, "chdir /");
	free(top);
}

/* A file name of every byte but NUL and '/': 254 bytes, NAME_MAX allows 255. */
static void test_binary_name(void)
{
	char path[512], *argv[] = { "x", NULL };
	unsigned long long since;
	size_t at = strlen(BASE "/");
	struct found f;
	int c;
	pid_t pid;

	memcpy(path, BASE "/", at);
	for (c = 1; c < 256; c++)
		if (c != '/')
			path[at++] = (char)c;
	path[at] = '\0';
	if (!check(install(path), "a file named with every byte but NUL and '/'"))
		return;
	since = last_seq();
	pid = run(NULL, path, argv, NULL);
	if (check(pid > 0, "binary name: it runs") &&
	    check(!record_of(pid, since, &f), "binary name: its record is in the log")) {
		check(is(f.v.file, path, at) && !f.v.cut,
		      "binary name: the record holds every byte of it, escaped in JSON and back");
		check(!memchr(f.raw.buf, '\n', f.raw.len) &&
		      strstr(f.raw.buf, "\\u0001\\u0002") && strstr(f.raw.buf, "\\u00ff\""),
		      "binary name: the JSON line escapes what is not printable");
		found_free(&f);
	}
}

/* argv[0] and comm of another program's: the file is still the real one. */
static void test_names(void)
{
	char *argv[] = { "/usr/bin/krsi-secret", "x", NULL };
	char *plain = BASE "/plain", *link = BASE "/krsi-secret";
	unsigned long long since;
	struct found f;
	pid_t pid;

	check(install(plain) && !symlink(plain, link), "a program, and a symlink to it named krsi-secret");
	since = last_seq();
	pid = run(NULL, plain, argv, "krsi-secret");
	if (check(pid > 0, "argv[0] and comm of krsi-secret: it runs") &&
	    check(!record_of(pid, since, &f), "argv[0] and comm of krsi-secret: recorded")) {
		check(is(f.v.file, plain, strlen(plain)),
		      "argv[0] and comm: the file is the real one, not krsi-secret");
		check(f.v.nr_args == 2 && is(f.v.args[0], argv[0], strlen(argv[0])),
		      "argv[0]: recorded as an argument, where the caller put it");
		check(is(f.v.comm, "krsi-secret", 11),
		      "comm: recorded as the caller's name, which it is");
		found_free(&f);
	}
	since = last_seq();
	pid = run(NULL, link, argv, NULL);
	if (check(pid > 0, "a symlink named krsi-secret: it runs") &&
	    check(!record_of(pid, since, &f), "a symlink named krsi-secret: recorded")) {
		check(is(f.v.file, plain, strlen(plain)),
		      "a symlink: the record names the file behind it");
		found_free(&f);
	}
}

/* A memfd: no path at all, the kernel's name for it. */
static void test_memfd(void)
{
	int fd = syscall(SYS_memfd_create, "code", 0), status;
	char *argv[] = { "code", NULL }, *envp[] = { NULL };
	unsigned long long since = last_seq();
	struct found f;
	pid_t pid;

	if (!check(fd >= 0 && write(fd, copy_of_tiny, tiny_size) == (ssize_t)tiny_size,
		   "a memfd with a program in it"))
		return;
	pid = fork();
	if (pid == 0) {
		syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
		_exit(127);
	}
	close(fd);
	if (check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		  !WEXITSTATUS(status), "execveat of the memfd runs") &&
	    check(!record_of(pid, since, &f), "memfd: recorded")) {
		check(is(f.v.file, "/memfd:code (deleted)", 21),
		      "memfd: the record names it as the kernel does: '%.*s'",
		      (int)f.v.file.len, f.v.file.s);
		found_free(&f);
	}
}

/* 100 arguments of 100 bytes: more than a record holds, marked cut. */
static void test_many_args(void)
{
	char *argv[102], arg[101];
	unsigned long long since = last_seq();
	struct found f;
	size_t i, whole = 0;
	pid_t pid;

	memset(arg, 'a', 100);
	arg[100] = '\0';
	argv[0] = "tiny";
	for (i = 1; i <= 100; i++)
		argv[i] = arg;
	argv[101] = NULL;
	pid = run(NULL, BASE "/plain", argv, NULL);
	if (check(pid > 0, "101 arguments: it runs") &&
	    check(!record_of(pid, since, &f), "101 arguments: recorded")) {
		for (i = 1; i < f.v.nr_args; i++)
			whole += is(f.v.args[i], arg, 100);
		check((f.v.cut & KRSI_CUT_ARGS) && f.v.nr_args < 101 &&
		      whole >= f.v.nr_args - 2,
		      "101 arguments: %zu recorded, marked cut", f.v.nr_args);
		found_free(&f);
	}
}

int main(void)
{
	int fd = open(TINY, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !(copy_of_tiny = malloc(st.st_size)) ||
	    read(fd, copy_of_tiny, st.st_size) != st.st_size) {
		check(false, "read %s", TINY);
		return check_exit();
	}
	close(fd);
	tiny_size = st.st_size;
	mkdir(BASE, 0755);
	check(system("krsi status | grep -q '^  no_tmp_exec  *- '") == 0,
	      "no_tmp_exec is not attached: audit_exec stands on its own");
	test_lengths();
	test_beyond_path_max();
	test_binary_name();
	test_names();
	test_memfd();
	test_many_args();
	free(copy_of_tiny);
	return check_exit();
}
