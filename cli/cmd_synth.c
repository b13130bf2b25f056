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

struct synth_opts {
	struct mdk_synth_opts so;
	struct mdk_trace_writer_opts wo;
	const char **gens; /* the --gen SPECs, in order */
	size_t ngens;
	const char *out;
	char desc[1024]; /* the default --desc: the command line */
};

/* Where the records go: a CSV file, or a trace writer. */
struct synth_sink {
	FILE *csv;
	struct mdk_trace_writer *w;
};

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

/* One option into @o; 0, or 2 after a message and the usage. */
static int synth_opt(int opt, const char *arg, struct synth_opts *o)
{
	unsigned long long v;
	char *e;

	switch (opt) {
	case 'n':
		if (mdkctl_parse_count(arg, &v) || !v) {
			fprintf(stderr,
				"mdkctl: --pages '%s': expected a page count (e.g. 65536 or 4M)\n",
				arg);
			return synth_usage();
		}
		o->so.pages = v;
		return 0;
	case 'w':
		if (mdkctl_parse_count(arg, &v) || !v ||
		    v > MDK_TRACE_MAX_WINDOW) {
			fprintf(stderr,
				"mdkctl: --windows '%s': expected a window count (>= 1)\n",
				arg);
			return synth_usage();
		}
		o->so.windows = (uint32_t)v;
		return 0;
	case 's':
		v = strtoull(arg, &e, 0);
		if (*e || e == arg) {
			fprintf(stderr,
				"mdkctl: --seed '%s': expected an integer\n",
				arg);
			return synth_usage();
		}
		o->so.seed = v;
		return 0;
	case 'g':
		o->gens[o->ngens++] = arg;
		return 0;
	case 'W':
		if (mdkctl_parse_seconds(arg, &o->wo.window_us)) {
			fprintf(stderr,
				"mdkctl: --window-seconds '%s': expected seconds\n",
				arg);
			return synth_usage();
		}
		return 0;
	case 'd':
		o->wo.desc = arg;
		return 0;
	}
	return synth_usage();
}

/* The command line, as the trace's description when --desc is not given. */
static void synth_desc(struct synth_opts *o)
{
	size_t dl, i;

	dl = (size_t)snprintf(
		o->desc, sizeof(o->desc),
		"mdkctl synth --pages %llu --windows %u --seed %llu",
		(unsigned long long)o->so.pages, o->so.windows,
		(unsigned long long)o->so.seed);
	for (i = 0; i < o->ngens && dl < sizeof(o->desc); i++)
		dl += (size_t)snprintf(o->desc + dl, sizeof(o->desc) - dl,
				       " --gen %s", o->gens[i]);
	o->wo.desc = o->desc;
}

/* 0; 1 if out of memory; 2 after the usage.  o->gens is the caller's. */
static int parse_synth(int argc, char **argv, struct synth_opts *o)
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
	int opt, ret;

	*o = (struct synth_opts){
		.so = { .pages = 65536, .windows = 240, .seed = 1 },
		.wo = { .window_us = 30000000, .page_size = 4096 },
	};
	optind = 1;
	o->gens = calloc((size_t)argc, sizeof(*o->gens));
	if (!o->gens)
		return 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		ret = synth_opt(opt, optarg, o);
		if (ret)
			return ret;
	}
	if (optind != argc - 1)
		return synth_usage();
	o->out = argv[optind];
	if (!o->wo.desc)
		synth_desc(o);
	return 0;
}

/* The generator with every --gen; 0, or 2 after a message. */
static int synth_new(const struct synth_opts *o, struct mdk_synth **s)
{
	char err[512];
	size_t i;
	int ret;

	ret = mdk_synth_new(&o->so, s, err, sizeof(err));
	for (i = 0; !ret && i < o->ngens; i++)
		ret = mdk_synth_add(*s, o->gens[i], err, sizeof(err));
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 2;
	}
	return 0;
}

/* OUT as CSV (a name ending in .csv) or a trace; 0, or 1 after a message. */
static int sink_open(const struct synth_opts *o, struct synth_sink *k)
{
	size_t len = strlen(o->out);
	char err[512];

	if (len > 4 && !strcasecmp(o->out + len - 4, ".csv")) {
		k->csv = fopen(o->out, "we");
		if (!k->csv) {
			perror(o->out);
			return 1;
		}
		fputs("window,page\n", k->csv);
	} else if (mdk_trace_writer_open(o->out, &o->wo, &k->w, err,
					 sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	return 0;
}

/* Every window of @s to @k; 0, or -1 with the reason in @err. */
static int sink_write(struct mdk_synth *s, struct synth_sink *k,
		      const char *out, uint64_t *records, char *err, size_t len)
{
	const uint64_t *ids;
	uint32_t win;
	size_t i, n;
	int ret;

	while ((ret = mdk_synth_next(s, &win, &ids, &n, err, len)) > 0) {
		*records += n;
		if (k->csv) {
			for (i = 0; i < n; i++)
				fprintf(k->csv, "%u,%" PRIu64 "\n", win,
					ids[i]);
		} else if (mdk_trace_writer_put(k->w, win, ids, n, 0, err,
						len)) {
			return -1;
		}
	}
	if (!ret && k->csv && (fflush(k->csv) || ferror(k->csv))) {
		snprintf(err, len, "%s: write error", out);
		return -1;
	}
	if (!ret && k->w) {
		ret = mdk_trace_writer_close(k->w, err, len);
		k->w = NULL;
	}
	return ret;
}

int mdkctl_cmd_synth(int argc, char **argv)
{
	struct synth_sink k = { 0 };
	struct mdk_synth *s = NULL;
	struct synth_opts o;
	uint64_t records = 0;
	char err[512];
	int rc;

	rc = parse_synth(argc, argv, &o);
	if (rc)
		goto out;
	rc = synth_new(&o, &s);
	if (rc)
		goto out;
	rc = 1;
	if (sink_open(&o, &k))
		goto out;
	if (sink_write(s, &k, o.out, &records, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		if (k.w)
			mdk_trace_writer_abort(k.w);
		k.w = NULL;
		unlink(o.out);
		goto out;
	}
	printf("%s: %u windows, %llu pages, %" PRIu64
	       " records (%.1f%% of page-windows)\n",
	       o.out, o.so.windows, (unsigned long long)o.so.pages, records,
	       100.0 * (double)records / ((double)o.so.pages * o.so.windows));
	rc = 0;
out:
	if (k.csv && fclose(k.csv) && !rc) {
		perror(o.out);
		rc = 1;
	}
	mdk_synth_free(s);
	free(o.gens);
	return rc;
}
