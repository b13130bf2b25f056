/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_REPORT_H
#define MDK_REPORT_H

/*
 * Trace reports: what a trace says about its pages, in one streaming pass
 * (per window accessed pages, footprint and idle ages; the reuse-distance
 * distribution; popularity; an access heatmap).  The definitions are in
 * Documentation/mdk.rst ("Trace reports"): U(w), F(w) and idle time are
 * those of the policies.  Every result is a plain array, so that bindings
 * can wrap it without copying.
 *
 * Memory: 8 bytes a page, 16 + 16 K bytes a window (K below), and the
 * heatmap's finer grid (at most 16 times its cells, 8 bytes each).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default heatmap size: page ranges (rows) and window groups (columns). */
#define MDK_REPORT_HEAT_RANGES 200
#define MDK_REPORT_HEAT_COLUMNS 400
/* Largest heatmap side a caller may ask for. */
#define MDK_REPORT_HEAT_MAX 4096

/* The shares of accesses in struct mdk_report.top[], in parts per million. */
#define MDK_REPORT_TOPS 4
#define MDK_REPORT_TOP_PPM                    \
	{                                     \
		10000, 100000, 500000, 900000 \
	}

struct mdk_report_opts {
	uint32_t heat_ranges; /* heatmap rows, at most (0: the default) */
	uint32_t heat_columns; /* heatmap columns, at most (0: the default) */
	unsigned int flags; /* MDK_TRACE_PARTIAL: accept a trace cut short */
};

/* Popularity by share of all accesses (top[i], share top_ppm[i]). */
struct mdk_report_top {
	uint32_t share_ppm; /* 10000 for 1% */
	uint64_t pages; /* fewest pages holding >= that share of accesses */
	uint64_t accesses; /* accesses of the ceil(share x pages) most
			    * accessed pages */
};

struct mdk_report {
	uint32_t windows; /* W */
	uint64_t pages; /* distinct pages */
	uint64_t accesses; /* sum of U(w): the trace's records */
	uint64_t window_us; /* from the trace's header (0: unknown) */
	uint32_t page_size; /* from the trace's header (0: unknown) */

	/* Per window w = 0..W-1. */
	uint64_t *accessed; /* U(w) */
	uint64_t *footprint; /* F(w) */

	/*
	 * K = buckets: thresholds T = 2^k for k < K, the powers of two up
	 * to W - 1 (K = 0 when W < 2).
	 * idle[w * K + k]: pages of F(w) idle >= 2^k windows at the end of w.
	 * reuse[k]: reuses at a distance of 2^k to 2^(k+1) - 1 windows.
	 */
	uint32_t buckets;
	uint64_t *idle;
	uint64_t *reuse;
	uint64_t reuses; /* accesses - pages: the sum of reuse[] */
	uint64_t never_reused; /* pages accessed in one window only */

	/*
	 * Popularity: pages_by_windows[c], c = 0..W, the pages accessed in
	 * exactly c windows ([0] is 0, [W] the pages of every window).
	 * Windows accessed per page: min, nearest-rank quantiles, max, mean.
	 */
	uint64_t *pages_by_windows;
	uint32_t per_page_min, per_page_p25, per_page_p50, per_page_p75,
		per_page_p90, per_page_p99, per_page_max;
	double per_page_mean;
	struct mdk_report_top top[MDK_REPORT_TOPS];

	/*
	 * Heatmap: heat_rows ranges of compact page indices (those of
	 * MDK_TRACE_DENSE) by heat_cols groups of windows.  Range r holds
	 * indices range_first[r] to range_first[r + 1] - 1, range_pages[r]
	 * distinct pages with ids range_id_min[r] to range_id_max[r] (both
	 * 0 when it has none); column c windows col_first[c] to
	 * col_first[c + 1] - 1.  heat[r * heat_cols + c] is the fraction of
	 * the range's page-windows of the column that were accessed (0 for
	 * a range without pages).
	 */
	uint32_t heat_rows, heat_cols;
	uint64_t *range_first; /* heat_rows + 1 */
	uint64_t *range_pages;
	uint64_t *range_id_min, *range_id_max;
	uint32_t *col_first; /* heat_cols + 1 */
	double *heat;
};

/*
 * mdk_trace_report_run() - the report of the trace @path (an .mdkt file or
 * a pipe), read once; @opts may be NULL for the defaults.  Returns 0 with
 * *@out set (free it with mdk_trace_report_free()), or -errno: the
 * reader's errors (-ENOENT, -EINVAL not a trace, -EBADMSG corrupt, named
 * by file and offset), -EINVAL for a heatmap side above
 * MDK_REPORT_HEAT_MAX, or -ENOMEM.
 */
int mdk_trace_report_run(const char *path, const struct mdk_report_opts *opts,
			 struct mdk_report **out, char *err, size_t errlen);

/* mdk_trace_report_free() - free @r and its arrays; NULL is a no-op. */
void mdk_trace_report_free(struct mdk_report *r);

#ifdef __cplusplus
}
#endif

#endif /* MDK_REPORT_H */
