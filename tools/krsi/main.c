// SPDX-License-Identifier: GPL-2.0
/*
 * krsi: attach, inspect and lock the appliance's KRSI policies.
 *
 * The policies (progs/NAME.bpf.c) are compiled in as light skeletons; the
 * hook files in /sys/kernel/security/bpf/ are the kernel's side of every
 * command (see tools/lib/hookfile.c), bpffs (/sys/fs/bpf/krsi) keeps what
 * an attached policy needs later.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "errname.h"
#include "hookfile.h"
#include "json.h"
#include "krsi.h"
#include "sysbpf.h"

#define EXIT_USAGE 2

static const char usage[] =
"usage: krsi COMMAND [ARGS]\n"
"\n"
"Attach, inspect and lock KRSI policies: BPF programs on the LSM hooks of\n"
"/sys/kernel/security/bpf/.\n"
"\n"
"commands:\n"
"  list [--json]     every hook with programs attached, and its programs\n"
"                    in run order, each with its policy, program id and\n"
"                    the id of the link that attached it\n"
"  attach [--audit] POLICY...\n"
"                    load each policy and attach all its programs; with\n"
"                    --audit it reports what it would deny and denies nothing\n"
"  enforce POLICY... switch attached policies to denying, at once\n"
"  audit POLICY...   switch attached policies to reporting only, at once\n"
"  detach POLICY...  detach each policy's programs\n"
"  replace POLICY    load POLICY again and swap it for the attached one,\n"
"                    program by program, with no gap (BPF_LINK_UPDATE of\n"
"                    its links)\n"
"  events [-n N] [-f] [-t SECONDS] [--json] [--mine] [--policy NAME]\n"
"         [--uid UID] [--since SECONDS] [--seq N]\n"
"                    print the audit log, oldest first, one line per\n"
"                    record (time, pid, uid, comm, policy, verdict, what)\n"
"                    or, with --json, the JSON line it is; reading takes\n"
"                    nothing away.  -n: only the last N; -f: then follow\n"
"                    the log (-t: for SECONDS); --mine: your own records\n"
"                    (what a user other than root may read); --since: from\n"
"                    SECONDS of uptime on; --seq: from record N on\n"
"  why               your last denial, the guarantee of the policy that\n"
"                    made it, and what to read about it\n"
"  logd              start the audit reader, which drains every policy's\n"
"                    ring buffer into the log (" KRSI_LOG_DIR "); /init\n"
"                    starts it at boot\n"
"  status [--json]   enforcing or audit only, locked or not, and which\n"
"                    policies are attached, with the ids of their links\n"
"  lock              from now until reboot, refuse every change to BPF\n"
"                    programs, root included (needs krsi_lock attached)\n"
"  hooks             every hook with a file: its default, its number of\n"
"                    programs\n"
"  hook NAME         the hook's prototype (from the kernel's BTF), default,\n"
"                    and programs in run order with their policy, run count\n"
"                    and average run time\n"
"  stats on|off      keep BPF run-time statistics (for krsi hook) or not\n"
"  policies          the policies this tool carries, with what they do\n"
"  help              this text\n"
"\n"
"exit status: 0 success, 1 a command failed (the message names the policy,\n"
"the hook and the errno), 2 usage error or unknown policy.\n";

static int cmd_policies(void)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		printf("%-16s %s\n", policies[i].name, policies[i].about);
	return 0;
}

/* The programs of one hook, as text or JSON. */
static void print_hook(const char *hook, const struct hook_program *progs,
		       int n, bool json, bool first)
{
	int i;

	if (json) {
		printf("%s{\"hook\":", first ? "" : ",");
		json_str(stdout, hook);
		printf(",\"programs\":[");
	} else {
		printf("%s:", hook);
	}
	for (i = 0; i < n; i++) {
		const struct hook_program *prog = &progs[i];
		const struct policy *p = policy_of(hook, prog->name);

		if (json) {
			printf("%s{\"name\":", i ? "," : "");
			json_str(stdout, prog->name);
			printf(",\"policy\":");
			if (p)
				json_str(stdout, p->name);
			else
				printf("null");
			printf(",\"prog_id\":%u,\"link_id\":", prog->prog_id);
			if (prog->link_id)
				printf("%u}", prog->link_id);
			else
				printf("null}");
			continue;
		}
		printf(" %s (%s%sprog %u", prog->name, p ? p->name : "",
		       p ? ", " : "", prog->prog_id);
		if (prog->link_id)
			printf(", link %u", prog->link_id);
		printf(")");
	}
	printf(json ? "]}" : "\n");
}

/*
 * Every hook with programs.  A hook it could not read is never reported
 * as empty: it is named, with the errno, and the exit status is 1.
 */
static int cmd_list(bool json)
{
	static struct hook_program progs[KRSI_MAX_HOOK_PROGS];
	struct dirent **hooks;
	int n, i, shown = 0, unreadable = 0;

	n = scandir(KRSI_HOOK_DIR, &hooks, NULL, alphasort);
	if (n < 0) {
		error(-errno, "list: %s", KRSI_HOOK_DIR);
		return 1;
	}
	if (json)
		printf("{\"hooks\":[");
	for (i = 0; i < n; i++) {
		const char *hook = hooks[i]->d_name;
		int nr = hook[0] == '.' ? 0 :
			 hook_programs(hook, progs, KRSI_MAX_HOOK_PROGS);

		if (nr < 0 && !unreadable++)
			error(nr, "list: %s/%s%s", KRSI_HOOK_DIR, hook,
			      nr == -EACCES || nr == -EPERM ? " (needs root)" : "");
		if (nr > 0)
			print_hook(hook, progs, nr, json, !shown++);
		free(hooks[i]);
	}
	free(hooks);
	if (json)
		printf("],\"unreadable\":%d}\n", unreadable);
	if (unreadable) {
		fprintf(stderr, "krsi: list: %d of %d hooks could not be read: "
			"what they run is not shown\n", unreadable, n - 2);
		return 1;
	}
	if (!shown && !json)
		printf("no program attached\n");
	return 0;
}

static int for_each_policy(int argc, char **argv, int (*fn)(const struct policy *))
{
	int i, status = 0;

	if (argc < 1) {
		fprintf(stderr, "krsi: which policy? (krsi policies lists them)\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < argc; i++)
		if (!policy_find(argv[i]))
			return EXIT_USAGE;
	for (i = 0; i < argc; i++) {
		if (fn(policy_find(argv[i])))
			status = 1;
		else
			printf("krsi: %s\n", argv[i]);
	}
	return status;
}

static int attach(const struct policy *p)
{
	return policy_attach(p, false, KRSI_MODE_ENFORCE);
}

static int attach_audit(const struct policy *p)
{
	return policy_attach(p, false, KRSI_MODE_AUDIT);
}

static int replace(const struct policy *p)
{
	return policy_attach(p, true, -1);
}

static int enforce(const struct policy *p)
{
	return policy_set_mode(p, KRSI_MODE_ENFORCE);
}

static int audit(const struct policy *p)
{
	return policy_set_mode(p, KRSI_MODE_AUDIT);
}

/* Is the map behind @fd frozen?  Its fdinfo says so. */
static int map_frozen(int fd)
{
	char path[64], line[128];
	int frozen = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "frozen: %d", &frozen) == 1)
			break;
	fclose(f);
	return frozen;
}

static const struct policy *lock_policy(void)
{
	size_t i;

	for (i = 0; i < nr_policies; i++)
		if (!strcmp(policies[i].name, "krsi_lock"))
			return &policies[i];
	return NULL;
}

int krsi_locked(void)
{
	const struct policy *p = lock_policy();
	int fd, frozen, pinned = p ? policy_pin_state(p) : 0;

	if (pinned <= 0)
		return pinned < 0 ? pinned : -ENOENT;
	fd = policy_map_fd(p, "lock", BPF_F_RDONLY);
	if (fd < 0)
		return fd;
	frozen = map_frozen(fd);
	close(fd);
	return frozen;
}

#define KRSI_MODE_FILE "/sys/kernel/security/krsi/mode"

/*
 * What the kernel says of itself in KRSI_MODE_FILE, never the kernel log:
 * as it says it ("enforcing", "audit-only") with @raw, else for people.
 */
static const char *enforce_mode(bool raw)
{
	static char line[64];
	FILE *f = fopen(KRSI_MODE_FILE, "re");

	if (!f || !fgets(line, sizeof(line), f)) {
		snprintf(line, sizeof(line), "unknown (%s: %s)", KRSI_MODE_FILE,
			 errname(f ? EIO : errno));
	} else {
		line[strcspn(line, "\n")] = '\0';
		if (!raw && !strcmp(line, "audit-only"))
			snprintf(line, sizeof(line), "audit only: programs run, nothing is denied");
	}
	if (f)
		fclose(f);
	return line;
}

/*
 * The state of one policy: "attached" (the hook files list all its
 * programs), "pins only" (in bpffs, not in the hooks), "-", or NULL with
 * *@err set when the hook files could not be read.
 */
static const char *policy_state(const struct policy *p, int *err)
{
	int enforced = policy_enforced(p);

	*err = enforced < 0 ? enforced : 0;
	if (enforced < 0)
		return NULL;
	return enforced ? "attached" : policy_attached(p) ? "pins only" : "-";
}

/* "enforce" or "audit" for an attached policy, "-" or NULL (unreadable). */
static const char *mode_name(const struct policy *p, const char *state)
{
	int mode;

	if (!state || strcmp(state, "attached"))
		return state ? "-" : NULL;
	mode = policy_mode(p);
	if (mode < 0)
		return NULL;
	return mode == KRSI_MODE_AUDIT ? "audit" : "enforce";
}

/*
 * The links of attached policy @p, as the kernel describes its pins: each
 * program's hook, link id and program id.  A link that could not be read
 * is named with its errno.
 */
static void print_links(const struct policy *p, bool json)
{
	struct krsi_link_info info;
	size_t i;

	printf(json ? ",\"links\":[" : "%18s links:", "");
	for (i = 0; i < p->nr_progs; i++) {
		int err = policy_link(p, i, &info);

		if (json) {
			printf("%s{\"program\":", i ? "," : "");
			json_str(stdout, p->progs[i].name);
			if (err)
				printf(",\"error\":\"%s\"}", errname(-err));
			else
				printf(",\"hook\":\"%s\",\"link_id\":%u,\"prog_id\":%u}",
				       info.hook[0] ? info.hook : "", info.link_id,
				       info.prog_id);
		} else if (err) {
			printf("%s %s ? (%s)", i ? "," : "", p->progs[i].name,
			       errname(-err));
		} else {
			printf("%s %s %u (prog %u)", i ? "," : "",
			       info.hook[0] ? info.hook : "(detached)",
			       info.link_id, info.prog_id);
		}
	}
	printf(json ? "]" : "\n");
}

/*
 * The audit reader: whether it runs, and whether the policies that guard
 * it know it.  1 when it does not run, for the exit status.
 */
static int print_reader(bool json)
{
	static const char *const marks[][2] = {
		{ "protected", "protect_init" }, { "log_writer", "protect_log" },
	};
	pid_t pid;
	int state = reader_state(&pid), i, m;

	if (json) {
		printf(",\"reader\":{\"state\":\"%s\"", state == READER_RUNNING ?
		       "running" : state == READER_STOPPED ? "stopped" :
		       state == READER_DEAD ? "dead" : state == -ENOENT ?
		       "not started" : "unknown");
		if (state < 0 && state != -ENOENT)
			printf(",\"error\":\"%s\"", errname(-state));
		if (pid)
			printf(",\"pid\":%d", (int)pid);
	} else {
		printf("reader:   %s", reader_state_name(state));
		if (state < 0 && state != -ENOENT)
			printf(" (%s: %s)", KRSI_READER_STATE, errname(-state));
		if (pid)
			printf(" (pid %d)", (int)pid);
		if (state != READER_RUNNING)
			printf(": nothing is logged");
	}
	for (i = 0; state == READER_RUNNING && i < 2; i++) {
		m = reader_marked(marks[i][0], pid);
		if (json)
			printf(",\"%s\":%s", marks[i][1], m > 0 ? "true" :
			       m == 0 || m == -ENOENT ? "false" : "null");
		else if (m > 0)
			printf("%s%s", i ? ", " : ", guarded by ", marks[i][1]);
		else if (m < 0 && m != -ENOENT)
			printf(", %s: ? (%s)", marks[i][1], errname(-m));
		else
			printf(", not known to %s", marks[i][1]);
	}
	printf(json ? "}" : "\n");
	return state != READER_RUNNING;
}

static void print_status_json(int lock)
{
	const char *mode = access(KRSI_HOOK_DIR, F_OK) ? "not active" :
			   enforce_mode(true);
	size_t i;

	printf("{\"krsi\":");
	json_str(stdout, mode);
	printf(",\"lock\":\"%s\"", lock > 0 ? "locked" : lock == 0 ? "unlocked" :
	       lock == -ENOENT ? "absent" : "unknown");
	if (lock < 0 && lock != -ENOENT)
		printf(",\"lock_error\":\"%s\"", errname(-lock));
	print_reader(true);
	printf(",\"policies\":[");
	for (i = 0; i < nr_policies; i++) {
		int err;
		const char *state = policy_state(&policies[i], &err);

		const char *mode = mode_name(&policies[i], state);

		printf("%s{\"name\":", i ? "," : "");
		json_str(stdout, policies[i].name);
		printf(",\"state\":");
		if (state)
			json_str(stdout, state);
		else
			printf("null,\"error\":\"%s\"", errname(-err));
		printf(",\"mode\":");
		if (mode && strcmp(mode, "-"))
			json_str(stdout, mode);
		else
			printf("null");
		if (state && !strcmp(state, "attached"))
			print_links(&policies[i], true);
		printf("}");
	}
	printf("]}\n");
}

static int cmd_status(bool json)
{
	int lock = krsi_locked(), status = lock < 0 && lock != -ENOENT;
	size_t i;

	for (i = 0; i < nr_policies; i++) {
		int err;

		policy_state(&policies[i], &err);
		status |= err != 0;
	}
	if (json) {
		print_status_json(lock);
		status |= (reader_state(&(pid_t){ 0 }) != READER_RUNNING) << 1;
		goto out;
	}
	printf("KRSI:     %s\n", access(KRSI_HOOK_DIR, F_OK) ? "not active" :
	       enforce_mode(false));
	if (lock < 0 && lock != -ENOENT)
		printf("lock:     unknown (%s: %s%s)\n", KRSI_PIN_DIR, errname(-lock),
		       lock == -EACCES ? ", needs root" : "");
	else
		printf("lock:     %s\n", lock > 0 ? "locked until reboot" :
		       lock == 0 ? "unlocked (krsi lock)" :
		       "no lock (krsi_lock not attached)");
	status |= print_reader(false) << 1;
	printf("policies:\n");
	for (i = 0; i < nr_policies; i++) {
		const struct policy *p = &policies[i];
		int err;
		const char *state = policy_state(p, &err);
		char unknown[32];

		const char *mode = mode_name(p, state);

		if (!state) {
			snprintf(unknown, sizeof(unknown), "? (%s)", errname(-err));
			state = unknown;
		}
		printf("  %-16s %-9s %-7s %s\n", p->name, state, mode ? mode : "?",
		       p->about);
		if (!strcmp(state, "attached"))
			print_links(p, false);
	}
out:
	if (status & 1)
		fprintf(stderr, "krsi: status: some of it could not be read (needs root)\n");
	return status ? 1 : 0;
}

static int cmd_lock(void)
{
	const struct policy *p = lock_policy();
	union bpf_attr attr;
	int fd, err;

	int pinned = p ? policy_pin_state(p) : -ENOENT;

	if (pinned <= 0) {
		/* Not "not attached" where it could not look. */
		error(pinned ? pinned : -ENOENT, "lock: %s/krsi_lock%s", KRSI_PIN_DIR,
		      pinned == -EACCES ? " (needs root)" : ": krsi_lock is not attached");
		return 1;
	}
	if (krsi_locked() > 0) {
		printf("krsi: already locked\n");
		return 0;
	}
	fd = policy_map_fd(p, "lock", 0);
	if (fd < 0) {
		error(fd, "lock: map lock of krsi_lock");
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	err = sys_bpf(BPF_MAP_FREEZE, &attr);
	close(fd);
	if (err == -EBUSY) {
		printf("krsi: already locked\n");
		return 0;
	}
	if (err) {
		error(err, "lock: freeze the lock");
		return 1;
	}
	printf("krsi: locked until reboot\n");
	return 0;
}

/* A number of events or seconds for `krsi events`: positive, or -1. */
static double positive(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0)) {
		fprintf(stderr, "krsi: events: %s wants a positive number, not '%s'\n",
			opt, arg);
		return -1;
	}
	return v;
}

/* A whole number for --uid and --seq: 0 or more, or -1. */
static long long whole(const char *opt, const char *arg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0) {
		fprintf(stderr, "krsi: events: %s wants a whole number, not '%s'\n",
			opt, arg);
		return -1;
	}
	return v;
}

static int cmd_events(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "mine", no_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "uid", required_argument, NULL, 'u' },
		{ "since", required_argument, NULL, 's' },
		{ "seq", required_argument, NULL, 'q' },
		{ "follow", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct events_options o = { .last = -1, .timeout_ms = -1, .uid = -1 };
	double v;
	long long n;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:t:f", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			v = positive("-n", optarg);
			/* (long)v of a value beyond its range is undefined. */
			if (v < 0 || v > 1e15 || v != (long)v) {
				if (v > 1e15)
					fprintf(stderr, "krsi: events: -n wants a whole number up to 10^15\n");
				return EXIT_USAGE;
			}
			o.last = (long)v;
			break;
		case 't':
			/* Following for SECONDS, as `krsi events -t` always did. */
			v = positive("-t", optarg);
			if (v < 0 || v > 86400 * 24)
				return EXIT_USAGE;
			o.timeout_ms = (int)(v * 1000);
			o.follow = true;
			break;
		case 's':
			v = positive("--since", optarg);
			if (v < 0 || v > 1e10) {
				if (v > 1e10)
					fprintf(stderr, "krsi: events: --since wants seconds of uptime, up to 10^10\n");
				return EXIT_USAGE;
			}
			o.since_ns = (unsigned long long)(v * 1e9);
			break;
		case 'u':
		case 'q':
			n = whole(opt == 'u' ? "--uid" : "--seq", optarg);
			if (n < 0 || (opt == 'u' && n > 0xffffffffLL))
				return EXIT_USAGE;
			if (opt == 'u')
				o.uid = n;
			else
				o.since_seq = n;
			break;
		case 'p':
			/* A policy's name, or the reader's own records. */
			if (strcmp(optarg, "reader") && !policy_find(optarg))
				return EXIT_USAGE;
			o.policy = optarg;
			break;
		case 'f': o.follow = true; break;
		case 'j': o.json = true; break;
		case 'm': o.mine = true; break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "krsi: events: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return events_run(&o);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "help";

	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "policies"))
		return cmd_policies();
	if (!strcmp(cmd, "list") || !strcmp(cmd, "status")) {
		bool json = argc == 3 && !strcmp(argv[2], "--json");

		if (argc > 3 || (argc == 3 && !json)) {
			fprintf(stderr, "krsi: %s takes only --json\n", cmd);
			return EXIT_USAGE;
		}
		return cmd[0] == 'l' ? cmd_list(json) : cmd_status(json);
	}
	if (!strcmp(cmd, "attach")) {
		if (argc > 2 && !strcmp(argv[2], "--audit"))
			return for_each_policy(argc - 3, argv + 3, attach_audit);
		return for_each_policy(argc - 2, argv + 2, attach);
	}
	if (!strcmp(cmd, "enforce"))
		return for_each_policy(argc - 2, argv + 2, enforce);
	if (!strcmp(cmd, "audit"))
		return for_each_policy(argc - 2, argv + 2, audit);
	if (!strcmp(cmd, "detach"))
		return for_each_policy(argc - 2, argv + 2, policy_detach);
	if (!strcmp(cmd, "replace")) {
		if (argc != 3) {
			fprintf(stderr, "krsi: replace takes one policy\n");
			return EXIT_USAGE;
		}
		return for_each_policy(1, argv + 2, replace);
	}
	if (!strcmp(cmd, "events"))
		return cmd_events(argc - 1, argv + 1);
	if (!strcmp(cmd, "why") || !strcmp(cmd, "logd")) {
		if (argc != 2) {
			fprintf(stderr, "krsi: %s takes no argument\n", cmd);
			return EXIT_USAGE;
		}
		return cmd[0] == 'w' ? why_run() : logd_run();
	}
	if (!strcmp(cmd, "hooks"))
		return hooks_list();
	if (!strcmp(cmd, "hook") || !strcmp(cmd, "stats")) {
		if (argc != 3) {
			fprintf(stderr, "krsi: %s takes one argument\n", cmd);
			return EXIT_USAGE;
		}
		return cmd[1] == 'o' ? hook_show(argv[2]) : stats_set(argv[2]);
	}
	if (!strcmp(cmd, "lock"))
		return cmd_lock();
	fprintf(stderr, "krsi: unknown command '%s'\n\n%s", cmd, usage);
	return EXIT_USAGE;
}
