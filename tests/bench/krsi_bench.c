// SPDX-License-Identifier: GPL-2.0
/*
 * krsi_bench: the cost per call of three hooked system calls, with no
 * program, with 1 and with 8 allow-everything programs, attached through
 * KRSI (by BPF_PROG_ATTACH, and as KRSI links) and through mainline's
 * trampoline (trampoline links), all in one boot.  Rounds of the
 * configurations are interleaved, and each round starts the cycle of
 * configurations one further on, so that neither drift nor what the round
 * before left behind (memory to free after an RCU grace period, say)
 * falls on one configuration more than on another.
 *
 *	read(fd, buf, 1)	file_permission
 *	open() + close()	file_open
 *	vfork() + execve(tiny)	bprm_check_security
 *	send() + recv() of one byte on a UNIX datagram socket pair
 *				socket_sendmsg (a hot network hook)
 *
 * Then, in the same boot, the calls with the appliance's boot policies
 * attached (the lines of /etc/krsi/boot.conf, attached with `krsi attach`,
 * not locked), config "policies".  No audit reader runs in this boot (its
 * rounds share the CPU with nothing): audit_exec's buffer keeps the 1,500
 * records of the exec rounds, far from full.  "krsi_bench reader" runs in
 * the boot where /init started the reader (exec with the reader below).
 *
 * Then each boot policy alone, and none, in rounds of open and exec:
 * where the policies' cost goes ("policy CALL NAME|none MEDIAN MIN MAX").
 * "krsi_bench policies" measures these two alone, for work on a policy.
 *
 * Then the curve, in the same boot: pread() of one byte (file_permission)
 * with N = 0, 1, 2, 4, 8, 16, 32, 38 and 64 allow-all programs, on KRSI
 * links and (where 6.1 has them) on trampoline links, whose hook takes 38
 * at most (BPF_MAX_TRAMP_LINKS): the 39th attach is made, and what it
 * returned is printed, as is the refusal of KRSI's 65th.  Lines:
 *
 *	curve krsi|trampoline N MEDIAN_NS MIN_NS MAX_NS
 *	curve krsi|trampoline-refused N ERRNO_NAME
 *
 * "krsi_bench baseline" measures the calls alone, on a kernel booted
 * without KRSI in lsm= (or with lsm=capability only), after the same
 * preparation: the kernel's BTF read and the same programs loaded, so that
 * the process and the kernel's memory are in the same state as in the
 * KRSI boot.  Where 6.1 attaches no trampoline to a hook (arm64,
 * s390x) the trampoline configurations are left out.  Output, one line per call and
 * configuration:
 *
 *	bench CALL CONFIG MEDIAN_NS MIN_NS MAX_NS
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "btf_lookup.h"
#include "errname.h"
#include "hookfile.h"
#include "trampoline.h"

#define ROUNDS		15
#define MAX_PROGS	8
/* KRSI_MAX_PROGS, and the trampoline's BPF_MAX_TRAMP_LINKS on x86_64. */
#define CURVE_KRSI_MAX	64
#define CURVE_TRAMP_MAX	38
#define TINY		"/tests/tiny"

struct call {
	const char *name, *hook;
	long iterations;
	int (*run)(long n);
};

enum config {
	NONE, KRSI_1, KRSI_8, LINK_1, LINK_8, TRAMP_1, TRAMP_8, NR_CONFIGS
};
/* The configurations this architecture has (tests/lib/trampoline.h). */
static const int nr_configs = LSM_TRAMPOLINE ? NR_CONFIGS : TRAMP_1;
static const char *const config_names[] = {
	"krsi-empty", "krsi-1", "krsi-8", "krsi-link-1", "krsi-link-8",
	"trampoline-1", "trampoline-8",
};

static int bench_fd, sock_fds[2];

static int run_read(long n)
{
	char c;

	while (n--)
		if (pread(bench_fd, &c, 1, 0) != 1)
			return -1;
	return 0;
}

static int run_open(long n)
{
	while (n--) {
		int fd = open("/etc/passwd", O_RDONLY);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/*
 * vfork(), not fork(): fork() copies the page tables of this process,
 * which is larger in the KRSI boot (the kernel's BTF was read, programs
 * loaded) than in the baseline boot, and the copy, not the hooks, made
 * the difference between the two.
 */
static int run_exec(long n)
{
	char *argv[] = { TINY, NULL }, *envp[] = { NULL };

	while (n--) {
		int status;
		pid_t pid = vfork();

		if (pid == 0) {
			execve(TINY, argv, envp);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			return -1;
	}
	return 0;
}

/* The receive keeps the socket's queue from filling up. */
static int run_sendmsg(long n)
{
	char c = 0;

	while (n--)
		if (send(sock_fds[0], &c, 1, 0) != 1 ||
		    recv(sock_fds[1], &c, 1, 0) != 1)
			return -1;
	return 0;
}

static struct call calls[] = {
	{ "read", "file_permission", 50000, run_read },
	{ "open", "file_open", 10000, run_open },
	{ "exec", "bprm_check_security", 100, run_exec },
	{ "send", "socket_sendmsg", 10000, run_sendmsg },
};
#define NR_CALLS (sizeof(calls) / sizeof(calls[0]))

static double samples[NR_CALLS][NR_CONFIGS][ROUNDS];
static int progs[NR_CALLS][MAX_PROGS];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Let the kernel finish what the calls so far left for later: a file
 * closed, a task reaped, is freed by an RCU callback.  Under this
 * uniprocessor kernel's Tiny RCU, a context switch ends the grace period
 * and the callbacks run in ksoftirqd, which a yield lets run; a second
 * yield runs those the first queued.  Otherwise callbacks run at the next
 * timer tick, and whether a round's last ones ran inside the round or in
 * the next depended on where the ticks fell: up to 30 ns per open().
 */
static void settle(void)
{
	sched_yield();
	sched_yield();
}

/* A round: the calls and the work they left for later, per call. */
static double measure(struct call *c)
{
	double start;

	settle();
	start = now_ns();
	if (c->run(c->iterations))
		return -1;
	settle();
	return (now_ns() - start) / c->iterations;
}

/* A program named allow_@i: the names on one KRSI hook must differ. */
static int load_allow_n(int btf_id, int i)
{
	char name[16];

	snprintf(name, sizeof(name), "allow_%d", i);
	return load_allow(btf_id, name);
}

/*
 * Attach @n programs for @c the @config way; @links gets the links (KRSI
 * or trampoline), -1 where there is none.  A program attaches by
 * trampoline once only in its life, so each trampoline round loads fresh
 * programs.
 */
static int setup(struct call *c, size_t ci, enum config config, int *links, int n,
		 int btf_id)
{
	int i, err = 0;

	for (i = 0; i < n; i++)
		links[i] = -1;
	for (i = 0; i < n && !err; i++) {
		if (config == LINK_1 || config == LINK_8) {
			links[i] = krsi_link_create(c->hook, progs[ci][i]);
			err = links[i] < 0 ? links[i] : 0;
		} else if (config == TRAMP_1 || config == TRAMP_8) {
			int fd = load_allow_n(btf_id, i);

			links[i] = fd < 0 ? fd : tramp_attach(fd);
			if (fd >= 0)
				close(fd);
			err = links[i] < 0 ? links[i] : 0;
		} else {
			err = krsi_attach(c->hook, progs[ci][i], 0);
		}
	}
	return err;
}

static void teardown(struct call *c, size_t ci, enum config config, int *links, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (links[i] >= 0)
			close(links[i]);
		else if (config == KRSI_1 || config == KRSI_8)
			krsi_detach(c->hook, progs[ci][i]);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "@what @call @config MEDIAN MIN MAX" of the @n rounds @s. */
static void report_n(const char *what, const char *call, const char *config,
		     double *s, int n)
{
	qsort(s, n, sizeof(*s), cmp);
	printf("%s %s %s %.0f %.0f %.0f\n", what, call, config, s[n / 2], s[0],
	       s[n - 1]);
}

static void report(const char *call, const char *config, double *s)
{
	report_n("bench", call, config, s, ROUNDS);
}

/*
 * The curve: programs on file_permission against the cost of pread().
 * Each round measures every N of both kinds, in an order that starts one
 * further on each round, as the main rounds do.
 */
static const int curve_n[] = { 0, 1, 2, 4, 8, 16, 32, 38, 64 };
#define NR_CURVE (sizeof(curve_n) / sizeof(curve_n[0]))
enum curve_kind { CURVE_KRSI, CURVE_TRAMP, NR_CURVE_KINDS };
static const char *const curve_kinds[] = { "krsi", "trampoline" };
static struct call curve_call = { "read", "file_permission", 10000, run_read };
static double curve_samples[NR_CURVE_KINDS][NR_CURVE][ROUNDS];
static int curve_progs[CURVE_KRSI_MAX + 1];

/*
 * Attach program @i the @kind way: a link, or -errno.  A trampoline
 * takes a program once in its life, so each of its attaches loads one.
 */
static int curve_attach(enum curve_kind kind, int i, int btf_id)
{
	int fd, link;

	if (kind == CURVE_KRSI)
		return krsi_link_create(curve_call.hook, curve_progs[i]);
	fd = load_allow_n(btf_id, i);
	if (fd < 0)
		return fd;
	link = tramp_attach(fd);
	close(fd);
	return link;
}

static void curve_teardown(int *links, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (links[i] >= 0)
			close(links[i]);
}

/* Attach @n programs the @kind way into @links: 0 or the first -errno. */
static int curve_setup(enum curve_kind kind, int n, int btf_id, int *links)
{
	int i;

	for (i = 0; i < n; i++) {
		links[i] = curve_attach(kind, i, btf_id);
		if (links[i] < 0) {
			curve_teardown(links, i);
			return links[i];
		}
	}
	return 0;
}

/*
 * One attach past the most @kind takes, with the hook full: the errno
 * name it was refused with, or "attached".
 */
static const char *curve_refusal(enum curve_kind kind, int max, int btf_id)
{
	int links[CURVE_KRSI_MAX + 1], err;
	const char *what = "attached";

	err = curve_setup(kind, max, btf_id, links);
	if (err)
		return errname(-err);
	links[max] = curve_attach(kind, max, btf_id);
	if (links[max] < 0)
		what = errname(-links[max]);
	curve_teardown(links, max + 1);
	return what;
}

static int measure_curve(int btf_id)
{
	static const int max[] = { CURVE_KRSI_MAX, CURVE_TRAMP_MAX };
	int nr_kinds = LSM_TRAMPOLINE ? NR_CURVE_KINDS : CURVE_TRAMP;
	int links[CURVE_KRSI_MAX], r, i, j;
	size_t c;

	for (i = 0; i <= CURVE_KRSI_MAX; i++) {
		curve_progs[i] = load_allow_n(btf_id, i);
		if (curve_progs[i] < 0) {
			fprintf(stderr, "krsi_bench: curve: loading allow_%d: %s\n",
				i, errname(-curve_progs[i]));
			return -1;
		}
	}
	for (r = 0; r < ROUNDS; r++) {
		for (j = 0; j < nr_kinds * (int)NR_CURVE; j++) {
			int slot = (j + r) % (nr_kinds * (int)NR_CURVE);
			enum curve_kind kind = slot / NR_CURVE;
			int n = curve_n[slot % NR_CURVE], err;

			if (n > max[kind])
				continue;
			err = curve_setup(kind, n, btf_id, links);
			curve_samples[kind][slot % NR_CURVE][r] =
				err ? -1 : measure(&curve_call);
			if (!err)
				curve_teardown(links, n);
			if (err || curve_samples[kind][slot % NR_CURVE][r] < 0) {
				fprintf(stderr, "krsi_bench: curve: %s with %d: %s\n",
					curve_kinds[kind], n,
					errname(err ? -err : errno));
				return -1;
			}
		}
	}
	for (i = 0; i < nr_kinds; i++) {
		for (c = 0; c < NR_CURVE; c++) {
			char n[12];	/* any int, as gcc asks */

			if (curve_n[c] > max[i])
				continue;
			snprintf(n, sizeof(n), "%d", curve_n[c]);
			report_n("curve", curve_kinds[i], n, curve_samples[i][c],
				 ROUNDS);
		}
		printf("curve %s-refused %d %s\n", curve_kinds[i], max[i] + 1,
		       curve_refusal(i, max[i], btf_id));
	}
	for (i = 0; i <= CURVE_KRSI_MAX; i++)
		close(curve_progs[i]);
	return 0;
}

#define BOOT_POLICIES "$(grep -v -e '^#' -e '^$' /etc/krsi/boot.conf)"

/* The calls under the boot policies, in rounds of their own. */
static int measure_policies(void)
{
	double s[NR_CALLS][ROUNDS];
	size_t ci;
	int r;

	if (system("krsi attach " BOOT_POLICIES " >/dev/null")) {
		fprintf(stderr, "krsi_bench: krsi attach of the boot policies failed\n");
		return -1;
	}
	for (r = 0; r < ROUNDS; r++) {
		for (ci = 0; ci < NR_CALLS; ci++) {
			s[ci][r] = measure(&calls[ci]);
			if (s[ci][r] < 0)
				return -1;
		}
	}
	if (system("krsi detach " BOOT_POLICIES " >/dev/null"))
		return -1;
	for (ci = 0; ci < NR_CALLS; ci++)
		report(calls[ci].name, "policies", s[ci]);
	return 0;
}

/*
 * Where the boot policies' cost goes: each policy of boot.conf attached
 * alone, and none, in rounds of open and exec (the calls the policies
 * are on) that start one policy further on each time.  Instruction
 * counts vary by less than 0.1% between rounds, so five suffice.
 * Lines: "policy CALL NAME|none MEDIAN MIN MAX".
 */
#define POLICY_ROUNDS	5
#define MAX_POLICIES	16

static int krsi_do(const char *verb, const char *policy)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "krsi %s %s >/dev/null", verb, policy);
	if (!system(cmd)) {
		/*
		 * What a detach leaves for later (programs freed after RCU
		 * tasks trace grace periods, in kernel threads) is done
		 * before the next round, not inside it.
		 */
		usleep(200 * 1000);
		return 0;
	}
	fprintf(stderr, "krsi_bench: krsi %s %s failed\n", verb, policy);
	return -1;
}

static int measure_each_policy(void)
{
	static double s[MAX_POLICIES + 1][2][POLICY_ROUNDS];
	struct call *each[2] = { &calls[1], &calls[2] };
	char names[MAX_POLICIES + 1][32], line[512];
	int n = 0, r, j, c;
	FILE *f = fopen("/etc/krsi/boot.conf", "re");

	if (!f)
		return -1;
	/* One name a line, as /init reads it; # starts a comment. */
	while (n < MAX_POLICIES && fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t")] != '#' &&
		    sscanf(line, " %31[^# \t\n]", names[n]) == 1)
			n++;
	fclose(f);
	strcpy(names[n], "none");
	for (r = 0; r < POLICY_ROUNDS; r++) {
		for (j = 0; j <= n; j++) {
			int k = (j + r) % (n + 1);

			if (k < n && krsi_do("attach", names[k]))
				return -1;
			for (c = 0; c < 2; c++)
				s[k][c][r] = measure(each[c]);
			if (k < n && krsi_do("detach", names[k]))
				return -1;
			if (s[k][0][r] < 0 || s[k][1][r] < 0)
				return -1;
		}
	}
	for (j = 0; j <= n; j++)
		for (c = 0; c < 2; c++)
			report_n("policy", each[c]->name, names[j], s[j][c],
				 POLICY_ROUNDS);
	return 0;
}

/* Run @cmd and count the lines of its output that hold @what. */
static long count_lines(const char *cmd, const char *what)
{
	char line[65536];
	long n = 0;
	FILE *f = popen(cmd, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	return pclose(f) ? -1 : n;
}

/*
 * "krsi_bench reader", in the boot where /init attached the boot policies
 * and started the audit reader, streaming to the host: exec rounds with
 * the reader logging every record (it runs SCHED_FIFO, so its work falls
 * in the round that made it), then whether the log holds every exec of
 * the rounds, and nothing was lost or refused.
 */
static int measure_reader(void)
{
	struct call *exec = &calls[2];
	char cmd[128];
	double s[ROUNDS];
	long seq, found, lost;
	FILE *f;
	int r;

	/* The records of the rounds: those after the last one now. */
	f = popen("krsi events --json -n 1", "r");
	if (!f || fscanf(f, "{\"seq\":%ld,", &seq) != 1)
		seq = -1;
	if (f)
		pclose(f);
	for (r = 0; r < ROUNDS; r++) {
		s[r] = measure(exec);
		if (s[r] < 0)
			return -1;
	}
	report("exec", "reader", s);
	sleep(1);
	snprintf(cmd, sizeof(cmd), "krsi events --json --seq %ld", seq + 1);
	found = count_lines(cmd, "\"args\":[\"" TINY "\"]");
	lost = count_lines(cmd, "\"event\":\"lost\"") + count_lines(cmd, "\"event\":\"refused\"");
	printf("bench reader-records %ld %ld\n", found, ROUNDS * exec->iterations);
	printf("bench reader-lost %ld\n", lost);
	return seq < 0 || found < 0 || lost < 0;
}

int main(int argc, char **argv)
{
	static const int counts[NR_CONFIGS] = {
		0, 1, MAX_PROGS, 1, MAX_PROGS, 1, MAX_PROGS
	};
	bool baseline = argc > 1 && !strcmp(argv[1], "baseline");

	if (argc > 1 && !strcmp(argv[1], "reader"))
		return measure_reader();
	int btf_ids[NR_CALLS] = { 0 }, links[MAX_PROGS];
	struct btf_file btf;
	size_t ci;
	int r, j, k, i;

	bench_fd = open("/etc/passwd", O_RDONLY);
	if (bench_fd < 0 || socketpair(AF_UNIX, SOCK_DGRAM, 0, sock_fds) ||
	    btf_open(&btf)) {
		fprintf(stderr, "krsi_bench: setup failed: %s\n", errname(errno));
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "policies")) {
		btf_close(&btf);
		return measure_policies() || measure_each_policy();
	}
	for (ci = 0; ci < NR_CALLS; ci++) {
		char func[64];

		snprintf(func, sizeof(func), "bpf_lsm_%s", calls[ci].hook);
		btf_ids[ci] = btf_find_func(&btf, func);
		for (i = 0; i < MAX_PROGS; i++) {
			progs[ci][i] = load_allow_n(btf_ids[ci], i);
			if (progs[ci][i] < 0) {
				fprintf(stderr, "krsi_bench: loading a program for %s: %s\n",
					calls[ci].hook, errname(-progs[ci][i]));
				return 1;
			}
		}
	}
	btf_close(&btf);

	for (r = 0; r < ROUNDS; r++) {
		for (ci = 0; ci < NR_CALLS; ci++) {
			for (j = 0; j < (baseline ? 1 : nr_configs); j++) {
				int k = baseline ? NONE : (j + r) % nr_configs;
				int err = setup(&calls[ci], ci, k, links, counts[k],
						btf_ids[ci]);

				samples[ci][k][r] = err ? -1 : measure(&calls[ci]);
				teardown(&calls[ci], ci, k, links, counts[k]);
				if (err || samples[ci][k][r] < 0) {
					fprintf(stderr, "krsi_bench: %s %s: %s\n",
						calls[ci].name, config_names[k],
						errname(err ? -err : errno));
					return 1;
				}
			}
		}
	}
	if (!baseline && (measure_policies() || measure_each_policy() ||
			  measure_curve(btf_ids[0])))
		return 1;
	{
		char cs[64] = "?";
		FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

		if (f && fscanf(f, "%63s", cs) != 1)
			strcpy(cs, "?");
		if (f)
			fclose(f);
		printf("bench clocksource %s\n", cs);
	}
	for (ci = 0; ci < NR_CALLS; ci++)
		for (k = 0; k < (baseline ? 1 : nr_configs); k++)
			report(calls[ci].name, baseline ? "baseline" : config_names[k],
			       samples[ci][k]);
	return 0;
}
