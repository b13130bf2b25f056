// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl record: run the page Accessed-bit sampler (daemon/sampler.c) on a
 * cgroup or a set of processes and write what it sees, window by window,
 * as a libmdk access-bit trace (.mdkt, Documentation/trace-format.rst)
 * that mdkctl mpc, simulate and trace read.  See mdkctl(8) and
 * Documentation/sampler.rst.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <bpf/libbpf.h>
#include <mdk/trace.h>

#include "mdkctl.h"
#include "parse.h"
#include "sampler.h"

#define DEFAULT_WINDOW_NS (30ULL * 1000000000ULL)
#define MAX_DURATION_NS (366ULL * 86400 * 1000000000ULL)

struct env {
	const char *target;
	char cgroup[PATH_MAX];
	pid_t *pids;
	size_t nr_pids;
	uint64_t window_ns;
	uint64_t duration_ns; /* 0: until interrupted */
	const char *out;
	const char *procs_file;
	const char *desc;
	int tier_node;
	bool no_flush;
	bool quiet;
	bool verbose;
};

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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mdkctl record CGROUP|PID[,PID...] -o TRACE.mdkt "
		"[--window TIME]\n"
		"                     [--duration TIME] [--tier-node NODE] "
		"[--no-flush]\n"
		"                     [--procs FILE] [--desc TEXT] [-q] [-v]\n"
		"\n"
		"Record the pages a cgroup's processes (or the given processes) "
		"access, window\n"
		"by window, as an access-bit trace (.mdkt).\n"
		"\n"
		"  -o, --output FILE     the trace to write (required)\n"
		"  -w, --window TIME     window length: N[ms|s|m|h] "
		"(default 30s)\n"
		"  -d, --duration TIME   how long: N[ms|s|m|h|d] (default: "
		"until interrupted);\n"
		"                        the trace has duration / window "
		"windows\n"
		"  -t, --tier-node NODE  also report STAR against this NUMA "
		"node\n"
		"      --no-flush        do not flush the TLB at window starts\n"
		"      --procs FILE      write what the process numbers of the "
		"ids are (CSV)\n"
		"      --desc TEXT       the trace's source description "
		"(default: target,\n"
		"                        host, kernel, page id layout)\n"
		"  -q, --quiet           no line per window\n"
		"  -v, --verbose         libbpf's messages\n"
		"\n"
		"examples:\n"
		"  mdkctl record /sys/fs/cgroup/workload --window 30s "
		"--duration 2h -o w.mdkt\n"
		"  mdkctl record 1234 -w 5s -d 10m -o p.mdkt --procs "
		"p.procs.csv\n");
}

static int parse_args(struct env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "window", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "tier-node", required_argument, NULL, 't' },
		{ "no-flush", no_argument, NULL, 'F' },
		{ "procs", required_argument, NULL, 'p' },
		{ "desc", required_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:w:d:t:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			env->out = optarg;
			break;
		case 'w':
			if (mdkd_parse_window(optarg, &env->window_ns)) {
				fprintf(stderr,
					"mdkctl record: --window '%s': "
					"expected N[ms|s|m|h] between 1ms "
					"and 24h\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			if (mdkd_parse_time(optarg, MAX_DURATION_NS,
					    &env->duration_ns)) {
				fprintf(stderr,
					"mdkctl record: --duration '%s': "
					"expected N[ms|s|m|h|d] between 1ms "
					"and 366d\n",
					optarg);
				return 2;
			}
			break;
		case 't':
			if (mdkd_parse_u64(optarg, 10, 0, 65535, &v)) {
				fprintf(stderr,
					"mdkctl record: --tier-node '%s': "
					"expected a NUMA node number\n",
					optarg);
				return 2;
			}
			env->tier_node = v;
			break;
		case 'F':
			env->no_flush = true;
			break;
		case 'p':
			env->procs_file = optarg;
			break;
		case 'D':
			env->desc = optarg;
			break;
		case 'q':
			env->quiet = true;
			break;
		case 'v':
			env->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mdkctl record: %s\n",
			optind >= argc ? "missing CGROUP or PID" :
					 "one target only (PIDs: 1,2,3)");
		usage(stderr);
		return 2;
	}
	if (!env->out) {
		fprintf(stderr, "mdkctl record: -o TRACE.mdkt is required\n");
		return 2;
	}
	if (env->duration_ns && env->duration_ns < env->window_ns) {
		fprintf(stderr, "mdkctl record: --duration is shorter than one "
				"window\n");
		return 2;
	}
	if (env->duration_ns / env->window_ns > MDK_TRACE_MAX_WINDOW) {
		fprintf(stderr, "mdkctl record: more than %u windows\n",
			MDK_TRACE_MAX_WINDOW);
		return 2;
	}
	env->target = argv[optind];
	switch (mdkd_sampler_parse_target(env->target, env->cgroup,
					  sizeof(env->cgroup), &env->pids,
					  &env->nr_pids)) {
	case 0:
		return 0;
	case -ENOENT:
		fprintf(stderr,
			"mdkctl record: %s: no such cgroup directory (%s)\n",
			env->target, env->cgroup);
		return 1;
	default:
		fprintf(stderr,
			"mdkctl record: '%s': expected a cgroup or PIDs "
			"separated by commas\n",
			env->target);
		return 2;
	}
}

static void default_desc(const struct env *env, char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(buf, len,
		 "mdkctl record %s on %s (Linux %s): page id = process << %d "
		 "| virtual address >> 12, process numbers in order of first "
		 "sight (mdkctl record --procs)",
		 env->cgroup[0] ? env->cgroup : env->target, u.nodename,
		 u.release, MDKD_PAGE_VPN_BITS);
}

static int write_procs(const struct env *env, const struct mdkd_sampler *s)
{
	int err = mdkd_sampler_write_procs(s, env->procs_file);

	if (err)
		fprintf(stderr, "mdkctl record: %s: %s\n", env->procs_file,
			strerror(-err));
	return err ? 1 : 0;
}

static uint64_t clock_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int cmd_record(int argc, char **argv)
{
	struct env env = { .window_ns = DEFAULT_WINDOW_NS, .tier_node = -1 };
	struct mdk_trace_writer_opts topts = { .page_size = 4096 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct mdkd_sampler_opts opts = { 0 };
	struct mdk_trace_writer *tw = NULL;
	struct mdkd_sampler *s = NULL;
	struct mdkd_sampler_window w;
	uint64_t next, n, windows, records = 0;
	char msg[512], desc[1024];
	struct timespec ts;
	int err;

	err = parse_args(&env, argc, argv);
	if (err)
		goto out;
	windows = env.duration_ns ? env.duration_ns / env.window_ns : 0;
	libbpf_set_print(env.verbose ? libbpf_print : libbpf_quiet);
	opts.cgroup = env.cgroup[0] ? env.cgroup : NULL;
	opts.pids = env.pids;
	opts.nr_pids = env.nr_pids;
	opts.tier_node = env.tier_node;
	opts.flags = env.no_flush ? MDKD_SAMPLER_NO_FLUSH : 0;
	s = mdkd_sampler_new(&opts, msg, sizeof(msg));
	if (!s) {
		fprintf(stderr, "mdkctl record: %s\n", msg);
		err = 1;
		goto out;
	}
	if (!env.desc)
		default_desc(&env, desc, sizeof(desc));
	topts.desc = env.desc ? env.desc : desc;
	topts.window_us = env.window_ns / 1000;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = mdkd_sampler_start(s, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "mdkctl record: %s\n", msg);
		err = 1;
		goto out;
	}
	/* Window 0 begins now: the trace's start time. */
	topts.start_us = clock_of(CLOCK_REALTIME) / 1000;
	err = mdk_trace_writer_open(env.out, &topts, &tw, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "mdkctl record: %s\n", msg);
		tw = NULL;
		err = 1;
		goto out;
	}
	next = clock_of(CLOCK_MONOTONIC);
	for (n = 0; !windows || n < windows; n++) {
		next += env.window_ns;
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		while (!exiting && clock_nanosleep(CLOCK_MONOTONIC,
						   TIMER_ABSTIME, &ts, NULL))
			;
		err = mdkd_sampler_next(s, &w, msg, sizeof(msg));
		if (err) {
			fprintf(stderr,
				"mdkctl record: window %" PRIu64 ": %s\n", n,
				msg);
			err = 1;
			break;
		}
		err = mdk_trace_writer_put(tw, w.index, w.pages, w.nr_pages, 0,
					   msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "mdkctl record: %s\n", msg);
			err = 1;
			break;
		}
		records += w.nr_pages;
		if (!env.quiet) {
			printf("window %" PRIu64 ": %zu pages, %u procs, "
			       "swap-ins %" PRIu64 ", refaults %" PRIu64
			       ", promotions %" PRIu64,
			       w.index, w.nr_pages, w.nr_procs, w.swapin_pages,
			       w.file_refault_pages, w.promote_pages);
			if (env.tier_node >= 0)
				printf(", STAR %.3f",
				       w.nr_pages ? (double)w.tier_pages /
							    w.nr_pages :
						    0.0);
			printf("\n");
			fflush(stdout);
		}
		if (exiting) {
			n++;
			break;
		}
	}
	/* Close what was recorded, also after an error: it is a trace. */
	if (mdk_trace_writer_close(tw, msg, sizeof(msg))) {
		fprintf(stderr, "mdkctl record: %s\n", msg);
		err = 1;
	}
	tw = NULL;
	if (!err)
		fprintf(stderr,
			"mdkctl record: %s: %" PRIu64 " windows, %" PRIu64
			" page ids, %u processes\n",
			env.out, n, records, mdkd_sampler_nr_procs(s));
	if (!err && env.procs_file)
		err = write_procs(&env, s);
out:
	if (tw)
		mdk_trace_writer_abort(tw);
	mdkd_sampler_free(s);
	free(env.pids);
	return err < 0 ? 0 : err;
}
