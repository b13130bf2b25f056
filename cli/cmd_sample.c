// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl sample: run the page Accessed-bit sampler (bpf/loader.h) on a
 * cgroup or a set of processes and print every window: its page count,
 * processes, promotions and STAR, or the page ids themselves as
 * "window,page" CSV rows.  See mdkctl(8) and Documentation/sampler.rst.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "daemon/jsonout.h"
#include "daemon/window_json.h"
#include "mdkctl.h"
#include "parse.h"
#include "sampler_cli.h"

enum output { OUT_TEXT, OUT_CSV, OUT_JSON };

struct sample_opts {
	struct mdkctl_sampler cli;
	uint64_t count; /* 0: until interrupted */
	bool pages;
	enum output out;
};

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

static int parse_sample(int argc, char **argv, struct sample_opts *env)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "pages", no_argument, NULL, 'P' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		MDKCTL_SAMPLER_LONG_OPTIONS,
		{ 0 },
	};
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:n:t:jvh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (mdkctl_parse_u64(optarg, 10, 0, UINT64_MAX,
					     &env->count)) {
				fprintf(stderr,
					"mdkctl sample: --count '%s': "
					"expected a number of windows\n",
					optarg);
				return 2;
			}
			break;
		case 'P':
			env->pages = true;
			break;
		case 'c':
			env->out = OUT_CSV;
			break;
		case 'j':
			env->out = OUT_JSON;
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
	return mdkctl_sampler_target(&env->cli);
}

static void print_header(const struct sample_opts *env)
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

static void print_window(const struct sample_opts *env,
			 const struct mdk_sampler_window *w, uint64_t t0)
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
		struct json_object *o = mdkd_window_json(w);

		mdkd_json_add_fixed(o, "start_s", start, 3);
		mdkd_json_add_fixed(o, "end_s", end, 3);
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
		if (env->cli.tier_node >= 0)
			printf("  STAR %.3f", star);
		printf("  cpu %.1f ms\n", w->cpu_ns / 1e6);
		if (env->pages)
			for (i = 0; i < w->nr_pages; i++)
				printf("  %#" PRIx64 "\n", w->pages[i]);
		break;
	}
	fflush(stdout);
}

int mdkctl_cmd_sample(int argc, char **argv)
{
	struct sample_opts env = { .cli = MDKCTL_SAMPLER_INIT("mdkctl sample",
							      usage) };
	struct mdk_sampler_window w;
	uint64_t n, t0;
	int err;

	err = parse_sample(argc, argv, &env);
	if (err)
		goto out;
	err = mdkctl_sampler_open(&env.cli);
	if (err)
		goto out;
	print_header(&env);
	err = mdkctl_sampler_start(&env.cli);
	if (err)
		goto out;
	t0 = 0;
	for (n = 0; !env.count || n < env.count; n++) {
		err = mdkctl_sampler_next(&env.cli, n, &w);
		if (err)
			break;
		if (!t0)
			t0 = w.start_ns;
		print_window(&env, &w, t0);
		if (mdkctl_sampler_stopped())
			break;
	}
	if (!err)
		err = mdkctl_sampler_write_procs(&env.cli);
out:
	mdkctl_sampler_free(&env.cli);
	return err == MDKCTL_DONE ? 0 : err;
}
