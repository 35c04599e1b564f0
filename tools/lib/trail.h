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
 */
struct trail_counts {
	unsigned long lines, streams, records;
	unsigned long forged, dropped, replayed, missing, cut, begun;
};

/*
 * Check the trail read from @in, saying every finding on @out as
 * "@name:LINE: ..." and a summary per stream.  @one_boot: the file holds
 * one boot's stream, so a second key is a forged one.  0 when it all
 * holds, 1 when something does not, or a negative errno (read error, no
 * memory).
 */
int trail_verify(FILE *in, const char *name, FILE *out, bool one_boot,
		 struct trail_counts *c);

#endif
