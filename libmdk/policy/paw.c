// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PAW(P; wait): a page whose prior reuse distance (the window of the access
 * minus that of the access before it) is above P is reclaimed after @wait
 * idle windows; others, and pages after their first access (no prior
 * reuse), are kept.  The default wait is 2 windows (1 minute at 30 s).
 *
 * Curve: intervals binned by reuse along the P grid and by length along
 * the wait grid; setting (P_i, wait_j) is the 2-D suffix from (i+1, j+1).
 */
#include <mdk/trace.h>

#include "../policy_int.h"

static int64_t paw_wait(const uint64_t *v, uint32_t reuse, uint32_t len,
			bool tail)
{
	/* reuse 0 (a first access) is never above P >= 0 */
	return reuse > v[0] ? (int64_t)v[1] : MDK_KEEP;
}

static int paw_default_wait(uint64_t windows, struct mdk_grid *g)
{
	return mdk__grid_one(g, 2);
}

void mdk__gen_above_row(const struct mdk_gen *g, const uint64_t *S,
			const uint32_t *row, uint64_t accessed, uint64_t *prom,
			uint64_t *saved)
{
	size_t i, j, n0 = g->rgrid->n, n1 = g->ggrid->n;

	for (i = 0; i < n0; i++)
		for (j = 0; j < n1; j++)
			prom[i * n1 + j] =
				S[mdk__S(g, (uint32_t)i + 1, (uint32_t)j + 1)];
}

void mdk__gen_above_saved(const struct mdk_gen *g, const uint64_t *Gc,
			  const uint64_t *Gs, const uint64_t *Tc,
			  const uint64_t *Ts, uint64_t *saved)
{
	size_t i, j, n0 = g->rgrid->n, n1 = g->ggrid->n;

	for (i = 0; i < n0; i++)
		for (j = 0; j < n1; j++) {
			size_t k = mdk__S(g, (uint32_t)i + 1, (uint32_t)j + 1);
			uint64_t d = g->ggrid->v[j];

			saved[i * n1 + j] +=
				Gs[k] - d * Gc[k] + Ts[k] - d * Tc[k];
		}
}

const struct mdk_policy_ops mdk_policy_paw = {
	.name = "paw",
	.help = "PAW(P; wait): reclaim after wait idle windows a page whose prior reuse distance is above P",
	.kind = MDK_POLICY_INTERVAL,
	.nparams = 2,
	.params = {
		{ .key = "P", .help = "prior reuse distance a page must exceed (>= 0)",
		  .type = MDK_PARAM_WINDOWS, .min = 0,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = mdk__grid_thresholds },
		{ .key = "wait", .help = "idle windows before reclaim (default 2)",
		  .type = MDK_PARAM_WINDOWS, .min = 0,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = paw_default_wait },
	},
	.wait = paw_wait,
	.online = true,
	.gen_r = 0,
	.gen_g = 1,
	.gen_row = mdk__gen_above_row,
	.gen_saved = mdk__gen_above_saved,
};
