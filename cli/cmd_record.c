// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl record: run the page Accessed-bit sampler (bpf/loader.h) on a
 * cgroup or a set of processes and write what it sees, window by window,
 * as a libmdk access-bit trace (.mdkt, Documentation/trace-format.rst)
 * that mdkctl mpc, simulate and trace read.  See mdkctl(8) and
 * Documentation/sampler.rst.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include <mdk/trace.h>

#include "mdkctl.h"
#include "parse.h"
#include "sampler_cli.h"

#define MAX_DURATION_NS (366ULL * 86400 * 1000000000ULL)

struct record_opts {
	struct mdkctl_sampler cli;
	uint64_t duration_ns; /* 0: until interrupted */
	const char *out;
	const char *desc;
	bool quiet;
};

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

static int parse_record(int argc, char **argv, struct record_opts *env)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "desc", required_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		MDKCTL_SAMPLER_LONG_OPTIONS,
		{ 0 },
	};
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:w:d:t:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			env->out = optarg;
			break;
		case 'd':
			if (mdkctl_parse_time(optarg, MAX_DURATION_NS,
					      &env->duration_ns)) {
				fprintf(stderr,
					"mdkctl record: --duration '%s': "
					"expected N[ms|s|m|h|d] between 1ms "
					"and 366d\n",
					optarg);
				return 2;
			}
			break;
		case 'D':
			env->desc = optarg;
			break;
		case 'q':
			env->quiet = true;
			break;
		default:
			err = mdkctl_sampler_option(&env->cli, c, optarg);
			if (err)
				return err;
			break;
		}
	}
	err = mdkctl_sampler_args(&env->cli, argc, argv);
	if (err)
		return err;
	if (!env->out) {
		fprintf(stderr, "mdkctl record: -o TRACE.mdkt is required\n");
		return 2;
	}
	if (env->duration_ns && env->duration_ns < env->cli.window_ns) {
		fprintf(stderr, "mdkctl record: --duration is shorter than one "
				"window\n");
		return 2;
	}
	if (env->duration_ns / env->cli.window_ns > MDK_TRACE_MAX_WINDOW) {
		fprintf(stderr, "mdkctl record: more than %u windows\n",
			MDK_TRACE_MAX_WINDOW);
		return 2;
	}
	return mdkctl_sampler_target(&env->cli);
}

static void default_desc(const struct record_opts *env, char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(buf, len,
		 "mdkctl record %s on %s (Linux %s): page id = process << %d "
		 "| virtual address >> 12, process numbers in order of first "
		 "sight (mdkctl record --procs)",
		 env->cli.cgroup[0] ? env->cli.cgroup : env->cli.target,
		 u.nodename, u.release, MDK_SAMPLER_PAGE_VPN_BITS);
}

/* The line of window @w, unless --quiet. */
static void print_window(const struct record_opts *env,
			 const struct mdk_sampler_window *w)
{
	if (env->quiet)
		return;
	printf("window %" PRIu64 ": %zu pages, %u procs, "
	       "swap-ins %" PRIu64 ", refaults %" PRIu64
	       ", promotions %" PRIu64,
	       w->index, w->nr_pages, w->nr_procs, w->swapin_pages,
	       w->file_refault_pages, w->promote_pages);
	if (env->cli.tier_node >= 0)
		printf(", STAR %.3f",
		       w->nr_pages ? (double)w->tier_pages / w->nr_pages : 0.0);
	printf("\n");
	fflush(stdout);
}

/*
 * Every window into @tw until the duration or a signal; the windows and
 * page ids recorded into *@n and *@records.  0, or 1 after a message.
 */
static int record_windows(struct record_opts *env, struct mdk_trace_writer *tw,
			  uint64_t *n, uint64_t *records)
{
	uint64_t windows =
		env->duration_ns ? env->duration_ns / env->cli.window_ns : 0;
	struct mdk_sampler_window w;
	char msg[512];
	int err = 0;

	for (*n = 0; !windows || *n < windows; ++*n) {
		err = mdkctl_sampler_next(&env->cli, *n, &w);
		if (err)
			break;
		err = mdk_trace_writer_put(tw, w.index, w.pages, w.nr_pages, 0,
					   msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "mdkctl record: %s\n", msg);
			err = 1;
			break;
		}
		*records += w.nr_pages;
		print_window(env, &w);
		if (mdkctl_sampler_stopped()) {
			++*n;
			break;
		}
	}
	return err;
}

int mdkctl_cmd_record(int argc, char **argv)
{
	struct record_opts env = { .cli = MDKCTL_SAMPLER_INIT("mdkctl record",
							      usage) };
	struct mdk_trace_writer_opts topts = { .page_size = 4096 };
	struct mdk_trace_writer *tw = NULL;
	uint64_t n = 0, records = 0;
	char msg[512], desc[1024];
	int err;

	err = parse_record(argc, argv, &env);
	if (err)
		goto out;
	err = mdkctl_sampler_open(&env.cli);
	if (err)
		goto out;
	if (!env.desc)
		default_desc(&env, desc, sizeof(desc));
	topts.desc = env.desc ? env.desc : desc;
	topts.window_us = env.cli.window_ns / 1000;
	err = mdkctl_sampler_start(&env.cli);
	if (err)
		goto out;
	/* Window 0 begins now: the trace's start time. */
	topts.start_us = mdkctl_sampler_clock_ns(CLOCK_REALTIME) / 1000;
	err = mdk_trace_writer_open(env.out, &topts, &tw, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "mdkctl record: %s\n", msg);
		tw = NULL;
		err = 1;
		goto out;
	}
	err = record_windows(&env, tw, &n, &records);
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
			env.out, n, records, mdk_sampler_nr_procs(env.cli.s));
	if (!err)
		err = mdkctl_sampler_write_procs(&env.cli);
out:
	if (tw)
		mdk_trace_writer_abort(tw);
	mdkctl_sampler_free(&env.cli);
	return err == MDKCTL_DONE ? 0 : err;
}
