// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * AGE(T), T >= 1: reclaim a page once it has been idle for T windows, i.e.
 * wait d = T for every interval.  A gap g >= T saves g - T windows and
 * causes one promotion; a tail t >= T saves t - T.
 *
 * Curve: intervals binned by length along the T grid; "g >= T_j" is the
 * suffix from bin j + 1, so each window's promotions for every T are one
 * suffix sum of its row, and savings are sum(g) - T * count over that
 * suffix, for gaps and tails alike.
 */
#include <mdk/trace.h>

#include "../policy_int.h"

static int64_t age_wait(const uint64_t *v, uint32_t reuse, uint32_t len,
			bool tail)
{
	return (int64_t)v[0];
}

static void age_row(const struct mdk_gen *g, const uint64_t *S,
		    const uint32_t *row, uint64_t accessed, uint64_t *prom,
		    uint64_t *saved)
{
	size_t j;

	for (j = 0; j < g->ggrid->n; j++)
		prom[j] = S[mdk__S(g, 0, (uint32_t)j + 1)];
}

static void age_saved(const struct mdk_gen *g, const uint64_t *Gc,
		      const uint64_t *Gs, const uint64_t *Tc,
		      const uint64_t *Ts, uint64_t *saved)
{
	size_t j;

	for (j = 0; j < g->ggrid->n; j++) {
		size_t k = mdk__S(g, 0, (uint32_t)j + 1);
		uint64_t T = g->ggrid->v[j];

		saved[j] += Gs[k] - T * Gc[k] + Ts[k] - T * Tc[k];
	}
}

const struct mdk_policy_ops mdk_policy_age = {
	.name = "age",
	.help = "AGE(T): reclaim a page after T idle windows",
	.kind = MDK_POLICY_INTERVAL,
	.nparams = 1,
	.params = {
		{ .key = "T", .help = "idle windows before reclaim (>= 1)",
		  .type = MDK_PARAM_WINDOWS, .min = 1,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = mdk__grid_thresholds },
	},
	.wait = age_wait,
	.online = true,
	.budget = NULL,
	.gen_r = MDK_GEN_NONE,
	.gen_g = 0,
	.gen_row = age_row,
	.gen_saved = age_saved,
};
