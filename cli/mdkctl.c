// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl: the one command line of mdk, "mdkctl OBJECT VERB [ARGS]" in the
 * manner of bpftool and ip.  main() only dispatches: each object is a
 * handler in cmd_<object>.c listed in the table below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/version.h>

#include "client.h"
#include "mdkctl.h"

const char *mdkctl_socket = MDKCTL_SOCKET_DEFAULT;

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct mdkctl_cmd mdkctl_cmds[] = {
	{ "help", cmd_help, "show this help" },
	{ "status", mdkctl_cmd_status,
	  "what mdkd does: managed cgroups and their metrics" },
	{ "set", mdkctl_cmd_set,
	  "change settings of a managed cgroup at runtime" },
	{ "cgroup", mdkctl_cmd_cgroup,
	  "create, attach to, list and release managed cgroups" },
	{ "version", cmd_version, "print the versions of mdkctl and libmdk" },
	{ "pool", mdkctl_cmd_pool, "the CMM-MP memory pool of cmm_mp.ko" },
	{ "swarm", mdkctl_cmd_swarm, "SWARM-KV: bench, checked stress" },
	{ "trace", mdkctl_cmd_trace,
	  "access-bit traces: info, import, export" },
	{ "synth", mdkctl_cmd_synth, "write a seeded synthetic trace" },
	{ "mpc", mdkctl_cmd_mpc,
	  "memory performance curves of policies over a trace" },
	{ "simulate", mdkctl_cmd_simulate,
	  "simulate policy settings exactly over a trace" },
	{ "train", mdkctl_cmd_train,
	  "fit an L-OPP model to OPP's decisions over a trace" },
	{ "mrc", mdkctl_cmd_mrc,
	  "LRU and OPT miss-ratio curves of a reference string" },
	{ "sample", mdkctl_cmd_sample,
	  "sample the pages a cgroup or processes access, per window" },
	{ "record", mdkctl_cmd_record,
	  "record those pages as an access-bit trace (.mdkt)" },
	/* the back ends' measured costs (cmd_tier.c) */
	{ "tier", mdkctl_cmd_tier,
	  "measure the back ends' costs (calibrate) and show a tier file" },
	{ 0 },
};

static int cmd_help(int argc, char **argv)
{
	const struct mdkctl_cmd *c;

	printf("usage: mdkctl [-s SOCKET] OBJECT [VERB] [ARGS...]\n\nobjects:\n");
	for (c = mdkctl_cmds; c->name; c++)
		printf("  %-10s %s\n", c->name, c->help);
	printf("\nSee mdkctl(8).\n");
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	printf("mdkctl %s (libmdk %s)\n", MDK_VERSION, mdk_version());
	return 0;
}

int mdkctl_dispatch(const struct mdkctl_cmd *cmds, const char *what, int argc,
		    char **argv)
{
	const struct mdkctl_cmd *c;

	if (argc < 1) {
		fprintf(stderr, "mdkctl: %s: missing command (try 'help')\n",
			what);
		return 2;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[0]))
			return c->fn(argc, argv);
	fprintf(stderr, "mdkctl: %s: unknown command '%s' (try 'help')\n", what,
		argv[0]);
	return 2;
}

int main(int argc, char **argv)
{
	/* Options of mdkctl itself come before the object. */
	while (argc > 1 && argv[1][0] == '-') {
		if ((!strcmp(argv[1], "-s") || !strcmp(argv[1], "--socket")) &&
		    argc > 2) {
			mdkctl_socket = argv[2];
			argv += 2;
			argc -= 2;
		} else if (!strncmp(argv[1], "--socket=", 9)) {
			mdkctl_socket = argv[1] + 9;
			argv++;
			argc--;
		} else {
			break;
		}
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cmd_help(0, NULL);
	if (argc == 2 && !strcmp(argv[1], "--version"))
		return cmd_version(0, NULL);
	return mdkctl_dispatch(mdkctl_cmds, "mdkctl", argc - 1, argv + 1);
}
