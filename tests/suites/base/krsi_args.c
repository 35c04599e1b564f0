// SPDX-License-Identifier: GPL-2.0
/*
 * Hook arguments as a program sees them, for every class of argument type:
 * an int (negative too), an unsigned int with its top bit set, an unsigned
 * long of all ones, a bool, an enum, a pointer, and kuid_t/kgid_t passed
 * by value.  The same object is loaded twice, one copy attached through
 * the hook files and the other by trampoline; each hook is called once
 * with known values, and both copies must have read the same ones (where
 * 6.1 attaches no trampoline to a hook, arm64 and s390x, its attach must
 * fail with ENOTSUPP, and the KRSI copy must have read them alone).  On the
 * KRSI path the raw 64-bit slot is also checked: the value converted to
 * u64, so a signed argument is sign-extended (what a big-endian machine
 * needs for the low 32 bits to be the argument, see security/krsi/pack.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"
#include "krsi_args.lskel.h"
#include "trampoline.h"

#define TARGET		"/tmp/krsi_args.target"
#define IOCTL_CMD	0xc0de0001u
#define IOCTL_ARG	0x1122334455667788ul

struct path_progs {
	const char *hook;
	int krsi_fd, tramp_fd;
};

/*
 * Attach every program of @k through its hook file, of @t by trampoline
 * where the architecture has one.
 */
static int attach_both(int *links, const struct path_progs *progs, int n)
{
	int i, failed = 0;

	for (i = 0; i < n; i++) {
		int err = krsi_attach(progs[i].hook, progs[i].krsi_fd, 0);

		failed |= !check(!err, "KRSI: attach to %s (%s)", progs[i].hook,
				 err ? errname(-err) : "ok");
		links[i] = tramp_attach(progs[i].tramp_fd);
		if (!check_tramp_attach(links[i], progs[i].hook)) {
			failed |= LSM_TRAMPOLINE;
			links[i] = -1;
		}
	}
	return failed ? -1 : 0;
}

static void detach_both(int *links, const struct path_progs *progs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int err = krsi_detach(progs[i].hook, progs[i].krsi_fd);

		check(!err, "KRSI: detach from %s (%s)", progs[i].hook,
		      err ? errname(-err) : "ok");
		if (links[i] >= 0)
			close(links[i]);
	}
}

/* Call each hook once with the values the checks expect. */
static void call_hooks(void)
{
	char module[64] = { 0 };
	int fd;

	check(setpriority(PRIO_PROCESS, 0, -5) == 0, "setpriority(-5) as root");
	setpriority(PRIO_PROCESS, 0, 0);
	check(prctl(-7, ~0ul, 0, 0, 0) == -1 && errno == EINVAL,
	      "prctl(-7): EINVAL (%s)", errname(errno));
	fd = open(TARGET, O_RDONLY | O_CLOEXEC);
	check(fd >= 0 && ioctl(fd, IOCTL_CMD, IOCTL_ARG) == -1 && errno == ENOTTY,
	      "ioctl(0x%x) on a file: ENOTTY (%s)", IOCTL_CMD, errname(errno));
	if (fd >= 0)
		close(fd);
	check(syscall(SYS_init_module, module, sizeof(module), "") == -1,
	      "init_module() of 64 zero bytes fails (%s)", errname(errno));
	fd = socket(AF_UNIX, SOCK_DGRAM, -3);
	check(fd == -1 && errno == EPROTONOSUPPORT,
	      "socket(AF_UNIX, SOCK_DGRAM, -3): EPROTONOSUPPORT (%s)",
	      errname(errno));
	check(chown(TARGET, 1234, -1) == 0, "chown(1234, -1) as root (%s)",
	      errname(errno));
}

/* What a program of either path read, as its declared types. */
static void check_typed(const struct krsi_args__bss *b, const char *path)
{
	check(b->nice_runs == 1 && b->nice_val == -5, "%s: int nice = %d", path,
	      b->nice_val);
	check(b->nice_task && b->nice_task == b->nice_current,
	      "%s: pointer p is current", path);
	check(b->prctl_option == -7, "%s: int option = %d", path, b->prctl_option);
	check(b->prctl_arg2 == ~0ull, "%s: unsigned long arg2 = %#llx", path,
	      (unsigned long long)b->prctl_arg2);
	check(b->ioctl_cmd == IOCTL_CMD, "%s: unsigned int cmd = %#x", path,
	      b->ioctl_cmd);
	check(b->ioctl_arg == IOCTL_ARG, "%s: unsigned long arg = %#llx", path,
	      (unsigned long long)b->ioctl_arg);
	check(b->load_id_is_module == 1, "%s: enum id is LOADING_MODULE", path);
	check(b->load_contents == 1, "%s: bool contents is true", path);
	check(b->socket_protocol == -3, "%s: int protocol = %d", path,
	      b->socket_protocol);
	check(b->chown_uid == 1234, "%s: kuid_t uid = %u", path, b->chown_uid);
	check(b->chown_gid == UINT32_MAX, "%s: kgid_t gid = %#x (INVALID_GID)",
	      path, b->chown_gid);
}

/* The raw slots on the KRSI path: each argument converted to u64. */
static void check_raw(const struct krsi_args__bss *b)
{
	check(b->nice_raw == (uint64_t)(int64_t)-5,
	      "KRSI: int -5 sign-extended in its slot (%#llx)",
	      (unsigned long long)b->nice_raw);
	check(b->prctl_option_raw == (uint64_t)(int64_t)-7,
	      "KRSI: int -7 sign-extended (%#llx)",
	      (unsigned long long)b->prctl_option_raw);
	check(b->socket_protocol_raw == (uint64_t)(int64_t)-3,
	      "KRSI: int -3 sign-extended (%#llx)",
	      (unsigned long long)b->socket_protocol_raw);
	check(b->ioctl_cmd_raw == IOCTL_CMD,
	      "KRSI: unsigned int zero-extended (%#llx)",
	      (unsigned long long)b->ioctl_cmd_raw);
	check(b->load_contents_raw == 1, "KRSI: bool true is 1 (%#llx)",
	      (unsigned long long)b->load_contents_raw);
	check(b->load_id_raw < 16, "KRSI: enum zero-extended (%#llx)",
	      (unsigned long long)b->load_id_raw);
	check(b->chown_uid_raw == 1234 && b->chown_gid_raw == UINT32_MAX,
	      "KRSI: kuid_t/kgid_t zero-extended (%#llx, %#llx)",
	      (unsigned long long)b->chown_uid_raw,
	      (unsigned long long)b->chown_gid_raw);
}

int main(void)
{
	struct krsi_args *k = krsi_args__open_and_load();
	struct krsi_args *t = krsi_args__open_and_load();
	int links[6];

	if (!check(k && t, "load krsi_args.bpf.o twice (%s)", errname(errno)) ||
	    !check(make_target(TARGET) != 0, "create %s", TARGET))
		goto out;
	k->bss->target_tgid = getpid();
	t->bss->target_tgid = getpid();

	const struct path_progs progs[] = {
		{ "task_setnice", k->progs.args_setnice.prog_fd,
		  t->progs.args_setnice.prog_fd },
		{ "task_prctl", k->progs.args_prctl.prog_fd,
		  t->progs.args_prctl.prog_fd },
		{ "file_ioctl", k->progs.args_ioctl.prog_fd,
		  t->progs.args_ioctl.prog_fd },
		{ "kernel_load_data", k->progs.args_load_data.prog_fd,
		  t->progs.args_load_data.prog_fd },
		{ "socket_create", k->progs.args_socket.prog_fd,
		  t->progs.args_socket.prog_fd },
		{ "path_chown", k->progs.args_chown.prog_fd,
		  t->progs.args_chown.prog_fd },
	};

	if (attach_both(links, progs, 6) == 0) {
		call_hooks();
		check_typed(k->bss, "KRSI");
		if (LSM_TRAMPOLINE)
			check_typed(t->bss, "trampoline");
		check_raw(k->bss);
	}
	detach_both(links, progs, 6);
	unlink(TARGET);
out:
	krsi_args__destroy(k);
	krsi_args__destroy(t);
	return check_exit();
}
