// SPDX-License-Identifier: GPL-2.0
/*
 * Run by /init of the test image with krsi.tests=boot, after the boot
 * policies are attached and before `krsi lock`: leave what the locked
 * tests need and could no longer make, a program that is not an LSM one
 * (a socket filter), pinned at PIN, with its id in ID_FILE.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysbpf.h"

#define PIN	"/sys/fs/bpf/test_socket_filter"
#define ID_FILE	"/run/test_socket_filter.id"

int main(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info;
	union bpf_attr attr;
	FILE *f;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
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
	close(fd);
	return 0;
}
