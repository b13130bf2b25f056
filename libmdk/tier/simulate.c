// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mdk_tier_simulate(): the tiered definitions (Documentation/mdk.rst,
 * "Tiers") applied interval by interval, sharing no histogram, bin or
 * suffix sum with curve.c, so that tests holding the two equal check two
 * computations.  For each interval (a, n) of gap g (or tail t = W-1-a):
 * its waits d_1..d_K, the ppm-page-windows it saves, the windows it
 * spends in each tier (a +1/-1 pair in that tier's difference array)
 * and, when closed and d_1 <= g, one promotion in window n from the
 * deepest tier it reached.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/trace.h>

#include "tier_int.h"

struct tsim {
	const struct mdk__tier_spec *ts;
	const struct mdk_tiers *t;
	const uint64_t *v; /* the setting */
	uint32_t W;
	uint64_t *acc, *first, *prom, *stall;
	int64_t *diff[MDK_TIERS_MAX]; /* W + 1 each */
	uint64_t saved_ppm, tprom[MDK_TIERS_MAX];
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The interval from window @a, of @g idle windows; promoted when @closed. */
static void interval(struct tsim *s, uint32_t a, uint32_t g, bool closed,
		     uint32_t reuse)
{
	uint64_t d[MDK_TIERS_MAX + 1];
	unsigned int k, K = s->ts->K;
	int deepest = -1;

	mdk__tier_waits(s->ts, s->v,
			s->ts->kind == MDK__TPACE && reuse > s->v[0], d);
	for (k = 0; k < K; k++) {
		uint64_t from = min_u64(g, d[k]), to = min_u64(g, d[k + 1]);

		s->saved_ppm += s->t->t[k].save_ppm * (to - from);
		if (d[k] > g)
			continue;
		deepest = (int)k;
		if (to > d[k]) {
			/* in tier k during windows a + d_k + 1 .. a + to */
			s->diff[k][a + d[k] + 1]++;
			s->diff[k][a + to + 1]--;
		}
	}
	if (closed && deepest >= 0) {
		s->prom[a + g + 1]++;
		s->stall[a + g + 1] += s->t->t[deepest].cost_ns;
		s->tprom[deepest]++;
	}
}

struct page {
	uint32_t last1; /* window of the last access + 1; 0: none */
	uint32_t reuse; /* its prior reuse distance */
};

/* Every access of @r, then every tail. */
static int walk(struct tsim *s, struct mdk_trace_reader *r, char *err,
		size_t errlen)
{
	struct page *pg = NULL;
	size_t npg = 0, i;
	struct mdk_trace_chunk c;
	int ret;

	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		for (i = 0; i < c.n; i++) {
			uint32_t p = c.pages[i], w = c.window;
			struct page *q;

			if (p >= npg &&
			    mdk__grow_zeroed((void **)&pg, &npg, (size_t)p + 1,
					     sizeof(*pg))) {
				free(pg);
				return mdk_err(err, errlen, -ENOMEM,
					       "out of memory");
			}
			q = &pg[p];
			s->acc[w]++;
			if (!q->last1) {
				s->first[w]++;
				q->reuse = 0;
			} else {
				uint32_t a = q->last1 - 1;

				interval(s, a, w - a - 1, true, q->reuse);
				q->reuse = w - a;
			}
			q->last1 = w + 1;
		}
	}
	for (i = 0; !ret && i < npg; i++)
		if (pg[i].last1)
			interval(s, pg[i].last1 - 1, s->W - pg[i].last1, false,
				 pg[i].reuse);
	free(pg);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The point from the per-window counts; @occ: the peaks too. */
static int finish(struct tsim *s, uint64_t window_ns, bool occ,
		  struct mdk_tier_point *pt)
{
	double *rates = calloc(s->W, sizeof(*rates));
	uint64_t sumU = 0, sumD = 0, stall = 0, foot = 0;
	int64_t cur[MDK_TIERS_MAX] = { 0 };
	size_t nr = 0;
	uint32_t w;
	unsigned int k;

	if (!rates)
		return -ENOMEM;
	for (w = 0; w < s->W; w++) {
		uint64_t D = window_ns ? window_ns : s->acc[w];

		sumU += s->acc[w];
		sumD += D;
		stall += s->stall[w];
		foot += s->first[w] * (uint64_t)(s->W - w);
		pt->pt.promotions += s->prom[w];
		if (D && (double)s->stall[w] / (double)D > pt->max_stall)
			pt->max_stall = (double)s->stall[w] / (double)D;
		if (s->acc[w]) {
			rates[nr] = (double)s->prom[w] / (double)s->acc[w];
			if (rates[nr] > pt->pt.max_rate)
				pt->pt.max_rate = rates[nr];
			nr++;
		}
		for (k = 0; occ && k < s->ts->K; k++) {
			cur[k] += s->diff[k][w];
			if ((uint64_t)cur[k] > pt->peak[k])
				pt->peak[k] = (uint64_t)cur[k];
		}
	}
	qsort(rates, nr, sizeof(*rates), cmp_double);
	pt->pt.p99_rate = nr ? rates[(99 * nr + 99) / 100 - 1] : 0;
	free(rates);
	pt->pt.footprint = foot;
	pt->pt.saved = s->saved_ppm / MDK_PPM;
	pt->pt.savings =
		foot ? (double)s->saved_ppm / ((double)foot * MDK_PPM) : 0;
	pt->pt.mean_rate = sumU ? (double)pt->pt.promotions / (double)sumU : 0;
	pt->stall_ns = stall;
	pt->mean_stall = sumD ? (double)stall / (double)sumD : 0;
	pt->feasible = true;
	for (k = 0; k < s->ts->K; k++) {
		pt->tier_promotions[k] = s->tprom[k];
		if (s->t->t[k].capacity && pt->peak[k] > s->t->t[k].capacity)
			pt->feasible = false;
	}
	return 0;
}

static void tsim_free(struct tsim *s)
{
	unsigned int k;

	free(s->acc);
	free(s->first);
	free(s->prom);
	free(s->stall);
	for (k = 0; k < MDK_TIERS_MAX; k++)
		free(s->diff[k]);
}

static int simulate(struct mdk_trace_reader *r, const struct mdk__tier_spec *ts,
		    const struct mdk_tier_opts *o, struct mdk_tier_point *pt,
		    char *err, size_t errlen)
{
	const struct mdk_trace_info *info = mdk_trace_reader_info(r);
	struct tsim s = { .ts = ts, .t = o->tiers, .v = ts->set };
	bool occ = false;
	unsigned int k;
	int ret = -ENOMEM;

	s.W = info->windows;
	s.acc = calloc(s.W, sizeof(*s.acc));
	s.first = calloc(s.W, sizeof(*s.first));
	s.prom = calloc(s.W + 1, sizeof(*s.prom));
	s.stall = calloc(s.W + 1, sizeof(*s.stall));
	for (k = 0; k < ts->K; k++) {
		s.diff[k] = calloc((size_t)s.W + 1, sizeof(*s.diff[k]));
		occ = occ || o->tiers->t[k].capacity;
		if (!s.diff[k])
			goto out;
	}
	if (!s.acc || !s.first || !s.prom || !s.stall)
		goto out;
	memset(pt, 0, sizeof(*pt));
	mdk__tier_fill_settings(ts, pt);
	ret = walk(&s, r, err, errlen);
	if (!ret)
		ret = finish(&s, mdk__tier_window_ns(o, info->window_us), occ,
			     pt);
out:
	tsim_free(&s);
	return ret == -ENOMEM ? mdk_err(err, errlen, ret, "out of memory") :
				ret;
}

int mdk_tier_simulate(const char *trace, const char *spec,
		      const struct mdk_tier_opts *o, struct mdk_tier_point *pt,
		      char *err, size_t errlen)
{
	struct mdk_trace_reader *r = NULL;
	struct mdk__tier_spec ts = { 0 };
	int ret = mdk__tier_opts_check(o, err, errlen);

	if (!ret)
		ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err,
					    errlen);
	if (!ret && !mdk_trace_reader_info(r)->indexed)
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: simulation needs a closed trace in a regular file (its index gives the window count)",
			trace);
	if (!ret)
		ret = mdk__tier_spec_parse(spec, o->tiers->n,
					   mdk_trace_reader_info(r)->windows,
					   &ts, err, errlen);
	if (!ret && ts.nset != 1)
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: the spec names %zu settings (expected one: a value for every parameter)",
			ts.name, ts.nset);
	if (!ret && ts.kind == MDK__TOPP) {
		struct mdk_tier_point *p;

		/* tiered OPP's schedule is its simulation */
		ret = mdk__tier_opp_points(trace, &ts, o, &p, err, errlen);
		if (!ret)
			*pt = p[0];
		free(p);
	} else if (!ret) {
		ret = simulate(r, &ts, o, pt, err, errlen);
	}
	mdk__tier_spec_free(&ts);
	mdk_trace_reader_close(r);
	return ret;
}
