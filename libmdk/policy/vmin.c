// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * VMIN(T): the offline policy that reclaims right after the access (d = 0)
 * every interval whose gap is at least T, keeps shorter ones, and
 * reclaims every tail at once.  It promotes exactly the intervals AGE(T)
 * promotes and saves T windows more on each, so it bounds what any
 * idle-time threshold can do.
 *
 * Curve: AGE's bins; savings are sum(g) over the g >= T suffix plus every
 * tail's full length.
 */
#include <mdk/trace.h>

#include "../policy_int.h"

static int64_t vmin_wait(const uint64_t *v, uint32_t reuse, uint32_t len,
			 bool tail)
{
	return tail || len >= v[0] ? 0 : MDK_KEEP;
}

static void vmin_row(const struct mdk_gen *g, const uint64_t *S,
		     const uint32_t *row, uint64_t accessed, uint64_t *prom,
		     uint64_t *saved)
{
	size_t j;

	for (j = 0; j < g->ggrid->n; j++)
		prom[j] = S[mdk__S(g, 0, (uint32_t)j + 1)];
}

static void vmin_saved(const struct mdk_gen *g, const uint64_t *Gc,
		       const uint64_t *Gs, const uint64_t *Tc,
		       const uint64_t *Ts, uint64_t *saved)
{
	size_t j;

	for (j = 0; j < g->ggrid->n; j++)
		saved[j] +=
			Gs[mdk__S(g, 0, (uint32_t)j + 1)] + Ts[mdk__S(g, 0, 0)];
}

const struct mdk_policy_ops mdk_policy_vmin = {
	.name = "vmin",
	.help = "VMIN(T): reclaim at once every gap of at least T windows, and every tail (offline)",
	.kind = MDK_POLICY_INTERVAL,
	.nparams = 1,
	.params = {
		{ .key = "T", .help = "shortest gap reclaimed (>= 1)",
		  .type = MDK_PARAM_WINDOWS, .min = 1,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = mdk__grid_thresholds },
	},
	.wait = vmin_wait,
	.gen_r = MDK_GEN_NONE,
	.gen_g = 0,
	.gen_row = vmin_row,
	.gen_saved = vmin_saved,
};
