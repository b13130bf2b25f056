// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The live evaluator's generators: one MPC generator per policy, built
 * or rebuilt from the ring of the horizon's accesses, and lopp's, keyed
 * by the live learner's newest model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "evaluator_int.h"

void mdk__eval_gen_free(struct egen *g)
{
	mdk_mpc_free(g->mpc);
	mdk_policy_free(g->pol);
	g->mpc = NULL;
	g->pol = NULL;
}

/* About @n values from 1 to @hi, log-spaced, as "1/2/3/5/...". */
static void log_values(uint32_t hi, unsigned int n, char *buf, size_t len)
{
	uint64_t last = 0;
	size_t pos = 0;
	unsigned int i;

	buf[0] = '\0';
	if (hi <= n) {
		snprintf(buf, len, hi > 1 ? "1-%u" : "1", hi);
		return;
	}
	for (i = 0; i < n && pos < len; i++) {
		uint64_t v = (uint64_t)llround(
			exp(log((double)hi) * (double)i / (double)(n - 1)));

		if (v <= last)
			v = last + 1;
		if (v > hi)
			break;
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%llu",
					pos ? "/" : "", (unsigned long long)v);
		last = v;
	}
}

/* Rebuild @g's generator for the horizon from the ring (see the top). */
static int gen_replay(struct mdk_eval *e, struct egen *g, char *err,
		      size_t errlen)
{
	uint32_t lo, hi, w;

	if (!mdk__eval_horizon(e, &lo, &hi))
		return 0;
	for (w = lo;; w++) {
		const struct ewin *s = &e->ring[w % e->H];
		size_t i;
		int ret;

		if (mdk_grow((void **)&e->sstart, &e->sstartcap, s->n,
			     sizeof(*e->sstart)) ||
		    mdk_grow((void **)&e->sreuse, &e->sreusecap, s->n,
			     sizeof(*e->sreuse)))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		for (i = 0; i < s->n; i++) {
			const struct erec *r = &s->recs[i];

			if (!r->r) {
				e->sstart[i] = MDK_NONE;
				e->sreuse[i] = 0;
			} else if (r->r >= e->H || w - r->r < lo) {
				/* The previous access is before the horizon. */
				e->sstart[i] = MDK_NONE;
				e->sreuse[i] = r->r;
			} else {
				e->sstart[i] = w - r->r;
				e->sreuse[i] = r->ra;
			}
		}
		ret = mdk_mpc_add_accesses(g->mpc, w, e->sstart, e->sreuse,
					   s->n, err, errlen);
		if (ret)
			return ret;
		if (w == hi)
			break;
	}
	return 0;
}

/*
 * A keyed (lopp) generator: the horizon keyed by the newest model, built
 * afresh; none before the first model.  The learner starts with the
 * first lopp policy.
 */
int mdk__eval_lopp_build(struct mdk_eval *e, struct egen *g, char *err,
			 size_t errlen)
{
	const struct mdk_lopp_model *model;
	uint32_t lo, hi;
	int ret;

	if (!e->lopp) {
		double rho = e->opts.lopp_rho > 0 ? e->opts.lopp_rho : 0.01;

		if (rho > 1)
			return mdk_err(err, errlen, -EINVAL,
				       "L-OPP: rho %g above 1", rho);
		if (e->opts.lopp_model > MDK_LOPP_TREES)
			return mdk_err(
				err, errlen, -EINVAL,
				"L-OPP: model kind %u: expected 0 (logistic) or 1 (trees)",
				e->opts.lopp_model);
		if (mdk__lopp_live_new(
			    e->H, (uint32_t)(rho * 1e6 + 0.5),
			    e->opts.lopp_retrain ? e->opts.lopp_retrain : 4,
			    e->opts.lopp_rows ? e->opts.lopp_rows : 65536,
			    &e->lopp))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		mdk__lopp_live_set_kind(e->lopp, e->opts.lopp_model);
		mdk__lopp_live_set_async(e->lopp, e->opts.lopp_async);
	}
	model = mdk__lopp_live_model(e->lopp);
	mdk_mpc_free(g->mpc);
	g->mpc = NULL;
	if (!model || !mdk__eval_horizon(e, &lo, &hi))
		return 0;
	ret = mdk_lopp_policy_set_model(g->pol, model, err, errlen);
	if (!ret)
		ret = mdk_mpc_new(g->pol, e->H, &g->mpc, err, errlen);
	if (!ret)
		ret = mdk__lopp_live_fill(e->lopp, g->mpc, lo, hi, err, errlen);
	return ret;
}

/*
 * A generator for @pol (taken over, also on failure) over H windows,
 * filled from the ring.
 */
int mdk__eval_gen_make(struct mdk_eval *e, struct mdk_policy *pol,
		       struct egen *g, char *err, size_t errlen)
{
	char vals[512];
	int ret;

	g->pol = pol;
	g->mpc = NULL;
	if (mdk_policy_keyed(pol)) {
		ret = mdk__eval_lopp_build(e, g, err, errlen);
		if (ret)
			mdk__eval_gen_free(g);
		return ret;
	}
	if (!strcmp(mdk_policy_name(pol), "pace")) {
		log_values(e->H - 1, MDK_EVAL_PACE_VALUES, vals, sizeof(vals));
		if ((!mdk_policy_has(pol, "P") &&
		     mdk_policy_set(pol, "P", vals, err, errlen)) ||
		    (!mdk_policy_has(pol, "A") &&
		     mdk_policy_set(pol, "A", vals, err, errlen))) {
			mdk__eval_gen_free(g);
			return -EINVAL;
		}
	}
	if (mdk_policy_kind(pol) == MDK_POLICY_CACHE) {
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: a fixed-size policy has no MPC (expected age, vmin, paw, pace, opp or lopp)",
			mdk_policy_name(pol));
		mdk__eval_gen_free(g);
		return ret;
	}
	ret = mdk_mpc_new(pol, e->H, &g->mpc, err, errlen);
	if (!ret)
		ret = gen_replay(e, g, err, errlen);
	if (ret)
		mdk__eval_gen_free(g);
	return ret;
}

int mdk__eval_gen_index(const struct mdk_eval *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->ngens; i++)
		if (!strcmp(mdk_policy_name(e->gens[i].pol), name))
			return (int)i;
	return -1;
}
