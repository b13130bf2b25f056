// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The page map: 64-bit page ids to dense indices (see internal.h).
 *
 * A leaf covers the 64 ids sharing id >> 6 and holds their dense indices
 * (MDK_PAGEMAP_NONE until seen).  Leaves are found through an open
 * addressing hash of the leaf key, so the cost is one hash probe per leaf
 * change: for a sorted window of clustered ids (a page-table walk, virtual
 * or physical frame numbers) that is once every few dozen ids, and the
 * leaves themselves are read in order.  Sparse ids cost a leaf (256 bytes)
 * each: correct, but an id space with no locality at all pays for it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define LEAF_SHIFT 6
#define LEAF_IDS (1u << LEAF_SHIFT)
#define NONE UINT32_MAX

struct mdk_pagemap {
	uint64_t *keys;  /* leaf key + 1 (0: empty slot) */
	uint32_t *vals;  /* leaf number */
	size_t mask;     /* hash slots - 1 */
	size_t nleaves;
	size_t leafcap;
	uint32_t *leaves; /* nleaves x LEAF_IDS dense indices */
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
	pm->keys = calloc(pm->mask + 1, sizeof(*pm->keys));
	pm->vals = calloc(pm->mask + 1, sizeof(*pm->vals));
	if (!pm->keys || !pm->vals) {
		mdk__pagemap_free(pm);
		return NULL;
	}
	return pm;
}

void mdk__pagemap_free(struct mdk_pagemap *pm)
{
	if (!pm)
		return;
	free(pm->keys);
	free(pm->vals);
	free(pm->leaves);
	free(pm);
}

uint32_t mdk__pagemap_pages(const struct mdk_pagemap *pm)
{
	return pm->npages;
}

static int pagemap_rehash(struct mdk_pagemap *pm)
{
	size_t nmask = pm->mask * 2 + 1, i;
	uint64_t *keys = calloc(nmask + 1, sizeof(*keys));
	uint32_t *vals = calloc(nmask + 1, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i <= pm->mask; i++) {
		size_t h;

		if (!pm->keys[i])
			continue;
		h = mdk__hash64(pm->keys[i]) & nmask;
		while (keys[h])
			h = (h + 1) & nmask;
		keys[h] = pm->keys[i];
		vals[h] = pm->vals[i];
	}
	free(pm->keys);
	free(pm->vals);
	pm->keys = keys;
	pm->vals = vals;
	pm->mask = nmask;
	return 0;
}

/* The leaf of key + 1 = @k, created when missing; -ENOMEM on failure. */
static int64_t pagemap_leaf(struct mdk_pagemap *pm, uint64_t k)
{
	size_t h = mdk__hash64(k) & pm->mask;
	uint32_t leaf;
	int ret;

	while (pm->keys[h]) {
		if (pm->keys[h] == k)
			return pm->vals[h];
		h = (h + 1) & pm->mask;
	}
	if (pm->nleaves >= UINT32_MAX / LEAF_IDS)
		return -ENOMEM;
	ret = mdk__grow((void **)&pm->leaves, &pm->leafcap,
			(pm->nleaves + 1) * LEAF_IDS, sizeof(*pm->leaves));
	if (ret)
		return ret;
	leaf = (uint32_t)pm->nleaves++;
	memset(pm->leaves + (size_t)leaf * LEAF_IDS, 0xff,
	       LEAF_IDS * sizeof(*pm->leaves));
	pm->keys[h] = k;
	pm->vals[h] = leaf;
	/* Keep the load under 1/2 for short probe chains. */
	if (pm->nleaves * 2 > pm->mask) {
		ret = pagemap_rehash(pm);
		if (ret)
			return ret;
	}
	return leaf;
}

int mdk__pagemap_map(struct mdk_pagemap *pm, const uint64_t *ids, size_t n,
		     uint32_t *out)
{
	uint64_t cur = pm->cur_key;
	uint32_t *leaf = cur ? pm->leaves + (size_t)pm->cur_leaf * LEAF_IDS
			     : NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = (ids[i] >> LEAF_SHIFT) + 1;
		uint32_t *slot;

		if (mdk_unlikely(k != cur)) {
			int64_t l = pagemap_leaf(pm, k);

			if (l < 0)
				return (int)l;
			cur = k;
			pm->cur_key = k;
			pm->cur_leaf = (uint32_t)l;
			leaf = pm->leaves + (size_t)l * LEAF_IDS;
		}
		slot = &leaf[ids[i] & (LEAF_IDS - 1)];
		if (mdk_unlikely(*slot == NONE)) {
			if (pm->npages == NONE - 1)
				return -ENOMEM;
			*slot = pm->npages++;
		}
		out[i] = *slot;
	}
	return 0;
}
