/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KRSI_TRAIL_H
#define KRSI_TRAIL_H

#include <stdbool.h>
#include <stdio.h>

/*
 * The check of a host's copy of the audit stream (seal.h), as
 * `krsi events --verify FILE` and run-qemu.sh make it: the file holds one
 * stream per boot, each begun by its key's line.  Every line must carry
 * the seal of its position, in order, and every stream must end with the
 * reader's stop record; what does not is said with its line number:
 *
 *	forged		a line without a seal, or whose seal is not that of
 *			its position (made or changed by someone without
 *			the key)
 *	dropped		positions missing before a line that is sealed
 *	replayed	a position again, or one before the last seen
 *			(reordered): its line is sealed, but not there
 *	missing		records the guest logged but did not stream (its
 *			port was down): a gap in their numbers
 *	cut		a stream that ends without the reader's stop record:
 *			the stream stopped there, or the machine did
 *	begun		a second stream in a file that holds one boot, or a
 *			stream begun while the one before had not ended
 *	withheld	a heartbeat or stop record of the reader's that says
 *			records are held back, not logged (TRAIL_HELD_MARK)
 *	ran on		a machine that ran on for more than TRAIL_STOP_GRACE_S
 *			after its reader's stop record reached the host (as
 *			run-qemu.sh measured it): what ran then is in no log
 *	silent		a stream the host heard nothing from for a while as
 *			the machine ran (run-qemu.sh, which the heartbeat
 *			should have ruled out)
 */
/*
 * What the reader's heartbeat and stop record say when records are
 * held back, not logged (tools/krsi/logd/state.c): the host's check reports
 * each such line.
 */
#define TRAIL_HELD_MARK	"HELD BACK"

/*
 * The seconds a machine may run after its stop record reached the host:
 * the reader powers it off right after (tools/krsi/logd/logd.c), which takes
 * well under one.
 */
#define TRAIL_STOP_GRACE_S	5

struct trail_counts {
	unsigned long lines, streams, records;
	unsigned long forged, dropped, replayed, missing, cut, begun;
	unsigned long withheld, ran_on, silent;
};

struct trail_options {
	/* The file holds one boot's stream, so a second key is a forged one. */
	bool one_boot;
	/* How long that boot's machine ran after the file last grew, in
	 * seconds, as the host measured it (run-qemu.sh), or < 0 when
	 * unknown: after the stop record, when that is its last line. */
	double ran_s;
	/* The longest the host heard nothing from it while it ran, in
	 * seconds, when it said so (run-qemu.sh), or 0. */
	double silent_s;
};

/*
 * Check the trail read from @in, saying every finding on @out as
 * "@name:LINE: ..." and a summary per stream.  0 when it all holds, 1
 * when something does not, or a negative errno (read error, no memory).
 */
int trail_verify(FILE *in, const char *name, FILE *out,
		 const struct trail_options *o, struct trail_counts *c);

#endif
