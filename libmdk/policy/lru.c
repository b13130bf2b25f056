// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LRU(k): a memory of k pages evicting the least recently referenced.
 * Every size at once by Mattson's stack distances: the distance of a
 * reference is 1 + the number of distinct pages referenced since the
 * previous reference to the same page; LRU(k) misses exactly the
 * references with distance > k (and the first reference of each page).
 *
 * Distances come from a Fenwick tree over time slots that marks, for each
 * page, the slot of its last reference: the distance is the number of
 * marks after the page's slot, plus one.  When the slots run out they are
 * renumbered in order (O(M)), and the tree keeps 2M slots, so the cost is
 * O(log M) a reference.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../policy_int.h"

struct lru {
	uint32_t *pos; /* page -> slot of its last reference (0: none) */
	size_t poscap;
	uint32_t *fen; /* Fenwick tree over slots 1..cap */
	uint32_t *slotpage; /* slot -> page + 1 (0: free) */
	uint32_t cap, now, live;
	uint64_t *hist; /* hist[d]: references at stack distance d */
	size_t histcap;
	uint64_t cold;
};

static void fen_add(uint32_t *f, uint32_t cap, uint32_t i, uint32_t v)
{
	for (; i <= cap; i += i & -i)
		f[i] += v;
}

static uint32_t fen_sum(const uint32_t *f, uint32_t i)
{
	uint32_t s = 0;

	for (; i; i -= i & -i)
		s += f[i];
	return s;
}

static int lru_new(void **state)
{
	struct lru *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	*state = l;
	return 0;
}

static void lru_free(void *state)
{
	struct lru *l = state;

	if (!l)
		return;
	free(l->pos);
	free(l->fen);
	free(l->slotpage);
	free(l->hist);
	free(l);
}

/* Renumber the live slots 1..live in order and size the tree to 2 live. */
static int lru_compact(struct lru *l)
{
	uint32_t ncap, k = 0, i;
	uint32_t *sp, *fen;

	if (l->live > UINT32_MAX / 2 - 1024)
		return -E2BIG;
	ncap = MDK_MAX(1024u, 2 * (l->live + 1));
	sp = calloc((size_t)ncap + 1, sizeof(*sp));
	fen = calloc((size_t)ncap + 1, sizeof(*fen));
	if (!sp || !fen) {
		free(sp);
		free(fen);
		return -ENOMEM;
	}
	for (i = 1; i <= l->now; i++) {
		uint32_t pg = l->slotpage[i];

		if (!pg)
			continue;
		sp[++k] = pg;
		l->pos[pg - 1] = k;
	}
	/* Linear Fenwick build over k marks. */
	for (i = 1; i <= ncap; i++) {
		uint32_t j = i + (i & -i);

		fen[i] += i <= k;
		if (j <= ncap)
			fen[j] += fen[i];
	}
	free(l->slotpage);
	free(l->fen);
	l->slotpage = sp;
	l->fen = fen;
	l->cap = ncap;
	l->now = k;
	return 0;
}

static int lru_refs(void *state, const uint32_t *pages, size_t n)
{
	struct lru *l = state;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		uint32_t pg = pages[i], t, old;

		if (pg >= l->poscap &&
		    mdk__grow_zeroed((void **)&l->pos, &l->poscap,
				     (size_t)pg + 1, sizeof(*l->pos)))
			return -ENOMEM;
		if (l->now == l->cap) {
			ret = lru_compact(l);
			if (ret)
				return ret;
		}
		t = ++l->now;
		old = l->pos[pg];
		if (old) {
			uint64_t d =
				(uint64_t)(l->live - fen_sum(l->fen, old)) + 1;

			if (d >= l->histcap) {
				size_t oc = l->histcap;

				if (mdk_grow((void **)&l->hist, &l->histcap,
					     d + 1, sizeof(*l->hist)))
					return -ENOMEM;
				memset(l->hist + oc, 0,
				       (l->histcap - oc) * sizeof(*l->hist));
			}
			l->hist[d]++;
			fen_add(l->fen, l->cap, old, (uint32_t)-1);
			l->slotpage[old] = 0;
		} else {
			l->cold++;
			l->live++;
		}
		fen_add(l->fen, l->cap, t, 1);
		l->slotpage[t] = pg + 1;
		l->pos[pg] = t;
	}
	return 0;
}

static int lru_misses(void *state, const struct mdk_policy *p, uint64_t *misses)
{
	struct lru *l = state;
	const struct mdk_grid *k = &p->grid[0];
	uint64_t *above; /* above[d] = references at distance > d */
	size_t d, j, n = l->histcap;

	above = calloc(n + 1, sizeof(*above));
	if (!above)
		return -ENOMEM;
	for (d = n; d-- > 0;)
		above[d] = above[d + 1] + (d + 1 < n ? l->hist[d + 1] : 0);
	for (j = 0; j < k->n; j++)
		misses[j] = l->cold + (k->v[j] < n ? above[k->v[j]] : 0);
	free(above);
	return 0;
}

/* Every size up to 4096 pages, 512 log-spaced sizes beyond. */
static int lru_default(uint64_t pages, struct mdk_grid *g)
{
	if (pages <= 4096)
		return mdk__grid_range(g, 1, pages ? pages : 1, 1);
	return mdk__grid_logspace(g, 1, pages, 512);
}

const struct mdk_policy_ops mdk_policy_lru = {
	.name = "lru",
	.help = "LRU(k): k pages, evict the least recently referenced (mdkctl mrc)",
	.kind = MDK_POLICY_CACHE,
	.nparams = 1,
	.params = {
		{ .key = "k", .help = "memory size in pages",
		  .type = MDK_PARAM_PAGES, .min = 1, .max = UINT32_MAX,
		  .dflt = lru_default },
	},
	.cache_new = lru_new,
	.cache_refs = lru_refs,
	.cache_misses = lru_misses,
	.cache_free = lru_free,
};
