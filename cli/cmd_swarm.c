// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm: SWARM-KV from the command line.
 *
 *   mdkctl swarm bench   YCSB A and B on SWARM-KV, DM-ABD and RAW in one run:
 *                        round trips per operation, latency percentiles with
 *                        the injected round-trip time, throughput as clients
 *                        grow
 *   mdkctl swarm stress  many clients on few keys, memory nodes crashing
 *                        mid-run, the history checked for linearizability
 *   mdkctl swarm check   the stress logs of several hosts as one history
 *
 * Memory nodes are in-process memory, or with --cmm-mp one shared segment
 * per device of the emulated CMM-MP pool (/dev/cmm_mp).  The verbs live in
 * cli/swarm/ (see swarm/swarm.h).
 */
#include <stdio.h>

#include "mdkctl.h"
#include "swarm/swarm.h"

static int swarm_help(int argc, char **argv)
{
	printf("usage: mdkctl swarm bench [OPTIONS]   YCSB on SWARM-KV, DM-ABD and RAW\n"
	       "       mdkctl swarm stress [OPTIONS]  crash nodes, check linearizability\n"
	       "       mdkctl swarm check LOG...      the stress logs of several hosts as one history\n"
	       "See mdkctl(8).\n");
	return 0;
}

static const struct mdkctl_cmd swarm_cmds[] = {
	{ "bench", mdkctl_swarm_bench,
	  "YCSB A and B: round trips, latency, throughput" },
	{ "stress", mdkctl_swarm_stress,
	  "a checked history under node crashes" },
	{ "check", mdkctl_swarm_check,
	  "check the --log files of stress runs on several hosts as one history" },
	{ "help", swarm_help, "show this help" },
	{ 0 },
};

int mdkctl_cmd_swarm(int argc, char **argv)
{
	return mdkctl_dispatch(swarm_cmds, "swarm", argc - 1, argv + 1);
}
