// SPDX-License-Identifier: GPL-2.0
/* The program krsi_bench executes: does nothing, as fast as it can. */
#include <unistd.h>

int main(void)
{
	_exit(0);
}
