// SPDX-License-Identifier: GPL-2.0
/*
 * flood_denials [N]: as fast as it can, until /tmp/flood.stop exists or
 * it has made N denied calls, make every boot policy that the demo user
 * can reach deny something, each call a denial and a report
 * (boot_flood.sh runs it as the demo user beside 10,000 execs,
 * krsi_logd.sh for 100,000 records).  Prints how many calls it made.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STOP	"/tmp/flood.stop"
#define TMP_X	"/tmp/flood.x"

int main(int argc, char **argv)
{
	unsigned long most = argc > 1 ? strtoul(argv[1], NULL, 10) / 5 : 0;
	char *args[] = { "flood.x", NULL }, *envp[] = { NULL };
	struct sched_param sp = { 0 };
	unsigned long rounds = 0;
	void *p;
	int fd;

	fd = open(TMP_X, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd >= 0)
		close(fd);
	while (access(STOP, F_OK) && (!most || rounds < most)) {
		/* protect_secret: EACCES */
		fd = open("/etc/krsi/secret", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		/* wx: EACCES */
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		/* no_tmp_exec: EACCES, without a fork */
		execve(TMP_X, args, envp);
		/* no_module_load: EPERM (the kernel asks for net-pf-5) */
		fd = socket(5, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0)
			close(fd);
		/* protect_init: EPERM, a scheduling policy of one's own */
		syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &sp);
		rounds++;
	}
	printf("%lu\n", rounds * 5);
	return 0;
}
