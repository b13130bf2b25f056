// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mdk_tier_run(): a tiered curve over a whole trace in one pass.  The
 * trace feeds one age or pace generator whose grid holds every wait of
 * the spec (mpc_run.c's driver parts open the trace, make the generator
 * and add the tails), then curve.c evaluates every setting from its
 * histograms.  When a tier has a capacity, the pass also tracks the open
 * intervals for the peak occupancies (occ.c).  topp's curve is tiered
 * OPP's feasible schedules and bounds (opp.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/trace.h>

#include "tier_int.h"

/* One chunk into the stream, the generator and the occupancy tracker. */
static int feed_chunk(struct mdk__run *rn, struct mdk__tier_occ *occ,
		      const struct mdk_trace_chunk *c, char *err, size_t errlen)
{
	uint64_t nfirst = 0;
	size_t off = 0;
	int ret;

	if (occ)
		mdk__tier_occ_until(occ, c->window);
	while (off < c->n) {
		size_t n = MDK_MIN(c->n - off, (size_t)MDK_RUN_BATCH);

		ret = mdk_stream_feed(rn->st, c->window, c->pages + off, n,
				      rn->start, rn->reuse, &nfirst, err,
				      errlen);
		if (!ret)
			ret = mdk_mpc_add_closed(rn->gens[0], c->window,
						 rn->start, rn->reuse, n, err,
						 errlen);
		if (ret)
			return ret;
		if (occ)
			mdk__tier_occ_add(occ, c->window, rn->start, rn->reuse,
					  n);
		off += n;
	}
	return 0;
}

static int tier_pass(struct mdk__run *rn, struct mdk__tier_occ *occ, char *err,
		     size_t errlen)
{
	struct mdk_trace_chunk c;
	int ret;

	while ((ret = mdk_trace_reader_next(rn->r, &c, err, errlen)) > 0) {
		ret = feed_chunk(rn, occ, &c, err, errlen);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	if (occ)
		mdk__tier_occ_until(occ, rn->W);
	return mdk__run_tails(rn, err, errlen);
}

/* Do the tiers ask for occupancy? */
static bool any_capacity(const struct mdk_tiers *t)
{
	unsigned int k;

	for (k = 0; k < t->n; k++)
		if (t->t[k].capacity)
			return true;
	return false;
}

int mdk__tier_opts_check(const struct mdk_tier_opts *o, char *err,
			 size_t errlen)
{
	if (!o || !o->tiers || o->tiers->n < 1 || o->tiers->n > MDK_TIERS_MAX)
		return mdk_err(err, errlen, -EINVAL,
			       "no tier list (expected 1 to %u tiers)",
			       MDK_TIERS_MAX);
	return 0;
}

uint64_t mdk__tier_window_ns(const struct mdk_tier_opts *o, uint64_t trace_us)
{
	if (o->per_access)
		return 0;
	return o->window_ns ? o->window_ns : trace_us * 1000;
}

int mdk__tier_opp_points(const char *trace, const struct mdk__tier_spec *ts,
			 const struct mdk_tier_opts *o,
			 struct mdk_tier_point **pts, char *err, size_t errlen)
{
	size_t n = ts->nset, i;
	double *sigma;
	int ret;

	sigma = calloc(n, sizeof(*sigma));
	*pts = calloc(2 * n, sizeof(**pts));
	if (!sigma || !*pts) {
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		sigma[i] = (double)ts->set[i] / 1e6;
	ret = mdk_tier_opp(trace, sigma, n, o, *pts + n, *pts, err, errlen);
	for (i = 0; !ret && i < n; i++)
		(*pts)[n + i].pt.policy = "topp-bound";
out:
	if (ret) {
		free(*pts);
		*pts = NULL;
	}
	free(sigma);
	return ret;
}

int mdk_tier_run(const char *trace, const char *spec,
		 const struct mdk_tier_opts *o, struct mdk_tier_point **pts,
		 size_t *n, char *err, size_t errlen)
{
	struct mdk__run *rn = calloc(1, sizeof(*rn));
	struct mdk__tier_spec ts = { 0 };
	struct mdk__tier_occ *occ = NULL;
	struct mdk_policy *pol = NULL;
	struct mdk__tier_prep pp = { 0 };
	long np = 0;
	int ret;

	*pts = NULL;
	*n = 0;
	if (!rn)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	rn->np = 1;
	ret = mdk__tier_opts_check(o, err, errlen);
	if (!ret)
		ret = mdk__run_open(rn, trace, MDK_TRACE_DENSE, err, errlen);
	if (!ret)
		ret = mdk__tier_spec_parse(spec, o->tiers->n, rn->W, &ts, err,
					   errlen);
	if (!ret && ts.kind == MDK__TOPP) {
		ret = mdk__tier_opp_points(trace, &ts, o, pts, err, errlen);
		np = ret ? 0 : 2 * (long)ts.nset;
		goto out;
	}
	if (!ret)
		ret = mdk__tier_gen_policy(&ts, &pol, err, errlen);
	if (!ret)
		ret = mdk__run_gens(rn, &pol, err, errlen);
	if (!ret && any_capacity(o->tiers)) {
		ret = mdk__tier_prep(&ts, &rn->gens[0]->g, &pp, err, errlen);
		if (!ret && mdk__tier_occ_new(&pp, rn->gens[0], rn->W, &occ))
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	if (!ret)
		ret = tier_pass(rn, occ, err, errlen);
	if (!ret) {
		uint64_t us = mdk_trace_reader_info(rn->r)->window_us;

		np = mdk__tier_eval(rn->gens[0], 0, rn->W - 1, &ts, o->tiers,
				    mdk__tier_window_ns(o, us), pts, err,
				    errlen);
		if (np < 0)
			ret = (int)np;
	}
	if (!ret && occ)
		mdk__tier_occ_peaks(occ, o->tiers, *pts);
out:
	if (!ret)
		*n = (size_t)np;
	mdk__tier_occ_free(occ);
	mdk__tier_prep_free(&pp);
	mdk__run_free(rn);
	mdk_policy_free(pol);
	mdk__tier_spec_free(&ts);
	return ret;
}

long mdk_tier_best(const struct mdk_tier_point *pts, size_t n, double target)
{
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mdk_tier_point *p = &pts[i], *b;

		if (!p->feasible || p->max_stall > target)
			continue;
		if (best < 0) {
			best = (long)i;
			continue;
		}
		b = &pts[best];
		if (p->pt.savings > b->pt.savings ||
		    (p->pt.savings == b->pt.savings &&
		     (p->max_stall < b->max_stall ||
		      (p->max_stall == b->max_stall &&
		       p->stall_ns < b->stall_ns))))
			best = (long)i;
	}
	return best;
}
