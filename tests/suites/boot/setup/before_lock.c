// SPDX-License-Identifier: GPL-2.0
/*
 * Run by /init of the test image with krsi.tests=boot, after the boot
 * policies are attached and before `krsi lock`: leave what the locked
 * tests need and could no longer make, a program that is not an LSM one
 * (a socket filter), pinned at PIN, with its id in ID_FILE.  And try
 * BPF_LINK_DETACH and BPF_LINK_UPDATE of every link of a policy the
 * kernel holds: one line per link in HELD_FILE, "LINK_ID DETACH UPDATE",
 * each the errno's number (boot_held.sh wants EPERM for both).
 *
 * A kernel that locks at boot (make KRSI_BOOT_LOCK=1) refuses the load:
 * its errno goes to LOAD_FILE, which boot_calls.c checks, and `krsi
 * status` to STATUS_FILE, as it is before /init seals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysbpf.h"

#define PIN	"/sys/fs/bpf/test_socket_filter"
#define ID_FILE	"/run/test_socket_filter.id"
#define HELD_FILE	"/run/held_links.txt"
#define POLICIES	"/sys/kernel/security/krsi/policies"
#define LOAD_FILE	"/run/socket_filter_load.errno"
#define STATUS_FILE	"/run/status_before_lock.txt"

/* What BPF_LINK_DETACH and BPF_LINK_UPDATE (to @prog_fd) of link @id give. */
static void try_held_link(FILE *out, unsigned int id, int prog_fd)
{
	union bpf_attr attr;
	int fd, detach, update;

	memset(&attr, 0, sizeof(attr));
	attr.link_id = id;
	fd = (int)sys_bpf(BPF_LINK_GET_FD_BY_ID, &attr);
	if (fd < 0) {
		fprintf(out, "%u %d %d\n", id, fd, fd);
		return;
	}
	memset(&attr, 0, sizeof(attr));
	attr.link_detach.link_fd = fd;
	detach = (int)sys_bpf(BPF_LINK_DETACH, &attr);
	memset(&attr, 0, sizeof(attr));
	attr.link_update.link_fd = fd;
	attr.link_update.new_prog_fd = prog_fd;
	update = (int)sys_bpf(BPF_LINK_UPDATE, &attr);
	fprintf(out, "%u %d %d\n", id, detach, update);
	close(fd);
}

/* Every link id of POLICIES' lines, after its six first fields. */
static int try_held_links(int prog_fd)
{
	FILE *in = fopen(POLICIES, "re"), *out = fopen(HELD_FILE, "w");
	char line[1024];
	int err = !in || !out;

	while (!err && fgets(line, sizeof(line), in)) {
		char *p = line, *end;
		int field;

		for (field = 0; field < 6 && p; field++) {
			p = strchr(p, ' ');
			p = p ? p + 1 : NULL;
		}
		while (p && *p && *p != '\n') {
			unsigned long id = strtoul(p, &end, 10);

			if (end == p)
				break;
			try_held_link(out, id, prog_fd);
			p = end;
		}
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		err = 1;
	if (err)
		fprintf(stderr, "before_lock: the held links into %s\n", HELD_FILE);
	return err;
}

int main(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info;
	union bpf_attr attr;
	FILE *f;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
	f = fopen(LOAD_FILE, "w");
	if (!f || fprintf(f, "%d\n", fd < 0 ? fd : 0) < 0 || fclose(f)) {
		fprintf(stderr, "before_lock: write %s\n", LOAD_FILE);
		return 1;
	}
	if (system("krsi status >" STATUS_FILE " 2>&1") == -1) {
		fprintf(stderr, "before_lock: krsi status >%s\n", STATUS_FILE);
		return 1;
	}
	if (fd == -EPERM)	/* locked at boot: nothing to pin */
		return try_held_links(-1);
	if (fd < 0) {
		fprintf(stderr, "before_lock: load a socket filter: %d\n", fd);
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)PIN;
	attr.bpf_fd = fd;
	if (sys_bpf(BPF_OBJ_PIN, &attr)) {
		fprintf(stderr, "before_lock: pin it at %s\n", PIN);
		return 1;
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	f = fopen(ID_FILE, "w");
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) || !f ||
	    fprintf(f, "%u\n", info.id) < 0 || fclose(f)) {
		fprintf(stderr, "before_lock: write its id to %s\n", ID_FILE);
		return 1;
	}
	err = try_held_links(fd);
	close(fd);
	return err;
}
