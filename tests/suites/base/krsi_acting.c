// SPDX-License-Identifier: GPL-2.0
/*
 * On the enforcing kernel, programs that call helpers which act on the
 * system (bpf_send_signal, bpf_send_signal_thread, bpf_bprm_opts_set,
 * bpf_tail_call) attach through their hook files like any other; the
 * audit-only kernel refuses them (tests/suites/audit/krsi_audit.c).
 */
#include <errno.h>
#include <unistd.h>

#include "acting_progs.h"
#include "guest.h"

int main(void)
{
	struct acting_prog progs[4];
	int i;

	if (!check(load_acting_progs(progs), "read the kernel's BTF"))
		return check_exit();
	for (i = 0; i < 4; i++) {
		int err = progs[i].fd < 0 ? progs[i].fd :
			  krsi_attach(progs[i].hook, progs[i].fd, 0);

		check(!err, "a program calling %s attaches to %s (%s)",
		      progs[i].name, progs[i].hook, err ? errname(-err) : "ok");
		if (!err)
			check_err(krsi_detach(progs[i].hook, progs[i].fd), 0,
				  "and detaches");
		if (progs[i].fd >= 0)
			close(progs[i].fd);
	}
	return check_exit();
}
