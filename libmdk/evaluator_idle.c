// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The live evaluator's idle ages: how long each page not reclaimed has
 * gone without an access, as a histogram and as a pick of the idlest.
 * mdkd's tier goals merge the histograms of its cgroups to find the
 * coldest pages of all of them, then have each cgroup pick its own.
 * mdkd's backend auto picks, per tier, the pages due to move down to it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator_int.h"

/* The clamped idle age of page @idx, or false when it has none. */
static bool idle_age(const struct mdk_eval *e, uint32_t idx, uint32_t hi,
		     uint32_t max_age, uint32_t *age)
{
	uint32_t a, r;

	if (e->pflags[idx] != F_USED || mdk_stream_open(e->stream, idx, &a, &r))
		return false;
	*age = hi - a < max_age ? hi - a : max_age;
	return true;
}

/* By idle age: the pages not reclaimed (F_USED alone), or all with @all. */
static uint64_t age_hist(const struct mdk_eval *e, uint64_t *hist, size_t nbins,
			 bool all)
{
	uint32_t lo, hi, idx, a, r;
	uint64_t n = 0;

	if (!nbins)
		return 0;
	memset(hist, 0, nbins * sizeof(*hist));
	if (!mdk__eval_horizon(e, &lo, &hi))
		return 0;
	for (idx = 0; idx < e->nidx; idx++) {
		if (!(e->pflags[idx] & F_USED) ||
		    (!all && e->pflags[idx] != F_USED) ||
		    mdk_stream_open(e->stream, idx, &a, &r))
			continue;
		hist[hi - a < nbins - 1 ? hi - a : nbins - 1]++;
		n++;
	}
	return n;
}

uint64_t mdk_eval_idle_hist(const struct mdk_eval *e, uint64_t *hist,
			    size_t nbins)
{
	return age_hist(e, hist, nbins, false);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int idle_push(struct mdk_eval *e, size_t *n, uint64_t id)
{
	if (mdk_grow((void **)&e->idle, &e->idlecap, *n + 1, sizeof(*e->idle)))
		return -ENOMEM;
	e->idle[(*n)++] = id;
	return 0;
}

int mdk_eval_pick_idle(struct mdk_eval *e, uint32_t min_age, size_t at_min,
		       uint32_t max_age, bool add, const uint64_t **ids,
		       size_t *n)
{
	uint32_t lo, hi, idx, age;
	size_t m = 0, i, k;

	*ids = e->idle;
	*n = 0;
	if (add)
		for (i = 0; i < e->npicks; i++)
			if (idle_push(e, &m, e->picks[i]))
				return -ENOMEM;
	if (mdk__eval_horizon(e, &lo, &hi)) {
		for (idx = 0; idx < e->nidx; idx++) {
			if (!idle_age(e, idx, hi, max_age, &age) ||
			    age < min_age)
				continue;
			if (age == min_age) {
				if (!at_min)
					continue;
				at_min--;
			}
			if (idle_push(e, &m, e->ids[idx]))
				return -ENOMEM;
		}
	}
	if (m)
		qsort(e->idle, m, sizeof(*e->idle), cmp_u64);
	for (i = k = 0; i < m; i++)
		if (!k || e->idle[i] != e->idle[k - 1])
			e->idle[k++] = e->idle[i];
	*ids = e->idle;
	*n = k;
	return 0;
}

int mdk_eval_pick_tier(struct mdk_eval *e, unsigned int tier, uint32_t wait,
		       const uint64_t **ids, size_t *n)
{
	uint32_t lo, hi, idx, a, r;
	size_t m = 0;

	*ids = e->tpick;
	*n = 0;
	if (tier < 1 || tier > MDK_TIERS_MAX)
		return -EINVAL;
	if (!mdk__eval_horizon(e, &lo, &hi))
		return 0;
	for (idx = 0; idx < e->nidx; idx++) {
		uint8_t f = e->pflags[idx];

		if (!(f & F_USED) ||
		    ((f & F_RECLAIMED) &&
		     (unsigned int)(f & F_TIER_MASK) >> F_TIER_SHIFT >= tier))
			continue;
		if (mdk_stream_open(e->stream, idx, &a, &r) || hi - a < wait)
			continue;
		if (mdk_grow((void **)&e->tpick, &e->tpickcap, m + 1,
			     sizeof(*e->tpick)))
			return -ENOMEM;
		e->tpick[m++] = e->ids[idx];
	}
	if (m)
		qsort(e->tpick, m, sizeof(*e->tpick), cmp_u64);
	*ids = e->tpick;
	*n = m;
	return 0;
}

void mdk_eval_tier_pages(const struct mdk_eval *e, uint64_t *counts)
{
	uint32_t idx;

	memset(counts, 0, MDK_TIERS_MAX * sizeof(*counts));
	for (idx = 0; idx < e->nidx; idx++)
		if ((e->pflags[idx] & (F_USED | F_RECLAIMED)) ==
		    (F_USED | F_RECLAIMED))
			counts[((e->pflags[idx] & F_TIER_MASK) >> F_TIER_SHIFT) -
			       1]++;
}

uint64_t mdk_eval_age_hist(const struct mdk_eval *e, uint64_t *hist,
			   size_t nbins)
{
	return age_hist(e, hist, nbins, true);
}
