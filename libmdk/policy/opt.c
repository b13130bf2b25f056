// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OPT(k): Belady's optimal memory of k pages, which on a miss with a full
 * memory evicts the page whose next reference is farthest in the future
 * (or never comes).  It needs the whole reference string: references are
 * kept (4 bytes each), their next-use times computed backwards, then each
 * size is one pass with a max-heap of resident pages keyed by next use,
 * O(N log k).
 *
 * On a hit the page's key was the current time (its previous reference's
 * next use) and becomes a later time, so only a sift-up is needed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../policy_int.h"

#define NEVER UINT32_MAX

struct opt {
	uint32_t *refs;
	size_t n, cap;
	uint32_t pages; /* 1 + the largest page index */
};

static int opt_new(void **state)
{
	struct opt *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	*state = o;
	return 0;
}

static void opt_free(void *state)
{
	struct opt *o = state;

	if (!o)
		return;
	free(o->refs);
	free(o);
}

static int opt_refs(void *state, const uint32_t *pages, size_t n)
{
	struct opt *o = state;
	size_t i;

	if (n > NEVER - 1 - o->n)
		return -E2BIG;
	if (mdk_grow((void **)&o->refs, &o->cap, o->n + n, sizeof(*o->refs)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		o->refs[o->n++] = pages[i];
		if (pages[i] >= o->pages)
			o->pages = pages[i] + 1;
	}
	return 0;
}

struct heap {
	uint32_t *key, *page, *where; /* where[page] = index + 1, 0: absent */
	uint32_t n;
};

static void heap_swap(struct heap *h, uint32_t a, uint32_t b)
{
	uint32_t k = h->key[a], p = h->page[a];

	h->key[a] = h->key[b];
	h->page[a] = h->page[b];
	h->key[b] = k;
	h->page[b] = p;
	h->where[h->page[a]] = a + 1;
	h->where[h->page[b]] = b + 1;
}

static void heap_up(struct heap *h, uint32_t i)
{
	while (i && h->key[(i - 1) / 2] < h->key[i]) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && h->key[l] > h->key[m])
			m = l;
		if (r < h->n && h->key[r] > h->key[m])
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static uint64_t opt_run(const struct opt *o, const uint32_t *next,
			uint64_t size, uint64_t distinct, struct heap *h)
{
	uint64_t misses = 0;
	size_t i;

	if (size >= distinct)
		return distinct; /* everything fits: compulsory misses only */
	memset(h->where, 0, (size_t)o->pages * sizeof(*h->where));
	h->n = 0;
	for (i = 0; i < o->n; i++) {
		uint32_t p = o->refs[i], w = h->where[p];

		if (w) {
			h->key[w - 1] = next[i];
			heap_up(h, w - 1);
			continue;
		}
		misses++;
		if (h->n == size) {
			/* Evict the farthest next use. */
			h->where[h->page[0]] = 0;
			h->page[0] = p;
			h->key[0] = next[i];
			h->where[p] = 1;
			heap_down(h, 0);
		} else {
			h->key[h->n] = next[i];
			h->page[h->n] = p;
			h->where[p] = ++h->n;
			heap_up(h, h->n - 1);
		}
	}
	return misses;
}

static int opt_misses(void *state, const struct mdk_policy *p, uint64_t *misses)
{
	const struct mdk_grid *k = &p->grid[0];
	struct opt *o = state;
	uint32_t *next, *seen;
	struct heap h = { 0 };
	size_t i, j;
	uint64_t kmax = 0, distinct = 0;
	int ret = -ENOMEM;

	for (j = 0; j < k->n; j++)
		kmax = MDK_MAX(kmax, MDK_MIN(k->v[j], (uint64_t)o->n));
	next = malloc((o->n + 1) * sizeof(*next));
	seen = malloc(((size_t)o->pages + 1) * sizeof(*seen));
	h.key = malloc((kmax + 1) * sizeof(*h.key));
	h.page = malloc((kmax + 1) * sizeof(*h.page));
	h.where = malloc(((size_t)o->pages + 1) * sizeof(*h.where));
	if (!next || !seen || !h.key || !h.page || !h.where)
		goto out;
	for (i = 0; i < o->pages; i++)
		seen[i] = NEVER;
	for (i = o->n; i-- > 0;) {
		next[i] = seen[o->refs[i]];
		seen[o->refs[i]] = (uint32_t)i;
	}
	/* Page indices are compact, not dense: count the pages. */
	for (i = 0; i < o->pages; i++)
		distinct += seen[i] != NEVER;
	for (j = 0; j < k->n; j++)
		misses[j] = opt_run(o, next, k->v[j], distinct, &h);
	ret = 0;
out:
	free(next);
	free(seen);
	free(h.key);
	free(h.page);
	free(h.where);
	return ret;
}

/* Every size up to 16 pages, else 16 log-spaced sizes. */
static int opt_default(uint64_t pages, struct mdk_grid *g)
{
	if (pages <= 16)
		return mdk__grid_range(g, 1, pages ? pages : 1, 1);
	return mdk__grid_logspace(g, 1, pages, 16);
}

const struct mdk_policy_ops mdk_policy_opt = {
	.name = "opt",
	.help = "OPT(k): k pages, evict the page referenced farthest in the future (Belady; mdkctl mrc)",
	.kind = MDK_POLICY_CACHE,
	.nparams = 1,
	.params = {
		{ .key = "k", .help = "memory size in pages",
		  .type = MDK_PARAM_PAGES, .min = 1, .max = UINT32_MAX,
		  .dflt = opt_default },
	},
	.cache_new = opt_new,
	.cache_refs = opt_refs,
	.cache_misses = opt_misses,
	.cache_free = opt_free,
};
