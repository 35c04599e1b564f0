/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series' KRSI selftests, built against v1's UAPI by
 * tests/selftests/v1.sh to show that each fails there.  v1 made a
 * KRSI link of every BPF_LINK_CREATE of an LSM program whose target_fd
 * was not 0, with no flag to ask for it: BPF_F_KRSI_HOOK is no flag there.
 */
#ifndef BPF_F_KRSI_HOOK
#define BPF_F_KRSI_HOOK 0
#endif
