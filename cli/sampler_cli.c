// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler run from the command line, shared by mdkctl sample
 * (cmd_sample.c) and mdkctl record (cmd_record.c).  See sampler_cli.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "mdkctl.h"
#include "parse.h"
#include "sampler_cli.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

int mdkctl_sampler_option(struct mdkctl_sampler *c, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'w':
		if (mdkctl_parse_window(arg, &c->window_ns)) {
			fprintf(stderr,
				"%s: --window '%s': expected N[ms|s|m|h] "
				"between 1ms and 24h\n",
				c->cmd, arg);
			return 2;
		}
		return 0;
	case 't':
		if (mdkctl_parse_u64(arg, 10, 0, 65535, &v)) {
			fprintf(stderr,
				"%s: --tier-node '%s': expected a NUMA node "
				"number\n",
				c->cmd, arg);
			return 2;
		}
		c->tier_node = v;
		return 0;
	case 'F':
		c->no_flush = true;
		return 0;
	case 'p':
		c->procs_file = arg;
		return 0;
	case 'v':
		c->verbose = true;
		return 0;
	case 'h':
		c->usage(stdout);
		return MDKCTL_DONE;
	default:
		c->usage(stderr);
		return 2;
	}
}

int mdkctl_sampler_args(struct mdkctl_sampler *c, int argc, char **argv)
{
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", c->cmd,
			optind >= argc ? "missing CGROUP or PID" :
					 "one target only (PIDs: 1,2,3)");
		c->usage(stderr);
		return 2;
	}
	c->target = argv[optind];
	return 0;
}

int mdkctl_sampler_target(struct mdkctl_sampler *c)
{
	switch (mdk_sampler_parse_target(c->target, c->cgroup,
					 sizeof(c->cgroup), &c->pids,
					 &c->nr_pids)) {
	case 0:
		return 0;
	case -ENOENT:
		fprintf(stderr, "%s: %s: no such cgroup directory (%s)\n",
			c->cmd, c->target, c->cgroup);
		return 1;
	default:
		fprintf(stderr,
			"%s: '%s': expected a cgroup or PIDs separated by "
			"commas\n",
			c->cmd, c->target);
		return 2;
	}
}

int mdkctl_sampler_open(struct mdkctl_sampler *c)
{
	struct mdk_sampler_opts opts = {
		.cgroup = c->cgroup[0] ? c->cgroup : NULL,
		.pids = c->pids,
		.nr_pids = c->nr_pids,
		.tier_node = c->tier_node,
		.flags = c->no_flush ? MDK_SAMPLER_NO_FLUSH : 0,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	char msg[512];

	libbpf_set_print(c->verbose ? libbpf_print : libbpf_quiet);
	c->s = mdk_sampler_new(&opts, msg, sizeof(msg));
	if (!c->s) {
		fprintf(stderr, "%s: %s\n", c->cmd, msg);
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return 0;
}

int mdkctl_sampler_start(struct mdkctl_sampler *c)
{
	char msg[512];

	if (mdk_sampler_start(c->s, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", c->cmd, msg);
		return 1;
	}
	return 0;
}

int mdkctl_sampler_next(struct mdkctl_sampler *c, uint64_t n,
			struct mdk_sampler_window *w)
{
	struct timespec ts;
	char msg[512];

	/*
	 * Windows end on a fixed grid, so the time each takes to end does
	 * not add up.  It starts at the first wait: what a caller sets up
	 * after mdkctl_sampler_start() (record opens its trace) lengthens
	 * window 0, it never cuts it short.
	 */
	if (!c->next_ns)
		c->next_ns = mdkctl_sampler_clock_ns(CLOCK_MONOTONIC);
	c->next_ns += c->window_ns;
	ts.tv_sec = c->next_ns / 1000000000ULL;
	ts.tv_nsec = c->next_ns % 1000000000ULL;
	while (!exiting &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
	if (mdk_sampler_next(c->s, w, msg, sizeof(msg))) {
		fprintf(stderr, "%s: window %" PRIu64 ": %s\n", c->cmd, n, msg);
		return 1;
	}
	return 0;
}

bool mdkctl_sampler_stopped(void)
{
	return exiting;
}

int mdkctl_sampler_write_procs(const struct mdkctl_sampler *c)
{
	int err;

	if (!c->procs_file)
		return 0;
	err = mdk_sampler_write_procs(c->s, c->procs_file);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", c->cmd, c->procs_file,
			strerror(-err));
		return 1;
	}
	return 0;
}

void mdkctl_sampler_free(struct mdkctl_sampler *c)
{
	mdk_sampler_free(c->s);
	c->s = NULL;
	free(c->pids);
	c->pids = NULL;
}

uint64_t mdkctl_sampler_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
