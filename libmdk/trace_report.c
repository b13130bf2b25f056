// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Trace reports (mdk/report.h): one pass over a trace with the dense
 * reader, keeping each page's last window and count of windows.  Idle
 * ages come from difference arrays: an interval from window a to n adds
 * one page idle >= T to the windows a + T .. n - 1 for every T <= its
 * gap, so each threshold costs two updates per interval and a prefix sum
 * at the end, rather than a walk over every page in every window.
 */
#include <stdlib.h>
#include <string.h>

#include <mdk/trace.h>

#include "report_int.h"

/* Windows are 32-bit: distances and thresholds are below 2^32. */
#define MAX_BUCKETS 32

struct page_state {
	uint32_t last; /* window of the last access */
	uint32_t count; /* windows accessed */
};

struct pass {
	struct mdk_report *r;
	struct page_state *ps;
	size_t pcap;
	int64_t *diff[MAX_BUCKETS]; /* diff[k][w]: idle >= 2^k changes at w */
	size_t dcap[MAX_BUCKETS];
	size_t wcap, fcap; /* accessed[], footprint[] */
	uint64_t reuse[MAX_BUCKETS];
	uint64_t u, F;
	struct mdk__heat heat;
};

static unsigned int ilog2(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

static int idle_add(struct pass *s, unsigned int k, uint64_t w, int64_t d)
{
	if (w >= s->dcap[k] &&
	    mdk__grow_zeroed((void **)&s->diff[k], &s->dcap[k], w + 1,
			     sizeof(*s->diff[k])))
		return -ENOMEM;
	s->diff[k][w] += d;
	return 0;
}

/* Page @p accessed in window @w; @a its previous window. */
static int reuse_at(struct pass *s, uint32_t a, uint32_t w)
{
	uint64_t g = w - a - 1, T;
	unsigned int k;

	s->reuse[ilog2(w - a)]++;
	for (k = 0, T = 1; T <= g; k++, T <<= 1)
		if (idle_add(s, k, a + T, 1) || idle_add(s, k, w, -1))
			return -ENOMEM;
	return 0;
}

static int add_chunk(struct pass *s, const struct mdk_trace_chunk *c)
{
	uint64_t *col = c->n ? mdk__heat_column(&s->heat, c->window) : NULL;
	size_t i;

	if (c->n && !col)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		uint32_t p = c->pages[i];
		struct page_state *st;

		if (p >= s->pcap &&
		    mdk__grow_zeroed((void **)&s->ps, &s->pcap, (size_t)p + 1,
				     sizeof(*s->ps)))
			return -ENOMEM;
		st = &s->ps[p];
		if (!st->count) {
			s->F++;
			mdk__heat_page(&s->heat, p, c->ids[i]);
		} else if (reuse_at(s, st->last, c->window)) {
			return -ENOMEM;
		}
		st->last = c->window;
		st->count++;
		col[p >> s->heat.rshift]++;
	}
	s->u += c->n;
	if (!c->window_end)
		return 0;
	if (mdk_grow((void **)&s->r->accessed, &s->wcap, (size_t)c->window + 1,
		     sizeof(uint64_t)) ||
	    mdk_grow((void **)&s->r->footprint, &s->fcap, (size_t)c->window + 1,
		     sizeof(uint64_t)))
		return -ENOMEM;
	s->r->accessed[c->window] = s->u;
	s->r->footprint[c->window] = s->F;
	s->r->accesses += s->u;
	s->u = 0;
	return 0;
}

/* Tails: a page last accessed in a stays idle to the end, W - 1. */
static int finish_idle(struct pass *s)
{
	struct mdk_report *r = s->r;
	uint32_t W = r->windows, K = r->buckets, w, k;
	size_t p;

	for (p = 0; p < s->pcap; p++) {
		uint64_t a = s->ps[p].last, T;

		if (!s->ps[p].count)
			continue;
		for (k = 0, T = 1; a + T <= (uint64_t)W - 1; k++, T <<= 1)
			if (idle_add(s, k, a + T, 1))
				return -ENOMEM;
	}
	r->idle = calloc(MDK_MAX((size_t)W * K, 1), sizeof(*r->idle));
	r->reuse = calloc(K ? K : 1, sizeof(*r->reuse));
	if (!r->idle || !r->reuse)
		return -ENOMEM;
	for (k = 0; k < K; k++) {
		int64_t run = 0;

		for (w = 0; w < W; w++) {
			run += w < s->dcap[k] ? s->diff[k][w] : 0;
			r->idle[(size_t)w * K + k] = (uint64_t)run;
		}
		r->reuse[k] = s->reuse[k];
		r->reuses += s->reuse[k];
	}
	return 0;
}

/* The count of the page at rank @i (0-based) in ascending order. */
static uint32_t rank_value(const uint64_t *hist, uint32_t W, uint64_t i)
{
	uint64_t below = 0;
	uint32_t c;

	for (c = 1; c <= W; c++) {
		below += hist[c];
		if (i < below)
			return c;
	}
	return W;
}

/* Nearest rank: element ceil(q P) - 1 of the ascending counts. */
static uint32_t quantile(const struct mdk_report *r, uint32_t q_ppm)
{
	unsigned __int128 x = (unsigned __int128)r->pages * q_ppm;
	uint64_t rank = (uint64_t)((x + 999999) / 1000000);

	return rank_value(r->pages_by_windows, r->windows, rank ? rank - 1 : 0);
}

/* Fewest pages for @need accesses; accesses of the @k busiest pages. */
static void top_of(const struct mdk_report *r, struct mdk_report_top *t)
{
	unsigned __int128 x = (unsigned __int128)r->accesses * t->share_ppm;
	uint64_t need = (uint64_t)((x + 999999) / 1000000), k;
	uint32_t c;

	x = (unsigned __int128)r->pages * t->share_ppm;
	k = (uint64_t)((x + 999999) / 1000000);
	t->pages = t->accesses = 0;
	for (c = r->windows; c >= 1; c--) {
		uint64_t n = r->pages_by_windows[c], take = MDK_MIN(n, k);

		t->accesses += take * c;
		k -= take;
		if (!need)
			continue;
		if (n * c >= need) {
			t->pages += (need + c - 1) / c;
			need = 0;
		} else {
			t->pages += n;
			need -= n * c;
		}
	}
}

static int finish_popularity(struct pass *s)
{
	static const uint32_t ppm[MDK_REPORT_TOPS] = MDK_REPORT_TOP_PPM;
	struct mdk_report *r = s->r;
	size_t p;
	int i;

	r->pages_by_windows = calloc((size_t)r->windows + 1, sizeof(uint64_t));
	if (!r->pages_by_windows)
		return -ENOMEM;
	for (p = 0; p < s->pcap; p++)
		r->pages_by_windows[s->ps[p].count]++;
	r->pages_by_windows[0] = 0;
	r->never_reused = r->windows ? r->pages_by_windows[1] : 0;
	if (r->pages) {
		r->per_page_min = quantile(r, 0);
		r->per_page_p25 = quantile(r, 250000);
		r->per_page_p50 = quantile(r, 500000);
		r->per_page_p75 = quantile(r, 750000);
		r->per_page_p90 = quantile(r, 900000);
		r->per_page_p99 = quantile(r, 990000);
		r->per_page_max = quantile(r, 1000000);
		r->per_page_mean = (double)r->accesses / (double)r->pages;
	}
	for (i = 0; i < MDK_REPORT_TOPS; i++) {
		r->top[i].share_ppm = ppm[i];
		top_of(r, &r->top[i]);
	}
	return 0;
}

static int finish(struct pass *s, struct mdk_trace_reader *rd)
{
	struct mdk_report *r = s->r;
	const struct mdk_trace_info *info = mdk_trace_reader_info(rd);

	r->windows = mdk_trace_reader_windows(rd);
	r->pages = s->F;
	r->window_us = info->window_us;
	r->page_size = info->page_size;
	r->buckets = r->windows >= 2 ? ilog2(r->windows - 1) + 1 : 0;
	if (finish_idle(s) || finish_popularity(s) ||
	    mdk__heat_finish(&s->heat, mdk_trace_reader_slots(rd), r))
		return -ENOMEM;
	return 0;
}

static int run_pass(struct pass *s, struct mdk_trace_reader *rd, char *err,
		    size_t errlen)
{
	struct mdk_trace_chunk c;
	int ret;

	while ((ret = mdk_trace_reader_next(rd, &c, err, errlen)) > 0)
		if (add_chunk(s, &c))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
	if (ret < 0)
		return ret;
	if (finish(s, rd))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

int mdk_trace_report_run(const char *path, const struct mdk_report_opts *opts,
			 struct mdk_report **out, char *err, size_t errlen)
{
	struct mdk_report_opts o = opts ? *opts : (struct mdk_report_opts){ 0 };
	struct mdk_trace_reader *rd = NULL;
	struct pass s = { 0 };
	unsigned int k;
	int ret;

	o.heat_ranges = o.heat_ranges ? o.heat_ranges : MDK_REPORT_HEAT_RANGES;
	o.heat_columns = o.heat_columns ? o.heat_columns :
					  MDK_REPORT_HEAT_COLUMNS;
	if (o.heat_ranges > MDK_REPORT_HEAT_MAX ||
	    o.heat_columns > MDK_REPORT_HEAT_MAX)
		return mdk_err(err, errlen, -EINVAL,
			       "heatmap of %u x %u: expected at most %u a side",
			       o.heat_ranges, o.heat_columns,
			       MDK_REPORT_HEAT_MAX);
	s.r = calloc(1, sizeof(*s.r));
	if (!s.r || mdk__heat_init(&s.heat, o.heat_ranges, o.heat_columns)) {
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	ret = mdk_trace_reader_open(
		path, MDK_TRACE_DENSE | (o.flags & MDK_TRACE_PARTIAL), &rd, err,
		errlen);
	if (!ret)
		ret = run_pass(&s, rd, err, errlen);
out:
	mdk_trace_reader_close(rd);
	mdk__heat_free(&s.heat);
	for (k = 0; k < MAX_BUCKETS; k++)
		free(s.diff[k]);
	free(s.ps);
	if (ret) {
		mdk_trace_report_free(s.r);
		return ret;
	}
	*out = s.r;
	return 0;
}

void mdk_trace_report_free(struct mdk_report *r)
{
	if (!r)
		return;
	free(r->accessed);
	free(r->footprint);
	free(r->idle);
	free(r->reuse);
	free(r->pages_by_windows);
	free(r->range_first);
	free(r->range_pages);
	free(r->range_id_min);
	free(r->range_id_max);
	free(r->col_first);
	free(r->heat);
	free(r);
}
