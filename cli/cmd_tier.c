// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl tier: the back ends' measured costs.
 *
 *   calibrate [OPTIONS]   measure them and write the tier file
 *   show [FILE]           read a tier file back (mdk_tiers_load) and print
 *                         its tier list
 *
 * calibrate lives in cli/tier/ (see tier/tier.h).
 */
#include <stdio.h>

#include <mdk/tier.h>

#include "mdkctl.h"
#include "tier/tier.h"

static int tier_help(int argc, char **argv);
static int tier_show(int argc, char **argv);

static const struct mdkctl_cmd tier_cmds[] = {
	{ "help", tier_help, "show this help" },
	{ "calibrate", mdkctl_tier_calibrate,
	  "[--pages N] [--rounds R] [--output FILE] [--node N] [--dry-run]  measure each back end's cost and write the tier file" },
	{ "show", tier_show,
	  "[FILE]  read a tier file (default /var/lib/mdk/tiers) and print its tiers" },
	{ 0 },
};

static int tier_help(int argc, char **argv)
{
	const struct mdkctl_cmd *c;

	(void)argc;
	(void)argv;
	printf("usage: mdkctl tier VERB [OPTIONS]\n\nverbs:\n");
	for (c = tier_cmds; c->name; c++)
		printf("  %-10s %s\n", c->name, c->help);
	printf("\nSee mdkctl(8) and Documentation/admin-guide.rst.\n");
	return 0;
}

static int tier_show(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/var/lib/mdk/tiers";
	char err[512], list[512];
	struct mdk_tiers t;
	unsigned int i;

	if (argc > 2) {
		fprintf(stderr, "usage: mdkctl tier show [FILE]\n");
		return 2;
	}
	if (mdk_tiers_load(path, &t, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: tier show: %s\n", err);
		return 1;
	}
	mdk_tiers_format(&t, list, sizeof(list));
	printf("%s\n", list);
	for (i = 0; i < t.n; i++) {
		printf("  %-6s cost %llu ns", t.t[i].name,
		       (unsigned long long)t.t[i].cost_ns);
		if (t.t[i].capacity)
			printf(", capacity %llu pages",
			       (unsigned long long)t.t[i].capacity);
		printf("\n");
	}
	return 0;
}

int mdkctl_cmd_tier(int argc, char **argv)
{
	return mdkctl_dispatch(tier_cmds, "tier", argc - 1, argv + 1);
}
