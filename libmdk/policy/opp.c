// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OPP(rho): the optimal policy under the promotion-rate limit rho in every
 * window.  For each window n, the floor(rho * U(n)) intervals ending in n
 * with the largest gaps (g >= 1; a gap of 0 saves nothing) are reclaimed
 * right after their previous access; every tail is reclaimed at once.  No
 * policy whose every window rate is at most rho saves more: window n's
 * promotions are at most floor(rho * U(n)) intervals ending in n, each
 * saving at most its gap.
 *
 * rho is kept in parts per million, so the budget is the exact integer
 * floor(rho_ppm * U / 10^6) and floating point cannot lose a unit.
 *
 * Curve: each window's row is its exact gap histogram; per rho, a binary
 * search on the row's suffix counts finds the cut, and the suffix sums of
 * lengths give the savings of the largest gaps.
 */
#include <mdk/trace.h>

#include "../policy_int.h"

static uint64_t opp_budget(const uint64_t *v, uint64_t accessed)
{
	return v[0] * accessed / 1000000u;
}

/* 0, 0.1% .. 5% in 0.1% steps, then 6% .. 100% in 1% steps. */
static int opp_default(uint64_t windows, struct mdk_grid *g)
{
	int ret = mdk__grid_range(g, 0, 50000, 1000);

	return ret ? ret : mdk__grid_range(g, 60000, 1000000, 10000);
}

static void opp_row(const struct mdk_gen *g, const uint64_t *S,
		    const uint32_t *row, uint64_t accessed, uint64_t *prom,
		    uint64_t *saved)
{
	const struct mdk_grid *rho = &g->pol->grid[0];
	uint32_t ng = g->ng, x;
	uint64_t *L = g->scratch; /* L[x] = sum of lengths of gaps >= x */
	size_t j;

	L[ng] = 0;
	for (x = ng; x-- > 0;)
		L[x] = L[x + 1] + (uint64_t)row[x] * x;
	for (j = 0; j < rho->n; j++) {
		uint64_t b = opp_budget(&rho->v[j], accessed);
		uint32_t lo = 1, hi = ng - 1;

		/* S[x] (row 0) = number of gaps >= x, non-increasing in x. */
		if (b == 0 || ng < 2) {
			prom[j] = 0;
			continue;
		}
		if (S[1] <= b) {
			prom[j] = S[1];
			saved[j] += L[1];
			continue;
		}
		/* The largest x >= 1 with S[x] >= b (S[1] > b: it exists). */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo + 1) / 2;

			if (S[mid] >= b)
				lo = mid;
			else
				hi = mid - 1;
		}
		prom[j] = b;
		saved[j] += L[lo + 1] + (b - S[lo + 1]) * lo;
	}
}

static void opp_saved(const struct mdk_gen *g, const uint64_t *Gc,
		      const uint64_t *Gs, const uint64_t *Tc,
		      const uint64_t *Ts, uint64_t *saved)
{
	size_t j;

	for (j = 0; j < g->nset; j++)
		saved[j] += Ts[0];
}

const struct mdk_policy_ops mdk_policy_opp = {
	.name = "opp",
	.help = "OPP(rho): the optimal policy with at most rho promotions per accessed page in every window (offline)",
	.kind = MDK_POLICY_BUDGET,
	.nparams = 1,
	.params = {
		{ .key = "rho", .help = "promotion-rate limit, a fraction (0.01 or 1%)",
		  .type = MDK_PARAM_FRACTION, .min = 0, .max = 1000000,
		  .dflt = opp_default },
	},
	.budget = opp_budget,
	.gen_r = MDK_GEN_NONE,
	.gen_g = MDK_GEN_EXACT,
	.gen_row = opp_row,
	.gen_saved = opp_saved,
};
