// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The live evaluator's page table: page ids to dense indices (open
 * addressing, linear probing, backward-shift deletion), the pages the
 * daemon reclaimed (and to which tier), and the pages forgotten for good.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "evaluator_int.h"

static struct hslot *hash_find(const struct mdk_eval *e, uint64_t id)
{
	size_t i = mdk_hash64(id) & e->hmask;

	for (;; i = (i + 1) & e->hmask) {
		if (!e->hash[i].key)
			return NULL;
		if (e->hash[i].key == id + 1)
			return &e->hash[i];
	}
}

int mdk__eval_hash_resize(struct mdk_eval *e, size_t slots)
{
	struct hslot *old = e->hash, *n = calloc(slots, sizeof(*n));
	size_t i, oldn = old ? e->hmask + 1 : 0;

	if (!n)
		return -ENOMEM;
	e->hash = n;
	e->hmask = slots - 1;
	for (i = 0; i < oldn; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = mdk_hash64(old[i].key - 1) & e->hmask; n[j].key;
		     j = (j + 1) & e->hmask)
			;
		n[j] = old[i];
	}
	free(old);
	return 0;
}

/* Backward-shift deletion (linear probing keeps no tombstones). */
static void hash_del(struct mdk_eval *e, struct hslot *s)
{
	size_t i = (size_t)(s - e->hash), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & e->hmask;
		if (!e->hash[j].key)
			break;
		home = mdk_hash64(e->hash[j].key - 1) & e->hmask;
		/* Move j back to i unless its home lies in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		e->hash[i] = e->hash[j];
		i = j;
	}
	e->hash[i].key = 0;
	e->hused--;
}

/* The index of @id, a new one if it has none; -ENOMEM. */
int mdk__eval_page_index(struct mdk_eval *e, uint64_t id, uint32_t *out)
{
	struct hslot *s = hash_find(e, id);
	uint32_t idx;
	size_t i;

	if (s) {
		*out = s->idx;
		return 0;
	}
	if ((e->hused + 1) * 2 > e->hmask + 1 &&
	    mdk__eval_hash_resize(e, (e->hmask + 1) * 2))
		return -ENOMEM;
	if (e->nfree) {
		idx = e->freel[--e->nfree];
	} else {
		/* ids, pflags, lastpos grow alike; pcap moves once all have */
		size_t c1 = e->pcap, c2 = e->pcap, c3 = e->pcap,
		       need = (size_t)e->nidx + 1;

		if (e->nidx == UINT32_MAX ||
		    mdk_grow((void **)&e->ids, &c1, need, sizeof(*e->ids)) ||
		    mdk_grow((void **)&e->pflags, &c2, need,
			     sizeof(*e->pflags)) ||
		    mdk_grow((void **)&e->lastpos, &c3, need,
			     sizeof(*e->lastpos)))
			return -ENOMEM;
		e->pcap = c1;
		idx = e->nidx++;
	}
	e->ids[idx] = id;
	e->pflags[idx] = F_USED;
	e->lastpos[idx] = 0;
	for (i = mdk_hash64(id) & e->hmask; e->hash[i].key;
	     i = (i + 1) & e->hmask)
		;
	e->hash[i].key = id + 1;
	e->hash[i].idx = idx;
	e->hused++;
	*out = idx;
	return 0;
}

int mdk_eval_mark_tier(struct mdk_eval *e, const uint64_t *ids, size_t n,
		       unsigned int tier)
{
	size_t i;

	if (tier < 1 || tier > MDK_TIERS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct hslot *s = hash_find(e, ids[i]);

		if (s)
			e->pflags[s->idx] =
				(uint8_t)((e->pflags[s->idx] & ~F_TIER_MASK) |
					  F_RECLAIMED | tier << F_TIER_SHIFT);
	}
	return 0;
}

/* The deepest tier: no tier's pick takes the page again. */
void mdk_eval_mark(struct mdk_eval *e, const uint64_t *ids, size_t n)
{
	mdk_eval_mark_tier(e, ids, n, MDK_TIERS_MAX);
}

const uint64_t *mdk_eval_returned(const struct mdk_eval *e, size_t *n)
{
	*n = e->nret;
	return e->ret;
}

const uint8_t *mdk_eval_returned_tiers(const struct mdk_eval *e,
				       uint64_t *counts)
{
	memcpy(counts, e->retcount, sizeof(e->retcount));
	return e->rettier;
}

size_t mdk_eval_forget(struct mdk_eval *e, bool (*gone)(uint64_t id, void *arg),
		       void *arg)
{
	size_t dropped = 0;
	uint32_t idx;

	for (idx = 0; idx < e->nidx; idx++) {
		if (!(e->pflags[idx] & F_USED) || !gone(e->ids[idx], arg))
			continue;
		if (mdk_grow((void **)&e->freel, &e->freecap, e->nfree + 1,
			     sizeof(*e->freel)))
			break; /* keep it: forgetting is only an optimisation */
		hash_del(e, hash_find(e, e->ids[idx]));
		mdk_stream_forget(e->stream, idx);
		if (e->lopp)
			mdk__lopp_live_forget(e->lopp, idx);
		e->pflags[idx] = 0;
		e->freel[e->nfree++] = idx;
		dropped++;
	}
	return dropped;
}
