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

int mdkctl_cmd_mrc(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *list = "lru,opt";
	char *sizes = NULL, err[512];
	struct mdk_policy **pols = NULL;
	struct mdk_mrc_point *pts = NULL;
	uint64_t refs = 0, pages = 0;
	bool csv = false, json = false;
	size_t np = 0, n = 0, i;
	int opt, rc = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			list = optarg;
			break;
		case 'S':
			free(sizes);
			sizes = strdup(optarg);
			if (!sizes)
				return 1;
			/* "100,1000" on a command line is "100/1000" in a spec. */
			for (char *c = sizes; *c; c++)
				if (*c == ',')
					*c = '/';
			break;
		case 'c':
			csv = true;
			break;
		case 'j':
			json = true;
			break;
		default:
			free(sizes);
			return mrc_usage();
		}
	}
	if (optind != argc - 1) {
		free(sizes);
		return mrc_usage();
	}
	if (mdk_policy_parse_list(list, &pols, &np, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: --policy: %s\n", err);
		free(sizes);
		return 2;
	}
	for (i = 0; i < np; i++) {
		if (mdk_policy_kind(pols[i]) != MDK_POLICY_CACHE) {
			fprintf(stderr,
				"mdkctl: --policy: %s is not a fixed-size policy (expected lru or opt; see mdkctl mpc)\n",
				mdk_policy_name(pols[i]));
			rc = 2;
			goto out;
		}
		if (sizes && !mdk_policy_has(pols[i], "k") &&
		    mdk_policy_set(pols[i], "k", sizes, err, sizeof(err))) {
			fprintf(stderr, "mdkctl: --sizes: %s\n", err);
			rc = 2;
			goto out;
		}
	}
	if (mdk_mrc_run(argv[optind], pols, np, &pts, &n, &refs, &pages, err,
			sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		goto out;
	}
	if (csv) {
		puts(MDKCTL_MRC_CSV_HEADER);
		for (i = 0; i < n; i++)
			mdkctl_mrc_csv(stdout, &pts[i]);
	} else if (json) {
		struct json_object *o = json_object_new_object(),
				   *a = json_object_new_array_ext((int)n);

		mdkd_json_add_str(o, "input", argv[optind]);
		mdkd_json_add_u64(o, "references", refs);
		mdkd_json_add_u64(o, "pages", pages);
		for (i = 0; i < n; i++)
			mdkd_json_push(a, mdkctl_mrc_json(&pts[i]));
		mdkd_json_add(o, "points", a);
		if (mdkd_json_emit(o))
			goto out;
	} else {
		printf("%s: %" PRIu64 " references to %" PRIu64
		       " pages (misses include each page's first reference)\n",
		       argv[optind], refs, pages);
		printf("%-6s %12s %14s %12s\n", "policy", "size", "misses",
		       "miss ratio");
		for (i = 0; i < n; i++)
			printf("%-6s %12" PRIu64 " %14" PRIu64 " %12.6f\n",
			       pts[i].policy, pts[i].size, pts[i].misses,
			       pts[i].miss_ratio);
	}
	rc = 0;
out:
	free(pts);
	for (i = 0; i < np; i++)
		mdk_policy_free(pols[i]);
	free(pols);
	free(sizes);
	return rc;
}
