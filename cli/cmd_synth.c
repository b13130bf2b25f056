// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl synth: write a seeded synthetic access-bit trace (Zipf, periodic,
 * scan and phase-change generators, see mdk/synth.h) as .mdkt or, for an
 * output ending in .csv, as window,page rows.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <mdk/synth.h>
#include <mdk/trace.h>

#include "mdkctl.h"
#include "parse.h"
#include "report.h"

static int synth_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl synth OUT [--pages N] [--windows W] [--seed S] [--gen SPEC]...\n"
		"                    [--window-seconds S] [--desc TEXT]\n"
		"SPEC: zipf[:s=0.8,frac=0.3] periodic[:period=8,skip=0.1] scan[:rate=N]\n"
		"      phase[:len=L,frac=0.25,p=0.7,idle=0.01], each with share=F.\n"
		"OUT ending in .csv gets window,page rows instead of a trace.\n");
	return 2;
}

int mdkctl_cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pages", required_argument, NULL, 'n' },
		{ "windows", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "gen", required_argument, NULL, 'g' },
		{ "window-seconds", required_argument, NULL, 'W' },
		{ "desc", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mdk_synth_opts so = { .pages = 65536,
				     .windows = 240,
				     .seed = 1 };
	struct mdk_trace_writer_opts wo = { .window_us = 30000000,
					    .page_size = 4096 };
	char err[512], desc[1024], *e;
	const char **gens = NULL;
	struct mdk_trace_writer *w = NULL;
	struct mdk_synth *s = NULL;
	unsigned long long v;
	uint64_t records = 0;
	const uint64_t *ids;
	size_t ngens = 0, i, n, dl;
	const char *out;
	FILE *csv = NULL;
	uint32_t win;
	int opt, ret, rc = 1;

	optind = 1;
	gens = calloc((size_t)argc, sizeof(*gens));
	if (!gens)
		return 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (mdkctl_parse_count(optarg, &v) || !v) {
				fprintf(stderr,
					"mdkctl: --pages '%s': expected a page count (e.g. 65536 or 4M)\n",
					optarg);
				goto usage;
			}
			so.pages = v;
			break;
		case 'w':
			if (mdkctl_parse_count(optarg, &v) || !v ||
			    v > MDK_TRACE_MAX_WINDOW) {
				fprintf(stderr,
					"mdkctl: --windows '%s': expected a window count (>= 1)\n",
					optarg);
				goto usage;
			}
			so.windows = (uint32_t)v;
			break;
		case 's':
			v = strtoull(optarg, &e, 0);
			if (*e || e == optarg) {
				fprintf(stderr,
					"mdkctl: --seed '%s': expected an integer\n",
					optarg);
				goto usage;
			}
			so.seed = v;
			break;
		case 'g':
			gens[ngens++] = optarg;
			break;
		case 'W':
			if (mdkctl_parse_seconds(optarg, &wo.window_us)) {
				fprintf(stderr,
					"mdkctl: --window-seconds '%s': expected seconds\n",
					optarg);
				goto usage;
			}
			break;
		case 'd':
			wo.desc = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	out = argv[optind];
	if (!wo.desc) {
		dl = (size_t)snprintf(
			desc, sizeof(desc),
			"mdkctl synth --pages %llu --windows %u --seed %llu",
			(unsigned long long)so.pages, so.windows,
			(unsigned long long)so.seed);
		for (i = 0; i < ngens && dl < sizeof(desc); i++)
			dl += (size_t)snprintf(desc + dl, sizeof(desc) - dl,
					       " --gen %s", gens[i]);
		wo.desc = desc;
	}
	ret = mdk_synth_new(&so, &s, err, sizeof(err));
	for (i = 0; !ret && i < ngens; i++)
		ret = mdk_synth_add(s, gens[i], err, sizeof(err));
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		rc = 2;
		goto out;
	}
	if (strlen(out) > 4 && !strcasecmp(out + strlen(out) - 4, ".csv")) {
		csv = fopen(out, "we");
		if (!csv) {
			perror(out);
			goto out;
		}
		fputs("window,page\n", csv);
	} else if (mdk_trace_writer_open(out, &wo, &w, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		goto out;
	}
	while ((ret = mdk_synth_next(s, &win, &ids, &n, err, sizeof(err))) >
	       0) {
		records += n;
		if (csv) {
			for (i = 0; i < n; i++)
				fprintf(csv, "%u,%" PRIu64 "\n", win, ids[i]);
		} else if (mdk_trace_writer_put(w, win, ids, n, 0, err,
						sizeof(err))) {
			ret = -1;
			break;
		}
	}
	if (!ret && csv && (fflush(csv) || ferror(csv))) {
		snprintf(err, sizeof(err), "%s: write error", out);
		ret = -1;
	}
	if (!ret && w) {
		ret = mdk_trace_writer_close(w, err, sizeof(err));
		w = NULL;
	}
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		if (w)
			mdk_trace_writer_abort(w);
		w = NULL;
		unlink(out);
		goto out;
	}
	printf("%s: %u windows, %llu pages, %" PRIu64
	       " records (%.1f%% of page-windows)\n",
	       out, so.windows, (unsigned long long)so.pages, records,
	       100.0 * (double)records / ((double)so.pages * so.windows));
	rc = 0;
out:
	if (csv && fclose(csv) && !rc) {
		perror(out);
		rc = 1;
	}
	mdk_synth_free(s);
	free(gens);
	return rc;
usage:
	free(gens);
	return synth_usage();
}
