// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool: the CMM-MP pool of cmm_mp.ko, through /dev/cmm_mp.
 *
 *   status                   the pool, its devices and segments
 *   translate ADDR           one PAMT lookup (HA, or NHA with --nha)
 *   online SEG...|all        hot-add and online as movable memory
 *   offline SEG...|all       offline with migration (or stop sharing)
 *   share SEG...             export for mmap of /dev/cmm_mp
 *   fail DEV / recover DEV   fault injection
 *   bench                    latency and bandwidth per NUMA node
 *
 * The verbs live in cli/pool/ (see pool/pool.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mdkctl.h"
#include "pool/pool.h"

static int pool_help(int argc, char **argv);

static const struct mdkctl_cmd pool_cmds[] = {
	{ "help", pool_help, "show this help" },
	{ "status", mdkctl_pool_status,
	  "[-j]  the pool, its devices and segments" },
	{ "translate", mdkctl_pool_translate,
	  "[-j] [--nha] ADDR  PAMT lookup: NHA, device, offset, local or remote" },
	{ "online", mdkctl_pool_online,
	  "[-j] SEG...|all  hot-add segments and online them as movable memory" },
	{ "offline", mdkctl_pool_offline,
	  "[-j] [-t SEC] SEG...|all  offline segments (migrating their pages) or stop sharing them" },
	{ "share", mdkctl_pool_share,
	  "[-j] SEG...  export segments for mmap of /dev/cmm_mp" },
	{ "fail", mdkctl_pool_fail,
	  "[-j] [-t SEC] DEV  fail a device: revoke its mappings, offline its segments" },
	{ "recover", mdkctl_pool_recover,
	  "[-j] [--wipe] DEV  recover a failed device" },
	{ "bench", mdkctl_pool_bench,
	  "[-j] [-s MIB] [-r ROUNDS]  latency and bandwidth from each CPU node to each memory node" },
	{ 0 },
};

static int pool_help(int argc, char **argv)
{
	const struct mdkctl_cmd *c;

	printf("usage: mdkctl pool VERB [OPTIONS] [ARGS...]\n\nverbs:\n");
	for (c = pool_cmds; c->name; c++)
		printf("  %-10s %s\n", c->name, c->help);
	printf("\nSee mdkctl(8) and Documentation/cmm_mp.rst.\n");
	return 0;
}

/*
 * "mdkctl pool -j status" works as "mdkctl pool status -j": options before
 * the verb are moved after it.
 */
int mdkctl_cmd_pool(int argc, char **argv)
{
	char **args;
	int i, n = 1, ret;

	while (n < argc && argv[n][0] == '-')
		n++;
	if (n == 1 || n == argc)
		return mdkctl_dispatch(pool_cmds, "pool", argc - 1, argv + 1);
	args = calloc(argc, sizeof(*args));
	if (!args) {
		fprintf(stderr, "mdkctl: pool: out of memory\n");
		return 1;
	}
	args[0] = argv[n];
	for (i = 1; i < n; i++)
		args[i] = argv[i];
	for (i = n + 1; i < argc; i++)
		args[i - 1] = argv[i];
	ret = mdkctl_dispatch(pool_cmds, "pool", argc - 1, args);
	free(args);
	return ret;
}
