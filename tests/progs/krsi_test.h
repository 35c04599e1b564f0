/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the KRSI test programs and the guest tests that drive them. */
#ifndef KRSI_TEST_H
#define KRSI_TEST_H

#define TEST_MAGIC	0x4b525349	/* "KRSI" */
#define ORDER_MAX	16

/* What bpf_lsm_event_output() sends from the file_open hook. */
struct test_event {
	unsigned int magic;
	unsigned int tgid;
	unsigned long ino;
};

#endif
