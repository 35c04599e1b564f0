// SPDX-License-Identifier: GPL-2.0
/* A dynamically linked program, run by the no_tmp_exec tests through musl's
 * loader; every other program of the appliance is static.
 */
#include <stdio.h>

int main(void)
{
	puts("hello");
	return 0;
}
