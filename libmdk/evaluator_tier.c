// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The live tiered curves (mdk/evaluator.h): tage and tpace over the
 * horizon from the evaluator's own age or pace generator, whose grid is
 * widened to hold every wait of the spec (rebuilt from the ring, as
 * mdk_eval_find() adds a setting) when it does not.  Peak occupancy is
 * not computed live (the points say 0 and feasible): the ring keeps the
 * horizon's accesses, not each window's tier contents, and the daemon
 * holds the CMM-MP node to its capacity with its actuator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator_int.h"
#include "tier/tier_int.h"

static bool grid_has(const struct mdk_grid *g, uint64_t v)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->v[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->v[lo] == v;
}

/* Does every grid of @need lie in @cur's? */
static bool grids_within(const struct mdk_policy *need,
			 const struct mdk_policy *cur)
{
	unsigned int j;
	size_t i;

	for (j = 0; j < need->ops->nparams; j++)
		for (i = 0; i < need->grid[j].n; i++)
			if (!grid_has(&cur->grid[j], need->grid[j].v[i]))
				return false;
	return true;
}

/* @need's grids united with @cur's, in @need. */
static int widen(struct mdk_policy *need, const struct mdk_policy *cur)
{
	unsigned int j;
	size_t i;
	int ret;

	for (j = 0; j < need->ops->nparams; j++) {
		size_t cap = need->grid[j].n;

		for (i = 0; i < cur->grid[j].n; i++) {
			ret = mdk__grid_push(&need->grid[j], &cap,
					     cur->grid[j].v[i]);
			if (ret)
				return ret;
		}
		mdk__grid_finish(&need->grid[j]);
	}
	return 0;
}

/* The index of the age or pace generator binning every wait of @ts. */
static int tier_gen(struct mdk_eval *e, const struct mdk__tier_spec *ts,
		    char *err, size_t errlen)
{
	struct mdk_policy *need;
	struct egen ng;
	int gi, ret;

	ret = mdk__tier_gen_policy(ts, &need, err, errlen);
	if (ret)
		return ret;
	gi = mdk__eval_gen_index(e, mdk_policy_name(need));
	if (gi >= 0 && e->gens[gi].mpc && grids_within(need, e->gens[gi].pol)) {
		mdk_policy_free(need);
		return gi;
	}
	if (gi >= 0 && widen(need, e->gens[gi].pol)) {
		mdk_policy_free(need);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	ret = mdk_policy_resolve(need, e->H, err, errlen);
	if (ret) {
		mdk_policy_free(need);
		return ret;
	}
	ret = mdk__eval_gen_make(e, need, &ng, err, errlen);
	if (ret)
		return ret;
	if (gi < 0) {
		if (mdk_grow((void **)&e->gens, &e->gencap, e->ngens + 1,
			     sizeof(*e->gens))) {
			mdk__eval_gen_free(&ng);
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		}
		gi = (int)e->ngens++;
	} else {
		mdk__eval_gen_free(&e->gens[gi]);
	}
	e->gens[gi] = ng;
	return gi;
}

long mdk_eval_tier_curve(struct mdk_eval *e, const char *spec,
			 const struct mdk_tier_opts *o,
			 struct mdk_tier_point **pts, char *err, size_t errlen)
{
	struct mdk__tier_spec ts;
	uint32_t lo, hi;
	long n;
	int gi;

	*pts = NULL;
	n = mdk__tier_opts_check(o, err, errlen);
	if (n)
		return n;
	if (e->failed)
		return mdk_err(err, errlen, -EIO,
			       "the evaluator failed earlier");
	if (!mdk__eval_horizon(e, &lo, &hi))
		return mdk_err(err, errlen, -ENODATA, "no window yet");
	n = mdk__tier_spec_parse(spec, o->tiers->n, e->H, &ts, err, errlen);
	if (n)
		return n;
	if (ts.kind == MDK__TOPP) {
		mdk__tier_spec_free(&ts);
		return mdk_err(
			err, errlen, -EOPNOTSUPP,
			"topp: tiered OPP looks ahead (offline only: mdk_tier_run())");
	}
	gi = tier_gen(e, &ts, err, errlen);
	if (gi >= 0)
		n = mdk__tier_eval(e->gens[gi].mpc, lo, hi, &ts, o->tiers,
				   o->per_access ? 0 : o->window_ns, pts, err,
				   errlen);
	else
		n = gi;
	mdk__tier_spec_free(&ts);
	return n;
}

int mdk_eval_tier_tune(struct mdk_eval *e, const char *spec,
		       const struct mdk_tier_opts *o, double target,
		       struct mdk_tier_point *pt, char *err, size_t errlen)
{
	struct mdk_tier_point *pts;
	long n = mdk_eval_tier_curve(e, spec, o, &pts, err, errlen), best;

	if (n < 0)
		return (int)n;
	best = mdk_tier_best(pts, (size_t)n, target);
	if (best >= 0)
		*pt = pts[best];
	free(pts);
	if (best < 0)
		return mdk_err(err, errlen, -ENOENT,
			       "%s: no setting within a stall share of %g",
			       spec, target);
	return 0;
}
