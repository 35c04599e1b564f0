// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi status`: enforcing or audit only, locked or not, whether the
 * audit reader runs and is guarded, and each policy's state and links.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"
#include "hookfile.h"
#include "json.h"
#include "krsi.h"

#define KRSI_MODE_FILE "/sys/kernel/security/krsi/mode"

const char *enforce_mode(bool raw)
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
	struct held_policy held;
	size_t i;
	/* Held by the kernel (signed.c): its version, which only grows. */
	int is_held = signed_held(p->name, &held) > 0;

	if (is_held && !json)
		printf("%18s held by the kernel: signed, version %u\n", "",
		       held.version);
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
	if (is_held && json)
		printf(",\"held\":{\"version\":%u,\"load_id\":\"%016llx\"}",
		       held.version, held.load_id);
}

/*
 * The reader's stream to the host (run-qemu.sh --log): 1 when it stopped,
 * since the host's copy then misses what comes after.
 */
static int print_stream(bool json, int reader)
{
	char port[64], why[32];
	int s = reader == READER_RUNNING ?
		reader_stream(port, sizeof(port), why, sizeof(why)) : -ESRCH;

	if (json) {
		printf(",\"stream\":{\"state\":\"%s\"", s == STREAM_ON ? "streaming" :
		       s == STREAM_STOPPED ? "stopped" : s == STREAM_NONE ? "none" :
		       "unknown");
		if (s > 0)
			printf(",\"port\":\"%s\"", port);
		if (s == STREAM_STOPPED)
			printf(",\"error\":\"%s\"", why);
		printf("}");
		return s == STREAM_STOPPED;
	}
	if (s == -ESRCH)
		return 0;	/* no reader: said above */
	printf("stream:   ");
	if (s == STREAM_ON)
		printf("%s, sealed: the host's copy of the log (run-qemu.sh --log)\n",
		       port);
	else if (s == STREAM_STOPPED)
		printf("STOPPED (%s: %s): the host's copy misses what follows; "
		       "the reader opens the port again every 5 s\n", port, why);
	else if (s == STREAM_NONE)
		printf("none: no port to the host (run-qemu.sh --log FILE gives one)\n");
	else
		printf("unknown (%s: %s)\n", KRSI_READER_STATE, errname(-s));
	return s == STREAM_STOPPED;
}

/*
 * The audit reader: whether it runs, and whether the policies that guard
 * it know it (krsi_lock: it alone takes, after the lock, the buffers of a
 * policy loaded then).  1 when it does not run, for the exit status.
 */
static int print_reader(bool json)
{
	static const char *const marks[] = {
		"protect_init", "protect_log", "krsi_lock",
	};
	enum { NR_MARKS = sizeof(marks) / sizeof(marks[0]) };
	const char *sep = ", guarded by ";
	unsigned long long silent = 0, held_s = 0;
	unsigned long held_bytes = 0;
	char held_why[256] = "";
	pid_t pid;
	int state = reader_state(&pid), i, m[NR_MARKS] = { 0 }, held = 0;
	bool stalled;

	/* Running, but not round its loop for long: stuck in a write. */
	stalled = state == READER_RUNNING && !reader_silent(&silent) &&
		  silent > READER_SILENT_S;
	/* Or going round it with records it cannot log. */
	if (state == READER_RUNNING)
		held = reader_held(&held_s, &held_bytes, held_why, sizeof(held_why));

	if (json) {
		printf(",\"reader\":{\"state\":\"%s\"", state == READER_RUNNING ?
		       "running" : state == READER_STOPPED ? "stopped" :
		       state == READER_DEAD ? "dead" : state == -ENOENT ?
		       "not started" : "unknown");
		if (state < 0 && state != -ENOENT)
			printf(",\"error\":\"%s\"", errname(-state));
		if (pid)
			printf(",\"pid\":%d", (int)pid);
		if (state == READER_RUNNING)
			printf(",\"silent_s\":%llu", silent);
		if (held > 0) {
			printf(",\"held\":{\"seconds\":%llu,\"bytes\":%lu,\"why\":",
			       held_s, held_bytes);
			json_str(stdout, held_why);
			printf("}");
		}
	} else {
		printf("reader:   %s", reader_state_name(state));
		if (state < 0 && state != -ENOENT)
			printf(" (%s: %s)", KRSI_READER_STATE, errname(-state));
		if (pid)
			printf(" (pid %d)", (int)pid);
		if (state != READER_RUNNING)
			printf(": nothing is logged");
		if (stalled)
			printf(", but STALLED: nothing from it for %llu s", silent);
		else if (held > 0)
			printf(", but STALLED: records held back for %llu s (%lu bytes "
			       "in their buffers): %s", held_s, held_bytes, held_why);
	}
	/* The policies that guard it first, then those that do not know it. */
	for (i = 0; state == READER_RUNNING && i < NR_MARKS; i++) {
		m[i] = reader_known_to(marks[i], pid);
		if (json) {
			printf(",\"%s\":%s", marks[i], m[i] > 0 ? "true" :
			       m[i] == 0 || m[i] == -ENOENT ? "false" : "null");
		} else if (m[i] > 0) {
			printf("%s%s", sep, marks[i]);
			sep = ", ";
		}
	}
	for (i = 0; state == READER_RUNNING && !json && i < NR_MARKS; i++) {
		if (m[i] < 0 && m[i] != -ENOENT)
			printf(", %s: ? (%s)", marks[i], errname(-m[i]));
		else if (m[i] <= 0)
			printf(", not known to %s", marks[i]);
	}
	printf(json ? "}" : "\n");
	return state != READER_RUNNING || stalled || held > 0 ||
	       print_stream(json, state) > 0;
}

/* held_unknown()'s callback for `krsi status`: @arg is "json", or NULL. */
static void print_unknown(const char *name, __u32 version,
			  unsigned long long load_id, void *arg)
{
	(void)load_id;
	if (arg) {
		printf(",{\"name\":");
		json_str(stdout, name);
		printf(",\"state\":\"held\",\"mode\":null,\"version\":%u,"
		       "\"unknown\":true}", version);
		return;
	}
	printf("  %-16s %-9s %-7s %s version %u, signed, held by the kernel: not a "
	       "policy of this build, the audit reader does not read it\n",
	       name, "held", "?", name, version);
}

/*
 * The JSON form of `krsi status`: 1 as print_reader() says; @unreadable
 * set if the policies held by the kernel could not be read.
 */
static int print_status_json(int lock, bool *unreadable)
{
	const char *mode = access(KRSI_HOOK_DIR, F_OK) ? "not active" :
			   enforce_mode(true);
	size_t i;
	int ret, err;

	printf("{\"krsi\":");
	json_str(stdout, mode);
	printf(",\"lock\":\"%s\"", lock == KRSI_SEALED ? "locked" :
	       lock == KRSI_LOCKED ? "locked-unsealed" : lock == 0 ? "unlocked" :
	       lock == -ENOENT ? "absent" : "unknown");
	if (lock < 0 && lock != -ENOENT)
		printf(",\"lock_error\":\"%s\"", errname(-lock));
	ret = print_reader(true);
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
	err = held_unknown(print_unknown, "json");
	printf("]");
	if (err)
		printf(",\"held_error\":\"%s\"", errname(-err));
	printf("}\n");
	*unreadable = err != 0;
	return ret;
}

int cmd_status(int argc, char **argv)
{
	int json = args_json(argc, argv), lock, status, err;
	bool unreadable;
	size_t i;

	if (json < 0)
		return EXIT_USAGE;
	lock = krsi_locked();
	status = lock < 0 && lock != -ENOENT;

	for (i = 0; i < nr_policies; i++) {
		int err;

		policy_state(&policies[i], &err);
		status |= err != 0;
	}
	if (json) {
		status |= print_status_json(lock, &unreadable) << 1;
		status |= unreadable;
		goto out;
	}
	printf("KRSI:     %s\n", access(KRSI_HOOK_DIR, F_OK) ? "not active" :
	       enforce_mode(false));
	if (lock < 0 && lock != -ENOENT)
		printf("lock:     unknown (%s: %s%s)\n", KRSI_PIN_DIR, errname(-lock),
		       lock == -EACCES ? ", needs root" : "");
	else
		printf("lock:     %s\n", lock == KRSI_SEALED ? "locked until reboot" :
		       lock == KRSI_LOCKED ? "locked, not yet sealed (krsi lock)" :
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
	err = held_unknown(print_unknown, NULL);
	status |= err != 0;
	if (err)
		printf("  %-16s ? (%s)   policies held by the kernel that this build "
		       "does not know: not seen\n", "(others)", errname(-err));
out:
	if (status & 1)
		fprintf(stderr, "krsi: status: some of it could not be read (needs root)\n");
	return status ? 1 : 0;
}
