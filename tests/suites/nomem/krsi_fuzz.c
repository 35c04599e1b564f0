// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of the KRSI interface, run on the debug kernel (KASAN, lockdep,
 * PROVE_RCU, panic_on_warn=1).  WORKERS processes at once each run
 * OPS_PER_WORKER random operations on hook files: open, read, attach,
 * replace (BPF_F_ALLOW_OVERRIDE, NAME__vN names), detach, close, and
 * closing and getting back program descriptors, with valid and invalid
 * descriptors (closed, O_PATH, read-only hook files, regular files, pipes,
 * maps, programs), programs (for the hook, for another hook, sleepable
 * ones on file_open, a sleepable hook, BPF_LSM_CGROUP, socket filters),
 * attach types and flags; one attach or
 * detach in ten with its allocation made to fail (failslab, fail-nth).
 *
 * Each worker keeps a model of what it attached where.  Every result must
 * be an errno that Documentation/admin-guide/LSM/krsi.rst lists for the
 * call and, of those, the one the call's defects or the model predict
 * (any of them when a call has several defects, as the guide orders none).
 * Reading a hook file must show the worker's programs as its model has
 * them.  At the end the workers send their models to the parent, which
 * checks that each hook file lists exactly the models' programs, detaches
 * them, and checks that the hooks are as before and that no program of the
 * fuzzer is left in the kernel.
 *
 * Every program returns 0 (allows), so the guest keeps working whatever
 * is attached where.  KRSI_FUZZ_SEED=N in the environment replays a run's
 * choices, not its timing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "btf_lookup.h"
#include "guest.h"

#define WORKERS		4
#define OPS_PER_WORKER	10000
#define PHASES		5	/* of filling and emptying the hooks */
#define TIME_LIMIT	200	/* seconds; the runner kills a test at 300 */
#define NR_SHARED	8	/* hooks every worker uses */
#define NR_HOOKS	(NR_SHARED + WORKERS)	/* and one of its own each */
#define MAX_PROGS	64	/* KRSI_MAX_PROGS */
#define CROWD		66	/* more than a hook runs: E2BIG on a worker's own hook */
#define NR_SLOTS	16	/* hook descriptors a worker holds at most */
#define MAX_REPORTS	20	/* "not ok" lines a worker prints at most */
#define CLOSED_FD	999	/* never open: descriptors are allocated lowest first */
#define NAME_LEN	BPF_OBJ_NAME_LEN
#define MAX_LINES	80

/*
 * A worker's programs for each of its hooks, by the suffix of their names
 * (fz<worker>_<hook><suffix>): versions of one policy (a, a__v1, a__v2,
 * and a___v3, whose first "__" comes right after the "a"), names that only
 * look alike (a_, ab and its version), a version with an empty suffix
 * (b__), and an unnamed program ("").  No name is empty before its "__"
 * ("__v1"): the guide does not say whether one replaces an unnamed
 * program, and the names must be the worker's own.
 */
static const char *const suffixes[] = {
	"a", "a__v1", "a__v2", "a___v3", "a_", "ab", "ab__v1", "b__", "",
};
#define REG		((int)(sizeof(suffixes) / sizeof(suffixes[0])))
#define PER_HOOK	(REG + 1 + CROWD)
#define POOL_MAX	(NR_SHARED * REG + 1 + PER_HOOK)

/* Hooks that are always used; the others are picked at random. */
static const char *const fixed_hooks[] = { "file_open", "task_kill", "socket_create" };
#define SLEEP_HOOK	0	/* file_open: lsm.s/ programs may use it */

/* The results the admin guide lists for attach and detach, and others. */
enum res {
	RS_OK, RS_EPERM, RS_EBADF, RS_ENOTTY, RS_EACCES, RS_EINVAL, RS_EXDEV,
	RS_EOPNOTSUPP, RS_EEXIST, RS_E2BIG, RS_ENOMEM, RS_ENOENT, RS_OTHER, NR_RES
};
static const int res_errno[NR_RES] = {
	0, EPERM, EBADF, ENOTTY, EACCES, EINVAL, EXDEV, EOPNOTSUPP, EEXIST,
	E2BIG, ENOMEM, ENOENT, 0,
};
#define M(r)	(1u << (r))

enum op { OP_OPEN, OP_CLOSE, OP_READ, OP_PROGFD, OP_ATTACH, OP_REPLACE, OP_DETACH, NR_OPS };
static const char *const op_names[NR_OPS] = {
	"open", "close", "read", "program fd", "attach", "replace", "detach",
};

/* What a descriptor given as target_fd is. */
enum { T_WRITABLE, T_RDONLY, T_BADF, T_NOTHOOK };
/* What a descriptor given as attach_bpf_fd is. */
enum { P_POOL, P_CGROUP, P_NOTLSM, P_BADF };

struct fdsel {
	int fd;
	int cls;
	int hook;	/* of a hook file or an LSM program, else -1 */
	int pool;	/* index in the worker's pool, else -1 */
	char what[96];
};

struct hook {
	char name[64];
	__u32 btf_id;
	int foreign;	/* lines not of the fuzzer at the start */
	int dashes;	/* of those, unnamed programs */
};

struct prog {
	char name[NAME_LEN];
	int hook;
	bool sleepable;	/* lsm.s/: only for SLEEP_HOOK */
	int fd;		/* -1 while closed */
	__u32 id;
};

struct slot {
	int fd;		/* -1 when free */
	int hook;
	int mode;
};

/* What a worker sends the parent, then one record per attached program. */
struct report {
	long ops, unexpected, replaced, empty_reads;
	/* Calls made with an allocation failing, and what came of them. */
	long failing, failing_enomem, failing_detached;
	long stats[NR_OPS][NR_RES];
	bool broken, timed_out;
	int nrec;
};

struct record {
	int hook;
	__u32 id;
	char name[NAME_LEN];
};

static struct hook hooks[NR_HOOKS];
static struct timespec start;
static bool failslab;	/* allocations can be made to fail */

/* One worker's state; each worker is a process with its own copy. */
static struct {
	int w;
	uint64_t rng;
	struct prog pool[POOL_MAX];
	int npool;
	int by_hook[NR_HOOKS][PER_HOOK], nby[NR_HOOKS];
	/* The model: pool indices of the programs attached to each hook,
	 * in run order.
	 */
	int list[NR_HOOKS][MAX_PROGS], len[NR_HOOKS];
	struct slot slots[NR_SLOTS];
	int file, path, pipe[2], map, sock, cgroup, dir, mode;
	int fail_nth;	/* /proc/thread-self/fail-nth, or -1 */
	long reports;
	struct report rep;
} W;

static uint64_t rnd64(void)
{
	W.rng ^= W.rng << 13;
	W.rng ^= W.rng >> 7;
	W.rng ^= W.rng << 17;
	return W.rng;
}

static int rnd(int n)
{
	return (int)(rnd64() % (uint64_t)n);
}

static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
}

static int res_index(int err)
{
	int r;

	for (r = 0; r < RS_OTHER; r++)
		if (res_errno[r] == -err)
			return r;
	return RS_OTHER;
}

static const char *res_name(int r)
{
	return r == RS_OK ? "ok" : errname(res_errno[r]);
}

/* Count an unexpected result; print it, up to MAX_REPORTS a worker. */
__attribute__((format(printf, 1, 2)))
static void unexpected(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	W.rep.unexpected++;
	if (W.reports++ >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	check(false, "worker %d op %ld: %s", W.w, W.rep.ops, msg);
}

/* Count @err (0 or a negative errno) for @op and check it is in @mask. */
static bool expect(int op, int err, unsigned int mask, const char *what)
{
	int r = res_index(err);
	char want[128] = "";
	size_t len = 0;
	int i;

	W.rep.stats[op][r]++;
	if (mask & M(r))
		return true;
	for (i = 0; i < RS_OTHER && len < sizeof(want) - 16; i++)
		if (mask & M(i))
			len += snprintf(want + len, sizeof(want) - len, "%s%s",
					len ? "|" : "", res_name(i));
	unexpected("%s %s: %s, want %s%s", op_names[op], what,
		   err ? errname(-err) : "ok", want,
		   r == RS_OTHER ? " (an errno the admin guide does not list)" : "");
	return false;
}

/* The length of @name up to its first "__", as KRSI matches versions. */
static size_t base_len(const char *name)
{
	const char *sep = strstr(name, "__");

	return sep ? (size_t)(sep - name) : strlen(name);
}

static int model_find(int h, int p)
{
	int i;

	for (i = 0; i < W.len[h]; i++)
		if (W.list[h][i] == p)
			return i;
	return -1;
}

/* The position of an attached program that @p would replace, or -1. */
static int model_find_base(int h, int p)
{
	const char *name = W.pool[p].name;
	size_t len = base_len(name);
	int i;

	if (!name[0])
		return -1;
	for (i = 0; i < W.len[h]; i++) {
		const char *other = W.pool[W.list[h][i]].name;

		if (other[0] && base_len(other) == len && !strncmp(name, other, len))
			return i;
	}
	return -1;
}

static bool attached(int p)
{
	return model_find(W.pool[p].hook, p) >= 0;
}

/* Programs other workers may have on @h: E2BIG is possible beyond. */
static int others_cap(int h)
{
	return h < NR_SHARED ? (WORKERS - 1) * REG : 0;
}

/*
 * bpf(@cmd) with these fields; with @failing, the first allocation that
 * can be made to fail (the new program array, if it gets that far) fails.
 */
static int bpf_cmd(int cmd, int target, int prog, int type, unsigned int flags,
		   bool failing)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = target;
	attr.attach_bpf_fd = prog;
	attr.attach_type = type;
	attr.attach_flags = flags;
	if (failing && write(W.fail_nth, "1", 1) != 1)
		unexpected("arm fail-nth: %s", errname(errno));
	err = (int)sys_bpf(cmd, &attr);
	/* Disarm it: a call that allocated nothing left it armed. */
	if (failing && write(W.fail_nth, "0", 1) != 1)
		unexpected("disarm fail-nth: %s", errname(errno));
	return err;
}

static int prog_fd_by_id(__u32 id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	return (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
}

static int prog_info(int fd, struct bpf_prog_info *info)
{
	memset(info, 0, sizeof(*info));
	return sys_bpf_obj_info(fd, info, sizeof(*info));
}

/* "return 0" as any program type, for the descriptors of the wrong kind. */
static int load_other(int type, int attach_type, __u32 btf_id, int flags,
		      const char *name)
{
	static const struct bpf_insn allow[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.expected_attach_type = attach_type;
	attr.attach_btf_id = btf_id;
	attr.prog_flags = flags;
	attr.insns = (unsigned long)allow;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	return (int)sys_bpf(BPF_PROG_LOAD, &attr);
}

/* Load pool program @p (its name and hook set): 0 or a negative errno. */
static int pool_load(struct prog *p)
{
	struct bpf_prog_info info;

	p->fd = p->sleepable ?
		load_other(BPF_PROG_TYPE_LSM, BPF_LSM_MAC, hooks[p->hook].btf_id,
			   BPF_F_SLEEPABLE, p->name) :
		load_allow(hooks[p->hook].btf_id, p->name);
	p->id = 0;
	if (p->fd < 0)
		return p->fd;
	if (prog_info(p->fd, &info))
		return -EIO;
	p->id = info.id;
	return 0;
}

static int pool_add(int h, const char *name, bool sleepable)
{
	struct prog *p = &W.pool[W.npool];

	snprintf(p->name, sizeof(p->name), "%s", name);
	p->hook = h;
	p->sleepable = sleepable;
	W.by_hook[h][W.nby[h]++] = W.npool++;
	return pool_load(p);
}

/*
 * The worker's programs and its descriptors of the wrong kind: 0, or -1
 * with a "not ok" line.
 */
static int worker_setup(void)
{
	const char *what = "load its programs";
	char name[NAME_LEN], path[64];
	int h, i, err = 0;
	union bpf_attr attr;

	for (h = 0; h < NR_HOOKS && !err; h++) {
		if (h >= NR_SHARED && h != NR_SHARED + W.w)
			continue;
		for (i = 0; i < REG && !err; i++) {
			name[0] = '\0';
			if (suffixes[i][0])
				snprintf(name, sizeof(name), "fz%d_%d%s", W.w, h,
					 suffixes[i]);
			err = pool_add(h, name, false);
		}
		/* A sleepable program runs on file_open like the others. */
		if (h == SLEEP_HOOK && !err) {
			snprintf(name, sizeof(name), "fz%d_sleep", W.w);
			err = pool_add(h, name, true);
		}
		for (i = 0; i < CROWD && h >= NR_SHARED && !err; i++) {
			snprintf(name, sizeof(name), "fz%d_c%d", W.w, i);
			err = pool_add(h, name, false);
		}
	}
	if (err)
		goto fail;

	what = "make its descriptors of the wrong kind";
	snprintf(path, sizeof(path), "/tmp/krsi_fuzz.%d", W.w);
	W.file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	W.path = open(path, O_PATH | O_CLOEXEC);
	unlink(path);
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	W.map = (int)sys_bpf(BPF_MAP_CREATE, &attr);
	W.dir = open(KRSI_HOOK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	W.mode = open("/sys/kernel/security/krsi/mode", O_RDONLY | O_CLOEXEC);
	snprintf(name, sizeof(name), "fz%d_sock", W.w);
	W.sock = load_other(BPF_PROG_TYPE_SOCKET_FILTER, 0, 0, 0, name);
	/* Optional: only with CONFIG_CGROUP_BPF, and for sleepable hooks. */
	snprintf(name, sizeof(name), "fz%d_cg", W.w);
	W.cgroup = load_other(BPF_PROG_TYPE_LSM, BPF_LSM_CGROUP,
			      hooks[SLEEP_HOOK].btf_id, 0, name);
	if (!W.w)
		printf("# BPF_LSM_CGROUP program: %s\n",
		       W.cgroup >= 0 ? "loaded" : errname(-W.cgroup));
	fflush(stdout);		/* a worker ends with _exit() */
	if (pipe2(W.pipe, O_CLOEXEC))
		W.pipe[0] = W.pipe[1] = -1;
	if (failslab)
		W.fail_nth = open("/proc/thread-self/fail-nth", O_WRONLY | O_CLOEXEC);
	err = W.file < 0 || W.path < 0 || W.map < 0 || W.dir < 0 ||
	      W.mode < 0 || W.sock < 0 || W.pipe[0] < 0 ||
	      (failslab && W.fail_nth < 0) ? -EIO : 0;
	if (!err)
		return 0;
fail:
	check(false, "worker %d: %s: %s (%d programs loaded)", W.w, what,
	      errname(-err), W.npool);
	return -1;
}

static void worker_cleanup(void)
{
	int fds[] = { W.file, W.path, W.pipe[0], W.pipe[1], W.map, W.sock,
		      W.cgroup, W.dir, W.mode, W.fail_nth };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 0; i < (size_t)W.npool; i++)
		if (W.pool[i].fd >= 0)
			close(W.pool[i].fd);
	for (i = 0; i < NR_SLOTS; i++)
		if (W.slots[i].fd >= 0)
			close(W.slots[i].fd);
}

/* A worker's own hook often enough that it fills up to E2BIG. */
static int pick_hook(void)
{
	return rnd(5) < 3 ? rnd(NR_SHARED) : NR_SHARED + W.w;
}

static int pick_slot(void)
{
	int used[NR_SLOTS], n = 0, s;

	for (s = 0; s < NR_SLOTS; s++)
		if (W.slots[s].fd >= 0)
			used[n++] = s;
	return n ? used[rnd(n)] : -1;
}

static const char *mode_name(int mode)
{
	switch (mode) {
	case O_RDONLY: return "O_RDONLY";
	case O_WRONLY: return "O_WRONLY";
	case O_PATH: return "O_PATH";
	default: return "O_RDWR";
	}
}

static void set_fd(struct fdsel *s, int fd, int cls, const char *what)
{
	s->fd = fd;
	s->cls = cls;
	snprintf(s->what, sizeof(s->what), "%s", what);
}

/* A hook descriptor of ours most of the time, else anything else. */
static void pick_target(struct fdsel *t)
{
	int s = rnd(10) < 8 ? pick_slot() : -1;

	t->hook = t->pool = -1;
	if (s >= 0) {
		const struct slot *sl = &W.slots[s];

		t->fd = sl->fd;
		t->hook = sl->hook;
		t->cls = sl->mode == O_PATH ? T_BADF :
			 sl->mode == O_RDONLY ? T_RDONLY : T_WRITABLE;
		snprintf(t->what, sizeof(t->what), "%s (%s)", hooks[sl->hook].name,
			 mode_name(sl->mode));
		return;
	}
	switch (rnd(9)) {
	case 0: set_fd(t, W.file, T_NOTHOOK, "a regular file"); break;
	case 1: set_fd(t, W.pipe[1], T_NOTHOOK, "a pipe"); break;
	case 2: set_fd(t, W.map, T_NOTHOOK, "a map"); break;
	case 3: set_fd(t, W.sock, T_NOTHOOK, "a program"); break;
	case 4: set_fd(t, W.dir, T_NOTHOOK, "the hook directory"); break;
	case 5: set_fd(t, W.mode, T_NOTHOOK, "krsi/mode"); break;
	case 6: set_fd(t, W.path, T_BADF, "an O_PATH descriptor"); break;
	case 7: set_fd(t, CLOSED_FD, T_BADF, "a closed descriptor"); break;
	default: set_fd(t, -1, T_BADF, "descriptor -1"); break;
	}
}

enum purpose { FOR_ATTACH, FOR_REPLACE, FOR_DETACH };

/*
 * A program of the pool for hook @h: for an attach, most often one not
 * attached; for a replace, one with the name of an attached one; for
 * a detach, an attached one.
 */
static int pick_pool(int h, enum purpose why)
{
	int cand[PER_HOOK], n = 0, i;

	for (i = 0; i < W.nby[h]; i++) {
		int p = W.by_hook[h][i];
		bool in = model_find(h, p) >= 0;

		if ((why == FOR_ATTACH && !in) || (why == FOR_DETACH && in) ||
		    (why == FOR_REPLACE && !in && model_find_base(h, p) >= 0))
			cand[n++] = p;
	}
	if (n && rnd(10) < 8)
		return cand[rnd(n)];
	return W.by_hook[h][rnd(W.nby[h])];
}

static void set_pool(struct fdsel *p, int i)
{
	const struct prog *pr = &W.pool[i];

	p->pool = i;
	p->hook = pr->hook;
	p->fd = pr->fd >= 0 ? pr->fd : CLOSED_FD;
	p->cls = pr->fd >= 0 ? P_POOL : P_BADF;
	snprintf(p->what, sizeof(p->what), "%s%s", pr->name[0] ? pr->name : "(unnamed)",
		 pr->fd >= 0 ? "" : " (descriptor closed)");
}

/* A program for hook @h most of the time, else anything else. */
static void pick_prog(struct fdsel *p, int h, enum purpose why)
{
	int r = rnd(100), s;

	p->hook = p->pool = -1;
	if (r < 80) {
		set_pool(p, pick_pool(h, why));
		return;
	}
	if (r < 86) {
		set_pool(p, rnd(W.npool));
		return;
	}
	switch (rnd(8)) {
	case 0:
		set_fd(p, W.sock, P_NOTLSM, "a socket filter");
		break;
	case 1:
		if (W.cgroup >= 0) {
			set_fd(p, W.cgroup, P_CGROUP, "a BPF_LSM_CGROUP program");
			p->hook = SLEEP_HOOK;
			break;
		}
		/* fall through */
	case 2:
	case 3:
		set_fd(p, W.map, P_NOTLSM, "a map");
		break;
	case 4:
		set_fd(p, W.pipe[0], P_NOTLSM, "a pipe");
		break;
	case 5:
		s = pick_slot();
		if (s >= 0 && W.slots[s].mode != O_PATH) {
			set_fd(p, W.slots[s].fd, P_NOTLSM, "a hook file");
			break;
		}
		set_fd(p, W.path, P_BADF, "an O_PATH descriptor");
		break;
	case 6:
		set_fd(p, CLOSED_FD, P_BADF, "a closed descriptor");
		break;
	default:
		set_fd(p, -1, P_BADF, "descriptor -1");
		break;
	}
}

static int pick_type(void)
{
	static const int others[] = {
		BPF_LSM_CGROUP, BPF_CGROUP_INET_INGRESS, BPF_TRACE_FENTRY, 0x7fff,
	};

	return rnd(15) ? BPF_LSM_MAC : others[rnd(4)];
}

/* @usual, or now and then flags KRSI does not know or cannot use here. */
static unsigned int pick_flags(unsigned int usual)
{
	static const unsigned int bad[] = {
		BPF_F_ALLOW_MULTI, BPF_F_REPLACE, BPF_F_ALLOW_MULTI | BPF_F_REPLACE,
		BPF_F_ALLOW_OVERRIDE | BPF_F_ALLOW_MULTI,
	};
	int r = rnd(5);

	if (rnd(10))
		return usual;
	return r < 4 ? bad[r] : 1u << (3 + rnd(29));
}

static const char *type_name(int type)
{
	switch (type) {
	case BPF_LSM_MAC: return "BPF_LSM_MAC";
	case BPF_LSM_CGROUP: return "BPF_LSM_CGROUP";
	case BPF_CGROUP_INET_INGRESS: return "BPF_CGROUP_INET_INGRESS";
	case BPF_TRACE_FENTRY: return "BPF_TRACE_FENTRY";
	default: return "an unknown attach type";
	}
}

static unsigned int target_mask(const struct fdsel *t)
{
	switch (t->cls) {
	case T_RDONLY: return M(RS_EACCES);
	case T_BADF: return M(RS_EBADF);
	case T_NOTHOOK: return M(RS_ENOTTY);
	default: return 0;
	}
}

/*
 * The errnos an attach with these arguments may fail with; none when all
 * are valid, and then the model says.
 */
static unsigned int attach_defects(const struct fdsel *t, const struct fdsel *p,
				   unsigned int flags)
{
	unsigned int mask = target_mask(t);

	if (flags & ~BPF_F_ALLOW_OVERRIDE)
		mask |= M(RS_EINVAL);
	/*
	 * BPF_F_REPLACE alone is valid, but replace_bpf_fd is 0 here, which
	 * is no program (the worker's standard input, or nothing).
	 */
	if (flags == BPF_F_REPLACE)
		mask |= M(RS_EBADF);
	switch (p->cls) {
	case P_CGROUP: case P_NOTLSM: mask |= M(RS_EINVAL); break;
	case P_BADF: mask |= M(RS_EBADF); break;
	}
	if (t->hook >= 0 && p->hook >= 0 && p->hook != t->hook &&
	    p->cls == P_POOL)
		mask |= M(RS_EXDEV);
	return mask;
}

/* Other attach types are not KRSI's: mainline's paths refuse them. */
#define NOT_KRSI	(M(RS_EINVAL) | M(RS_EBADF))

static void op_attach(bool replace)
{
	unsigned int flags, mask;
	struct fdsel t, p;
	int type = pick_type(), h, same = -1, listed, err;
	bool failing = W.fail_nth >= 0 && !rnd(10);
	char what[320];

	pick_target(&t);
	h = t.hook >= 0 ? t.hook : pick_hook();
	pick_prog(&p, h, replace ? FOR_REPLACE : FOR_ATTACH);
	flags = pick_flags(replace || !rnd(4) ? BPF_F_ALLOW_OVERRIDE : 0);
	mask = type == BPF_LSM_MAC ? attach_defects(&t, &p, flags) : NOT_KRSI;
	if (!mask) {
		listed = W.len[h] + hooks[h].foreign;
		same = model_find_base(h, p.pool);
		if (model_find(h, p.pool) >= 0 ||
		    (same >= 0 && !(flags & BPF_F_ALLOW_OVERRIDE)))
			mask = M(RS_EEXIST);
		else if (same >= 0)
			mask = M(RS_OK) | M(RS_ENOMEM);
		else if (listed >= MAX_PROGS)
			mask = M(RS_E2BIG);
		else
			mask = M(RS_OK) | M(RS_ENOMEM) |
			       (listed + others_cap(h) >= MAX_PROGS ? M(RS_E2BIG) : 0);
	}
	err = bpf_cmd(BPF_PROG_ATTACH, t.fd, p.fd, type, flags, failing);
	snprintf(what, sizeof(what), "(target %s, program %s, %s, flags %#x%s)",
		 t.what, p.what, type_name(type), flags,
		 failing ? ", an allocation failing" : "");
	W.rep.failing += failing;
	W.rep.failing_enomem += failing && err == -ENOMEM;
	if (!expect(replace ? OP_REPLACE : OP_ATTACH, err, mask, what)) {
		/* The kernel did what the model cannot follow. */
		W.rep.broken |= !err;
		return;
	}
	if (err)
		return;
	if (same >= 0) {
		/* In place, as the guide says; the old version is let go. */
		W.list[h][same] = p.pool;
		W.rep.replaced++;
	} else {
		W.list[h][W.len[h]++] = p.pool;
	}
}

static void op_detach(void)
{
	unsigned int flags = rnd(12) ? 0 : pick_flags(BPF_F_ALLOW_OVERRIDE);
	unsigned int mask;
	struct fdsel t, p;
	int type = pick_type(), h, pos = -1, err, i;
	bool failing = W.fail_nth >= 0 && !rnd(10);
	char what[320];

	pick_target(&t);
	h = t.hook >= 0 ? t.hook : pick_hook();
	pick_prog(&p, h, FOR_DETACH);
	/* "The same fields (and no flags)": bpf() refuses any. */
	mask = type != BPF_LSM_MAC ? NOT_KRSI : target_mask(&t) |
	       (flags ? M(RS_EINVAL) : 0) |
	       (p.cls == P_NOTLSM ? M(RS_EINVAL) : p.cls == P_BADF ? M(RS_EBADF) : 0);
	if (!mask) {
		pos = p.pool >= 0 ? model_find(h, p.pool) : -1;
		mask = pos >= 0 ? M(RS_OK) : M(RS_ENOENT);
	}
	/* "A detach never fails for lack of memory": the model is the same. */
	err = bpf_cmd(BPF_PROG_DETACH, t.fd, p.fd, type, flags, failing);
	snprintf(what, sizeof(what), "(target %s, program %s, %s, flags %#x%s)",
		 t.what, p.what, type_name(type), flags,
		 failing ? ", an allocation failing" : "");
	W.rep.failing += failing;
	W.rep.failing_detached += failing && !err;
	if (!expect(OP_DETACH, err, mask, what)) {
		W.rep.broken |= !err;
		return;
	}
	if (err)
		return;
	for (i = pos; i < W.len[h] - 1; i++)
		W.list[h][i] = W.list[h][i + 1];
	W.len[h]--;
}

static void op_close(void)
{
	int s = pick_slot();
	char what[96];

	if (s < 0) {
		expect(OP_CLOSE, close(CLOSED_FD) ? -errno : 0, M(RS_EBADF),
		       "(a closed descriptor)");
		return;
	}
	snprintf(what, sizeof(what), "(%s, %s)", hooks[W.slots[s].hook].name,
		 mode_name(W.slots[s].mode));
	expect(OP_CLOSE, close(W.slots[s].fd) ? -errno : 0, M(RS_OK), what);
	W.slots[s].fd = -1;
}

static void op_open(void)
{
	static const int modes[] = {
		O_RDWR, O_RDWR, O_RDWR, O_RDWR, O_WRONLY, O_RDONLY, O_RDONLY, O_PATH,
	};
	int h = pick_hook(), mode = modes[rnd(8)], s, fd;
	const char *name = hooks[h].name;
	bool absent = !rnd(20);
	char what[96];

	/* Hooks LSM programs may not use have no file. */
	if (absent)
		name = rnd(2) ? "no_such_hook" : "getprocattr";
	for (s = 0; s < NR_SLOTS && W.slots[s].fd >= 0; s++)
		;
	if (s == NR_SLOTS) {
		op_close();
		for (s = 0; W.slots[s].fd >= 0; s++)
			;
	}
	fd = krsi_hook_open(name, mode | (rnd(2) ? O_NONBLOCK : 0));
	snprintf(what, sizeof(what), "(%s, %s)", name, mode_name(mode));
	if (!expect(OP_OPEN, fd < 0 ? fd : 0, absent ? M(RS_ENOENT) : M(RS_OK), what) ||
	    fd < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	W.slots[s] = (struct slot){ .fd = fd, .hook = h, .mode = mode };
}

/* A line of a listing: a program name, or "-" for an unnamed program. */
static bool is_name(const char *p, size_t len)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";

	if (len == 1 && *p == '-')
		return true;
	return len && len < NAME_LEN && strspn(p, chars) >= len;
}

/* Split @buf, a hook's listing, into @lines; false if it is not one. */
static bool parse_listing(const char *buf, char lines[][NAME_LEN], int *n)
{
	const char *p = buf;

	*n = 0;
	while (*p) {
		const char *end = strchr(p, '\n');

		if (!end || *n == MAX_LINES || !is_name(p, end - p))
			return false;
		memcpy(lines[*n], p, end - p);
		lines[(*n)++][end - p] = '\0';
		p = end + 1;
	}
	return true;
}

static bool is_workers(const char *line, int w)
{
	char prefix[8];

	snprintf(prefix, sizeof(prefix), "fz%d_", w);
	return !strncmp(line, prefix, strlen(prefix));
}

/* Worker @w's lines of the listing @lines, in order, into @out. */
static int mine(char lines[][NAME_LEN], int n, int w, char out[][NAME_LEN])
{
	int i, k = 0;

	for (i = 0; i < n && k < MAX_LINES; i++)
		if (is_workers(lines[i], w))
			memcpy(out[k++], lines[i], NAME_LEN);
	return k;
}

static bool same_names(char a[][NAME_LEN], int na, char b[][NAME_LEN], int nb)
{
	int i;

	for (i = 0; i < na && i < nb && !strcmp(a[i], b[i]); i++)
		;
	return i == na && i == nb;
}

/* @names, space-separated, in @buf (cut to its size). */
static const char *joined(char names[][NAME_LEN], int n, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", names[i]);
	return buf;
}

static int count_dashes(char lines[][NAME_LEN], int n)
{
	int i, dashes = 0;

	for (i = 0; i < n; i++)
		dashes += !strcmp(lines[i], "-");
	return dashes;
}

/* Read all of @fd from its start: the length, or a negative errno. */
static int read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 1;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	/* Chunks of random size: a listing read in parts is one snapshot. */
	while (n > 0 && len < size - 1) {
		size_t chunk = 1 + (size_t)rnd(512);

		n = read(fd, buf + len, chunk < size - 1 - len ? chunk : size - 1 - len);
		if (n < 0)
			return -errno;
		len += n;
	}
	buf[len] = '\0';
	return (int)len;
}

/* Read a hook file: it must list this worker's programs as the model has. */
static void op_read(void)
{
	static char buf[4096];
	char lines[MAX_LINES][NAME_LEN], want[MAX_PROGS][NAME_LEN], got[MAX_LINES][NAME_LEN];
	char what[96], listed[200], model[200];
	int s = pick_slot(), n, ngot, nwant = 0, unnamed = 0, h, i, err;
	bool readable, parsed;

	if (s < 0) {
		op_open();
		return;
	}
	h = W.slots[s].hook;
	readable = W.slots[s].mode == O_RDONLY || W.slots[s].mode == O_RDWR;
	err = read_all(W.slots[s].fd, buf, sizeof(buf));
	snprintf(what, sizeof(what), "(%s, %s)", hooks[h].name, mode_name(W.slots[s].mode));
	if (!expect(OP_READ, err < 0 ? err : 0, readable ? M(RS_OK) : M(RS_EBADF), what) ||
	    err < 0)
		return;
	for (i = 0; i < W.len[h]; i++) {
		const char *name = W.pool[W.list[h][i]].name;

		if (name[0])
			memcpy(want[nwant++], name, NAME_LEN);
		else
			unnamed++;
	}
	parsed = parse_listing(buf, lines, &n);
	ngot = mine(lines, n, W.w, got);
	/* Others' unnamed programs are listed as "-" too: at least ours. */
	if (parsed && same_names(got, ngot, want, nwant) && count_dashes(lines, n) >= unnamed) {
		W.rep.empty_reads += !n;
		return;
	}
	unexpected("read %s: %s '%s' and %d unnamed of worker %d's; the model has '%s' and %d unnamed%s",
		   what, parsed ? "lists" : "is not a listing, has", joined(got, ngot, listed,
		   sizeof(listed)), count_dashes(lines, n), W.w,
		   joined(want, nwant, model, sizeof(model)), unnamed,
		   W.rep.broken ? " (model broken)" : "");
}

/*
 * Close a program's descriptor, or get it back by id: it must be there
 * while a hook holds it, and gone once nothing does.
 */
static void op_progfd(void)
{
	int i = rnd(W.npool), n, fd;
	bool closing = !rnd(4);
	struct prog *p;
	bool live;
	char what[96];

	/* Mostly get one back: a pool of closed descriptors tests little. */
	for (n = 0; n < W.npool && (W.pool[i].fd >= 0) != closing; n++)
		i = (i + 1) % W.npool;
	p = &W.pool[i];
	live = attached(i);

	snprintf(what, sizeof(what), "(%s, %s)", p->name[0] ? p->name : "(unnamed)",
		 live ? "attached" : "not attached");
	if (p->fd >= 0) {
		expect(OP_PROGFD, close(p->fd) ? -errno : 0, M(RS_OK), what);
		p->fd = -1;
		return;
	}
	/*
	 * A detached program keeps its hook's reference until the grace
	 * periods of its hook have passed (krsi_retire()), so one detached
	 * a moment ago may still be found by id; the final check waits for
	 * every one of them to be freed.
	 */
	fd = prog_fd_by_id(p->id);
	if (!expect(OP_PROGFD, fd < 0 ? fd : 0,
		    live ? M(RS_OK) : M(RS_ENOENT) | M(RS_OK), what)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fd >= 0) {
		p->fd = fd;
		return;
	}
	/* Freed with its last reference, as it must be: load it anew. */
	fd = pool_load(p);
	if (fd < 0)
		unexpected("load %s again: %s", what, errname(-fd));
}

/*
 * One operation.  Phases that mostly attach and phases that mostly detach
 * alternate, so that hooks fill up to E2BIG and empty out again; the run
 * ends filling, with many programs for the final checks.
 */
static void fuzz_one(void)
{
	bool fill = (W.rep.ops * PHASES / OPS_PER_WORKER) % 2 == 0;
	int r = rnd(100);

	if (r < 6)
		op_open();
	else if (r < 10)
		op_close();
	else if (r < 18)
		op_read();
	else if (r < 23)
		op_progfd();
	else if (r < (fill ? 73 : 35))
		op_attach(false);
	else if (r < (fill ? 85 : 45))
		op_attach(true);
	else
		op_detach();
}

static int write_all(int fd, const void *buf, size_t size)
{
	const char *p = buf;

	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0)
			return -1;
		p += n;
		size -= n;
	}
	return 0;
}

/* Send the model: the report, then each attached program by hook. */
static int send_model(int out)
{
	struct record rec;
	int h, i;

	for (h = 0; h < NR_HOOKS; h++)
		W.rep.nrec += W.len[h];
	if (write_all(out, &W.rep, sizeof(W.rep)))
		return -1;
	for (h = 0; h < NR_HOOKS; h++) {
		for (i = 0; i < W.len[h]; i++) {
			const struct prog *p = &W.pool[W.list[h][i]];

			memset(&rec, 0, sizeof(rec));
			rec.hook = h;
			rec.id = p->id;
			memcpy(rec.name, p->name, NAME_LEN);
			if (write_all(out, &rec, sizeof(rec)))
				return -1;
		}
	}
	return 0;
}

static void worker(int w, uint64_t seed, int out)
{
	int s;

	W.w = w;
	W.rng = seed * 0x9e3779b97f4a7c15ULL + w + 1;
	W.file = W.path = W.pipe[0] = W.pipe[1] = W.map = W.sock = -1;
	W.cgroup = W.dir = W.mode = W.fail_nth = -1;
	for (s = 0; s < NR_SLOTS; s++)
		W.slots[s].fd = -1;
	if (worker_setup()) {
		worker_cleanup();
		_exit(2);
	}
	while (W.rep.ops < OPS_PER_WORKER && !W.rep.timed_out) {
		fuzz_one();
		W.rep.ops++;
		W.rep.timed_out = elapsed() > TIME_LIMIT;
	}
	worker_cleanup();
	s = send_model(out);
	close(out);
	/* Unexpected results travel with the model. */
	_exit(s ? 1 : 0);
}

static int find_hook(char names[][64], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* The BTF id of each hook's bpf_lsm_ function: 0 or -1. */
static int find_btf_ids(void)
{
	struct btf_file btf;
	int h, missing = 0;

	if (btf_open(&btf))
		missing = NR_HOOKS;
	for (h = 0; h < NR_HOOKS && !missing; h++) {
		char func[80];

		snprintf(func, sizeof(func), "bpf_lsm_%.63s", hooks[h].name);
		hooks[h].btf_id = btf_find_func(&btf, func);
		missing += !hooks[h].btf_id;
	}
	btf_close(&btf);
	return check(!missing, "the BTF id of each hook's bpf_lsm_ function") ? 0 : -1;
}

/*
 * The hooks: the fixed ones, then others of the directory at random, the
 * last WORKERS of them one for each worker.  0 or -1.
 */
static int pick_hooks(uint64_t seed)
{
	static char names[512][64];
	int n = 0, h, i;
	struct dirent *d;
	DIR *dir = opendir(KRSI_HOOK_DIR);

	while (dir && (d = readdir(dir)) && n < 512)
		if (d->d_name[0] != '.')
			snprintf(names[n++], sizeof(names[0]), "%.63s", d->d_name);
	if (dir)
		closedir(dir);
	if (!check(n >= 2 * NR_HOOKS, "%d hook files in %s", n, KRSI_HOOK_DIR))
		return -1;
	W.rng = seed | 1;
	for (h = 0; h < NR_HOOKS; h++) {
		i = h < (int)(sizeof(fixed_hooks) / sizeof(fixed_hooks[0])) ?
		    find_hook(names, n, fixed_hooks[h]) : -1;
		while (i < 0) {
			int j = rnd(n), k;

			for (k = 0; k < h && strcmp(hooks[k].name, names[j]); k++)
				;
			i = k == h ? j : -1;
		}
		snprintf(hooks[h].name, sizeof(hooks[h].name), "%s", names[i]);
	}
	return find_btf_ids();
}

static void print_hooks(void)
{
	int h;

	printf("# shared hooks:");
	for (h = 0; h < NR_SHARED; h++)
		printf(" %s", hooks[h].name);
	printf("\n# each worker's own:");
	for (h = NR_SHARED; h < NR_HOOKS; h++)
		printf(" %s", hooks[h].name);
	printf("\n");
	fflush(stdout);
}

static bool write_setting(const char *path, const char *value)
{
	FILE *f = fopen(path, "we");
	bool ok = f && fputs(value, f) >= 0;

	if (f)
		ok &= fclose(f) == 0;
	return ok;
}

/*
 * Fault injection where the kernel has it (CONFIG_FAILSLAB): fail the
 * GFP_KERNEL allocations asked for with fail-nth too, without a word on
 * the console, where a stack trace would count as a kernel report.
 */
static bool setup_failslab(void)
{
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return write_setting("/sys/kernel/debug/failslab/ignore-gfp-wait", "N") &&
	       write_setting("/sys/kernel/debug/failslab/verbose", "0") &&
	       !access("/proc/thread-self/fail-nth", W_OK);
}

/* What each hook lists before the fuzzer starts: not the fuzzer's. */
static void note_foreign(void)
{
	char lines[MAX_LINES][NAME_LEN];
	static char buf[4096];
	int h, n, fz, i;

	for (h = 0; h < NR_HOOKS; h++) {
		n = 0;
		if (krsi_hook_read(hooks[h].name, buf, sizeof(buf)) < 0 ||
		    !parse_listing(buf, lines, &n))
			check(false, "read %s before the fuzzer starts", hooks[h].name);
		for (i = fz = 0; i < n; i++)
			fz += !strncmp(lines[i], "fz", 2);
		if (fz)
			check(false, "%s lists %d programs named fz* before the fuzzer starts",
			      hooks[h].name, fz);
		hooks[h].foreign = n;
		hooks[h].dashes = count_dashes(lines, n);
	}
}

struct result {
	struct report rep;
	struct record *recs;
	bool got;
};

static pid_t pids[WORKERS];

/* Stuck past the runner's patience: say so while a result still counts. */
static void on_alarm(int sig)
{
	static const char msg[] = "not ok the fuzzer did not finish in 260 s\n";
	int w;

	(void)sig;
	for (w = 0; w < WORKERS; w++)
		if (pids[w] > 0)
			kill(pids[w], SIGKILL);
	_exit(write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0 ? 2 : 1);
}

static size_t read_full(int fd, void *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size && (n = read(fd, (char *)buf + len, size - len)) > 0)
		len += n;
	return len;
}

/* Collect worker @w's model from @in, and its exit. */
static void collect(int w, int in, struct result *res)
{
	size_t size;
	int status = -1;

	res->got = read_full(in, &res->rep, sizeof(res->rep)) == sizeof(res->rep) &&
		   res->rep.nrec >= 0 && res->rep.nrec <= NR_HOOKS * MAX_PROGS;
	if (res->got) {
		size = res->rep.nrec * sizeof(struct record);
		res->recs = malloc(size ? size : 1);
		res->got = res->recs && read_full(in, res->recs, size) == size;
	}
	close(in);
	/* Its descriptors are all closed once it is reaped. */
	if (waitpid(pids[w], &status, 0) == pids[w])
		pids[w] = 0;
	check(res->got && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "worker %d sent its model of %d attached programs and exited (status %#x)",
	      w, res->got ? res->rep.nrec : -1, status);
}

static void print_stats(const struct result *res)
{
	long ops = 0, unexpected = 0, replaced = 0, empty = 0, n;
	long failing = 0, enomem = 0, detached = 0;
	bool broken = false, timed_out = false;
	int w, op, r;

	for (op = 0; op < NR_OPS; op++) {
		printf("# %-10s", op_names[op]);
		for (r = 0; r < NR_RES; r++) {
			for (w = n = 0; w < WORKERS; w++)
				n += res[w].got ? res[w].rep.stats[op][r] : 0;
			if (n)
				printf(" %s %ld", r == RS_OTHER ? "other" : res_name(r), n);
		}
		printf("\n");
	}
	for (w = 0; w < WORKERS; w++) {
		if (!res[w].got)
			continue;
		ops += res[w].rep.ops;
		unexpected += res[w].rep.unexpected;
		replaced += res[w].rep.replaced;
		empty += res[w].rep.empty_reads;
		failing += res[w].rep.failing;
		enomem += res[w].rep.failing_enomem;
		detached += res[w].rep.failing_detached;
		broken |= res[w].rep.broken;
		timed_out |= res[w].rep.timed_out;
	}
	printf("# %ld programs replaced in place, %ld reads of an empty hook, in %.1f s\n",
	       replaced, empty, elapsed());
	printf("# %ld calls with an allocation failing: %ld attaches ENOMEM, %ld detaches done\n",
	       failing, enomem, detached);
	check(!timed_out && ops == WORKERS * OPS_PER_WORKER,
	      "%ld operations by %d workers in %.0f s (limit %d s)", ops, WORKERS,
	      elapsed(), TIME_LIMIT);
	check(unexpected == 0 && !broken, "%ld operations, %ld unexpected errnos%s", ops,
	      unexpected, broken ? ", and calls that succeeded where they must not" : "");
}

/*
 * Hook @h must list each worker's programs as its model has them, and
 * nothing else of the fuzzer's.
 */
static void check_listing(int h, const struct result *res)
{
	static char buf[4096];
	char lines[MAX_LINES][NAME_LEN], want[MAX_PROGS][NAME_LEN], got[MAX_LINES][NAME_LEN];
	char listed[400], model[400];
	int n = 0, w, i, ngot, nwant, unnamed = 0, named = 0, fz = 0;
	bool ok = krsi_hook_read(hooks[h].name, buf, sizeof(buf)) >= 0 &&
		  parse_listing(buf, lines, &n);

	for (w = 0; w < WORKERS; w++) {
		for (i = nwant = 0; i < res[w].rep.nrec; i++) {
			const struct record *rec = &res[w].recs[i];

			if (rec->hook != h)
				continue;
			if (rec->name[0])
				memcpy(want[nwant++], rec->name, NAME_LEN);
			else
				unnamed++;
		}
		named += nwant;
		ngot = mine(lines, n, w, got);
		if (!same_names(got, ngot, want, nwant)) {
			printf("# %s lists '%s' of worker %d's, its model '%s'\n", hooks[h].name,
			       joined(got, ngot, listed, sizeof(listed)), w,
			       joined(want, nwant, model, sizeof(model)));
			ok = false;
		}
	}
	for (i = 0; i < n; i++)
		fz += !strncmp(lines[i], "fz", 2);
	ok = ok && fz == named && count_dashes(lines, n) == unnamed + hooks[h].dashes;
	check(ok, "%s lists the %d programs of the workers' models, each worker's in its order (%d lines)",
	      hooks[h].name, named + unnamed, n);
}

/*
 * Is program @id gone within @ms milliseconds?  On a hook where programs
 * may sleep, the hook lets go of a program it no longer runs only after an
 * RCU tasks trace grace period, and a classic one (a call asleep in an
 * earlier program may still run it); elsewhere at once.
 */
static bool freed_within(__u32 id, int ms)
{
	int fd;

	for (;;) {
		fd = prog_fd_by_id(id);
		if (fd == -ENOENT)
			return true;
		if (fd >= 0)
			close(fd);
		if (ms-- <= 0)
			return false;
		usleep(1000);
	}
}

/*
 * Detach the programs the models have on @h, by id (the workers' descriptors
 * are closed): the hook alone kept them, so each must be freed after.
 */
static void detach_all(int h, const struct result *res)
{
	static char buf[4096];
	char lines[MAX_LINES][NAME_LEN];
	int hook_fd = krsi_hook_open(hooks[h].name, O_RDWR), w, i, n = 0, fz = 0;
	int total = 0, detached = 0, freed = 0;

	for (w = 0; w < WORKERS; w++) {
		for (i = 0; i < res[w].rep.nrec; i++) {
			const struct record *rec = &res[w].recs[i];
			int fd;

			if (rec->hook != h)
				continue;
			total++;
			fd = prog_fd_by_id(rec->id);
			if (fd < 0)
				continue;
			detached += krsi_detach_fd(hook_fd, fd) == 0;
			close(fd);
		}
	}
	for (w = 0; w < WORKERS; w++)
		for (i = 0; i < res[w].rep.nrec; i++)
			if (res[w].recs[i].hook == h)
				freed += freed_within(res[w].recs[i].id, 10000);
	if (hook_fd >= 0)
		close(hook_fd);
	check(detached == total && freed == total,
	      "%s: its %d programs, held by the hook alone, detach (%d) and are freed (%d)",
	      hooks[h].name, total, detached, freed);
	if (krsi_hook_read(hooks[h].name, buf, sizeof(buf)) < 0 ||
	    !parse_listing(buf, lines, &n))
		n = -1;
	for (i = 0; i < n; i++)
		fz += !strncmp(lines[i], "fz", 2);
	check(n == hooks[h].foreign && !fz, "%s is as before the fuzzer: '%s'",
	      hooks[h].name, oneline(buf));
}

/* No program of the fuzzer may outlive its last reference. */
static void check_no_leak(void)
{
	struct bpf_prog_info info;
	union bpf_attr attr;
	int scanned = 0, leaked = 0, fd, err;
	__u32 id = 0;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		err = (int)sys_bpf(BPF_PROG_GET_NEXT_ID, &attr);
		if (err)
			break;
		id = attr.next_id;
		fd = prog_fd_by_id(id);
		if (fd < 0)
			continue;
		scanned++;
		if (!prog_info(fd, &info) && !strncmp(info.name, "fz", 2)) {
			printf("# still loaded: program %u, %s\n", id, info.name);
			leaked++;
		}
		close(fd);
	}
	check(leaked == 0 && err == -ENOENT,
	      "no program of the fuzzer is left (%d programs looked at, then %s)",
	      scanned, errname(-err));
}

static uint64_t pick_seed(void)
{
	const char *env = getenv("KRSI_FUZZ_SEED");
	struct timespec now;

	if (env && *env)
		return strtoull(env, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 20) ^ (uint64_t)getpid();
}

int main(void)
{
	struct result res[WORKERS];
	uint64_t seed = pick_seed();
	int w, h, fds[2], in[WORKERS];

	memset(res, 0, sizeof(res));
	clock_gettime(CLOCK_MONOTONIC, &start);
	printf("# seed %llu (KRSI_FUZZ_SEED=%llu replays its choices)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	if (pick_hooks(seed))
		return check_exit();
	print_hooks();
	note_foreign();
	failslab = setup_failslab();
	printf("# allocations made to fail: %s\n", failslab ? "yes" : "no (no failslab)");

	for (w = 0; w < WORKERS; w++)
		in[w] = -1;
	fflush(stdout);		/* or the workers print it again */
	signal(SIGALRM, on_alarm);
	alarm(260);
	for (w = 0; w < WORKERS; w++) {
		if (pipe2(fds, O_CLOEXEC)) {
			check(false, "pipe for worker %d: %s", w, errname(errno));
			break;
		}
		pids[w] = fork();
		if (pids[w] == 0) {
			close(fds[0]);
			worker(w, seed, fds[1]);
		}
		close(fds[1]);
		in[w] = fds[0];
		if (pids[w] < 0) {
			check(false, "fork worker %d: %s", w, errname(errno));
			pids[w] = 0;
		}
	}
	/* One at a time: the others wait, if need be, to write theirs. */
	for (w = 0; w < WORKERS; w++)
		if (pids[w] > 0)
			collect(w, in[w], &res[w]);
		else if (in[w] >= 0)
			close(in[w]);
	alarm(0);

	print_stats(res);
	for (h = 0; h < NR_HOOKS; h++)
		check_listing(h, res);
	for (h = 0; h < NR_HOOKS; h++)
		detach_all(h, res);
	check_no_leak();
	for (w = 0; w < WORKERS; w++)
		free(res[w].recs);
	return check_exit();
}
