// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The page map: 64-bit page ids to compact indices (see internal.h).
 *
 * A leaf covers the 64 ids sharing id >> 6 and gets the 64 indices
 * leaf * 64 .. leaf * 64 + 63 when it is first seen, so a page's index is
 * its leaf's base plus its offset in the leaf.  Leaves appear in the order
 * of their first page, which for a sorted window of clustered ids (a
 * page-table walk, frame numbers of one allocation) is id order: every
 * later window then touches state arrays indexed by page in increasing
 * address order, which the hardware prefetcher streams.  Leaves are found
 * through an open-addressing hash of id >> 6, probed once per leaf change
 * and prefetched a batch ahead.  The price: an isolated page costs 64
 * indices of whatever per-page state a consumer keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define LEAF_SHIFT 6
#define LEAF_IDS (1u << LEAF_SHIFT)
#define MAX_LEAVES (UINT32_MAX >> LEAF_SHIFT)

struct pm_slot {
	uint64_t key; /* leaf key + 1 (0: empty slot) */
	uint32_t leaf; /* leaf number */
};

struct mdk_pagemap {
	struct pm_slot *slot;
	size_t mask; /* hash slots - 1 */
	size_t nleaves;
	size_t leafcap;
	uint64_t *seen; /* per leaf: which of its ids were seen */
	uint64_t *lkey; /* per leaf: its key + 1 */
	size_t lkeycap;
	uint32_t npages;
	uint64_t cur_key; /* leaf key + 1 of the last lookup (0: none) */
	uint32_t cur_leaf;
};

struct mdk_pagemap *mdk__pagemap_new(void)
{
	struct mdk_pagemap *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	pm->mask = 1023;
	pm->slot = calloc(pm->mask + 1, sizeof(*pm->slot));
	if (!pm->slot) {
		mdk__pagemap_free(pm);
		return NULL;
	}
	return pm;
}

void mdk__pagemap_free(struct mdk_pagemap *pm)
{
	if (!pm)
		return;
	free(pm->slot);
	free(pm->seen);
	free(pm->lkey);
	free(pm);
}

uint32_t mdk__pagemap_pages(const struct mdk_pagemap *pm)
{
	return pm->npages;
}

uint64_t mdk__pagemap_slots(const struct mdk_pagemap *pm)
{
	return (uint64_t)pm->nleaves << LEAF_SHIFT;
}

static int pagemap_rehash(struct mdk_pagemap *pm)
{
	size_t nmask = pm->mask * 2 + 1, i;
	struct pm_slot *ns = calloc(nmask + 1, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 0; i <= pm->mask; i++) {
		size_t h;

		if (!pm->slot[i].key)
			continue;
		h = mdk_hash64(pm->slot[i].key) & nmask;
		while (ns[h].key)
			h = (h + 1) & nmask;
		ns[h] = pm->slot[i];
	}
	free(pm->slot);
	pm->slot = ns;
	pm->mask = nmask;
	return 0;
}

/* The leaf of key + 1 = @k, created when missing; -ENOMEM on failure. */
static int64_t pagemap_leaf(struct mdk_pagemap *pm, uint64_t k)
{
	size_t h = mdk_hash64(k) & pm->mask;
	uint32_t leaf;
	int ret;

	while (pm->slot[h].key) {
		if (pm->slot[h].key == k)
			return pm->slot[h].leaf;
		h = (h + 1) & pm->mask;
	}
	if (pm->nleaves >= MAX_LEAVES)
		return -E2BIG;
	ret = mdk_grow((void **)&pm->seen, &pm->leafcap, pm->nleaves + 1,
		       sizeof(*pm->seen));
	if (!ret)
		ret = mdk_grow((void **)&pm->lkey, &pm->lkeycap,
			       pm->nleaves + 1, sizeof(*pm->lkey));
	if (ret)
		return ret;
	leaf = (uint32_t)pm->nleaves++;
	pm->seen[leaf] = 0;
	pm->lkey[leaf] = k;
	pm->slot[h].key = k;
	pm->slot[h].leaf = leaf;
	/* Keep the load under 1/2 for short probe chains. */
	if (pm->nleaves * 2 > pm->mask) {
		ret = pagemap_rehash(pm);
		if (ret)
			return ret;
	}
	return leaf;
}

/*
 * How far ahead (in ids) to prefetch the hash probe of a coming leaf: a
 * few leaves ahead of a dense window.  The probe is the one cache miss.
 */
#define LOOKAHEAD 256

int mdk__pagemap_map(struct mdk_pagemap *pm, const uint64_t *ids, size_t n,
		     uint32_t *out)
{
	uint64_t cur = pm->cur_key, acc = 0, *seen = pm->seen;
	uint32_t cl = pm->cur_leaf, npages = pm->npages;
	size_t i;

	if (cur)
		acc = seen[cl];
	for (i = 0; i < n; i++) {
		uint64_t id = ids[i], k = (id >> LEAF_SHIFT) + 1;
		uint32_t off = (uint32_t)(id & (LEAF_IDS - 1));

		if (mdk_unlikely(k != cur)) {
			uint64_t guess = (uint64_t)cl + (k - cur);
			int64_t l;

			/* Bits are gathered per leaf: no store chain. */
			if (cur)
				seen[cl] = acc;
			/*
			 * Leaves made in id order sit in key order: the leaf
			 * k - cur further on is usually the one (no probe).
			 */
			if (cur && k > cur && guess < pm->nleaves &&
			    pm->lkey[guess] == k) {
				cur = k;
				cl = (uint32_t)guess;
				acc = seen[cl];
				goto mapped;
			}
			if (i + LOOKAHEAD < n)
				__builtin_prefetch(
					&pm->slot[mdk_hash64(
							  (ids[i + LOOKAHEAD] >>
							   LEAF_SHIFT) +
							  1) &
						  pm->mask]);
			l = pagemap_leaf(pm, k);
			if (l < 0) {
				pm->cur_key = 0;
				pm->npages = npages;
				return (int)l;
			}
			seen = pm->seen;
			cur = k;
			cl = (uint32_t)l;
			acc = seen[cl];
		}
mapped:
		npages += !(acc & (1ull << off));
		acc |= 1ull << off;
		out[i] = (cl << LEAF_SHIFT) | off;
	}
	if (cur)
		seen[cl] = acc;
	pm->cur_key = cur;
	pm->cur_leaf = cl;
	pm->npages = npages;
	return 0;
}
