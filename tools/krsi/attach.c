// SPDX-License-Identifier: GPL-2.0
/*
 * The commands that change which policies are attached and how:
 * attach, detach, replace, enforce and audit; and `krsi policies`.
 */
#include <stdio.h>
#include <string.h>

#include "krsi.h"

/* @fn on each policy @argv names, after checking that every name is one. */
static int for_each_policy(int argc, char **argv, int (*fn)(const struct policy *))
{
	int i, status = 0;

	if (argc < 1) {
		fprintf(stderr, "krsi: which policy? (krsi policies lists them)\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < argc; i++)
		if (!policy_find(argv[i]))
			return EXIT_USAGE;
	for (i = 0; i < argc; i++) {
		if (fn(policy_find(argv[i])))
			status = 1;
		else
			printf("krsi: %s\n", argv[i]);
	}
	return status;
}

static int attach(const struct policy *p)
{
	return policy_attach(p, false, KRSI_MODE_ENFORCE);
}

static int attach_audit(const struct policy *p)
{
	return policy_attach(p, false, KRSI_MODE_AUDIT);
}

static int replace(const struct policy *p)
{
	return policy_attach(p, true, -1);
}

static int enforce(const struct policy *p)
{
	return policy_set_mode(p, KRSI_MODE_ENFORCE);
}

static int audit(const struct policy *p)
{
	return policy_set_mode(p, KRSI_MODE_AUDIT);
}

/*
 * Signed, through the kernel (signed.c): each of @argv, a policy's name or
 * a file's path.  After the lock, the only way.
 */
static int signed_each(int argc, char **argv)
{
	int i, status = 0;

	if (argc < 1) {
		fprintf(stderr, "krsi: which policy? (a name, or a signed policy's path)\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < argc; i++)
		if (signed_attach(argv[i]))
			status = 1;
	return status;
}

/*
 * Signed, through the kernel: a path names a signed policy; once locked,
 * a name is attached signed too, the one way the lock leaves.
 */
static bool use_signed(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strchr(argv[i], '/'))
			return true;
	if (krsi_locked() <= 0)
		return false;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--audit"))
			return false;
	fprintf(stderr, "krsi: locked: attaching the signed policies of %s, "
		"through the kernel\n", KRSI_SIGNED_DIR);
	return true;
}

/* `krsi attach [--audit | --signed] POLICY...` */
int cmd_attach(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--signed"))
		return signed_each(argc - 2, argv + 2);
	if (use_signed(argc - 1, argv + 1))
		return signed_each(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "--audit"))
		return for_each_policy(argc - 2, argv + 2, attach_audit);
	return for_each_policy(argc - 1, argv + 1, attach);
}

int cmd_detach(int argc, char **argv)
{
	return for_each_policy(argc - 1, argv + 1, policy_detach);
}

int cmd_enforce(int argc, char **argv)
{
	return for_each_policy(argc - 1, argv + 1, enforce);
}

int cmd_audit(int argc, char **argv)
{
	return for_each_policy(argc - 1, argv + 1, audit);
}

/*
 * `krsi replace [--signed] POLICY`: one at a time, each swap is a whole
 * policy.  A signed one replaces the version the kernel holds.
 */
int cmd_replace(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--signed"))
		return signed_each(1, argv + 2);
	if (argc == 2 && (signed_is_held(argv[1]) || use_signed(1, argv + 1)))
		return signed_each(1, argv + 1);
	if (argc != 2) {
		fprintf(stderr, "krsi: replace takes one policy\n");
		return EXIT_USAGE;
	}
	return for_each_policy(1, argv + 1, replace);
}

/* `krsi policies`: the policies this tool carries. */
int cmd_policies(int argc, char **argv)
{
	size_t i;

	if (args_none(argc, argv))
		return EXIT_USAGE;
	for (i = 0; i < nr_policies; i++)
		printf("%-16s %s\n", policies[i].name, policies[i].about);
	return 0;
}
