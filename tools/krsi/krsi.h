/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_TOOL_H
#define KRSI_TOOL_H

/*
 * The krsi tool: the policies it embeds (policy.c), what it keeps in
 * bpffs, the audit reader (logd/) and the log's reader (events.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/types.h>

#include "krsi_mode.h"

/* Where attached policies keep their programs and maps, one dir each. */
#define KRSI_PIN_DIR "/sys/fs/bpf/krsi"

struct policy_prog {
	const char *name;	/* the BPF program's name */
	const char *hook;	/* its SEC("lsm/<hook>") */
	size_t fd_offset;	/* of its prog_fd in the light skeleton */
};

struct policy_map {
	const char *name;
	size_t fd_offset;
};

struct policy {
	const char *name;
	const char *about;	/* the one line that opens progs/NAME.bpf.c */
	void *(*open)(void);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	/* Sets what the policy learns from the system before load, or NULL. */
	int (*configure)(void *skel);
	const struct policy_prog *progs;
	size_t nr_progs;
	const struct policy_map *maps;
	size_t nr_maps;
};

/*
 * Fill in a value a policy declared with KRSI_CONFIG_DEV() or
 * KRSI_CONFIG_INO() (progs/krsi_policy.h) from stat() of @path; the
 * generated configure functions call these.  0 or a negative errno,
 * printed with the path.
 */
int krsi_config_dev(const char *path, __u32 *dev);
int krsi_config_ino(const char *path, __u64 *ino);
/* Read the policy's version into krsi_load_version; put krsi_load_id in it. */
int krsi_config_version(__u32 *version);
int krsi_config_load_id(__u64 *load_id);

/*
 * The id of the load policy_attach() is making (random, never 0), and the
 * version the policy declares: the generated configure functions put the
 * first in the policy and read the second from it (gen-policy.sh).
 */
extern __u64 krsi_load_id;
extern __u32 krsi_load_version;

extern const struct policy policies[];
extern const size_t nr_policies;

/* A program a hook runs (hook_programs.c). */
struct hook_program {
	char name[64];		/* as the hook's file lists it */
	__u32 prog_id;
	__u32 link_id;		/* of its KRSI link, 0 if attached without */
};

/* The most programs one hook runs (KRSI_MAX_PROGS in the kernel). */
#define KRSI_MAX_HOOK_PROGS 64

/*
 * @hook's programs in run order, at most @max: their number, or a negative
 * errno (-EACCES: the hook files and program ids need root).
 */
int hook_programs(const char *hook, struct hook_program *progs, int max);

/* The policy whose program @prog (a listed name) runs on @hook, or NULL. */
const struct policy *policy_of(const char *hook, const char *prog);

/* The policy called @name, or NULL (and the valid names on stderr). */
const struct policy *policy_find(const char *name);

/* The most programs one policy has. */
#define KRSI_MAX_POLICY_PROGS 16

/*
 * Load @p, set its mode (enum krsi_mode, or -1 for the mode of the copy it
 * replaces), attach every program to its hook file as a KRSI link, and
 * pin the links and the maps under KRSI_PIN_DIR/NAME; with @replace, swap
 * each program into the pinned link of the one it replaces instead.
 * Errors are printed with the policy, the hook and the errno.  Return 0
 * or a negative errno.
 */
int policy_attach(const struct policy *p, bool replace, int mode);

/* Detach every link of @p (BPF_LINK_DETACH), then remove its pins. */
int policy_detach(const struct policy *p);

/* Remove what @p pinned in KRSI_PIN_DIR/NAME, whatever is there. */
void policy_unpin(const struct policy *p);

/* What the kernel says of the pinned link of program @prog of @p. */
struct krsi_link_info;
int policy_link(const struct policy *p, size_t prog,
		struct krsi_link_info *info);

/* Is @p attached (its pin directory exists)? */
bool policy_attached(const struct policy *p);

/*
 * The same, telling apart what could not be looked at: 1 pinned, 0 not,
 * or the negative errno of a pin directory that could not be looked at
 * (-EACCES for anyone but root).
 */
int policy_pin_state(const struct policy *p);

/*
 * Do the hook files list every program of @p, which is what attached
 * means to the kernel (a directory in bpffs proves nothing)?  1 yes, 0
 * no, or the negative errno of a hook file that could not be read.
 */
int policy_enforced(const struct policy *p);

/* The mode of attached policy @p (enum krsi_mode), or a negative errno. */
int policy_mode(const struct policy *p);

/*
 * Switch attached policy @p to @mode: one map write, which every later
 * call of its deny() sees.  0 or a negative errno, printed.
 */
int policy_set_mode(const struct policy *p, enum krsi_mode mode);

/*
 * A descriptor of the pinned map @map of policy @p, opened with @flags (0
 * or BPF_F_RDONLY: after the lock only that is given), or a negative errno.
 */
int policy_map_fd(const struct policy *p, const char *map, __u32 flags);


/*
 * The audit log (`krsi logd` writes it, `krsi events` reads it), and the
 * file where the reader says whether it runs.
 */
#define KRSI_LOG_DIR		"/var/log/krsi"
#define KRSI_USER_LOG_DIR	KRSI_LOG_DIR "/uid"
#define KRSI_READER_STATE	KRSI_LOG_DIR "/reader"


/* What reader_state() says of the reader (reader_state.c). */
enum {
	READER_RUNNING = 1,
	READER_STOPPED = 2,	/* it stopped, as asked */
	READER_DEAD = 3,	/* it ended without stopping */
};

/*
 * Whether the reader runs: READER_*, or the negative errno of a state
 * file that could not be read (-ENOENT: never started); *@pid its PID.
 */
int reader_state(pid_t *pid);
const char *reader_state_name(int state);

/*
 * How long since the running reader last went round its loop (it says
 * so every 10 s), in *@seconds: 0 or a negative errno.
 */
int reader_silent(unsigned long long *seconds);
/* Beyond this, a reader that runs is stuck (in a write, say). */
#define READER_SILENT_S	30

/*
 * What holds the running reader's records back, as it last said: 1 with
 * how long in *@seconds, the bytes of records waiting in *@bytes and the
 * reason in @why; 0 when nothing does; or a negative errno.
 */
int reader_held(unsigned long long *seconds, unsigned long *bytes, char *why,
		size_t why_size);

/* What reader_stream() says of the reader's stream to the host. */
enum {
	STREAM_NONE = 0,	/* no port: run-qemu.sh --log gives one */
	STREAM_ON = 1,		/* sealed lines go to the host */
	STREAM_STOPPED = 2,	/* it failed: @why says why */
};

/*
 * The reader's stream, as it last said: STREAM_*, or a negative errno
 * (-ENOENT: the state file says nothing of it); the port in @port, and
 * for a stopped stream the errno's name in @why.
 */
int reader_stream(char *port, size_t port_size, char *why, size_t why_size);

/*
 * The audit reader's claim in @p's map "reader" (progs/krsi_reader.h),
 * which protect_init, protect_log and krsi_lock know it by: written with
 * this process's id and start time and frozen, before the seal, and read
 * back.  0 or a negative errno (EPERM: claimed by another, or sealed).
 */
int reader_claim(const struct policy *p);
/* Does @p's claim name process @pid?  1, 0, or a negative errno. */
int reader_claimed(const struct policy *p, pid_t pid);
/*
 * Does the attached policy named @policy know process @pid as the reader?
 * 1, 0, or a negative errno (-ENOENT: not attached).
 */
int reader_known_to(const char *policy, pid_t pid);
/* Is the map behind @fd frozen?  Its fdinfo says so: 1, 0 or -errno. */
int map_frozen(int fd);

/*
 * Field 22 of /proc/PID/stat, when @pid started: 0 or a negative errno
 * (-ESRCH: it has ended, a zombie).
 */
int proc_start_time(pid_t pid, unsigned long long *start);

/*
 * Signed policies, which the kernel holds (signed.c): attach or replace
 * the one @what names (a path, or NAME for KRSI_SIGNED_DIR/NAME.krsi),
 * saying why the kernel refused it: 0 or a negative errno.  What the
 * kernel holds of policy @name: 1 and @held, 0 nothing, or a negative
 * errno.
 */
#define KRSI_SIGNED_DIR		"/usr/lib/krsi"
#define KRSI_POLICIES_FILE	"/sys/kernel/security/krsi/policies"

struct held_policy {
	__u32 version;
	unsigned long long load_id;
	unsigned long long time_ns;	/* CLOCK_BOOTTIME of the load */
	__u32 pid, uid;			/* who wrote it; 0, 0: the kernel */
	char links[512];	/* their ids, separated by spaces */
};

int signed_attach(const char *what);
int signed_held(const char *name, struct held_policy *held);
/*
 * A descriptor of what policy @p, held by the kernel, has as @obj: the link
 * of its program @obj, or its map @obj opened with @flags; or a negative
 * errno (-ENOENT: not held, or no such object).
 */
int held_fd(const struct policy *p, const char *obj, __u32 flags);
/* Does the kernel hold the policy @name?  (Its maps are found through its
 * programs, and only a newer signed version replaces it.) */
bool signed_is_held(const char *name);
/*
 * Call @fn for each policy the kernel holds that this build has no
 * skeleton of (signed elsewhere), whose maps and records the tools cannot
 * name: 0 (also when the kernel holds no signed policies), or a negative
 * errno if the held policies could not be read.
 */
int held_unknown(void (*fn)(const char *name, __u32 version,
			    unsigned long long load_id, void *arg),
		 void *arg);
/* What the kernel says of its load of @p, as the map origin would. */
struct krsi_origin;
int held_origin(const struct policy *p, struct krsi_origin *o);

/* 1 locked, 0 not, or a negative errno when there is no lock to ask (lock.c). */
/*
 * krsi_lock's latches (progs/krsi_lock.bpf.c): KRSI_SEALED after `krsi
 * lock`, KRSI_LOCKED when only the lock is frozen (a kernel that locks at
 * boot, until /init seals), 0 unlocked, -ENOENT without krsi_lock, or
 * another negative errno.  Locked either way, a policy is attached
 * through the kernel, signed.
 */
enum { KRSI_LOCKED = 1, KRSI_SEALED = 2 };
int krsi_locked(void);

/*
 * What the kernel says of itself in /sys/kernel/security/krsi/mode, never
 * the kernel log: as it says it ("enforcing", "audit-only") with @raw,
 * else for people; "unknown (...)" when it cannot be read (status.c).
 */
const char *enforce_mode(bool raw);

/* The number of hook files, or a negative errno (hooks.c). */
int hook_count(void);
/* Is the kernel keeping run-time statistics?  1, 0, or a negative errno. */
int stats_enabled(void);
/* The kernel's information on program @id, through a descriptor by id. */
struct bpf_prog_info;
int prog_info(__u32 id, struct bpf_prog_info *info);

/*
 * The commands (main.c's table): each gets its arguments with its own
 * name as argv[0], checks them and returns the exit status: 0, 1 when it
 * failed (the message names the policy, the hook and the errno), or
 * EXIT_USAGE.
 */
#define EXIT_USAGE 2

int cmd_list(int argc, char **argv);		/* list.c */
int cmd_status(int argc, char **argv);		/* status.c */
int cmd_lock(int argc, char **argv);		/* lock.c */
int cmd_attach(int argc, char **argv);		/* attach.c */
int cmd_detach(int argc, char **argv);
int cmd_enforce(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_replace(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_events(int argc, char **argv);		/* events.c */
int cmd_why(int argc, char **argv);
int cmd_logd(int argc, char **argv);		/* logd/logd.c */
int cmd_hooks(int argc, char **argv);		/* hooks.c */
int cmd_hook(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_doctor(int argc, char **argv);		/* doctor.c */
int cmd_trace(int argc, char **argv);		/* trace.c */

/*
 * Argument checks (args.c): 0 when @argv, after the command's name, is
 * empty (args_none), one word (args_one), empty or "--json" (args_json:
 * 1 for --json); else the message, and -1.
 */
int args_none(int argc, char **argv);
int args_one(int argc, char **argv);
int args_json(int argc, char **argv);

/* "krsi: WHAT: ERRNO" on stderr, WHAT from @fmt (common.c). */
void error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CLOCK_MONOTONIC in milliseconds. */
long long now_ms(void);

#endif
