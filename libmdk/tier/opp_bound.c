// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tiered OPP with capacities: a Lagrangian bound tighter than dropping
 * the capacities (Documentation/mdk.rst, "Tiered OPP").
 *
 * Each capacity constraint, occupancy_k(w) <= C_k, gets a price
 * lambda_k,w >= 0; an interval of gap g ending in n sent to tier k then
 * saves s_k g minus the prices of the windows n - g .. n - 1 it occupies,
 * and the bound is the sum of lambda_k,w C_k plus, per window, the best
 * choice within its stall budget at these values.  That choice is a
 * multiple-choice knapsack; its linear relaxation, solved greedily on
 * the upper convex hull of each interval's (cost, value) options, only
 * raises the bound, so every price vector gives a valid bound.
 * Subgradient steps move the prices by the excess occupancy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "opp_int.h"

#define ITERS 120

/* One step along a group's hull: @x units, each +@dc ns and +@dv. */
struct inc {
	double eff, dc, dv;
	uint64_t x;
	size_t seq; /* keeps a group's steps in hull order on ties */
	int from, to; /* tiers, -1: DRAM */
	uint32_t n, g;
};

struct lag {
	const struct topp_tiers *tt;
	uint32_t W;
	double *lam[MDK_TIERS_MAX], *pre[MDK_TIERS_MAX], *occ[MDK_TIERS_MAX];
	struct inc *inc;
	size_t ninc, cap;
};

static int cmp_inc(const void *a, const void *b)
{
	const struct inc *x = a, *y = b;

	if (x->eff != y->eff)
		return x->eff > y->eff ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Tier @k's value for an interval of gap @g ending in @n, at the prices. */
static double value(const struct lag *l, unsigned int k, uint32_t n, uint32_t g)
{
	double v = (double)l->tt->t->t[k].save_ppm * g;

	if (l->lam[k])
		v -= l->pre[k][n] - l->pre[k][n - g];
	return v;
}

/* @t units of gap @g ending in @n enter tier @k (negative: leave it). */
static void occupy(struct lag *l, int k, uint32_t n, uint32_t g, double t)
{
	if (k < 0 || !l->occ[k])
		return;
	l->occ[k][n - g] += t;
	l->occ[k][n] -= t;
}

/* The steps of group @gr's upper hull of (cost, value) options. */
static int hull(struct lag *l, const struct topp_group *gr)
{
	const struct mdk_tier *t = l->tt->t->t;
	double hc[MDK_TIERS_MAX + 1] = { 0 }, hv[MDK_TIERS_MAX + 1] = { 0 };
	int ht[MDK_TIERS_MAX + 1] = { -1 };
	unsigned int i, h = 1;

	/* tiers come in non-decreasing cost order */
	for (i = 0; i < l->tt->t->n; i++) {
		double c = (double)t[i].cost_ns, v = value(l, i, gr->n, gr->g);

		if (v <= hv[h - 1])
			continue; /* no more value for no less cost */
		if (c == hc[h - 1])
			h--; /* same cost, more value */
		/* drop a middle point on or under the chord */
		while (h >= 2 &&
		       (hv[h - 1] - hv[h - 2]) * (c - hc[h - 1]) <=
			       (v - hv[h - 1]) * (hc[h - 1] - hc[h - 2]))
			h--;
		hc[h] = c;
		hv[h] = v;
		ht[h++] = (int)i;
	}
	for (i = 1; i < h; i++) {
		struct inc *s;

		if (mdk_grow((void **)&l->inc, &l->cap, l->ninc + 1,
			     sizeof(*l->inc)))
			return -ENOMEM;
		s = &l->inc[l->ninc++];
		s->dc = hc[i] - hc[i - 1];
		s->dv = hv[i] - hv[i - 1];
		s->eff = s->dv / s->dc;
		s->x = gr->x;
		s->seq = l->ninc;
		s->from = ht[i - 1];
		s->to = ht[i];
		s->n = gr->n;
		s->g = gr->g;
	}
	return 0;
}

/* The tails: no cost, each to its most valuable tier if it gains. */
static double tails(struct lag *l, const struct topp_group *gr)
{
	double best = 0;
	int bk = -1;
	unsigned int k;

	for (k = 0; k < l->tt->t->n; k++) {
		double v = value(l, k, gr->n, gr->g);

		if (v > best) {
			best = v;
			bk = (int)k;
		}
	}
	occupy(l, bk, gr->n, gr->g, (double)gr->x);
	return best * (double)gr->x;
}

/* Window @n's linear program within @b ns: its value, occupancy noted. */
static double window_lp(struct lag *l, double b)
{
	double val = 0;
	size_t i;

	qsort(l->inc, l->ninc, sizeof(*l->inc), cmp_inc);
	for (i = 0; i < l->ninc && b > 0; i++) {
		struct inc *s = &l->inc[i];
		double take = fmin((double)s->x, b / s->dc);

		val += take * s->dv;
		b -= take * s->dc;
		occupy(l, s->from, s->n, s->g, -take);
		occupy(l, s->to, s->n, s->g, take);
	}
	return val;
}

/* The bound at the current prices; occupancy differences in l->occ. */
static int evaluate(struct lag *l, const struct topp_group *gr, size_t ng,
		    const uint64_t *budget, double *L)
{
	const struct mdk_tier *t = l->tt->t->t;
	unsigned int k;
	size_t i = 0, j;
	uint32_t w;

	*L = 0;
	for (k = 0; k < l->tt->t->n; k++) {
		if (!l->lam[k])
			continue;
		l->pre[k][0] = 0;
		for (w = 0; w < l->W; w++) {
			l->pre[k][w + 1] = l->pre[k][w] + l->lam[k][w];
			*L += l->lam[k][w] * (double)t[k].capacity;
		}
		memset(l->occ[k], 0, ((size_t)l->W + 1) * sizeof(double));
	}
	while (i < ng) {
		uint32_t n = gr[i].n;

		l->ninc = 0;
		for (j = i; j < ng && gr[j].n == n; j++) {
			if (n == l->W)
				*L += tails(l, &gr[j]);
			else if (hull(l, &gr[j]))
				return -ENOMEM;
		}
		if (n < l->W)
			*L += window_lp(l, (double)budget[n]);
		i = j;
	}
	return 0;
}

/* A subgradient step of length @theta (L - @lower) / |excess|^2. */
static bool step(struct lag *l, double L, double lower, double theta)
{
	const struct mdk_tier *t = l->tt->t->t;
	double norm = 0, occ, d;
	unsigned int k;
	uint32_t w;

	for (k = 0; k < l->tt->t->n; k++)
		for (w = 0, occ = 0; l->lam[k] && w < l->W; w++) {
			occ += l->occ[k][w];
			d = occ - (double)t[k].capacity;
			if (d > 0 || l->lam[k][w] > 0)
				norm += d * d;
		}
	if (norm <= 0)
		return false;
	for (k = 0; k < l->tt->t->n; k++)
		for (w = 0, occ = 0; l->lam[k] && w < l->W; w++) {
			occ += l->occ[k][w];
			d = occ - (double)t[k].capacity;
			l->lam[k][w] = fmax(
				0, l->lam[k][w] + theta * fmax(L - lower, 1) *
							  d / norm);
		}
	return true;
}

static void lag_free(struct lag *l)
{
	unsigned int k;

	for (k = 0; k < MDK_TIERS_MAX; k++) {
		free(l->lam[k]);
		free(l->pre[k]);
		free(l->occ[k]);
	}
	free(l->inc);
}

int topp_lagrange(const struct topp_tiers *tt, const struct topp_group *gr,
		  size_t ng, uint32_t W, const uint64_t *budget, double lower,
		  double *bound)
{
	struct lag l = { .tt = tt, .W = W };
	double theta = 2, L;
	unsigned int k, it, stale = 0;
	int ret = 0;

	for (k = 0; k < tt->t->n; k++) {
		if (!tt->t->t[k].capacity)
			continue;
		l.lam[k] = calloc(W, sizeof(double));
		l.pre[k] = calloc((size_t)W + 1, sizeof(double));
		l.occ[k] = calloc((size_t)W + 1, sizeof(double));
		if (!l.lam[k] || !l.pre[k] || !l.occ[k])
			ret = -ENOMEM;
	}
	*bound = INFINITY;
	for (it = 0; !ret && it < ITERS; it++) {
		ret = evaluate(&l, gr, ng, budget, &L);
		if (ret)
			break;
		if (L < *bound) {
			*bound = L;
			stale = 0;
		} else if (++stale >= 5) {
			theta /= 2; /* no progress: shorter steps */
			stale = 0;
		}
		if (L <= lower || !step(&l, L, lower, theta))
			break; /* the bound meets a schedule: optimal */
	}
	lag_free(&l);
	return ret;
}
