// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tiered OPP, one window: the exact optimum without capacities and the
 * two ways of writing it into a solution (opp_int.h).
 *
 * The exact optimum rests on two exchanges (Documentation/mdk.rst,
 * "Tiered OPP"): a tier that saves no more than a cheaper (or as cheap)
 * one is never worth using, so the tiers left have rising costs and
 * savings; and for given counts per tier the largest gaps go to the most
 * saving tier, the next ones to the next tier, and so on.  What is left
 * is a search over the count vectors, the cheapest tier taking all the
 * budget the others leave.
 */
#include <string.h>

#include "../internal.h"
#include "opp_int.h"

void topp_tiers_init(struct topp_tiers *tt, const struct mdk_tiers *t)
{
	unsigned int i, j;

	memset(tt, 0, sizeof(*tt));
	tt->t = t;
	for (i = 0; i < t->n; i++) {
		const struct mdk_tier *x = &t->t[i];

		tt->capped |= x->capacity != 0;
		/* Costs do not decrease down the list: a kept tier saving
		 * as much is no dearer, so x is dominated. */
		if (tt->nq && t->t[tt->q[tt->nq - 1]].save_ppm >= x->save_ppm)
			continue;
		/* x saves more at the same cost: the last kept is dominated */
		while (tt->nq && t->t[tt->q[tt->nq - 1]].cost_ns == x->cost_ns)
			tt->nq--;
		tt->q[tt->nq++] = i;
	}
	/* Insertion sort: the most saving first, then the cheaper. */
	for (i = 0; i < t->n; i++) {
		for (j = i; j > 0; j--) {
			const struct mdk_tier *a = &t->t[tt->order[j - 1]];
			const struct mdk_tier *b = &t->t[i];

			if (a->save_ppm > b->save_ppm ||
			    (a->save_ppm == b->save_ppm &&
			     a->cost_ns <= b->cost_ns))
				break;
			tt->order[j] = tt->order[j - 1];
		}
		tt->order[j] = i;
	}
	tt->tail = 0;
	for (i = 1; i < t->n; i++)
		if (t->t[i].save_ppm >= t->t[tt->tail].save_ppm)
			tt->tail = i;
}

/* The best count vector so far, and what a window's search needs. */
struct search {
	const uint64_t *P;
	uint64_t m, c[MDK_TIERS_MAX], s[MDK_TIERS_MAX];
	unsigned int nq;
	bool found;
	uint64_t sav, cost, n[MDK_TIERS_MAX];
};

/* Savings of counts @n per level, the top level taking the largest gaps. */
static uint64_t level_savings(const struct search *q, const uint64_t *n)
{
	uint64_t at = 0, sav = 0;
	unsigned int l;

	for (l = q->nq; l-- > 0;) {
		sav += q->s[l] * (q->P[at + n[l]] - q->P[at]);
		at += n[l];
	}
	return sav;
}

/*
 * The counts of the upper levels in @n, the cheapest level takes what
 * the budget @r leaves (each more interval saves at least s_1 > 0);
 * kept if it beats the best (ties: the least stall, else the first).
 */
static void consider(struct search *q, uint64_t *n, uint64_t r)
{
	uint64_t used = 0, sav, cost = 0;
	unsigned int l;

	for (l = 1; l < q->nq; l++)
		used += n[l];
	n[0] = MDK_MIN(q->m - used, r / q->c[0]);
	sav = level_savings(q, n);
	for (l = 0; l < q->nq; l++)
		cost += q->c[l] * n[l];
	if (!q->found || sav > q->sav || (sav == q->sav && cost < q->cost)) {
		q->found = true;
		q->sav = sav;
		q->cost = cost;
		memcpy(q->n, n, sizeof(q->n));
	}
}

#define BLOCK 8

/*
 * Three levels, the top count @nt fixed, budget @r left: the middle
 * counts @lo..@hi.  With h in the middle and T(h) intervals sent in all,
 * the savings are (s_3 - s_2) P[nt] + (s_2 - s_1) P[nt + h] + s_1 P[T(h)],
 * and T does not grow with h (c_2 >= c_1), so a range [lo, hi] saves at
 * most that with P[nt + hi] and P[T(lo)]: a range whose bound is below
 * the best cannot hold it, nor change the scan's choice, and is skipped;
 * others are halved, the lower half first, as a plain scan goes.
 */
static void scan_middle(struct search *q, uint64_t nt, uint64_t r, uint64_t lo,
			uint64_t hi)
{
	const uint64_t *P = q->P;
	uint64_t T = MDK_MIN(q->m, nt + lo + (r - q->c[1] * lo) / q->c[0]);
	uint64_t n[MDK_TIERS_MAX], h;

	if (q->found && (q->s[2] - q->s[1]) * P[nt] +
					(q->s[1] - q->s[0]) * P[nt + hi] +
					q->s[0] * P[T] <
				q->sav)
		return;
	if (hi - lo >= BLOCK) {
		scan_middle(q, nt, r, lo, lo + (hi - lo) / 2);
		scan_middle(q, nt, r, lo + (hi - lo) / 2 + 1, hi);
		return;
	}
	for (h = lo; h <= hi; h++) {
		n[2] = nt;
		n[1] = h;
		consider(q, n, r - q->c[1] * h);
	}
}

void topp_solve(const struct topp_tiers *tt, const struct topp_window *w,
		uint64_t budget, uint64_t cnt[MDK_TIERS_MAX])
{
	struct search q = { .P = w->P, .m = w->m, .nq = tt->nq };
	uint64_t n[MDK_TIERS_MAX] = { 0 }, nt, top_lim;
	unsigned int l, top = q.nq - 1;

	memset(cnt, 0, MDK_TIERS_MAX * sizeof(*cnt));
	for (l = 0; l < q.nq; l++) {
		q.c[l] = tt->t->t[tt->q[l]].cost_ns;
		q.s[l] = tt->t->t[tt->q[l]].save_ppm;
	}
	if (q.nq == 1) {
		/* Every interval saves: as many as the budget pays for. */
		cnt[tt->q[0]] = MDK_MIN(q.m, budget / q.c[0]);
		return;
	}
	top_lim = MDK_MIN(q.m, budget / q.c[top]);
	for (nt = 0; nt <= top_lim; nt++) {
		uint64_t r = budget - q.c[top] * nt;

		if (q.nq == 3) {
			scan_middle(&q, nt, r, 0,
				    MDK_MIN(q.m - nt, r / q.c[1]));
			continue;
		}
		n[1] = nt;
		consider(&q, n, r);
	}
	for (l = 0; l < q.nq; l++)
		cnt[tt->q[l]] = q.n[l];
}

/*
 * The window's intervals in runs of one gap and one tier: the largest
 * gaps first, each tier (the most saving first) taking its count, the
 * rest kept (tier -1).
 */
struct seg_it {
	const struct topp_tiers *tt;
	const struct topp_window *w;
	uint64_t left[MDK_TIERS_MAX];
	unsigned int i; /* in tt->order */
	uint32_t g;
	uint64_t x; /* intervals of gap g not yet given out */
};

static void seg_init(struct seg_it *it, const struct topp_tiers *tt,
		     const struct topp_window *w,
		     const uint64_t cnt[MDK_TIERS_MAX])
{
	memset(it, 0, sizeof(*it));
	it->tt = tt;
	it->w = w;
	memcpy(it->left, cnt, sizeof(it->left));
	it->g = w->gmax + 1;
}

static bool seg_next(struct seg_it *it, uint32_t *g, int *k, uint64_t *x)
{
	unsigned int nt = it->tt->t->n;

	while (!it->x) {
		if (it->g <= 1)
			return false;
		it->g--;
		it->x = it->w->hist[it->g];
	}
	while (it->i < nt && !it->left[it->tt->order[it->i]])
		it->i++;
	*g = it->g;
	if (it->i == nt) {
		*k = -1;
		*x = it->x;
	} else {
		unsigned int kk = it->tt->order[it->i];

		*k = (int)kk;
		*x = MDK_MIN(it->x, it->left[kk]);
		it->left[kk] -= *x;
	}
	it->x -= *x;
	return true;
}

/* @x intervals of gap @g ending in @w->n into tier @k. */
static void put(const struct topp_tiers *tt, const struct topp_window *w,
		struct topp_sol *s, unsigned int k, uint32_t g, uint64_t x)
{
	const struct mdk_tier *t = &tt->t->t[k];
	uint32_t lo = w->n - g, v;

	if (!x)
		return;
	/* sent at once: in tier k in windows n - g .. n - 1 */
	s->diff[k][lo] += (int64_t)x;
	s->diff[k][w->n] -= (int64_t)x;
	if (s->occ[k])
		for (v = lo; v < w->n; v++)
			s->occ[k][v] += x;
	s->saved_ppm += (uint64_t)t->save_ppm * g * x;
	if (s->logging) {
		if (mdk_grow((void **)&s->log, &s->logcap, s->nlog + 1,
			     sizeof(*s->log)))
			s->nomem = true;
		else
			s->log[s->nlog++] =
				(struct topp_place){ w->n, g, k, x };
	}
	if (!w->tails) {
		s->stall[w->n] += t->cost_ns * x;
		s->prom[w->n] += x;
		s->tprom[k] += x;
	}
}

/* Intervals of gap @g ending in @w->n that tier @k still holds. */
static uint64_t room(const struct topp_tiers *tt, const struct topp_window *w,
		     const struct topp_sol *s, unsigned int k, uint32_t g)
{
	uint64_t cap = tt->t->t[k].capacity, peak = 0;
	uint32_t v;

	if (!cap || !s->occ[k])
		return UINT64_MAX;
	for (v = w->n - g; v < w->n; v++)
		peak = MDK_MAX(peak, s->occ[k][v]);
	return peak >= cap ? 0 : cap - peak;
}

void topp_commit_all(const struct topp_tiers *tt, const struct topp_window *w,
		     const uint64_t cnt[MDK_TIERS_MAX], struct topp_sol *s)
{
	struct seg_it it;
	uint64_t x;
	uint32_t g;
	int k;

	seg_init(&it, tt, w, cnt);
	while (seg_next(&it, &g, &k, &x))
		if (k >= 0)
			put(tt, w, s, (unsigned int)k, g, x);
}

void topp_commit_repair(const struct topp_tiers *tt,
			const struct topp_window *w,
			const uint64_t cnt[MDK_TIERS_MAX], uint64_t budget,
			struct topp_sol *s)
{
	const struct mdk_tier *t = tt->t->t;
	uint64_t S = 0, x; /* stall committed + stall still assigned */
	struct seg_it it;
	unsigned int i;
	uint32_t g;
	int k;

	for (i = 0; i < tt->t->n && !w->tails; i++)
		S += t[i].cost_ns * cnt[i];
	seg_init(&it, tt, w, cnt);
	while (seg_next(&it, &g, &k, &x)) {
		if (k >= 0) {
			uint64_t take = MDK_MIN(x, room(tt, w, s, k, g));

			put(tt, w, s, (unsigned int)k, g, take);
			x -= take;
			/* the rest is displaced: its stall is free again */
			if (!w->tails)
				S -= t[k].cost_ns * x;
		}
		for (i = 0; x && i < tt->t->n; i++) {
			unsigned int j = tt->order[i];
			uint64_t take = w->tails ? x :
						   (budget - S) / t[j].cost_ns;

			take = MDK_MIN(MDK_MIN(x, take), room(tt, w, s, j, g));
			put(tt, w, s, j, g, take);
			if (!w->tails)
				S += t[j].cost_ns * take;
			x -= take;
		}
	}
}
