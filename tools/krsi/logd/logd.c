// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi logd`: the audit reader.  /init starts it once the boot policies
 * are attached and before `krsi lock`; from then on it is the only
 * consumer of every policy's ring buffer, and what it drains goes into
 * the audit log, each record with its sequence number:
 *
 *	ring buffers --> sorted by time --> /var/log/krsi/log.N (root's)
 *	                                --> /var/log/krsi/uid/UID/log.N (each
 *	                                    user's own records, theirs to read)
 *	                                --> /dev/ttyS2, to the host (JSON lines)
 *
 * A record leaves its ring buffer only once root's log has written it
 * (flush_then_consume(), batch.c): the consumer position moves after the
 * writes, never before, so a reader that dies loses nothing (a restarted
 * one may log a record twice).  The users' logs and the stream never hold
 * records back; what they could not take, root's log says.  What the policies
 * could not report (counters lost and refused, per user) is logged as
 * it grows.  The log is rotated into segments of a fixed size, the
 * oldest removed, each rotation a record of its own.
 *
 * Logging a record needs no memory the reader did not take at start:
 * its lines, the logs' and the stream's buffers, the batch and a
 * record's arguments are sized for the largest record a policy makes
 * (KRSI_DATA_MAX), taken before the lock and locked in memory, so that
 * no later mmap() or brk() is needed; a round ends, and its lines are
 * written, when the next would not fit.  Whatever still holds records
 * back (a record larger than that with no memory to grow, a log that
 * cannot be written, a policy whose buffers could not be taken) is said
 * at once in a record of the reader's, again every BEAT_MS while it
 * lasts, in the state that `krsi status` reads and in every heartbeat,
 * and the host calls that trail not verified.
 *
 * It stops only when PID 1 asks (SIGTERM, at shutdown): it logs what is
 * left and its stop record, and then powers the machine off itself, so
 * that nothing runs after the last record the host receives.
 *
 * Nothing may stop, starve or blind it after the lock: it claims its
 * place (progs/krsi_reader.h) in protect_init (no signal but its own and
 * PID 1's, no ptrace, no priority change), protect_log (the log and the
 * port are its alone) and krsi_lock, runs SCHED_FIFO, which no other
 * process may become, and tells the OOM killer never to choose it.  It
 * took its ring buffers' descriptors before the seal; after it nobody
 * else gets a writable one (krsi_lock, which lets the reader alone take
 * those of a signed policy loaded after the lock).  No memory knob
 * reaches it either (protect_init refuses them; its header lists them).
 *
 * This file starts it, runs its loop and stops it; each stage of the
 * records' way is a file of its own (logd.h lists them): the sources,
 * the round, the records, and the three sinks: root's log, the users'
 * logs and the stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "auditlog.h"
#include "errname.h"
#include "logd.h"

/* Stack the reader may use, touched before it is locked. */
#define STACK_BYTES		(256 << 10)

volatile sig_atomic_t logd_stopping;

static void on_term(int sig)
{
	(void)sig;
	logd_stopping = 1;
}

unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct event_str cstr(const char *s)
{
	return (struct event_str){ s, strlen(s) };
}

/* The sequence number after the last record of the log, to go on from. */
static unsigned long long next_seq(void)
{
	unsigned long long next = 0;
	struct log_cursor c;
	struct event_view v;

	if (log_cursor_open(&c, KRSI_LOG_DIR))
		return 0;
	while (log_next(&c) == 1)
		if (!event_parse(c.line.buf, c.line.len, &v)) {
			if (v.has_seq && v.seq >= next)
				next = v.seq + 1;
			event_view_free(&v);
		}
	log_cursor_close(&c);
	return next;
}

/* STACK_BYTES of stack in use once, so that mlockall() locks them in. */
static __attribute__((noinline)) void touch_stack(void)
{
	char stack[STACK_BYTES];

	explicit_bzero(stack, sizeof(stack));
}

/*
 * The memory logging a record needs, taken before the lock (see the
 * header), by each stage: 0 or -ENOMEM.
 */
static int reserve(void)
{
	int err = batch_reserve();

	if (!err)
		err = sources_reserve();
	if (!err)
		err = record_reserve();
	if (!err)
		err = stream_reserve();
	if (!err)
		err = root_log_reserve();
	if (!err)
		err = user_logs_reserve();
	return err;
}

/* Nothing takes its CPU, its memory or its terminal: see the header. */
static void guard_self(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct sigaction sa = { .sa_handler = SIG_IGN };
	static const int ignored[] = { SIGHUP, SIGPIPE, SIGINT, SIGQUIT, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	size_t i;
	int fd;

	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		sigaction(ignored[i], &sa, NULL);
	sa.sa_handler = on_term;	/* no SA_RESTART: epoll_wait returns */
	sigaction(SIGTERM, &sa, NULL);
	/* musl's sched_setscheduler() is ENOSYS by design: the system call. */
	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		emit_reader("error", 0, "SCHED_FIFO: %s", errname(errno));
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "-1000", 5) != 5)
		emit_reader("error", 0, "oom_score_adj: %s", errname(errno));
	if (fd >= 0)
		close(fd);
	/* What it took (reserve()), and what it maps later, stays in memory. */
	touch_stack();
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		emit_reader("error", 0, "mlockall: %s: its memory may be paged out",
			    errname(errno));
}

/* Everything the reader needs, taken before the lock: 0 or an errno. */
static int start(void)
{
	const char *stream;
	int err = sources_start();

	if (err) {
		fprintf(stderr, "krsi: logd: %s\n", errname(-err));
		return err;
	}
	/* Claimed first: protect_log lets no one else write the log. */
	claim_all();
	record_seq_from(next_seq());
	err = root_log_open();
	if (!err)
		err = user_logs_open();
	if (err) {
		error(err, "logd: %s", KRSI_LOG_DIR);
		return err;
	}
	err = reserve();
	if (err) {
		error(err, "logd: the memory for its records");
		return err;
	}
	stream = stream_open();
	emit_reader("start", 0, "krsi logd: log " KRSI_LOG_DIR ", stream %s", stream);
	kmsg_start();
	rescan();
	guard_self();
	while ((err = round_trip()) == 1)
		;
	held_update();
	if (!err)
		err = state_ready();
	if (err)
		error(err, "logd: write %s", KRSI_LOG_DIR);
	return err;
}

/* ---- running ------------------------------------------------------------ */

/*
 * Asked to stop (by PID 1, at shutdown): every other process ends first
 * (PID 1 excepted, which waits for the power to go), so that nothing
 * runs after the stop record; then what is left in the rings, every
 * load's denials, the stop record, and the power goes off, from here:
 * the last record the host receives is the last thing the machine does.
 * Without this, a child of PID 1 that root stops, or processes of
 * root's that starve PID 1, would decide when the machine stops, and
 * what ran in between would be in no log.
 */
static void stop(void)
{
	char held[256];
	size_t i;

	/* kill(-1) spares PID 1 and the caller; a fork racing it fails. */
	kill(-1, SIGKILL);
	/* Their last records in the rings before the last drain. */
	nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
	for (i = 0; i < 64 && round_trip() == 1; i++)
		;
	held_update();
	for (i = 0; i < nr_rings(); i++)
		if (!log_denials(ring_at(i), "stop"))
			record_lost();
	held_text(held, sizeof(held));
	emit_reader("stop", 0, "krsi logd stops: SIGTERM from PID 1; every other "
		    "process ended, the machine powers off now%s%s",
		    held[0] ? "; " : "", held);
	sinks_flush();
	stream_drain();
	reboot(RB_AUTOBOOT);
	/* A line after the stop record: the host calls the trail not verified. */
	emit_reader("error", 0, "reboot: %s: the machine runs on after the stop record",
		    errname(errno));
	sinks_flush();
	write_state_text("stopped\n");
}

static void run(void)
{
	int err = 0;

	while (!logd_stopping) {
		/* Records held back: tried again each second, not spun on
		 * (a ring that holds records always wakes epoll_wait).
		 */
		if (err < 0)
			nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
		else
			sources_wait(err > 0);
		/* Woken by a record, it drains at once: a flood must not get
		 * ahead of it while it waits for more (without high-resolution
		 * timers a sleep of 2 ms lasts up to two jiffies, 8 ms, in
		 * which a user's denials at full speed filled their half of a
		 * buffer).  The policies are looked for at most once every
		 * RESCAN_MS.
		 */
		if (rescan_due())
			rescan();
		stream_reopen();
		err = round_trip();
		held_update();
		stream_beat();
		state_alive();
	}
	stop();
}

/*
 * The reader runs in a child of its own session, which tells its parent
 * when it is ready: `krsi logd` returns once every ring buffer is held
 * and the log is written, so that /init may lock right after.
 */
int cmd_logd(int argc, char **argv)
{
	int ready[2], status = 1;
	pid_t pid;
	char c;

	if (args_none(argc, argv))
		return EXIT_USAGE;
	if (reader_state(&pid) == READER_RUNNING) {
		fprintf(stderr, "krsi: logd: the reader runs already (pid %d)\n", (int)pid);
		return 1;
	}
	if (pipe2(ready, O_CLOEXEC)) {
		error(-errno, "logd: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		error(-errno, "logd: fork");
		return 1;
	}
	if (pid > 0) {
		close(ready[1]);
		if (read(ready[0], &c, 1) == 1) {
			printf("krsi: logd: the audit reader runs (pid %d)\n", (int)pid);
			status = 0;
		}
		return status;
	}
	close(ready[0]);
	setsid();
	if (chdir("/") || start())
		_exit(1);
	/* Ready: from now on it speaks through the log alone. */
	if (write(ready[1], "", 1) != 1)
		_exit(1);
	close(ready[1]);
	{
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	run();
	_exit(0);
}
