// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Parameter grids: sorted lists of distinct values, built value by value
 * from a spec or as the policies' default ranges and log-spaced grids.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mdk/policy.h>

#include "policy_int.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void mdk__grid_free(struct mdk_grid *g)
{
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

/* Append @v; the grid is sorted and deduplicated by mdk__grid_finish(). */
int mdk__grid_push(struct mdk_grid *g, size_t *cap, uint64_t v)
{
	if (g->n >= MDK_MAX_GRID)
		return -E2BIG;
	if (mdk_grow((void **)&g->v, cap, g->n + 1, sizeof(*g->v)))
		return -ENOMEM;
	g->v[g->n++] = v;
	return 0;
}

void mdk__grid_finish(struct mdk_grid *g)
{
	size_t i, k = 0;

	qsort(g->v, g->n, sizeof(*g->v), cmp_u64);
	for (i = 0; i < g->n; i++)
		if (!k || g->v[i] != g->v[k - 1])
			g->v[k++] = g->v[i];
	g->n = k;
}

int mdk__grid_range(struct mdk_grid *g, uint64_t lo, uint64_t hi, uint64_t step)
{
	size_t cap = g->n;
	uint64_t v;
	int ret;

	for (v = lo; v <= hi; v += step) {
		ret = mdk__grid_push(g, &cap, v);
		if (ret)
			return ret;
		if (hi - v < step)
			break;
	}
	mdk__grid_finish(g);
	return 0;
}

int mdk__grid_one(struct mdk_grid *g, uint64_t v)
{
	size_t cap = g->n;
	int ret = mdk__grid_push(g, &cap, v);

	if (!ret)
		mdk__grid_finish(g);
	return ret;
}

/* About @n values from @lo to @hi, spaced evenly on a log scale. */
int mdk__grid_logspace(struct mdk_grid *g, uint64_t lo, uint64_t hi, size_t n)
{
	size_t cap = g->n, i;
	int ret;

	if (hi <= lo || n < 2)
		return mdk__grid_one(g, lo);
	for (i = 0; i < n; i++) {
		double x = exp(log((double)lo) +
			       (log((double)hi) - log((double)lo)) * (double)i /
				       (double)(n - 1));
		uint64_t v = (uint64_t)llround(x);

		ret = mdk__grid_push(g, &cap, MDK_MIN(MDK_MAX(v, lo), hi));
		if (ret)
			return ret;
	}
	mdk__grid_finish(g);
	return 0;
}

/*
 * Every threshold 1..W-1 (just 1 for a trace too short to have gaps); for
 * traces over 4097 windows, 512 log-spaced thresholds, which keeps a
 * curve's histograms at W x 513 counters instead of W^2.
 */
int mdk__grid_thresholds(uint64_t windows, struct mdk_grid *g)
{
	if (windows > 4097)
		return mdk__grid_logspace(g, 1, windows - 1, 512);
	return mdk__grid_range(g, 1, windows > 2 ? windows - 1 : 1, 1);
}
