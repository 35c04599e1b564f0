// SPDX-License-Identifier: GPL-2.0
/*
 * The point of KRSI where mainline's BPF LSM cannot attach, in one boot:
 * one LSM program, loaded once, attached both ways.  On arm64 and s390x
 * (Linux 6.1 attaches a trampoline to a kernel function on x86_64 alone)
 * mainline's attach fails with ENOTSUPP, and the same program attached as
 * a KRSI link runs and denies the test's open() of its own file, counted
 * by the program itself.  On x86_64 both attach and deny.  The last line
 * sums it up; docs/architectures.md quotes it from an arm64 and an s390x
 * boot.
 */
#include <sys/utsname.h>

#include "hookfile.h"
#include "test_skel.h"
#include "trampoline.h"

#define TARGET "/tmp/krsi_arch.target"

int main(void)
{
	struct krsi_test *skel = load_for_target(TARGET);
	struct utsname uts;
	int tramp, link, err = -1, tramp_ok;
	unsigned int runs = 0;

	if (!skel)
		return check_exit();
	uname(&uts);
	skel->bss->deny_ret = -EPERM;

	/* Mainline's way: a trampoline, where 6.1 attaches one to a hook. */
	tramp = tramp_attach(skel->progs.deny.prog_fd);
	tramp_ok = LSM_TRAMPOLINE ? tramp >= 0 : tramp == -TRAMP_ENOTSUPP;
	if (check_tramp_attach(tramp, "deny on file_open")) {
		check_err(try_open(TARGET), -EPERM, "trampoline: open() denied");
		close(tramp);
		check_err(try_open(TARGET), 0, "open() allowed once the link is gone");
	}

	/* KRSI's way: the same program, a link on the hook's file. */
	skel->bss->deny_runs = 0;
	link = krsi_link_create("file_open", skel->progs.deny.prog_fd);
	if (check(link >= 0, "KRSI: link deny on file_open (%s)",
		  link < 0 ? errname(-link) : "ok")) {
		err = try_open(TARGET);
		runs = skel->bss->deny_runs;
		check_err(err, -EPERM, "KRSI: open() denied");
		check(runs == 1, "KRSI: the program counted the call (%u)", runs);
		close(link);
		check_err(try_open(TARGET), 0, "open() allowed once the link is gone");
	}

	check(tramp_ok && link >= 0 && err == -EPERM && runs == 1,
	      "%s: trampoline attach %s; KRSI link attached and enforced: open() %s, %u call counted",
	      uts.machine,
	      tramp >= 0 ? "ok" : tramp == -TRAMP_ENOTSUPP ?
		      "fails with ENOTSUPP (524)" : errname(-tramp),
	      err == -EPERM ? "denied EPERM" : err ? errname(-err) : "allowed",
	      runs);

	krsi_test__destroy(skel);
	unlink(TARGET);
	return check_exit();
}
