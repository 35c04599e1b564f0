// SPDX-License-Identifier: GPL-2.0
/*
 * `krsi list`: every hook with programs, and its programs in run order,
 * each with its policy, program id and link id.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hookfile.h"
#include "json.h"
#include "krsi.h"

/* The programs of one hook, as text or JSON. */
static void print_hook(const char *hook, const struct hook_program *progs,
		       int n, bool json, bool first)
{
	int i;

	if (json) {
		printf("%s{\"hook\":", first ? "" : ",");
		json_str(stdout, hook);
		printf(",\"programs\":[");
	} else {
		printf("%s:", hook);
	}
	for (i = 0; i < n; i++) {
		const struct hook_program *prog = &progs[i];
		const struct policy *p = policy_of(hook, prog->name);

		if (json) {
			printf("%s{\"name\":", i ? "," : "");
			json_str(stdout, prog->name);
			printf(",\"policy\":");
			if (p)
				json_str(stdout, p->name);
			else
				printf("null");
			printf(",\"prog_id\":%u,\"link_id\":", prog->prog_id);
			if (prog->link_id)
				printf("%u}", prog->link_id);
			else
				printf("null}");
			continue;
		}
		printf(" %s (%s%sprog %u", prog->name, p ? p->name : "",
		       p ? ", " : "", prog->prog_id);
		if (prog->link_id)
			printf(", link %u", prog->link_id);
		printf(")");
	}
	printf(json ? "]}" : "\n");
}

/*
 * Every hook with programs.  A hook it could not read is never reported
 * as empty: it is named, with the errno, and the exit status is 1.
 */
int cmd_list(int argc, char **argv)
{
	int json = args_json(argc, argv);
	static struct hook_program progs[KRSI_MAX_HOOK_PROGS];
	struct dirent **hooks;
	int n, i, shown = 0, unreadable = 0;

	if (json < 0)
		return EXIT_USAGE;

	n = scandir(KRSI_HOOK_DIR, &hooks, NULL, alphasort);
	if (n < 0) {
		error(-errno, "list: %s", KRSI_HOOK_DIR);
		return 1;
	}
	if (json)
		printf("{\"hooks\":[");
	for (i = 0; i < n; i++) {
		const char *hook = hooks[i]->d_name;
		int nr = hook[0] == '.' ? 0 :
			 hook_programs(hook, progs, KRSI_MAX_HOOK_PROGS);

		if (nr < 0 && !unreadable++)
			error(nr, "list: %s/%s%s", KRSI_HOOK_DIR, hook,
			      nr == -EACCES || nr == -EPERM ? " (needs root)" : "");
		if (nr > 0)
			print_hook(hook, progs, nr, json, !shown++);
		free(hooks[i]);
	}
	free(hooks);
	if (json)
		printf("],\"unreadable\":%d}\n", unreadable);
	if (unreadable) {
		fprintf(stderr, "krsi: list: %d of %d hooks could not be read: "
			"what they run is not shown\n", unreadable, n - 2);
		return 1;
	}
	if (!shown && !json)
		printf("no program attached\n");
	return 0;
}
