// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi doctor [--json] [POLICY]`: the questions learners ask most,
 * answered from what the running system says, each answer with the
 * file and section of the appliance's documents (README.md, docs/) that
 * explain it.  Is KRSI (and the BPF LSM) in the active LSM list?  Does
 * KRSI enforce?  Can a trampoline attach here, and if not why?  Is the
 * system locked, and what does that refuse?  What does an attach need,
 * and does the caller have it?  Does the audit reader run and stream?
 * And for a policy: is it attached, in which mode, is every program in
 * its hook's file, how often did each run, how many denials did it make
 * ("my program never fires")?
 *
 * What it cannot read it says, with the errno, and never answers "no"
 * in its place.  Exit status: 0 when every answer is ok or a note, 1
 * when one is a problem or could not be looked at.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "auditlog.h"
#include "bpf_raw.h"
#include "btf_lookup.h"
#include "errname.h"
#include "event_format.h"
#include "hookfile.h"
#include "json.h"
#include "krsi.h"
#include "lsmlist.h"
#include "sysbpf.h"

#define LSM_FILE	"/sys/kernel/security/lsm"
#define KERNEL_ENOTSUPP	524

/* Where an answer is explained: a file of the tree and one of its headings. */
struct doc {
	const char *file, *heading;
};

/* The sections, as their files' headings name them. */
#define R_KERNEL	((struct doc){ "docs/kernel.md", \
			  "The kernel side: KRSI on Linux 6.1" })
#define R_ARCH		((struct doc){ "docs/architectures.md", \
			  "Architectures: KRSI where the BPF LSM cannot run" })
#define R_POLICIES	((struct doc){ "docs/policies.md", "The policies" })
#define R_TRAIL		((struct doc){ "docs/audit-trail.md", "The audit trail" })
#define R_FIRST		((struct doc){ "README.md", "Write your first policy" })
#define R_KRSI		((struct doc){ "docs/krsi-command.md", "The krsi command" })

enum verdict { OK, NOTE, PROBLEM, UNKNOWN };

static const char *const verdict_names[] = { "ok", "note", "PROBLEM", "UNKNOWN" };

static struct {
	bool json, any;
	int status;
} out;

/* One answer: how it stands, what was found, where the documents explain it. */
__attribute__((format(printf, 4, 5)))
static void answer(const char *topic, enum verdict v, struct doc doc,
		   const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (v >= PROBLEM)
		out.status = 1;
	if (out.json) {
		printf("%s{\"topic\":", out.any ? "," : "");
		json_str(stdout, topic);
		printf(",\"verdict\":\"%s\",\"text\":", verdict_names[v]);
		json_str(stdout, text);
		printf(",\"doc\":");
		json_str(stdout, doc.file);
		printf(",\"section\":");
		json_str(stdout, doc.heading);
		printf("}");
	} else {
		printf("%-8s %s\n         (%s: \"%s\")\n", verdict_names[v], text,
		       doc.file, doc.heading);
	}
	out.any = true;
}

/* ---- the kernel --------------------------------------------------------- */

static void check_lsms(void)
{
	char list[256] = "";
	FILE *f = fopen(LSM_FILE, "re");
	int err = f ? 0 : errno;

	if (f && !fgets(list, sizeof(list), f))
		err = EIO;
	if (f)
		fclose(f);
	list[strcspn(list, "\n")] = '\0';
	if (err) {
		answer("lsm", UNKNOWN, R_KERNEL, "the active LSMs: %s: %s (is securityfs "
		       "mounted on /sys/kernel/security?)", LSM_FILE, errname(err));
		return;
	}
	if (lsm_list_contains(list, "krsi"))
		answer("lsm", OK, R_KERNEL, "KRSI is an active LSM (%s)", list);
	else
		answer("lsm", PROBLEM, R_KERNEL, "KRSI is not in the active LSM list (%s): "
		       "no program attached through a hook file runs; boot with "
		       "lsm=%s,krsi", list, list);
	if (lsm_list_contains(list, "bpf"))
		answer("bpf-lsm", OK, R_KERNEL, "the BPF LSM is active too: programs "
		       "attached by trampoline run where one attaches");
	else
		answer("bpf-lsm", NOTE, R_KERNEL, "the BPF LSM is not in the active LSM "
		       "list: a program attached by trampoline never runs (KRSI's hook "
		       "files do not need it)");
}

static void check_mode(void)
{
	const char *mode = enforce_mode(true);
	int n = hook_count();

	if (n < 0)
		answer("hooks", UNKNOWN, R_KERNEL, "the hook files: %s: %s",
		       KRSI_HOOK_DIR, errname(-n));
	else
		answer("hooks", n ? OK : PROBLEM, R_KERNEL, "%d hook files in %s%s",
		       n, KRSI_HOOK_DIR, n ? "" : ": no hook a program may attach to");
	if (!strcmp(mode, "enforcing"))
		answer("mode", OK, R_KERNEL, "KRSI enforces: a program's error is the "
		       "hook's (/sys/kernel/security/krsi/mode)");
	else if (!strcmp(mode, "audit-only"))
		answer("mode", NOTE, R_ARCH, "this kernel is audit-only "
		       "(CONFIG_SECURITY_BPF_ENFORCE off): programs run, report, and "
		       "deny nothing, whatever they return");
	else
		answer("mode", UNKNOWN, R_KERNEL, "whether KRSI enforces: %s", mode);
}

/*
 * Can mainline's trampoline attach an LSM program here?  Tried with the
 * smallest program on file_open when that is allowed (root, unlocked);
 * else what 6.1 does on this architecture (tests/lib/trampoline.h).
 */
static int try_trampoline(void)
{
	struct btf_file btf;
	union bpf_attr attr;
	int prog, link, id;

	if (btf_open(&btf))
		return -ENOENT;
	id = (int)btf_find_func(&btf, "bpf_lsm_file_open");
	btf_close(&btf);
	if (!id)
		return -ENOENT;
	prog = load_allow(id, "krsi_doctor");
	if (prog < 0)
		return prog;
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	link = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	close(prog);
	if (link < 0)
		return link;
	close(link);
	return 0;
}

static void check_trampoline(int locked)
{
	struct utsname u;
	bool x86;
	int err;

	uname(&u);
	x86 = !strcmp(u.machine, "x86_64");
	if (locked > 0 || geteuid()) {
		answer("trampoline", x86 ? OK : NOTE, R_ARCH, "%s (not tried: %s): %s",
		       u.machine, locked > 0 ? "locked, krsi_lock refuses the load" :
		       "needs root",
		       x86 ? "6.1 attaches a trampoline to an LSM hook on x86_64" :
		       "6.1 attaches no trampoline to a kernel function here (ENOTSUPP, "
		       "524): an LSM program runs through KRSI's hook files alone");
		return;
	}
	err = try_trampoline();
	if (!err)
		answer("trampoline", OK, R_ARCH, "%s: a trampoline attached an LSM "
		       "program on file_open (tried, and detached)", u.machine);
	else if (err == -KERNEL_ENOTSUPP)
		answer("trampoline", NOTE, R_ARCH, "%s: the trampoline attach fails with "
		       "ENOTSUPP (524), tried: 6.1 has no ftrace direct calls for "
		       "BPF here; the same program attaches as a KRSI link (libbpf "
		       "falls back to one)", u.machine);
	else
		answer("trampoline", UNKNOWN, R_ARCH, "%s: the trial attach failed: %s",
		       u.machine, errname(-err));
}

/* ---- who may do what ---------------------------------------------------- */

static void check_lock(int locked)
{
	if (locked == KRSI_SEALED)
		answer("lock", NOTE, R_POLICIES, "locked until reboot (krsi_lock): nobody, "
		       "root included, loads, attaches or detaches a BPF program, "
		       "writes a BPF map, or changes a mount; reading stays open");
	else if (locked == KRSI_LOCKED)
		answer("lock", NOTE, R_POLICIES, "locked since boot (krsi_lock): nobody "
		       "loads, attaches or detaches a BPF program; until krsi lock "
		       "seals it, /init may still mount and the audit reader claim");
	else if (locked == 0)
		answer("lock", NOTE, R_POLICIES, "not locked: root may attach and detach "
		       "(krsi lock freezes it until reboot)");
	else if (locked == -ENOENT)
		answer("lock", NOTE, R_POLICIES, "no lock: krsi_lock is not attached, "
		       "root may change every policy");
	else
		answer("lock", UNKNOWN, R_POLICIES, "the lock: %s: %s%s", KRSI_PIN_DIR,
		       errname(-locked), locked == -EACCES ? " (needs root)" : "");
}

/* The capabilities of this process, from /proc/self/status. */
static int effective_caps(unsigned long long *caps)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", caps) == 1) {
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

#define CAP(n)	(1ULL << (n))
#define CAP_SYS_ADMIN_BIT	21
#define CAP_MAC_ADMIN_BIT	33
#define CAP_PERFMON_BIT		38
#define CAP_BPF_BIT		39

static void check_caps(int locked)
{
	unsigned long long caps;
	bool mac, load;
	int err = effective_caps(&caps);

	if (err) {
		answer("caps", UNKNOWN, R_KERNEL, "this process's capabilities: "
		       "/proc/self/status: %s", errname(-err));
		return;
	}
	mac = caps & CAP(CAP_MAC_ADMIN_BIT);
	load = (caps & CAP(CAP_SYS_ADMIN_BIT)) ||
	       ((caps & CAP(CAP_BPF_BIT)) && (caps & CAP(CAP_PERFMON_BIT)));
	answer("caps", mac && load ? OK : NOTE, R_KERNEL, "an attach needs CAP_MAC_ADMIN, "
	       "and CAP_BPF with CAP_PERFMON (or CAP_SYS_ADMIN) to load, and the hook "
	       "files are root's (0600): this process has %s%s%s (EPERM otherwise)",
	       mac ? "CAP_MAC_ADMIN" : "no CAP_MAC_ADMIN", load ? ", may load" :
	       ", may not load", locked > 0 ? "; locked, so no attach succeeds anyway" : "");
}

/* ---- the audit reader --------------------------------------------------- */

static void check_reader(void)
{
	char port[64], why[32], held_why[256];
	unsigned long long silent = 0, held_s;
	unsigned long held_bytes;
	pid_t pid;
	int state = reader_state(&pid), s, held;

	held = state == READER_RUNNING ?
	       reader_held(&held_s, &held_bytes, held_why, sizeof(held_why)) : 0;
	/* Running, but not going round its loop: as krsi status says it. */
	if (state == READER_RUNNING && !reader_silent(&silent) &&
	    silent > READER_SILENT_S)
		answer("reader", PROBLEM, R_TRAIL, "the audit reader (pid %d) is STALLED: "
		       "nothing from it for %llu s, records wait in their buffers",
		       (int)pid, silent);
	else if (held > 0)
		answer("reader", PROBLEM, R_TRAIL, "the audit reader (pid %d) is STALLED: "
		       "records held back for %llu s, %lu bytes in their buffers: %s",
		       (int)pid, held_s, held_bytes, held_why);
	else if (held < 0)
		answer("reader", UNKNOWN, R_TRAIL, "the audit reader (pid %d): whether it "
		       "holds records back: %s: %s", (int)pid, KRSI_READER_STATE,
		       errname(-held));
	else if (state == READER_RUNNING)
		answer("reader", OK, R_TRAIL, "the audit reader runs (pid %d): every "
		       "policy's records reach the log (krsi events)", (int)pid);
	else
		answer("reader", state < 0 && state != -ENOENT ? UNKNOWN : PROBLEM, R_TRAIL,
		       "the audit reader is %s%s%s: denials are not logged", reader_state_name(state),
		       state < 0 && state != -ENOENT ? ": " : "",
		       state < 0 && state != -ENOENT ? errname(-state) : "");
	if (state != READER_RUNNING)
		return;
	s = reader_stream(port, sizeof(port), why, sizeof(why));
	if (s == STREAM_ON)
		answer("stream", OK, R_TRAIL, "the reader streams sealed records to the "
		       "host on %s (run-qemu.sh --log)", port);
	else if (s == STREAM_STOPPED)
		answer("stream", PROBLEM, R_TRAIL, "the stream to the host STOPPED (%s: %s): "
		       "the host's copy misses what follows", port, why);
	else if (s == STREAM_NONE)
		answer("stream", NOTE, R_TRAIL, "no stream to the host: the log is in the "
		       "guest alone (run-qemu.sh --log FILE gives one)");
	else
		answer("stream", UNKNOWN, R_TRAIL, "the stream: %s: %s", KRSI_READER_STATE,
		       errname(-s));
}

/* ---- one policy --------------------------------------------------------- */

/* The denials (and would-be denials) of @p in the log: 0 or an errno. */
static int count_denials(const struct policy *p, unsigned long *deny,
			 unsigned long *would)
{
	struct log_cursor c;
	struct event_view v;
	int got;

	*deny = *would = 0;
	got = log_cursor_open(&c, KRSI_LOG_DIR);
	if (got)
		return got;
	while ((got = log_next(&c)) == 1) {
		if (event_parse(c.line.buf, c.line.len, &v))
			continue;
		if (v.policy.len == strlen(p->name) &&
		    !memcmp(v.policy.s, p->name, v.policy.len)) {
			*deny += v.type == EVENT_DENY;
			*would += v.type == EVENT_WOULD_DENY;
		}
		event_view_free(&v);
	}
	log_cursor_close(&c);
	return got < 0 ? got : 0;
}

static void check_program(const struct policy *p, const struct policy_prog *prog,
			  int stats)
{
	struct hook_program progs[KRSI_MAX_HOOK_PROGS];
	struct bpf_prog_info info;
	int n = hook_programs(prog->hook, progs, KRSI_MAX_HOOK_PROGS), i, err;

	if (n < 0) {
		answer("program", UNKNOWN, R_KRSI, "%s on %s: the hook file: %s%s",
		       prog->name, prog->hook, errname(-n), n == -EACCES ? " (needs root)" : "");
		return;
	}
	for (i = 0; i < n && strcmp(progs[i].name, prog->name); i++)
		;
	if (i == n) {
		answer("program", PROBLEM, R_KRSI, "%s is not in %s/%s: it does not run",
		       prog->name, KRSI_HOOK_DIR, prog->hook);
		return;
	}
	err = prog_info(progs[i].prog_id, &info);
	if (err)
		answer("program", UNKNOWN, R_KRSI, "%s on %s, %d of %d in run order: its "
		       "run count: %s", prog->name, prog->hook, i + 1, n, errname(-err));
	else if (stats <= 0)
		answer("program", NOTE, R_KRSI, "%s on %s, %d of %d in run order; how "
		       "often it ran is counted only with statistics on (krsi stats on)",
		       prog->name, prog->hook, i + 1, n);
	else
		answer("program", info.run_cnt ? OK : NOTE, R_FIRST, "%s on %s, %d of %d "
		       "in run order: ran %llu time%s%s", prog->name, prog->hook, i + 1, n,
		       (unsigned long long)info.run_cnt, info.run_cnt == 1 ? "" : "s",
		       info.run_cnt ? "" : " since statistics were turned on: nothing "
		       "called its hook; is it the one your operation reaches? (the "
		       "kernel's callers of security_<hook>() say when it runs)");
	(void)p;
}

static void check_policy(const struct policy *p)
{
	unsigned long deny, would;
	int attached = policy_enforced(p), mode, stats, err;
	size_t i;

	if (attached < 0) {
		answer("policy", UNKNOWN, R_KRSI, "%s: the hook files: %s%s", p->name,
		       errname(-attached), attached == -EACCES ? " (needs root)" : "");
		return;
	}
	if (!attached) {
		answer("policy", PROBLEM, R_FIRST, "%s is not attached%s: krsi attach %s",
		       p->name, policy_attached(p) ? " (its pins are there, its links gone)" :
		       "", p->name);
		return;
	}
	mode = policy_mode(p);
	if (mode == KRSI_MODE_AUDIT)
		answer("policy", NOTE, R_FIRST, "%s is attached in audit mode: it reports "
		       "what it would deny (would_deny) and denies nothing (krsi enforce %s)",
		       p->name, p->name);
	else if (mode < 0)
		answer("policy", UNKNOWN, R_FIRST, "%s is attached; its mode: %s", p->name,
		       errname(-mode));
	else
		answer("policy", OK, R_FIRST, "%s is attached and enforces", p->name);
	stats = stats_enabled();
	for (i = 0; i < p->nr_progs; i++)
		check_program(p, &p->progs[i], stats);
	err = count_denials(p, &deny, &would);
	if (err)
		answer("denials", UNKNOWN, R_TRAIL, "%s's denials: %s: %s%s", p->name,
		       KRSI_LOG_DIR, errname(-err), err == -EACCES ?
		       " (needs root; krsi events --mine shows your own)" : "");
	else
		answer("denials", NOTE, R_TRAIL, "%s: %lu denials and %lu would-be denials "
		       "in the log (krsi events --policy %s)", p->name, deny, would, p->name);
}

int cmd_doctor(int argc, char **argv)
{
	const struct policy *p = NULL;
	int i, locked;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			out.json = true;
		} else if (!p && argv[i][0] != '-') {
			p = policy_find(argv[i]);
			if (!p)
				return EXIT_USAGE;
		} else {
			fprintf(stderr, "krsi: doctor takes [--json] [POLICY], not '%s'\n",
				argv[i]);
			return EXIT_USAGE;
		}
	}
	if (out.json)
		printf("{\"answers\":[");
	check_lsms();
	check_mode();
	locked = krsi_locked();
	check_trampoline(locked);
	check_lock(locked);
	check_caps(locked);
	check_reader();
	if (p)
		check_policy(p);
	if (out.json)
		printf("]}\n");
	return out.status;
}
