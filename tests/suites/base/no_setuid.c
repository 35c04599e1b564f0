// SPDX-License-Identifier: GPL-2.0
/*
 * no_setuid, the tutorial's policy (README, "Write your first policy"):
 * every route of its header, tried as root and as the demo user.  Each
 * route is tried first without the policy, where it must give a
 * set-user-ID file, so that a refusal later is the policy's; then with
 * it attached (nothing locked), where it must fail with EPERM and be
 * reported by `krsi events`.  What the header says is not a route is shown
 * not to be one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest.h"

#define DEMO	1000
#define DIR	"/tmp/no_setuid.d"
#define EVENTS	"/tmp/no_setuid.events"

/*
 * Made before the policy, for root and for demo (the kernel lets nobody
 * else link someone's set-user-ID file: fs.protected_hardlinks): a
 * set-user-ID file, DIR/UID.before, and a set-user-ID O_TMPFILE, kept
 * open for linkat().
 */
static int before_fd[2] = { -1, -1 };

/* DIR/UID.WHAT, a name of the caller's own, removed first. */
static const char *own(const char *what)
{
	static char paths[2][64];
	static int next;
	char *path = paths[next++ % 2];

	snprintf(path, sizeof(paths[0]), DIR "/%u.%s", (unsigned int)getuid(), what);
	unlink(path);
	return path;
}

/* DIR/UID.before, @uid's set-user-ID file made before the policy. */
static const char *before_path(uid_t uid)
{
	static char path[64];

	snprintf(path, sizeof(path), DIR "/%u.before", (unsigned int)uid);
	return path;
}

/*
 * What a route gave: 0 when it made a set-user-ID file (judged by @fd, or
 * by @path when @fd is -1), -ENODATA when it succeeded without the bit,
 * or the negative errno of the call, @err.
 */
static int setuid_made(int err, int fd, const char *path)
{
	struct stat st;

	if (!err && (fd >= 0 ? fstat(fd, &st) : stat(path, &st)))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err)
		return err;
	return st.st_mode & S_ISUID ? 0 : -ENODATA;
}

static int sys_err(int ret)
{
	return ret < 0 ? -errno : 0;
}

/* A new file of mode 0755 at @path, or -1. */
static int plain_file(const char *path)
{
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
}

/* ---- the routes --------------------------------------------------------- */

static int route_chmod(void)
{
	const char *path = own("chmod");

	close(plain_file(path));
	return setuid_made(sys_err(chmod(path, 04755)), -1, path);
}

static int route_fchmod(void)
{
	int fd = plain_file(own("fchmod"));

	return setuid_made(sys_err(fchmod(fd, 04755)), fd, NULL);
}

static int route_fchmodat(void)
{
	const char *path = own("fchmodat");

	close(plain_file(path));
	return setuid_made(sys_err(fchmodat(AT_FDCWD, path, 04755, 0)), -1, path);
}

static int route_open_creat(void)
{
	int fd = open(own("creat"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 04755);

	return setuid_made(sys_err(fd), fd, NULL);
}

static int route_mknod(void)
{
	const char *path = own("mknod");

	return setuid_made(sys_err(mknod(path, S_IFREG | 04755, 0)), -1, path);
}

/* The unnamed file itself: it can be run through its descriptor. */
static int route_tmpfile(void)
{
	int fd = open(DIR, O_TMPFILE | O_RDWR | O_CLOEXEC, 04755);

	return setuid_made(sys_err(fd), fd, NULL);
}

/* The route: an O_TMPFILE with the bit, named by linkat(). */
static int route_tmpfile_linked(void)
{
	const char *path = own("tmpfile");
	int fd = open(DIR, O_TMPFILE | O_RDWR | O_CLOEXEC, 04755), err;
	char proc[32];

	if (fd < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	err = sys_err(linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW));
	close(fd);
	return setuid_made(err, -1, path);
}

static int route_link_setuid_file(void)
{
	const char *path = own("link");

	return setuid_made(sys_err(link(before_path(getuid()), path)), -1, path);
}

static int route_link_setuid_tmpfile(void)
{
	const char *path = own("linkfd");
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", before_fd[getuid() != 0]);
	return setuid_made(sys_err(linkat(AT_FDCWD, proc, AT_FDCWD, path,
					  AT_SYMLINK_FOLLOW)), -1, path);
}

static const struct {
	const char *name;
	int (*fn)(void);
} routes[] = {
	{ "chmod(04755)", route_chmod },
	{ "fchmod(04755)", route_fchmod },
	{ "fchmodat(04755)", route_fchmodat },
	{ "open(O_CREAT, 04755)", route_open_creat },
	{ "mknod(S_IFREG | 04755)", route_mknod },
	{ "open(O_TMPFILE, 04755)", route_tmpfile },
	{ "open(O_TMPFILE, 04755), then linkat() of /proc/self/fd/N", route_tmpfile_linked },
	{ "link() of a set-user-ID file", route_link_setuid_file },
	{ "linkat() of a set-user-ID O_TMPFILE made before", route_link_setuid_tmpfile },
};

/* ---- what stays allowed, and what is not a route ------------------------ */

static int allowed(void)
{
	const char *path = own("plain"), *link_path = own("plain.link");
	int fd, err = 0;

	fd = plain_file(path);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0700) || link(path, link_path))
		err = -errno;
	close(fd);
	fd = open(DIR, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return err;
}

/* mkdir() with S_ISUID: a directory without it. */
static int mkdir_setuid(void)
{
	const char *path = own("dir");
	struct stat st;

	rmdir(path);
	if (mkdir(path, 04755) || stat(path, &st))
		return -errno;
	return st.st_mode & S_ISUID ? 0 : -ENODATA;
}

/* ---- the checks --------------------------------------------------------- */

/* Give @fd to @uid and make it set-user-ID: 0 or a negative errno. */
static int make_setuid(int fd, uid_t uid)
{
	if (fd < 0 || fchown(fd, uid, uid) || fchmod(fd, 04755))
		return -errno;
	return 0;
}

/* @uid's set-user-ID file and O_TMPFILE, made by root before the policy. */
static void make_before(uid_t uid)
{
	char name[64];
	int fd;

	unlink(before_path(uid));
	fd = plain_file(before_path(uid));
	snprintf(name, sizeof(name), "a set-user-ID file of uid %u, made before",
		 (unsigned int)uid);
	check_err(setuid_made(make_setuid(fd, uid), fd, NULL), 0, name);
	fd = open(DIR, O_TMPFILE | O_RDWR, 0600);
	if (before_fd[uid != 0] >= 0)
		close(before_fd[uid != 0]);
	before_fd[uid != 0] = fd;
	snprintf(name, sizeof(name), "a set-user-ID O_TMPFILE of uid %u, made before",
		 (unsigned int)uid);
	check_err(setuid_made(make_setuid(fd, uid), fd >= 0 ? dup(fd) : -1, NULL),
		  0, name);
}

static void try_routes(const char *when, int want)
{
	char name[160];
	size_t i;

	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		snprintf(name, sizeof(name), "%s: root: %s", when, routes[i].name);
		check_err(in_child(0, routes[i].fn), want, name);
		snprintf(name, sizeof(name), "%s: demo: %s", when, routes[i].name);
		check_err(in_child(DEMO, routes[i].fn), want, name);
	}
}

/*
 * The number the audit log's next record will have: `krsi events --seq`
 * then reads what comes after, not the whole log (in the appliance's
 * boot, 100,000 records and more, which /tmp has no room for).
 */
static unsigned long long next_seq(void)
{
	unsigned long long seq = 0;
	FILE *p = popen("krsi events --json -n 1 2>/dev/null", "r");

	if (p) {
		if (fscanf(p, "{\"seq\":%llu", &seq) == 1)
			seq++;
		pclose(p);
	}
	return seq;
}

/* Did `krsi events` report @what for user @uid? */
static bool reported(unsigned int uid, const char *what)
{
	char line[512], caller[32];
	bool found = false;
	FILE *f = fopen(EVENTS, "re");

	snprintf(caller, sizeof(caller), " uid %u ", uid);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, caller) && strstr(line, what);
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	const char *hooks[] = { "path_chmod", "path_mknod",
				"inode_init_security", "path_link" };
	char what[128], cmd[128];
	unsigned long long from;
	size_t i;

	mkdir(DIR, 0);
	chmod(DIR, 01777);
	make_before(0);
	make_before(DEMO);
	try_routes("without the policy, each route makes one", 0);

	/* Made again (the first ones were linked), still before the policy. */
	make_before(0);
	make_before(DEMO);
	if (!check(system("krsi attach no_setuid >/dev/null") == 0,
		   "krsi attach no_setuid"))
		return check_exit();
	from = next_seq();
	try_routes("no_setuid refuses", -EPERM);
	check_err(in_child(0, allowed), 0,
		  "no_setuid: root still chmods, creates and links plain files");
	check_err(in_child(DEMO, allowed), 0,
		  "no_setuid: demo still chmods, creates and links plain files");
	check_err(in_child(DEMO, mkdir_setuid), -ENODATA,
		  "not a route: mkdir(04755) gives a directory without the bit");
	check_err(setuid_made(sys_err(chown(before_path(0), DEMO, DEMO)), -1,
			      before_path(0)), -ENODATA,
		  "not a route: chown() clears the bit");

	snprintf(cmd, sizeof(cmd), "krsi events --seq %llu -t 1 >" EVENTS " 2>&1", from);
	system(cmd);
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		snprintf(what, sizeof(what), "no_setuid denied EPERM: %s set-user-ID",
			 hooks[i]);
		check(reported(0, what) && reported(DEMO, what),
		      "reported by krsi events, for root and for demo: '%s'", what);
	}
	check(system("krsi detach no_setuid >/dev/null") == 0, "krsi detach no_setuid");
	close(before_fd[0]);
	close(before_fd[1]);
	system("rm -rf " DIR);
	unlink(EVENTS);
	return check_exit();
}
