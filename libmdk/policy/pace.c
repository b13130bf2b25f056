// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PACE(P, A): reclaim right after the access (d = 0) a page whose prior
 * reuse distance is above P, otherwise after A idle windows (d = A).  An
 * access without a prior reuse distance (the page's first) is "not above
 * P": it waits A.
 *
 * Curve: intervals binned by reuse along the P grid and by length along
 * the A grid.  For (P_i, A_j) the promotions are everything with r-bin
 * > i plus the (r-bin <= i, g-bin > j) block, both read off the 2-D
 * suffix sums S: S(i+1, 0) + S(0, j+1) - S(i+1, j+1).  Savings: full
 * lengths of the first part, lengths minus A of the second.
 */
#include <mdk/trace.h>

#include "../policy_int.h"

static int64_t pace_wait(const uint64_t *v, uint32_t reuse, uint32_t len,
			 bool tail)
{
	return reuse > v[0] ? 0 : (int64_t)v[1];
}

/* Full grids up to 257 windows, 64 log-spaced values beyond. */
static int pace_default(uint64_t windows, struct mdk_grid *g)
{
	if (windows <= 257)
		return mdk__grid_thresholds(windows, g);
	return mdk__grid_logspace(g, 1, windows - 1, 64);
}

static void pace_row(const struct mdk_gen *g, const uint64_t *S,
		     const uint32_t *row, uint64_t accessed, uint64_t *prom,
		     uint64_t *saved)
{
	size_t i, j, n0 = g->rgrid->n, n1 = g->ggrid->n;

	for (i = 0; i < n0; i++) {
		uint64_t above = S[mdk__S(g, (uint32_t)i + 1, 0)];
		const uint64_t *Si = S + mdk__S(g, (uint32_t)i + 1, 1);
		const uint64_t *S0 = S + mdk__S(g, 0, 1);
		uint64_t *pi = prom + i * n1;

		for (j = 0; j < n1; j++)
			pi[j] = above + S0[j] - Si[j];
	}
}

static void pace_saved(const struct mdk_gen *g, const uint64_t *Gc,
		       const uint64_t *Gs, const uint64_t *Tc,
		       const uint64_t *Ts, uint64_t *saved)
{
	size_t i, j, n0 = g->rgrid->n, n1 = g->ggrid->n;

	for (i = 0; i < n0; i++) {
		size_t a = mdk__S(g, (uint32_t)i + 1, 0);
		uint64_t full = Gs[a] + Ts[a];

		for (j = 0; j < n1; j++) {
			size_t k0 = mdk__S(g, 0, (uint32_t)j + 1);
			size_t ki = mdk__S(g, (uint32_t)i + 1, (uint32_t)j + 1);
			uint64_t A = g->ggrid->v[j];
			uint64_t len = Gs[k0] - Gs[ki] + Ts[k0] - Ts[ki];
			uint64_t cnt = Gc[k0] - Gc[ki] + Tc[k0] - Tc[ki];

			saved[i * n1 + j] += full + len - A * cnt;
		}
	}
}

const struct mdk_policy_ops mdk_policy_pace = {
	.name = "pace",
	.help = "PACE(P, A): reclaim at once a page whose prior reuse distance is above P, else after A idle windows",
	.kind = MDK_POLICY_INTERVAL,
	.nparams = 2,
	.params = {
		{ .key = "P", .help = "prior reuse distance above which a page goes at once (>= 0)",
		  .type = MDK_PARAM_WINDOWS, .min = 0,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = pace_default },
		{ .key = "A", .help = "idle windows before reclaiming the other pages (>= 0)",
		  .type = MDK_PARAM_WINDOWS, .min = 0,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = pace_default },
	},
	.wait = pace_wait,
	.online = true,
	.gen_r = 0,
	.gen_g = 1,
	.gen_row = pace_row,
	.gen_saved = pace_saved,
};
