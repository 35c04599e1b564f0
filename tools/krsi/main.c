// SPDX-License-Identifier: GPL-2.0
/*
 * krsi: attach, inspect and lock the appliance's KRSI policies.
 *
 * The policies (progs/NAME.bpf.c) are compiled in as light skeletons; the
 * hook files in /sys/kernel/security/bpf/ are the kernel's side of every
 * command (see tools/lib/hookfile.c), bpffs (/sys/fs/bpf/krsi) keeps what
 * an attached policy needs later.  Each command is a function of its own
 * file that checks its own arguments, found in the table below, as
 * bpftool's commands are.
 */
#include <stdio.h>
#include <string.h>

#include "krsi.h"

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
"  attach [--audit | --signed] POLICY...\n"
"                    load each policy and attach all its programs; with\n"
"                    --audit it reports what it would deny and denies nothing;\n"
"                    --signed (or once locked, or a path to a file): the\n"
"                    signed policy, /usr/lib/krsi/POLICY.krsi, through the\n"
"                    kernel, which holds it until a newer one replaces it\n"
"  enforce POLICY... switch attached policies to denying, at once\n"
"  audit POLICY...   switch attached policies to reporting only, at once\n"
"  detach POLICY...  detach each policy's programs\n"
"  replace POLICY    load POLICY again and swap it for the attached one,\n"
"                    program by program, with no gap (BPF_LINK_UPDATE of\n"
"                    its links); a policy the kernel holds, or once locked,\n"
"                    or a path: a newer signed version, through the kernel\n"
"  events [-n N] [-f] [-t SECONDS] [--json] [--mine] [--policy NAME]\n"
"         [--uid UID] [--since SECONDS] [--seq N]\n"
"                    print the audit log, oldest first, one line per\n"
"                    record (time, pid, uid, comm, policy, verdict, what)\n"
"                    or, with --json, the JSON line it is; reading takes\n"
"                    nothing away.  -n: only the last N; -f: then follow\n"
"                    the log (-t: for SECONDS); --mine: your own records\n"
"                    (what a user other than root may read); --since: from\n"
"                    SECONDS of uptime on; --seq: from record N on\n"
"  events --verify FILE [--one-boot [--ran SECONDS] [--silent SECONDS]]\n"
"                    check a host's copy of the audit stream (run-qemu.sh\n"
"                    --log FILE; runs on the host too): every line sealed\n"
"                    in its place, every stream ended by the reader's stop\n"
"                    record; says each line forged, dropped, replayed or\n"
"                    reordered, each stream cut, and each heartbeat that\n"
"                    says records are held back.  --one-boot: FILE is\n"
"                    one boot's, so a second stream in it is forged;\n"
"                    --ran: that machine ran SECONDS after FILE last grew,\n"
"                    and must not have run on after its stop record;\n"
"                    --silent: the host heard nothing from it for SECONDS\n"
"                    as it ran\n"
"  why               your last denial, the guarantee of the policy that\n"
"                    made it, and what to read about it\n"
"  logd              start the audit reader, which drains every policy's\n"
"                    ring buffer into the log (" KRSI_LOG_DIR "); /init\n"
"                    starts it at boot\n"
"  status [--json]   enforcing or audit only, locked or not, and which\n"
"                    policies are attached, with the ids of their links\n"
"  lock              from now until reboot, refuse every change to BPF\n"
"                    programs, maps and mounts, root included (needs\n"
"                    krsi_lock attached; a kernel locked at boot is sealed)\n"
"  hooks             every hook with a file: its default, its number of\n"
"                    programs\n"
"  hook NAME         the hook's prototype (from the kernel's BTF), default,\n"
"                    and programs in run order with their policy, run count\n"
"                    and average run time\n"
"  stats on|off      keep BPF run-time statistics (for krsi hook) or not\n"
"  policies          the policies this tool carries, with what they do\n"
"  doctor [--json] [POLICY]\n"
"                    answer the usual questions from the running system:\n"
"                    is KRSI (and the BPF LSM) active, does it enforce, can\n"
"                    a trampoline attach here, is it locked, what does an\n"
"                    attach need, does the audit reader run and stream; for\n"
"                    POLICY: attached, in which mode, each program in its\n"
"                    hook's file and how often it ran, its denials; each\n"
"                    answer names the file and section that explain it\n"
"  trace [--json] [-o FILE] [--hook HOOK]... [-p PID | -- COMMAND [ARG]...]\n"
"                    one line per LSM hook call of COMMAND (run here, on\n"
"                    stderr), of PID, or of every process: the hook, its\n"
"                    object, every BPF LSM program that ran, in run order,\n"
"                    with its policy and what it returned, the result and\n"
"                    the LSM that decided it; until the process ends or ^C\n"
"  help              this text\n"
"\n"
"exit status: 0 success, 1 a command failed (the message names the policy,\n"
"the hook and the errno), 2 usage error or unknown policy.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the name */
};

static const struct command commands[] = {
	{ "list",	cmd_list },
	{ "attach",	cmd_attach },
	{ "enforce",	cmd_enforce },
	{ "audit",	cmd_audit },
	{ "detach",	cmd_detach },
	{ "replace",	cmd_replace },
	{ "events",	cmd_events },
	{ "why",	cmd_why },
	{ "logd",	cmd_logd },
	{ "status",	cmd_status },
	{ "lock",	cmd_lock },
	{ "hooks",	cmd_hooks },
	{ "hook",	cmd_hook },
	{ "stats",	cmd_stats },
	{ "policies",	cmd_policies },
	{ "doctor",	cmd_doctor },
	{ "trace",	cmd_trace },
};

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "help";
	size_t i;

	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "krsi: unknown command '%s'\n\n%s", cmd, usage);
	return EXIT_USAGE;
}
