/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <errno.h> for BPF programs written for the kernel selftests, which
 * include it for the E* numbers only: no libc in a BPF build.
 */
#include <asm-generic/errno.h>
