/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampler (bpf/loader.h) run from the command line, as mdkctl
 * sample and mdkctl record both run it: the target and the options they
 * share, libbpf's messages, SIGINT and SIGTERM to stop, and windows that
 * end on a fixed grid.  Messages begin with the command's name.
 */
#ifndef MDKCTL_SAMPLER_CLI_H
#define MDKCTL_SAMPLER_CLI_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sys/types.h>

#include "bpf/loader.h"

struct mdkctl_sampler {
	const char *cmd; /* "mdkctl sample": what messages begin with */
	void (*usage)(FILE *f);
	const char *target;
	char cgroup[PATH_MAX];
	pid_t *pids;
	size_t nr_pids;
	uint64_t window_ns;
	int tier_node; /* -1: none */
	bool no_flush;
	bool verbose;
	const char *procs_file;
	struct mdk_sampler *s;
	uint64_t next_ns; /* CLOCK_MONOTONIC end of the current window */
};

/* The defaults: 30 s windows, no tier node. */
#define MDKCTL_SAMPLER_INIT(name, usage_fn)                          \
	{                                                            \
		.cmd = (name), .usage = (usage_fn),                  \
		.window_ns = 30ULL * 1000000000ULL, .tier_node = -1, \
	}

/*
 * mdkctl_sampler_option() - take option @opt (a getopt_long() return) with
 * argument @arg, or print the usage for --help or an unknown option.  The
 * options both commands take are, in their getopt_long() tables,
 *
 *	'w' --window TIME, 't' --tier-node NODE, 'F' --no-flush,
 *	'p' --procs FILE, 'v' --verbose, 'h' --help
 *
 * Returns 0, MDKCTL_DONE (-1) after --help, or 2 after a message.
 */
int mdkctl_sampler_option(struct mdkctl_sampler *c, int opt, const char *arg);

/* Those options' getopt_long() entries, for both commands' tables. */
/* clang-format off */
#define MDKCTL_SAMPLER_LONG_OPTIONS				\
	{ "window", required_argument, NULL, 'w' },		\
	{ "tier-node", required_argument, NULL, 't' },		\
	{ "no-flush", no_argument, NULL, 'F' },			\
	{ "procs", required_argument, NULL, 'p' },		\
	{ "verbose", no_argument, NULL, 'v' },			\
	{ "help", no_argument, NULL, 'h' }
/* clang-format on */

/*
 * mdkctl_sampler_args() - take the target: the one argument left after the
 * options.  Returns 0, or 2 after a message and the usage.
 */
int mdkctl_sampler_args(struct mdkctl_sampler *c, int argc, char **argv);

/*
 * mdkctl_sampler_target() - parse the target into a cgroup or PIDs.
 * Returns 0, 1 for a missing cgroup or 2 for neither, after a message.
 */
int mdkctl_sampler_target(struct mdkctl_sampler *c);

/*
 * mdkctl_sampler_open() - load the sampler on the target, with libbpf's
 * messages only when verbose, and have SIGINT and SIGTERM stop the
 * command (mdkctl_sampler_stopped()).  Returns 0, or 1 after a message.
 */
int mdkctl_sampler_open(struct mdkctl_sampler *c);

/* mdkctl_sampler_start() - begin window 0.  Returns 0, or 1 after a message. */
int mdkctl_sampler_start(struct mdkctl_sampler *c);

/*
 * mdkctl_sampler_next() - wait until window @n ends, or a signal ends it
 * early, and deliver it into @w.  Windows end every window_ns from the
 * first call.  Returns 0, or 1 after a message.
 */
int mdkctl_sampler_next(struct mdkctl_sampler *c, uint64_t n,
			struct mdk_sampler_window *w);

/* mdkctl_sampler_stopped() - whether SIGINT or SIGTERM came. */
bool mdkctl_sampler_stopped(void);

/*
 * mdkctl_sampler_write_procs() - write the --procs CSV, if asked for.
 * Returns 0, or 1 after a message.
 */
int mdkctl_sampler_write_procs(const struct mdkctl_sampler *c);

/* mdkctl_sampler_free() - free the sampler and the PIDs. */
void mdkctl_sampler_free(struct mdkctl_sampler *c);

/* mdkctl_sampler_clock_ns() - @clk's time in nanoseconds. */
uint64_t mdkctl_sampler_clock_ns(clockid_t clk);

#endif /* MDKCTL_SAMPLER_CLI_H */
