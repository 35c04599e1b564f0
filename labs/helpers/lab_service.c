// SPDX-License-Identifier: GPL-2.0
/*
 * lab_service: the service lab 3's policy keeps signals from, known by
 * its executable: it waits for signals, and ends at the first it does not
 * ignore, as any daemon would.
 */
#include <unistd.h>

int main(void)
{
	for (;;)
		pause();
}
