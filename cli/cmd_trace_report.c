// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl trace report: what a trace says about its pages (mdk/report.h,
 * definitions in Documentation/mdk.rst): per window accessed pages,
 * footprint and pages idle >= 1, 2, 4, ... windows; reuse distances;
 * popularity; and, with --plot, an access heatmap.  Text, -j, or one
 * table as CSV (--csv TABLE).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/report.h>
#include <mdk/trace.h>

#include "daemon/jsonout.h"
#include "gnuplot.h"
#include "mdkctl.h"
#include "parse.h"
#include "report.h"
#include "trace_plot.h"

static int report_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl trace report TRACE [-j | --csv TABLE] [--plot FILE.png|FILE.svg]\n"
		"                           [--ranges N] [--columns N] [--partial]\n"
		"       TABLE: summary, windows, reuse, popularity, top or heatmap\n");
	return 2;
}

enum csv_table {
	CSV_NONE,
	CSV_SUMMARY,
	CSV_WINDOWS,
	CSV_REUSE,
	CSV_POPULARITY,
	CSV_TOP,
	CSV_HEATMAP,
};

static const char *const csv_names[] = {
	[CSV_SUMMARY] = "summary", [CSV_WINDOWS] = "windows",
	[CSV_REUSE] = "reuse",	   [CSV_POPULARITY] = "popularity",
	[CSV_TOP] = "top",	   [CSV_HEATMAP] = "heatmap",
};

struct report_opts {
	struct mdk_report_opts ro;
	enum csv_table csv;
	bool json;
	const char *plot, *trace;
};

/* --ranges and --columns: 1 to MDK_REPORT_HEAT_MAX; 0, or 2. */
static int parse_side(const char *opt, const char *s, uint32_t *out)
{
	uint64_t v;

	if (mdkctl_parse_u64(s, 10, 1, MDK_REPORT_HEAT_MAX, &v)) {
		fprintf(stderr, "mdkctl: --%s '%s': expected 1 to %u\n", opt, s,
			MDK_REPORT_HEAT_MAX);
		return 2;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_csv(const char *s, enum csv_table *t)
{
	size_t i;

	for (i = 1; i < sizeof(csv_names) / sizeof(csv_names[0]); i++)
		if (!strcmp(s, csv_names[i])) {
			*t = (enum csv_table)i;
			return 0;
		}
	fprintf(stderr,
		"mdkctl: --csv '%s': expected summary, windows, reuse, popularity, top or heatmap\n",
		s);
	return 2;
}

static int parse_report(int argc, char **argv, struct report_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'c' },
		{ "plot", required_argument, NULL, 'P' },
		{ "ranges", required_argument, NULL, 'r' },
		{ "columns", required_argument, NULL, 'C' },
		{ "partial", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt, ret = 0;

	*o = (struct report_opts){ 0 };
	optind = 1;
	while (!ret &&
	       (opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			o->json = true;
			break;
		case 'c':
			ret = parse_csv(optarg, &o->csv);
			break;
		case 'P':
			o->plot = optarg;
			break;
		case 'r':
			ret = parse_side("ranges", optarg, &o->ro.heat_ranges);
			break;
		case 'C':
			ret = parse_side("columns", optarg,
					 &o->ro.heat_columns);
			break;
		case 'p':
			o->ro.flags |= MDK_TRACE_PARTIAL;
			break;
		case 'h':
			report_usage();
			return MDKCTL_DONE;
		default:
			return report_usage();
		}
	}
	if (ret)
		return ret;
	if (o->json && o->csv) {
		fprintf(stderr, "mdkctl: -j and --csv: expected one of them\n");
		return 2;
	}
	if (optind != argc - 1)
		return report_usage();
	o->trace = argv[optind];
	return 0;
}

/* "2-3" for reuse bucket @k (distances 2^k to 2^(k+1) - 1). */
static void bucket_name(uint32_t k, char *buf, size_t len)
{
	if (k)
		snprintf(buf, len, "%u-%u", 1u << k,
			 (uint32_t)((2ull << k) - 1));
	else
		snprintf(buf, len, "1");
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void text_windows(const struct mdk_report *r)
{
	uint32_t w, k;
	char h[32];

	printf("\n  window  accessed footprint");
	for (k = 0; k < r->buckets; k++) {
		snprintf(h, sizeof(h), "idle>=%u", 1u << k);
		printf(" %9s", h);
	}
	putchar('\n');
	for (w = 0; w < r->windows; w++) {
		printf("%8u %9" PRIu64 " %9" PRIu64, w, r->accessed[w],
		       r->footprint[w]);
		for (k = 0; k < r->buckets; k++)
			printf(" %9" PRIu64,
			       r->idle[(size_t)w * r->buckets + k]);
		putchar('\n');
	}
}

static void text_reuse(const struct mdk_report *r)
{
	char b[32], p[16];
	uint32_t k;

	printf("\nreuse distance (windows)      reuses\n");
	for (k = 0; k < r->buckets; k++) {
		bucket_name(k, b, sizeof(b));
		printf("  %-24s %9" PRIu64 "  %s\n", b, r->reuse[k],
		       mdkctl_pct(share(r->reuse[k], r->reuses), p, sizeof(p)));
	}
	printf("  %-24s %9" PRIu64 "\n", "all", r->reuses);
	printf("  %-24s %9" PRIu64 "  %s of pages\n", "never (pages)",
	       r->never_reused,
	       mdkctl_pct(share(r->never_reused, r->pages), p, sizeof(p)));
}

static void text_popularity(const struct mdk_report *r)
{
	char a[16], b[16];
	int i;

	printf("\npopularity (windows accessed per page)\n"
	       "  min %u  p25 %u  p50 %u  p75 %u  p90 %u  p99 %u  max %u  mean %.2f\n",
	       r->per_page_min, r->per_page_p25, r->per_page_p50,
	       r->per_page_p75, r->per_page_p90, r->per_page_p99,
	       r->per_page_max, r->per_page_mean);
	printf("  accessed in every window: %" PRIu64 " pages (%s)\n",
	       r->windows ? r->pages_by_windows[r->windows] : 0,
	       mdkctl_pct(share(r->windows ? r->pages_by_windows[r->windows] :
					     0,
				r->pages),
			  a, sizeof(a)));
	printf("  share  pages holding that share of accesses  accesses of that share of pages\n");
	for (i = 0; i < MDK_REPORT_TOPS; i++) {
		const struct mdk_report_top *t = &r->top[i];
		char pa[24], pb[24];

		snprintf(pa, sizeof(pa), "(%s)",
			 mdkctl_pct(share(t->pages, r->pages), a, sizeof(a)));
		snprintf(pb, sizeof(pb), "(%s)",
			 mdkctl_pct(share(t->accesses, r->accesses), b,
				    sizeof(b)));
		printf("  %4g%%  %9" PRIu64 " %-32s %9" PRIu64 " %s\n",
		       t->share_ppm / 1e4, t->pages, pa, t->accesses, pb);
	}
}

static void report_text(const char *trace, const struct mdk_report *r)
{
	printf("trace        %s\n", trace);
	if (r->window_us)
		printf("windows      %u of %g s\n", r->windows,
		       r->window_us / 1e6);
	else
		printf("windows      %u\n", r->windows);
	printf("pages        %" PRIu64 " distinct, %" PRIu64
	       " accesses (page-windows)\n",
	       r->pages, r->accesses);
	printf("heatmap      %u page ranges x %u window columns (--plot, -j, --csv heatmap)\n",
	       r->heat_rows, r->heat_cols);
	text_windows(r);
	text_reuse(r);
	text_popularity(r);
}

static struct json_object *json_windows(const struct mdk_report *r)
{
	struct json_object *a = json_object_new_array_ext((int)r->windows);
	uint32_t w, k;

	for (w = 0; w < r->windows; w++) {
		struct json_object *o = json_object_new_object(),
				   *idle = json_object_new_array_ext(
					   (int)r->buckets);

		mdkd_json_add_u64(o, "window", w);
		mdkd_json_add_u64(o, "accessed", r->accessed[w]);
		mdkd_json_add_u64(o, "footprint", r->footprint[w]);
		for (k = 0; k < r->buckets; k++)
			mdkd_json_push(
				idle,
				json_object_new_uint64(
					r->idle[(size_t)w * r->buckets + k]));
		mdkd_json_add(o, "idle", idle);
		mdkd_json_push(a, o);
	}
	return a;
}

static struct json_object *json_reuse(const struct mdk_report *r)
{
	struct json_object *a = json_object_new_array();
	uint32_t k;

	for (k = 0; k < r->buckets; k++) {
		struct json_object *o = json_object_new_object();

		mdkd_json_add_u64(o, "min_windows", 1ull << k);
		mdkd_json_add_u64(o, "max_windows", (2ull << k) - 1);
		mdkd_json_add_u64(o, "reuses", r->reuse[k]);
		mdkd_json_push(a, o);
	}
	return a;
}

static struct json_object *json_popularity(const struct mdk_report *r)
{
	struct json_object *o = json_object_new_object(),
			   *top = json_object_new_array(),
			   *hist = json_object_new_array();
	uint32_t c;
	int i;

	mdkd_json_add_u64(o, "min", r->per_page_min);
	mdkd_json_add_u64(o, "p25", r->per_page_p25);
	mdkd_json_add_u64(o, "p50", r->per_page_p50);
	mdkd_json_add_u64(o, "p75", r->per_page_p75);
	mdkd_json_add_u64(o, "p90", r->per_page_p90);
	mdkd_json_add_u64(o, "p99", r->per_page_p99);
	mdkd_json_add_u64(o, "max", r->per_page_max);
	mdkd_json_add_double(o, "mean", r->per_page_mean);
	mdkd_json_add_u64(o, "every_window_pages",
			  r->windows ? r->pages_by_windows[r->windows] : 0);
	for (i = 0; i < MDK_REPORT_TOPS; i++) {
		struct json_object *t = json_object_new_object();

		mdkd_json_add_double(t, "share", r->top[i].share_ppm / 1e6);
		mdkd_json_add_u64(t, "pages", r->top[i].pages);
		mdkd_json_add_u64(t, "accesses", r->top[i].accesses);
		mdkd_json_push(top, t);
	}
	mdkd_json_add(o, "top", top);
	for (c = 1; c <= r->windows; c++) {
		struct json_object *h;

		if (!r->pages_by_windows[c])
			continue;
		h = json_object_new_object();
		mdkd_json_add_u64(h, "windows", c);
		mdkd_json_add_u64(h, "pages", r->pages_by_windows[c]);
		mdkd_json_push(hist, h);
	}
	mdkd_json_add(o, "pages_by_windows", hist);
	return o;
}

static struct json_object *json_heatmap(const struct mdk_report *r)
{
	struct json_object *o = json_object_new_object(),
			   *ranges = json_object_new_array(),
			   *cols = json_object_new_array(),
			   *frac = json_object_new_array();
	uint32_t i, j;

	for (i = 0; i < r->heat_rows; i++) {
		struct json_object *g = json_object_new_object(),
				   *row = json_object_new_array();

		mdkd_json_add_u64(g, "first_index", r->range_first[i]);
		mdkd_json_add_u64(g, "last_index", r->range_first[i + 1] - 1);
		mdkd_json_add_u64(g, "pages", r->range_pages[i]);
		mdkd_json_add_u64(g, "id_min", r->range_id_min[i]);
		mdkd_json_add_u64(g, "id_max", r->range_id_max[i]);
		mdkd_json_push(ranges, g);
		for (j = 0; j < r->heat_cols; j++)
			mdkd_json_push(
				row,
				mdkd_json_double(
					r->heat[(size_t)i * r->heat_cols + j]));
		mdkd_json_push(frac, row);
	}
	for (j = 0; j < r->heat_cols; j++) {
		struct json_object *c = json_object_new_object();

		mdkd_json_add_u64(c, "first_window", r->col_first[j]);
		mdkd_json_add_u64(c, "last_window", r->col_first[j + 1] - 1);
		mdkd_json_push(cols, c);
	}
	mdkd_json_add(o, "ranges", ranges);
	mdkd_json_add(o, "columns", cols);
	mdkd_json_add(o, "fraction", frac);
	return o;
}

static int report_json(const char *trace, const struct mdk_report *r)
{
	struct json_object *o = json_object_new_object(),
			   *t = json_object_new_array();
	uint32_t k;

	mdkd_json_add_str(o, "file", trace);
	mdkd_json_add_u64(o, "windows", r->windows);
	mdkd_json_add_double(o, "window_seconds", r->window_us / 1e6);
	mdkd_json_add_u64(o, "page_size", r->page_size);
	mdkd_json_add_u64(o, "pages", r->pages);
	mdkd_json_add_u64(o, "accesses", r->accesses);
	for (k = 0; k < r->buckets; k++)
		mdkd_json_push(t, json_object_new_uint64(1ull << k));
	mdkd_json_add(o, "idle_thresholds", t);
	mdkd_json_add(o, "per_window", json_windows(r));
	mdkd_json_add(o, "reuse", json_reuse(r));
	mdkd_json_add_u64(o, "reuses", r->reuses);
	mdkd_json_add_u64(o, "never_reused_pages", r->never_reused);
	mdkd_json_add(o, "popularity", json_popularity(r));
	mdkd_json_add(o, "heatmap", json_heatmap(r));
	return mdkd_json_emit(o) ? 1 : 0;
}

static void csv_summary(const struct mdk_report *r)
{
	printf("key,value\nwindows,%u\nwindow_seconds,%.10g\npage_size,%u\n"
	       "pages,%" PRIu64 "\naccesses,%" PRIu64 "\nreuses,%" PRIu64
	       "\nnever_reused_pages,%" PRIu64 "\nevery_window_pages,%" PRIu64
	       "\n",
	       r->windows, r->window_us / 1e6, r->page_size, r->pages,
	       r->accesses, r->reuses, r->never_reused,
	       r->windows ? r->pages_by_windows[r->windows] : 0);
	printf("per_page_min,%u\nper_page_p25,%u\nper_page_p50,%u\n"
	       "per_page_p75,%u\nper_page_p90,%u\nper_page_p99,%u\n"
	       "per_page_max,%u\nper_page_mean,%.10g\n",
	       r->per_page_min, r->per_page_p25, r->per_page_p50,
	       r->per_page_p75, r->per_page_p90, r->per_page_p99,
	       r->per_page_max, r->per_page_mean);
}

static void csv_windows(const struct mdk_report *r)
{
	uint32_t w, k;

	printf("window,accessed,footprint");
	for (k = 0; k < r->buckets; k++)
		printf(",idle_ge_%u", 1u << k);
	putchar('\n');
	for (w = 0; w < r->windows; w++) {
		printf("%u,%" PRIu64 ",%" PRIu64, w, r->accessed[w],
		       r->footprint[w]);
		for (k = 0; k < r->buckets; k++)
			printf(",%" PRIu64,
			       r->idle[(size_t)w * r->buckets + k]);
		putchar('\n');
	}
}

static void csv_heatmap(const struct mdk_report *r)
{
	uint32_t i, j;

	printf("range,first_index,last_index,pages,column,first_window,last_window,fraction\n");
	for (i = 0; i < r->heat_rows; i++)
		for (j = 0; j < r->heat_cols; j++)
			printf("%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			       ",%u,%u,%u,%.10g\n",
			       i, r->range_first[i], r->range_first[i + 1] - 1,
			       r->range_pages[i], j, r->col_first[j],
			       r->col_first[j + 1] - 1,
			       r->heat[(size_t)i * r->heat_cols + j]);
}

static void report_csv(enum csv_table t, const struct mdk_report *r)
{
	uint32_t k;
	int i;

	switch (t) {
	case CSV_SUMMARY:
		csv_summary(r);
		break;
	case CSV_WINDOWS:
		csv_windows(r);
		break;
	case CSV_REUSE:
		printf("min_windows,max_windows,reuses\n");
		for (k = 0; k < r->buckets; k++)
			printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			       (uint64_t)1 << k, (uint64_t)(2ull << k) - 1,
			       r->reuse[k]);
		break;
	case CSV_POPULARITY:
		printf("windows_accessed,pages\n");
		for (k = 1; k <= r->windows; k++)
			if (r->pages_by_windows[k])
				printf("%u,%" PRIu64 "\n", k,
				       r->pages_by_windows[k]);
		break;
	case CSV_TOP:
		printf("share,pages,accesses\n");
		for (i = 0; i < MDK_REPORT_TOPS; i++)
			printf("%g,%" PRIu64 ",%" PRIu64 "\n",
			       r->top[i].share_ppm / 1e6, r->top[i].pages,
			       r->top[i].accesses);
		break;
	case CSV_HEATMAP:
		csv_heatmap(r);
		break;
	case CSV_NONE:
		break;
	}
}

int mdkctl_cmd_trace_report(int argc, char **argv)
{
	struct mdk_report *r = NULL;
	struct report_opts o;
	char err[512];
	int ret;

	ret = parse_report(argc, argv, &o);
	if (ret)
		return ret == MDKCTL_DONE ? 0 : ret;
	/* A bad --plot is refused before a long pass over the trace. */
	if ((o.plot && mdkctl_gnuplot_check(o.plot, err, sizeof(err)) < 0) ||
	    mdk_trace_report_run(o.trace, &o.ro, &r, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	if (o.plot &&
	    mdkctl_plot_trace_report(o.plot, o.trace, r, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		ret = 1;
		goto out;
	}
	if (o.json)
		ret = report_json(o.trace, r);
	else if (o.csv)
		report_csv(o.csv, r);
	else
		report_text(o.trace, r);
out:
	mdk_trace_report_free(r);
	return ret;
}
