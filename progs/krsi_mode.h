/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_MODE_H
#define KRSI_MODE_H

/*
 * A policy's mode, the one value of its map "policy_mode", shared by the
 * BPF programs (deny() in krsi_policy.h) and the krsi tool, which sets it
 * (`krsi attach --audit`, `krsi enforce`, `krsi audit`).
 */
enum krsi_mode {
	KRSI_MODE_ENFORCE = 0,	/* deny() denies: the default */
	KRSI_MODE_AUDIT = 1,	/* deny() reports "would deny" and allows */
};

#endif
