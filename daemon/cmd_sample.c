// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl sample: run the page Accessed-bit sampler (daemon/sampler.c) on a
 * cgroup or a set of processes and print every window: its page count,
 * processes, promotions and STAR, or the page ids themselves as
 * "window,page" CSV rows.  See mdkctl(8) and Documentation/sampler.rst.
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
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "jsonout.h"
#include "mdkctl.h"
#include "parse.h"
#include "sampler.h"

#define DEFAULT_WINDOW_NS (30ULL * 1000000000ULL)

enum output { OUT_TEXT, OUT_CSV, OUT_JSON };

struct env {
	const char *target;
	char cgroup[PATH_MAX];
	pid_t *pids;
	size_t nr_pids;
	uint64_t window_ns;
	uint64_t count; /* 0: until interrupted */
	int tier_node;
	bool no_flush;
	bool pages;
	bool verbose;
	const char *procs_file;
	enum output out;
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
		"usage: mdkctl sample CGROUP|PID[,PID...] [--window TIME] "
		"[--count N]\n"
		"                     [--tier-node NODE] [--no-flush] [--pages] "
		"[--procs FILE]\n"
		"                     [-j | --csv] [-v]\n"
		"\n"
		"Sample the pages a cgroup's processes (or the given processes) "
		"access,\n"
		"window by window, with BPF.\n"
		"\n"
		"  -w, --window TIME     window length: N[ms|s|m|h] "
		"(default 30s)\n"
		"  -n, --count N         windows to sample (default: until "
		"interrupted)\n"
		"  -t, --tier-node NODE  NUMA node of the tier (the CMM-MP "
		"node) for STAR\n"
		"                        and promotions\n"
		"      --no-flush        do not flush the TLB at window starts "
		"(no extra\n"
		"                        write faults; misses some accesses)\n"
		"      --pages           also print the page ids (with --csv: "
		"window,page\n"
		"                        rows instead of the summary)\n"
		"      --procs FILE      write the process numbers of the ids "
		"to FILE (CSV)\n"
		"      --csv             one CSV row per window\n"
		"  -j, --json            one JSON object per window\n"
		"  -v, --verbose         libbpf's messages\n"
		"\n"
		"CGROUP is a cgroup v2 directory (absolute, or relative to "
		"/sys/fs/cgroup).\n"
		"\n"
		"examples:\n"
		"  mdkctl sample /sys/fs/cgroup/workload --window 30s --count "
		"10\n"
		"  mdkctl sample 1234,1240 --window 2s --count 5 --csv\n"
		"  mdkctl sample workload --window 5s --count 3 --pages "
		">trace.csv\n");
}

static int parse_args(struct env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "window", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "tier-node", required_argument, NULL, 't' },
		{ "no-flush", no_argument, NULL, 'F' },
		{ "pages", no_argument, NULL, 'P' },
		{ "procs", required_argument, NULL, 'p' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:n:t:jvh", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (mdkd_parse_window(optarg, &env->window_ns)) {
				fprintf(stderr,
					"mdkctl sample: --window '%s': "
					"expected N[ms|s|m|h] between 1ms "
					"and 24h\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (mdkd_parse_u64(optarg, 10, 0, UINT64_MAX,
					   &env->count)) {
				fprintf(stderr,
					"mdkctl sample: --count '%s': "
					"expected a number of windows\n",
					optarg);
				return 2;
			}
			break;
		case 't':
			if (mdkd_parse_u64(optarg, 10, 0, 65535, &v)) {
				fprintf(stderr,
					"mdkctl sample: --tier-node '%s': "
					"expected a NUMA node number\n",
					optarg);
				return 2;
			}
			env->tier_node = v;
			break;
		case 'F':
			env->no_flush = true;
			break;
		case 'P':
			env->pages = true;
			break;
		case 'p':
			env->procs_file = optarg;
			break;
		case 'c':
			env->out = OUT_CSV;
			break;
		case 'j':
			env->out = OUT_JSON;
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
		fprintf(stderr, "mdkctl sample: %s\n",
			optind >= argc ? "missing CGROUP or PID" :
					 "one target only (PIDs: 1,2,3)");
		usage(stderr);
		return 2;
	}
	env->target = argv[optind];
	switch (mdkd_sampler_parse_target(env->target, env->cgroup,
					  sizeof(env->cgroup), &env->pids,
					  &env->nr_pids)) {
	case 0:
		break;
	case -ENOENT:
		fprintf(stderr,
			"mdkctl sample: %s: no such cgroup directory (%s)\n",
			env->target, env->cgroup);
		return 1;
	default:
		fprintf(stderr,
			"mdkctl sample: '%s': expected a cgroup or PIDs "
			"separated by commas\n",
			env->target);
		return 2;
	}
	return 0;
}

static void print_header(const struct env *env)
{
	if (env->out != OUT_CSV)
		return;
	if (env->pages)
		printf("window,page\n");
	else
		printf("window,start_s,end_s,pages,procs,joined,stale,left,"
		       "swapin_pages,file_refault_pages,promote_pages,"
		       "tier_pages,star,cpu_ms,walk_ms,clear_ms,pte_tables\n");
}

static void print_window(const struct env *env,
			 const struct mdkd_sampler_window *w, uint64_t t0)
{
	double star = w->nr_pages ? (double)w->tier_pages / w->nr_pages : 0;
	double start = (w->start_ns - t0) / 1e9, end = (w->end_ns - t0) / 1e9;
	size_t i;

	if (env->pages && env->out == OUT_CSV) {
		for (i = 0; i < w->nr_pages; i++)
			printf("%" PRIu64 ",%" PRIu64 "\n", w->index,
			       w->pages[i]);
		return;
	}
	switch (env->out) {
	case OUT_CSV:
		printf("%" PRIu64 ",%.3f,%.3f,%zu,%u,%u,%u,%u,%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%.6f,%.3f,%.3f,%.3f,"
		       "%" PRIu64 "\n",
		       w->index, start, end, w->nr_pages, w->nr_procs,
		       w->nr_joined, w->nr_stale, w->nr_left, w->swapin_pages,
		       w->file_refault_pages, w->promote_pages, w->tier_pages,
		       star, w->cpu_ns / 1e6, w->walk_ns / 1e6,
		       w->clear_ns / 1e6, w->ptes_tables);
		break;
	case OUT_JSON: {
		struct json_object *o = json_object_new_object();

		mdkd_json_add_u64(o, "window", w->index);
		mdkd_json_add_fixed(o, "start_s", start, 3);
		mdkd_json_add_fixed(o, "end_s", end, 3);
		mdkd_json_add_u64(o, "pages", w->nr_pages);
		mdkd_json_add_u64(o, "procs", w->nr_procs);
		mdkd_json_add_u64(o, "joined", w->nr_joined);
		mdkd_json_add_u64(o, "stale", w->nr_stale);
		mdkd_json_add_u64(o, "left", w->nr_left);
		mdkd_json_add_u64(o, "swapin_pages", w->swapin_pages);
		mdkd_json_add_u64(o, "file_refault_pages",
				  w->file_refault_pages);
		mdkd_json_add_u64(o, "promote_pages", w->promote_pages);
		mdkd_json_add_u64(o, "tier_pages", w->tier_pages);
		mdkd_json_add_fixed(o, "star", star, 6);
		mdkd_json_add_fixed(o, "cpu_ms", w->cpu_ns / 1e6, 3);
		mdkd_json_add_fixed(o, "walk_ms", w->walk_ns / 1e6, 3);
		mdkd_json_add_fixed(o, "clear_ms", w->clear_ns / 1e6, 3);
		mdkd_json_add_u64(o, "pte_tables", w->ptes_tables);
		if (env->pages) {
			struct json_object *ids =
				json_object_new_array_ext((int)w->nr_pages);

			for (i = 0; i < w->nr_pages; i++)
				mdkd_json_push(ids, json_object_new_uint64(
							    w->pages[i]));
			mdkd_json_add(o, "ids", ids);
		}
		mdkd_json_emit(o);
		break;
	}
	default:
		printf("window %" PRIu64 " %8.2fs  %zu pages (%.1f MiB), "
		       "%u procs (+%u -%u, %u stale)  swap-ins %" PRIu64
		       "  refaults %" PRIu64 "  promotions %" PRIu64,
		       w->index, end, w->nr_pages, w->nr_pages / 256.0,
		       w->nr_procs, w->nr_joined, w->nr_left, w->nr_stale,
		       w->swapin_pages, w->file_refault_pages,
		       w->promote_pages);
		if (env->tier_node >= 0)
			printf("  STAR %.3f", star);
		printf("  cpu %.1f ms\n", w->cpu_ns / 1e6);
		if (env->pages)
			for (i = 0; i < w->nr_pages; i++)
				printf("  %#" PRIx64 "\n", w->pages[i]);
		break;
	}
	fflush(stdout);
}

static int write_procs(const struct env *env, const struct mdkd_sampler *s)
{
	int err = mdkd_sampler_write_procs(s, env->procs_file);

	if (err)
		fprintf(stderr, "mdkctl sample: %s: %s\n", env->procs_file,
			strerror(-err));
	return err ? 1 : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int cmd_sample(int argc, char **argv)
{
	struct env env = { .window_ns = DEFAULT_WINDOW_NS, .tier_node = -1 };
	struct mdkd_sampler_opts opts = { 0 };
	struct mdkd_sampler_window w;
	struct sigaction sa = { .sa_handler = on_signal };
	struct mdkd_sampler *s = NULL;
	uint64_t next, n, t0;
	struct timespec ts;
	char msg[512];
	int err;

	err = parse_args(&env, argc, argv);
	if (err)
		goto out;
	libbpf_set_print(env.verbose ? libbpf_print : libbpf_quiet);
	opts.cgroup = env.cgroup[0] ? env.cgroup : NULL;
	opts.pids = env.pids;
	opts.nr_pids = env.nr_pids;
	opts.tier_node = env.tier_node;
	opts.flags = env.no_flush ? MDKD_SAMPLER_NO_FLUSH : 0;
	s = mdkd_sampler_new(&opts, msg, sizeof(msg));
	if (!s) {
		fprintf(stderr, "mdkctl sample: %s\n", msg);
		err = 1;
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	print_header(&env);
	err = mdkd_sampler_start(s, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "mdkctl sample: %s\n", msg);
		err = 1;
		goto out;
	}
	t0 = 0;
	next = mono_ns();
	for (n = 0; !env.count || n < env.count; n++) {
		/* Windows end on a fixed grid; a signal ends the current
		 * one early and stops. */
		next += env.window_ns;
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		while (!exiting && clock_nanosleep(CLOCK_MONOTONIC,
						   TIMER_ABSTIME, &ts, NULL))
			;
		err = mdkd_sampler_next(s, &w, msg, sizeof(msg));
		if (err) {
			fprintf(stderr,
				"mdkctl sample: window %" PRIu64 ": %s\n", n,
				msg);
			err = 1;
			break;
		}
		if (!t0)
			t0 = w.start_ns;
		print_window(&env, &w, t0);
		if (exiting)
			break;
	}
	if (!err && env.procs_file)
		err = write_procs(&env, s);
out:
	mdkd_sampler_free(s);
	free(env.pids);
	return err < 0 ? 0 : err;
}
