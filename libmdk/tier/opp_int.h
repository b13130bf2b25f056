/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tiered OPP's internals (libmdk/tier/opp*.c): one window's exact
 * problem and how its answer is written into a solution, as the upper
 * bound takes it or as the schedule repairs it.  Definitions and proofs:
 * Documentation/mdk.rst, "Tiered OPP".
 */
#ifndef MDK_TIER_OPP_INT_H
#define MDK_TIER_OPP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <mdk/tier.h>

#pragma GCC visibility push(hidden)

/* A budget this large is no bound: sums of three costs within it fit. */
#define TOPP_BUDGET_MAX (UINT64_C(1) << 62)

struct topp_tiers {
	const struct mdk_tiers *t;
	/* the undominated tiers, cheapest first: costs and savings rise */
	unsigned int nq;
	unsigned int q[MDK_TIERS_MAX];
	/* every tier, the most saving first (ties: the cheaper first) */
	unsigned int order[MDK_TIERS_MAX];
	unsigned int tail; /* the most saving tier (ties: the deepest) */
	bool capped; /* some tier has a capacity */
};

/* What one window offers: its intervals' gaps, largest first. */
struct topp_window {
	uint32_t n; /* the window; W for the tails */
	bool tails; /* no promotion, no cost, no budget */
	const uint64_t *hist; /* hist[g]: intervals of gap g, 1..gmax */
	uint32_t gmax;
	uint64_t m; /* intervals with g >= 1 */
	/* P[j]: the sum of the j largest gaps, j = 0..m (nq >= 2 only) */
	const uint64_t *P;
};

/* @x intervals of gap @g ending in window @n (W: tails) put in tier @k. */
struct topp_place {
	uint32_t n, g;
	unsigned int k;
	uint64_t x;
};

/* A solution over the whole trace: per window and per tier. */
struct topp_sol {
	uint64_t *stall; /* W: ns of stall */
	uint64_t *prom; /* W: promotions */
	int64_t *diff[MDK_TIERS_MAX]; /* W + 1: occupancy differences */
	uint64_t *occ[MDK_TIERS_MAX]; /* W: a capped tier's occupancy */
	uint64_t saved_ppm; /* page-windows x s_k, in ppm */
	uint64_t tprom[MDK_TIERS_MAX];
	/* every placement, when logging (mdk__tier_opp_log()) */
	bool logging, nomem;
	struct topp_place *log;
	size_t nlog, logcap;
};

/* The undominated tiers, the repair's order and the tails' tier of @t. */
void topp_tiers_init(struct topp_tiers *tt, const struct mdk_tiers *t);

/*
 * The exact optimum of window @w within @budget ns: how many of its
 * intervals go to each tier of the list, in @cnt (the largest gaps to
 * the most saving tier).  Ties: the least stall, then the fewest
 * intervals in the most expensive tiers.
 */
void topp_solve(const struct topp_tiers *tt, const struct topp_window *w,
		uint64_t budget, uint64_t cnt[MDK_TIERS_MAX]);

/* Write @cnt's assignment of @w into @s as it is (the upper bound). */
void topp_commit_all(const struct topp_tiers *tt, const struct topp_window *w,
		     const uint64_t cnt[MDK_TIERS_MAX], struct topp_sol *s);

/*
 * Write @cnt's assignment of @w into @s within every capacity and
 * @budget: an interval whose tier is full over its windows moves to the
 * most saving tier with room that the budget affords, or stays in DRAM;
 * then the budget left sends kept intervals down the same way.
 */
void topp_commit_repair(const struct topp_tiers *tt,
			const struct topp_window *w,
			const uint64_t cnt[MDK_TIERS_MAX], uint64_t budget,
			struct topp_sol *s);

/* @x intervals of gap @g that end in window @n (W: tails). */
struct topp_group {
	uint32_t n, g;
	uint64_t x;
};

/*
 * A Lagrangian bound on the savings (ppm page-windows) of every
 * schedule within the capacities and the budgets @budget[0..@W-1], for
 * the groups @gr (in window order, tails last): the capacities priced
 * per tier and window, each window's choice relaxed to its linear
 * program, the prices improved by subgradient steps towards @lower (a
 * feasible schedule's savings).  *@bound is the least bound met.
 * Returns 0 or -ENOMEM.
 */
int topp_lagrange(const struct topp_tiers *tt, const struct topp_group *gr,
		  size_t ng, uint32_t W, const uint64_t *budget, double lower,
		  double *bound);

/*
 * mdk__tier_opp_log() - mdk_tier_opp() at one @sigma, and every placement
 * of its schedule (the bound's without capacities) in a malloc'ed array
 * *@log of *@n (caller frees), for tests that check the schedule
 * themselves.  Returns as mdk_tier_opp().
 */
int mdk__tier_opp_log(const char *trace, double sigma,
		      const struct mdk_tier_opts *o,
		      struct mdk_tier_point *sched, struct topp_place **log,
		      size_t *n, char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* MDK_TIER_OPP_INT_H */
