/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_STREAM_H
#define KRSI_STREAM_H

/*
 * The port the audit log's stream leaves the machine by (run-qemu.sh
 * --log), one definition for the reader that opens it (tools/krsi/
 * logd/sink_stream.c), the policy that guards it by its number (progs/protect_log.
 * bpf.c) and the tests that try it (tests/suites/boot/boot_bypass.c):
 * the PC's third 8250 UART, ttyS2 (char 4:66); on arm64, whose virt
 * machine has one UART, the first virtio console, hvc0 (char 229:0).
 * s390x has neither: its reader logs in the guest alone.
 */
#if defined(__aarch64__) || defined(__TARGET_ARCH_arm64)
#define KRSI_STREAM_DEV		"/dev/hvc0"
#define KRSI_STREAM_MAJOR	229
#define KRSI_STREAM_MINOR	0
#define KRSI_STREAM_IS_UART	0
#else
#define KRSI_STREAM_DEV		"/dev/ttyS2"
#define KRSI_STREAM_MAJOR	4
#define KRSI_STREAM_MINOR	66
#define KRSI_STREAM_IS_UART	1
#endif

#endif
