// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl mrc: LRU miss-ratio curve for every size in one pass (Mattson
 * stack distances) and OPT (Belady) for given sizes, over a reference
 * string: an .mdkt trace's page ids in order, or a CSV file whose every
 * window,page row is one reference.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/mrc.h>

#include "mdkctl.h"
#include "report.h"

static int mrc_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl mrc TRACE|CSV [--policy lru,opt] [--sizes K[,K...]|LO-HI[:STEP]]\n"
		"                  [--csv | -j]\n");
	return 2;
}

struct mrc_opts {
	const char *list; /* --policy */
	char *sizes; /* --sizes, as a spec's "k" */
	bool csv, json;
	const char *input;
};

/* 0; 1 if out of memory; 2 after the usage.  o->sizes is the caller's. */
static int parse_mrc(int argc, char **argv, struct mrc_opts *o)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	*o = (struct mrc_opts){ .list = "lru,opt" };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			o->list = optarg;
			break;
		case 'S':
			free(o->sizes);
			o->sizes = strdup(optarg);
			if (!o->sizes)
				return 1;
			/* "100,1000" on a command line is "100/1000" in a spec. */
			for (char *c = o->sizes; *c; c++)
				if (*c == ',')
					*c = '/';
			break;
		case 'c':
			o->csv = true;
			break;
		case 'j':
			o->json = true;
			break;
		default:
			return mrc_usage();
		}
	}
	if (optind != argc - 1)
		return mrc_usage();
	o->input = argv[optind];
	return 0;
}

/* Every policy fixed-size, with --sizes where it has none; 0, or 2. */
static int mrc_policies(const struct mrc_opts *o, struct mdk_policy **pols,
			size_t np)
{
	char err[512];

	for (size_t i = 0; i < np; i++) {
		if (mdk_policy_kind(pols[i]) != MDK_POLICY_CACHE) {
			fprintf(stderr,
				"mdkctl: --policy: %s is not a fixed-size policy (expected lru or opt; see mdkctl mpc)\n",
				mdk_policy_name(pols[i]));
			return 2;
		}
		if (o->sizes && !mdk_policy_has(pols[i], "k") &&
		    mdk_policy_set(pols[i], "k", o->sizes, err, sizeof(err))) {
			fprintf(stderr, "mdkctl: --sizes: %s\n", err);
			return 2;
		}
	}
	return 0;
}

/* The curve as CSV, JSON or text; 0, or 1 if not written. */
static int mrc_report(const struct mrc_opts *o, const struct mdk_mrc_point *pts,
		      size_t n, uint64_t refs, uint64_t pages)
{
	size_t i;

	if (o->csv) {
		puts(MDKCTL_MRC_CSV_HEADER);
		for (i = 0; i < n; i++)
			mdkctl_mrc_csv(stdout, &pts[i]);
	} else if (o->json) {
		struct json_object *j = json_object_new_object(),
				   *a = json_object_new_array_ext((int)n);

		mdkd_json_add_str(j, "input", o->input);
		mdkd_json_add_u64(j, "references", refs);
		mdkd_json_add_u64(j, "pages", pages);
		for (i = 0; i < n; i++)
			mdkd_json_push(a, mdkctl_mrc_json(&pts[i]));
		mdkd_json_add(j, "points", a);
		return mdkd_json_emit(j) ? 1 : 0;
	} else {
		printf("%s: %" PRIu64 " references to %" PRIu64
		       " pages (misses include each page's first reference)\n",
		       o->input, refs, pages);
		printf("%-6s %12s %14s %12s\n", "policy", "size", "misses",
		       "miss ratio");
		for (i = 0; i < n; i++)
			printf("%-6s %12" PRIu64 " %14" PRIu64 " %12.6f\n",
			       pts[i].policy, pts[i].size, pts[i].misses,
			       pts[i].miss_ratio);
	}
	return 0;
}

int mdkctl_cmd_mrc(int argc, char **argv)
{
	struct mdk_policy **pols = NULL;
	struct mdk_mrc_point *pts = NULL;
	uint64_t refs = 0, pages = 0;
	size_t np = 0, n = 0, i;
	struct mrc_opts o;
	char err[512];
	int rc;

	rc = parse_mrc(argc, argv, &o);
	if (rc)
		goto out;
	if (mdk_policy_parse_list(o.list, &pols, &np, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: --policy: %s\n", err);
		rc = 2;
		goto out;
	}
	rc = mrc_policies(&o, pols, np);
	if (rc)
		goto out;
	rc = 1;
	if (mdk_mrc_run(o.input, pols, np, &pts, &n, &refs, &pages, err,
			sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		goto out;
	}
	rc = mrc_report(&o, pts, n, refs, pages);
out:
	free(pts);
	for (i = 0; i < np; i++)
		mdk_policy_free(pols[i]);
	free(pols);
	free(o.sizes);
	return rc;
}
