// SPDX-License-Identifier: GPL-2.0
/*
 * What an LSM program's return value becomes: an int hook's callers expect
 * 0 or a negative errno (a positive value would be taken for a pointer or
 * a length by some of them), so the verifier makes the program turn its
 * low 32 bits, sign-extended, into the verdict, and anything out of
 * [-MAX_ERRNO, 0] into -EPERM.  The same program then gives the same
 * verdict through a hook file and by trampoline; before, the trampoline
 * passed 1 on to prctl() as its result.  task_prctl is the hook where that
 * shows harmlessly.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bpf_raw.h"
#include "btf_lookup.h"
#include "guest.h"
#include "trampoline.h"

#define MOV32_IMM(dst, k) \
	{ .code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = (dst), .imm = (k) }
#define MOV64_IMM(dst, k) \
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = (dst), .imm = (k) }
#define LDX(size, dst, src, o) \
	{ .code = BPF_LDX | BPF_MEM | (size), .dst_reg = (dst), \
	  .src_reg = (src), .off = (o) }
#define JNE_IMM(dst, k, o) \
	{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = (dst), .imm = (k), \
	  .off = (o) }
#define EXIT { .code = BPF_JMP | BPF_EXIT }

/* task_prctl has five arguments: the verdict so far is ctx[5]. */
#define PRCTL_RET_OFF	(5 * 8)

static char vlog[65536];

/* Load @insns for the hook @btf_id with the verifier's log in vlog. */
static int load_logged(int btf_id, const char *name,
		       const struct bpf_insn *insns, unsigned int cnt)
{
	return load_lsm_insns_log(btf_id, name, insns, cnt, vlog, sizeof(vlog));
}

/*
 * prctl(PR_GET_DUMPABLE) with @fd attached through its hook file (@krsi)
 * or by trampoline: prctl's errno, or 0.
 */
static int prctl_with(int fd, bool krsi)
{
	int link = -1, err, ret;

	if (krsi) {
		err = krsi_attach("task_prctl", fd, 0);
	} else {
		link = tramp_attach(fd);
		err = link < 0 ? link : 0;
	}
	if (err)
		return err == -EPERM ? -EFAULT : err;	/* not the verdict */
	ret = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	err = ret < 0 ? -errno : 0;
	if (krsi)
		krsi_detach("task_prctl", fd);
	else
		close(link);
	return err;
}

/* A program for task_prctl: both paths must give prctl() @want. */
static void check_verdict(int prctl_id, const char *name,
			  const struct bpf_insn *insns, unsigned int cnt,
			  int want, const char *what)
{
	int fd = load_logged(prctl_id, name, insns, cnt);

	if (!check(fd >= 0, "%s: loads (%s; log: %s)", what,
		   fd < 0 ? errname(-fd) : "ok", fd < 0 ? oneline(vlog) : ""))
		return;
	check(prctl_with(fd, true) == want, "KRSI: %s: prctl() gets %s", what,
	      want ? errname(-want) : "its own result");
	if (LSM_TRAMPOLINE)
		check(prctl_with(fd, false) == want,
		      "trampoline: %s: prctl() gets %s", what,
		      want ? errname(-want) : "its own result");
	else
		check(prctl_with(fd, false) == -TRAMP_ENOTSUPP,
		      "trampoline: %s: attach refused, no BPF trampoline on this architecture",
		      what);
	close(fd);
}

int main(void)
{
	const struct bpf_insn positive[] = { MOV64_IMM(BPF_REG_0, 1), EXIT };
	const struct bpf_insn too_negative[] = { MOV64_IMM(BPF_REG_0, -4096), EXIT };
	const struct bpf_insn eperm[] = { MOV64_IMM(BPF_REG_0, -EPERM), EXIT };
	const struct bpf_insn eio32[] = { MOV32_IMM(BPF_REG_0, -EIO), EXIT };
	const struct bpf_insn pass_ret[] = {
		LDX(BPF_DW, BPF_REG_0, BPF_REG_1, PRCTL_RET_OFF),
		JNE_IMM(BPF_REG_0, 0, 1),
		MOV64_IMM(BPF_REG_0, 0),
		EXIT,
	};
	struct btf_file btf;
	int prctl_id, void_id, fd;

	if (!check(btf_open(&btf) == 0, "read the kernel's BTF"))
		return check_exit();
	prctl_id = btf_find_func(&btf, "bpf_lsm_task_prctl");
	void_id = btf_find_func(&btf, "bpf_lsm_bprm_committing_creds");
	btf_close(&btf);

	check_verdict(prctl_id, "positive", positive, 2, -EPERM,
		      "a program returning 1");
	check_verdict(prctl_id, "too_negative", too_negative, 2, -EPERM,
		      "a program returning -4096");
	check_verdict(prctl_id, "eperm", eperm, 2, -EPERM,
		      "a program returning -EPERM");
	check_verdict(prctl_id, "eio32", eio32, 2, -EIO,
		      "a program returning -EIO in the low 32 bits only");
	check_verdict(prctl_id, "pass_ret", pass_ret, 4, 0,
		      "\"if (ret) return ret;\" alone");

	fd = load_logged(void_id, "void_one", positive, 2);
	check(fd >= 0, "a void hook's program may return 1, which is ignored (%s)",
	      fd < 0 ? errname(-fd) : "ok");
	if (fd >= 0)
		close(fd);
	return check_exit();
}
