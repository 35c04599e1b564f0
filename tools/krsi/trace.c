// SPDX-License-Identifier: GPL-2.0
/*
 * krsi trace: every LSM hook call of a command, a process or the whole
 * system, with each BPF LSM program that ran on it, in run order, what
 * each returned, and which LSM decided, as strace shows system calls.
 *
 * The kernel does the tracing (/sys/kernel/security/krsi/trace, see
 * tools/lib/tracefmt.h for its lines); this names each program's policy,
 * each result's errno, and follows the command or process until it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errname.h"
#include "json.h"
#include "krsi.h"
#include "tracefmt.h"

#define TRACE_FILE	"/sys/kernel/security/krsi/trace"
#define TRACE_MAX_HOOKS	64

static const char trace_usage[] =
"usage: krsi trace [--json] [-o FILE] [--hook HOOK]... [-p PID | -- COMMAND [ARG]...]\n";

struct trace_opts {
	bool json;
	const char *out_file;
	const char *hooks[TRACE_MAX_HOOKS];
	int nr_hooks;
	pid_t pid;
	char **command;
};

static volatile sig_atomic_t trace_stop;

static void on_signal(int sig)
{
	(void)sig;
	trace_stop = 1;
}

/* The policy a traced program belongs to, as far as this tool knows. */
static const char *prog_policy(const char *hook, const struct trace_prog *p)
{
	const struct policy *policy = policy_of(hook, p->name);

	return policy ? policy->name : NULL;
}

/* @s as the kernel wrote it: a name cannot start a line of its own. */
static void print_escaped(FILE *out, const char *s)
{
	const unsigned char *c;

	for (c = (const unsigned char *)s; *c; c++)
		if (*c > ' ' && *c < 0x7f && *c != '\\')
			fputc(*c, out);
		else
			fprintf(out, "\\%03o", *c);
}

static void print_text(FILE *out, const struct trace_call *c)
{
	int i;

	if (c->lost) {
		fprintf(out, "krsi trace: %llu calls not traced: the kernel's buffer was full\n",
			c->lost);
		return;
	}
	fprintf(out, "%d ", c->pid);
	print_escaped(out, c->comm);
	fprintf(out, " %s", c->hook);
	if (c->object[0]) {
		fputc(' ', out);
		print_escaped(out, c->object);
	}
	if (!c->ended)
		fputs(" = ? (written before the call ended)", out);
	else if (c->ret < 0)
		fprintf(out, " = %d %s by %s", c->ret, errname(-c->ret), c->by);
	else
		fprintf(out, " = %d by %s", c->ret, c->by);
	for (i = 0; i < c->nr_progs; i++) {
		const struct trace_prog *p = &c->progs[i];
		const char *policy = prog_policy(c->hook, p);

		fprintf(out, "%s %s#%u %s%s%s", i ? "," : ";", p->tramp ? "bpf" : "krsi",
			p->id, policy ? policy : "", policy ? "/" : "", p->name);
		if (p->no_value)
			;	/* a void hook's: it returns nothing */
		else if (!p->ret_known)
			fputs(" ?", out);
		else if (p->ret < 0)
			fprintf(out, " %d %s", p->ret, errname(-p->ret));
		else
			fprintf(out, " %d", p->ret);
	}
	if (c->more)
		fprintf(out, ", and %u more", c->more);
	fputc('\n', out);
}

static void print_json(FILE *out, const struct trace_call *c)
{
	int i;

	if (c->lost) {
		fprintf(out, "{\"lost\":%llu}\n", c->lost);
		return;
	}
	fprintf(out, "{\"pid\":%d,\"tid\":%d,\"comm\":", c->pid, c->tid);
	json_str(out, c->comm);
	fputs(",\"hook\":", out);
	json_str(out, c->hook);
	fputs(",\"object\":", out);
	if (c->object[0])
		json_str(out, c->object);
	else
		fputs("null", out);
	if (c->ended) {
		fprintf(out, ",\"ret\":%d,\"decided_by\":", c->ret);
		if (strcmp(c->by, "none"))
			json_str(out, c->by);
		else
			fputs("null", out);
	} else {
		fputs(",\"ret\":null,\"decided_by\":null,\"unfinished\":true", out);
	}
	fputs(",\"lsms\":[", out);
	for (i = 0; i < c->nr_lsms; i++) {
		if (i)
			fputc(',', out);
		json_str(out, c->lsms[i]);
	}
	fputs("],\"programs\":[", out);
	for (i = 0; i < c->nr_progs; i++) {
		const struct trace_prog *p = &c->progs[i];
		const char *policy = prog_policy(c->hook, p);

		fprintf(out, "%s{\"lsm\":\"%s\",\"id\":%u,\"name\":", i ? "," : "",
			p->tramp ? "bpf" : "krsi", p->id);
		json_str(out, p->name);
		fputs(",\"policy\":", out);
		if (policy)
			json_str(out, policy);
		else
			fputs("null", out);
		if (p->ret_known)
			fprintf(out, ",\"ret\":%d}", p->ret);
		else
			fputs(",\"ret\":null}", out);
	}
	fprintf(out, "],\"more_programs\":%u}\n", c->more);
}

/*
 * Print every whole line in @buf (@len bytes), keep the part of a line
 * that has not ended; the new length, or -1 for a line that is not the
 * trace's.
 */
static ssize_t print_lines(FILE *out, bool json, char *buf, size_t len)
{
	static struct trace_call call;
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', len - (start - buf)))) {
		*nl = '\0';
		if (trace_parse(start, &call)) {
			fprintf(stderr, "krsi: trace: a line the kernel wrote is not understood: %s\n",
				start);
			return -1;
		}
		if (json)
			print_json(out, &call);
		else
			print_text(out, &call);
		start = nl + 1;
	}
	len -= start - buf;
	memmove(buf, start, len);
	fflush(out);
	return len;
}

/*
 * Read what the kernel wrote until @done says the traced ones are gone
 * (then read what is left) or a signal stops it.
 */
static int follow(int fd, FILE *out, bool json, pid_t child, pid_t pid,
		  int *child_status)
{
	static char buf[64 * 1024];
	size_t len = 0;
	bool gone = false;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (!gone && child > 0 && waitpid(child, child_status, WNOHANG) == child)
			gone = true;
		if (!gone && pid > 0 && kill(pid, 0) && errno == ESRCH)
			gone = true;
		if (trace_stop)
			gone = true;
		if (!gone && poll(&pfd, 1, 200) < 0 && errno != EINTR) {
			fprintf(stderr, "krsi: trace: poll %s: %s\n", TRACE_FILE,
				strerror(errno));
			return -1;
		}
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (gone)
				return 0;
			continue;
		}
		if (n <= 0) {
			fprintf(stderr, "krsi: trace: read %s: %s\n", TRACE_FILE,
				n ? strerror(errno) : "end of file");
			return -1;
		}
		n = print_lines(out, json, buf, len + n);
		if (n < 0)
			return -1;
		len = n;
		if (len == sizeof(buf) - 1) {
			fprintf(stderr, "krsi: trace: a line longer than %zu bytes\n", len);
			return -1;
		}
	}
}

static int parse_args(int argc, char **argv, struct trace_opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--")) {
			if (i + 1 == argc) {
				fprintf(stderr, "krsi: trace: -- needs a command\n");
				return -1;
			}
			o->command = argv + i + 1;
			break;
		} else if (i + 1 == argc &&
			   (!strcmp(a, "-o") || !strcmp(a, "--hook") || !strcmp(a, "-p"))) {
			fprintf(stderr, "krsi: trace: %s needs a value\n", a);
			return -1;
		} else if (!strcmp(a, "-o")) {
			o->out_file = argv[++i];
		} else if (!strcmp(a, "--hook")) {
			if (o->nr_hooks == TRACE_MAX_HOOKS) {
				fprintf(stderr, "krsi: trace: at most %d hooks\n",
					TRACE_MAX_HOOKS);
				return -1;
			}
			o->hooks[o->nr_hooks++] = argv[++i];
		} else if (!strcmp(a, "-p")) {
			char *end;
			long v;

			errno = 0;
			v = strtol(argv[++i], &end, 10);
			if (errno || *end || v <= 0 || v > 0x3fffffff) {
				fprintf(stderr, "krsi: trace: -p wants a process id, not '%s'\n",
					argv[i]);
				return -1;
			}
			o->pid = (pid_t)v;
		} else {
			fprintf(stderr, "krsi: trace: unknown argument '%s'\n%s", a,
				trace_usage);
			return -1;
		}
	}
	if (o->pid && o->command) {
		fprintf(stderr, "krsi: trace: -p and a command: one or the other\n");
		return -1;
	}
	return 0;
}

/* One command to the kernel's trace file; the message says what failed. */
static int trace_cmd(int fd, const char *fmt, const char *arg, long num)
{
	char cmd[128];
	int n = arg ? snprintf(cmd, sizeof(cmd), fmt, arg) :
		      snprintf(cmd, sizeof(cmd), fmt, num);

	if (n < 0 || (size_t)n >= sizeof(cmd)) {
		fprintf(stderr, "krsi: trace: '%s' is too long\n", arg ? arg : "");
		return -1;
	}
	if (write(fd, cmd, n) == n)
		return 0;
	if (errno == ENOENT && arg)
		fprintf(stderr, "krsi: trace: no hook '%s' that KRSI can trace (ENOENT; krsi hooks lists them)\n",
			arg);
	else if (errno == ESRCH)
		fprintf(stderr, "krsi: trace: no process %ld (ESRCH)\n", num);
	else
		fprintf(stderr, "krsi: trace: '%s' to %s: %s (%s)\n", cmd,
			TRACE_FILE, strerror(errno), errname(errno));
	return -1;
}

static int open_trace(void)
{
	int fd = open(TRACE_FILE, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		fprintf(stderr, "krsi: trace: %s: no such file (ENOENT): this kernel has no KRSI trace, or securityfs is not mounted\n",
			TRACE_FILE);
	else if (errno == EPERM || errno == EACCES)
		fprintf(stderr, "krsi: trace: %s: %s (%s): tracing needs root (CAP_MAC_ADMIN)\n",
			TRACE_FILE, strerror(errno), errname(errno));
	else if (errno == EBUSY)
		fprintf(stderr, "krsi: trace: %s: someone else is tracing (EBUSY): one trace at a time\n",
			TRACE_FILE);
	else
		fprintf(stderr, "krsi: trace: %s: %s (%s)\n", TRACE_FILE,
			strerror(errno), errname(errno));
	return -1;
}

/*
 * Start @argv stopped, so that the trace can name it before it runs: the
 * child stops itself, and runs on when continued.  (Waiting on a pipe
 * would put the child's own read of it in the trace.)
 */
static pid_t spawn_stopped(char **argv)
{
	pid_t child = fork();
	int status;

	if (child < 0) {
		fprintf(stderr, "krsi: trace: fork: %s\n", strerror(errno));
		return -1;
	}
	if (!child) {
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "krsi: trace: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status)) {
		fprintf(stderr, "krsi: trace: %s did not start\n", argv[0]);
		if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
		return -1;
	}
	return child;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_opts o = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	int fd = -1, status = 0, ret = 1, i;
	FILE *out = NULL;
	pid_t child = 0;

	if (parse_args(argc, argv, &o))
		return EXIT_USAGE;
	if (o.out_file) {
		out = fopen(o.out_file, "we");
		if (!out) {
			fprintf(stderr, "krsi: trace: %s: %s\n", o.out_file,
				strerror(errno));
			return 1;
		}
	} else {
		/* As strace: the command's own output stays on stdout. */
		out = o.command ? stderr : stdout;
	}
	fd = open_trace();
	if (fd < 0)
		goto out;
	for (i = 0; i < o.nr_hooks; i++) {
		if (trace_cmd(fd, "hook %s", o.hooks[i], 0)) {
			/* No such hook is a usage error, as an unknown policy. */
			if (errno == ENOENT)
				ret = EXIT_USAGE;
			goto out;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.command) {
		child = spawn_stopped(o.command);
		if (child < 0) {
			child = 0;
			goto out;
		}
		if (trace_cmd(fd, "pid %ld", NULL, child))
			goto out;
		kill(child, SIGCONT);
	} else if (o.pid) {
		if (trace_cmd(fd, "pid %ld", NULL, o.pid))
			goto out;
	} else if (trace_cmd(fd, "all", NULL, 0)) {
		goto out;
	}
	if (follow(fd, out, o.json, child, o.pid, &status))
		goto out;
	ret = 0;
	if (child > 0)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (child > 0 && !waitpid(child, &status, WNOHANG)) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (fd >= 0)
		close(fd);
	if (o.out_file && out && fclose(out)) {
		fprintf(stderr, "krsi: trace: %s: %s\n", o.out_file, strerror(errno));
		ret = 1;
	}
	return ret;
}
