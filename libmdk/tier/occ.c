// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Peak occupancy of every tier for every setting, in the whole-trace
 * pass.  A page idle through window w since its access in window a is in
 * tier k during w iff d_k < w - a <= d_{k+1}, so occupancy_k(w) is a
 * range sum, over start windows, of the intervals open at the end of w.
 * open[a][rb] counts them by start window and by the r-bin of the access
 * that opened them (tpace's waits depend on it); an access in window n of
 * a page last accessed in a moves one from open[a] to open[n].  At the end
 * of each window its prefix sums (O(W x r-bins)) give every setting's
 * occupancies in O(settings x K).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tier_int.h"

struct mdk__tier_occ {
	const struct mdk__tier_prep *pp;
	uint32_t W, nr, rmax, next;
	const uint32_t *rbin;
	uint32_t *open; /* W x nr */
	uint64_t *cum; /* (nr + 1) x (W + 1): rows >= rb, windows < x */
	uint64_t *peak; /* nset x K */
};

int mdk__tier_occ_new(const struct mdk__tier_prep *pp, const struct mdk_mpc *m,
		      uint32_t W, struct mdk__tier_occ **out)
{
	struct mdk__tier_occ *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->pp = pp;
	o->W = W;
	o->nr = m->g.nr;
	o->rmax = m->rmax;
	o->rbin = m->rbin;
	o->open = calloc((size_t)W * o->nr, sizeof(*o->open));
	o->cum = calloc((size_t)(o->nr + 1) * (W + 1), sizeof(*o->cum));
	o->peak = calloc(pp->nset * pp->K, sizeof(*o->peak));
	if (!o->open || !o->cum || !o->peak) {
		mdk__tier_occ_free(o);
		return -ENOMEM;
	}
	*out = o;
	return 0;
}

void mdk__tier_occ_free(struct mdk__tier_occ *o)
{
	if (!o)
		return;
	free(o->open);
	free(o->cum);
	free(o->peak);
	free(o);
}

void mdk__tier_occ_add(struct mdk__tier_occ *o, uint32_t window,
		       const uint32_t *start, const uint32_t *reuse, size_t n)
{
	uint32_t *now = o->open + (size_t)window * o->nr;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t a = start[i];

		if (a == MDK_NONE) {
			now[o->rbin[MDK_MIN(reuse[i], o->rmax)]]++;
			continue;
		}
		o->open[(size_t)a * o->nr +
			o->rbin[MDK_MIN(reuse[i], o->rmax)]]--;
		now[o->rbin[MDK_MIN(window - a, o->rmax)]]++;
	}
}

/* Intervals of group @grp open since a window < @x. */
static inline uint64_t grp_before(const struct mdk__tier_occ *o, uint32_t ri,
				  unsigned int grp, uint32_t x)
{
	size_t wd = (size_t)o->W + 1;

	return grp ? o->cum[ri * wd + x] : o->cum[x] - o->cum[ri * wd + x];
}

/* The end of window @w: every setting's occupancies against its peaks. */
static void occ_window(struct mdk__tier_occ *o, uint32_t w)
{
	const struct mdk__tier_prep *pp = o->pp;
	size_t wd = (size_t)o->W + 1, i;
	uint32_t x, rb;
	unsigned int grp, k;

	for (rb = o->nr; rb-- > 0;)
		for (x = 0; x < w; x++)
			o->cum[rb * wd + x + 1] =
				o->cum[rb * wd + x] +
				o->open[(size_t)x * o->nr + rb] +
				o->cum[(rb + 1) * wd + x + 1] -
				o->cum[(rb + 1) * wd + x];
	for (i = 0; i < pp->nset; i++) {
		uint64_t occ[MDK_TIERS_MAX] = { 0 };

		for (grp = 0; grp < 2; grp++) {
			const uint64_t *d = pp->d + mdk__tier_ix(pp, i, grp, 0);

			if (grp && pp->ri[i] == o->nr)
				break;
			for (k = 0; k < pp->K && d[k] < w; k++) {
				/* start windows w - d_{k+1} .. w - d_k - 1 */
				uint32_t lo = d[k + 1] >= w ?
						      0 :
						      w - (uint32_t)d[k + 1];
				uint32_t hi = w - (uint32_t)d[k];

				occ[k] += grp_before(o, pp->ri[i], grp, hi) -
					  grp_before(o, pp->ri[i], grp, lo);
			}
		}
		for (k = 0; k < pp->K; k++)
			if (occ[k] > o->peak[i * pp->K + k])
				o->peak[i * pp->K + k] = occ[k];
	}
}

void mdk__tier_occ_until(struct mdk__tier_occ *o, uint32_t w)
{
	for (; o->next < w && o->next < o->W; o->next++)
		occ_window(o, o->next);
}

void mdk__tier_occ_peaks(const struct mdk__tier_occ *o,
			 const struct mdk_tiers *t, struct mdk_tier_point *pts)
{
	const struct mdk__tier_prep *pp = o->pp;
	size_t i;
	unsigned int k;

	for (i = 0; i < pp->nset; i++) {
		pts[i].feasible = true;
		for (k = 0; k < pp->K; k++) {
			pts[i].peak[k] = o->peak[i * pp->K + k];
			if (t->t[k].capacity &&
			    pts[i].peak[k] > t->t[k].capacity)
				pts[i].feasible = false;
		}
	}
}
