// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's features (mdk/lopp.h): per page and per 2 MiB region, the last
 * MDK_LOPP_HISTORY reuse distances, the share of windows with an access
 * since the first and the accesses of the last MDK_LOPP_RECENT windows.
 * None grows with the trace's age, so that a model fitted on early
 * windows meets the same ranges later (a count or an age since the first
 * access would lie beyond any the training windows showed, where a tree
 * is flat).  A reuse distance not had yet counts as MDK_LOPP_RECENT
 * windows, not 0: a page never seen back within them is more like a cold
 * page than a hot one, and a logistic model's weight of a distance has
 * one sign.
 *
 * A region's state moves on when the first of its pages is accessed in a
 * new window, so every page of a region accessed in window w sees the
 * region's reuse distance to its previous window -- whichever chunk of the
 * window the page comes in.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "../policy_int.h"

/* Accesses ahead whose page history is prefetched. */
#define PREFETCH 16

struct hist {
	uint32_t last1; /* last access window + 1; 0: never */
	uint32_t first; /* window of the first access */
	uint32_t count; /* accesses (windows, for a region) */
	uint32_t recent; /* bit k: an access in window last - k (32 bits) */
	uint32_t r[MDK_LOPP_HISTORY]; /* reuse distances, newest first */
};

struct mdk_lopp_feat {
	struct hist *page, *region;
	size_t npage, nregion; /* entries allocated */
	struct mdk_pagemap *rmap; /* region ids -> region indices */
	uint64_t *rids;
	uint32_t *ridx;
	size_t rcap, ridxcap;
	uint32_t window; /* newest window fed */
	/*
	 * log2(1 + x) for x = 0..nlg-1: every count feature is of windows
	 * up to the newest, so a table replaces 12 log2() calls an access.
	 */
	float *lg;
	size_t nlg, lgcap;
	float unseen; /* log2(1 + MDK_LOPP_RECENT) */
};

static const char *const names[MDK_LOPP_FEATURES] = {
	"page_reuse1",	 "page_reuse2",	  "page_reuse3",   "page_reuse4",
	"page_rate",	 "page_recent",	  "region_reuse1", "region_reuse2",
	"region_reuse3", "region_reuse4", "region_rate",   "region_recent",
};

const char *mdk_lopp_feature_name(unsigned int i)
{
	return i < MDK_LOPP_FEATURES ? names[i] : NULL;
}

int mdk_lopp_feat_new(struct mdk_lopp_feat **out)
{
	struct mdk_lopp_feat *f = calloc(1, sizeof(*f));

	if (!f || !(f->rmap = mdk__pagemap_new())) {
		free(f);
		return -ENOMEM;
	}
	f->unseen = (float)log2(1.0 + MDK_LOPP_RECENT);
	*out = f;
	return 0;
}

void mdk_lopp_feat_free(struct mdk_lopp_feat *f)
{
	if (!f)
		return;
	free(f->page);
	free(f->region);
	mdk__pagemap_free(f->rmap);
	free(f->rids);
	free(f->ridx);
	free(f->lg);
	free(f);
}

size_t mdk_lopp_feat_memory(const struct mdk_lopp_feat *f)
{
	return (f->npage + f->nregion) * sizeof(struct hist) +
	       f->rcap * sizeof(*f->rids) + f->ridxcap * sizeof(*f->ridx) +
	       f->lgcap * sizeof(*f->lg);
}

/* Make room for index @i in *@h (*@n entries), zero-filled. */
static int hist_grow(struct hist **h, size_t *n, uint32_t i)
{
	if (i < *n)
		return 0;
	return mdk__grow_zeroed((void **)h, n, (size_t)i + 1, sizeof(**h));
}

/* An access in window @w: move @h on. */
static void hist_access(struct hist *h, uint32_t w)
{
	if (!h->last1) {
		h->first = w;
		h->recent = 1;
	} else {
		uint32_t d = w - (h->last1 - 1);
		unsigned int k;

		for (k = MDK_LOPP_HISTORY - 1; k > 0; k--)
			h->r[k] = h->r[k - 1];
		h->r[0] = d;
		h->recent = (d < MDK_LOPP_RECENT ? h->recent << d : 0) | 1;
	}
	h->count++;
	h->last1 = w + 1;
}

/* log2(1 + x) for x = 0..@w+1 in f->lg. */
static int lg_grow(struct mdk_lopp_feat *f, uint32_t w)
{
	size_t need = (size_t)w + 2;

	if (need <= f->nlg)
		return 0;
	if (mdk_grow((void **)&f->lg, &f->lgcap, need, sizeof(*f->lg)))
		return -ENOMEM;
	for (; f->nlg < f->lgcap; f->nlg++)
		f->lg[f->nlg] = (float)log2(1.0 + (double)f->nlg);
	return 0;
}

/* Bits set in @v, inline: without -mpopcnt the builtin is a call. */
static inline unsigned int popcount32(uint32_t v)
{
	v -= (v >> 1) & 0x55555555u;
	v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
	return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* Right after an access in window @w; a reuse distance is at most @w. */
static void hist_row(const struct mdk_lopp_feat *f, const struct hist *h,
		     uint32_t w, float *x)
{
	unsigned int k;

	for (k = 0; k < MDK_LOPP_HISTORY; k++)
		x[k] = h->r[k] ? f->lg[h->r[k]] : f->unseen;
	x[MDK_LOPP_HISTORY] = (float)h->count / (float)(w - h->first + 1);
	x[MDK_LOPP_HISTORY + 1] = f->lg[popcount32(h->recent)];
}

int mdk_lopp_feat_add(struct mdk_lopp_feat *f, uint32_t window,
		      const uint64_t *ids, const uint32_t *pages, size_t n,
		      float *x, char *err, size_t errlen)
{
	size_t i, nr = 0, run;
	uint32_t rprev = 0;

	if (window < f->window)
		return mdk_err(err, errlen, -EINVAL,
			       "features: window %u after window %u", window,
			       f->window);
	f->window = window;
	if (lg_grow(f, window) ||
	    mdk_grow((void **)&f->rids, &f->rcap, n, sizeof(*f->rids)) ||
	    mdk_grow((void **)&f->ridx, &f->ridxcap, n, sizeof(*f->ridx)))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	/* Neighbours mostly share a region: map each run's region once. */
	for (i = 0; i < n; i++) {
		uint64_t rid = ids[i] >> MDK_LOPP_REGION_SHIFT;

		if (!nr || rid != f->rids[nr - 1])
			f->rids[nr++] = rid;
	}
	if (mdk__pagemap_map(f->rmap, f->rids, nr, f->ridx))
		return mdk_err(err, errlen, -ENOMEM,
			       "out of memory for the regions");
	for (i = 0, run = 0; i < n; i++) {
		uint32_t p = pages[i], r;
		struct hist *ph, *rh;

		if (i && ids[i] >> MDK_LOPP_REGION_SHIFT != f->rids[run])
			run++;
		r = f->ridx[run];

		/* A page's history is mostly a cache miss: ask for it early. */
		if (i + PREFETCH < n && pages[i + PREFETCH] < f->npage)
			__builtin_prefetch(&f->page[pages[i + PREFETCH]], 1);

		if (hist_grow(&f->page, &f->npage, p) ||
		    hist_grow(&f->region, &f->nregion, r))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		ph = &f->page[p];
		rh = &f->region[r];
		if (ph->last1 == window + 1)
			return mdk_err(err, errlen, -EINVAL,
				       "features: page %u twice in window %u",
				       p, window);
		hist_access(ph, window);
		if (rh->last1 != window + 1)
			hist_access(rh, window);
		hist_row(f, ph, window, x + i * MDK_LOPP_FEATURES);
		/* The region's half is the last row's when in the same region. */
		if (i && r == rprev)
			memcpy(x + i * MDK_LOPP_FEATURES + MDK_LOPP_HISTORY + 2,
			       x + (i - 1) * MDK_LOPP_FEATURES +
				       MDK_LOPP_HISTORY + 2,
			       (MDK_LOPP_HISTORY + 2) * sizeof(*x));
		else
			hist_row(f, rh, window,
				 x + i * MDK_LOPP_FEATURES + MDK_LOPP_HISTORY +
					 2);
		rprev = r;
	}
	return 0;
}

void mdk_lopp_feat_forget(struct mdk_lopp_feat *f, uint32_t page)
{
	if (page < f->npage)
		memset(&f->page[page], 0, sizeof(f->page[page]));
}
