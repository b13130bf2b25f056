// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SWARM-KV's operations: the per-node replica index, the client's cache
 * of where each key lives, and the public operations, which locate a key
 * and hand it to the protocol (safeguess.c, abd.c, raw.c).  The store and
 * clients are set up in store.c.
 *
 * The index is a hash table of buckets of SW_WAYS ways on every node.  A
 * key is claimed in a node's index by a CAS of its tag into the claim word
 * of the first free way of its probe sequence; nodes claim independently,
 * so no agreement across nodes is needed (a same-node race on one way is
 * settled by the CAS, and the loser of a different key moves on).  Ways
 * are never freed: a deleted key keeps its way (a tombstone), reused when
 * it is inserted again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swarm_int.h"

unsigned int sw_popcount(uint32_t m)
{
	return (unsigned int)__builtin_popcount(m);
}

unsigned int sw_participants(struct mdk_swarm_client *c, struct sw_kent *ke)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < c->s->n; i++)
		if (c->b[i].answered && ke->way[i] >= 0)
			k++;
	return k;
}

/* Cache */

#define SW_CHUNK 1024

static struct sw_kent **cache_slot(struct sw_kent **tab, size_t mask,
				   uint64_t tag, uint64_t tag2)
{
	for (size_t i = tag & mask;; i = (i + 1) & mask)
		if (!tab[i] || (tab[i]->tag == tag && tab[i]->tag2 == tag2))
			return &tab[i];
}

static struct sw_kent *cache_get(struct mdk_swarm_client *c, uint64_t tag,
				 uint64_t tag2, bool create)
{
	struct sw_kent **slot = cache_slot(c->cache, c->cache_mask, tag, tag2);
	struct sw_kent *ke;

	if (*slot || !create)
		return *slot;
	if ((c->cache_used + 1) * 2 > c->cache_mask + 1) {
		size_t cap = (c->cache_mask + 1) * 2;
		struct sw_kent **tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return NULL;
		for (size_t i = 0; i <= c->cache_mask; i++)
			if (c->cache[i])
				*cache_slot(tab, cap - 1, c->cache[i]->tag,
					    c->cache[i]->tag2) = c->cache[i];
		free(c->cache);
		c->cache = tab;
		c->cache_mask = cap - 1;
		slot = cache_slot(tab, cap - 1, tag, tag2);
	}
	if (!c->nchunks || c->chunk_used == SW_CHUNK) {
		if (mdk_grow((void **)&c->chunks, &c->chunks_cap,
			     c->nchunks + 1, sizeof(*c->chunks)))
			return NULL;
		c->chunks[c->nchunks] = calloc(SW_CHUNK, sizeof(**c->chunks));
		if (!c->chunks[c->nchunks])
			return NULL;
		c->nchunks++;
		c->chunk_used = 0;
	}
	ke = &c->chunks[c->nchunks - 1][c->chunk_used++];
	ke->tag = tag;
	ke->tag2 = tag2;
	for (unsigned int n = 0; n < MDK_SWARM_MAX_NODES; n++)
		ke->way[n] = -1;
	*slot = ke;
	c->cache_used++;
	return ke;
}

static uint64_t key_tag(const void *key, size_t klen)
{
	return sw_hash(key, klen, 0x6d646b) | 1;
}

static uint64_t key_tag2(const void *key, size_t klen)
{
	return sw_hash(key, klen, 0x2f1a77e3) | 1;
}

/* Does the way meta at @m hold our key? */
static bool way_is(struct mdk_swarm_client *c, const uint8_t *m, uint64_t tag)
{
	const uint64_t *claim = (const uint64_t *)m;
	const uint64_t *klen = (const uint64_t *)(m + c->s->h.key_off);

	if (*claim != tag)
		return false;
	/* Key bytes are written after the claim: trust the tag until then. */
	return !*klen ||
	       (*klen == c->klen && !memcmp(klen + 1, c->keyimg + 1, c->klen));
}

static uint64_t bucket_off(struct mdk_swarm *s, uint64_t tag, unsigned int p)
{
	uint64_t b = (tag / 2 + p) % s->h.nbuckets;

	return sw_meta(s, (int32_t)(b * SW_WAYS));
}

/* Did the nodes that know the key or answered make a majority? */
static bool enough(struct mdk_swarm_client *c)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < c->s->n; i++)
		k += c->b[i].answered || !c->b[i].n;
	return k >= c->s->quorum && !(c->s->n > 1 && k == 0);
}

/*
 * Find the key in the indexes of the nodes that do not know it yet, and
 * with @claim, claim a way where it is absent.  Nodes that do not answer,
 * or whose buckets are full, stay unknown.
 */
int sw_locate(struct mdk_swarm_client *c, struct sw_kent *ke, bool claim)
{
	struct mdk_swarm *s = c->s;
	int32_t freeway[MDK_SWARM_MAX_NODES];
	unsigned int probe[MDK_SWARM_MAX_NODES] = { 0 };

	for (unsigned int attempt = 0; attempt < 2 * SW_PROBES + 4; attempt++) {
		bool want = false, tryclaim = false;
		struct sw_op *op[MDK_SWARM_MAX_NODES] = { 0 };
		int ret;

		sw_round_begin(c);
		for (unsigned int i = 0; i < s->n; i++) {
			freeway[i] = -1;
			if (ke->way[i] >= 0 || probe[i] >= SW_PROBES)
				continue;
			sw_add_rd(c, i, bucket_off(s, ke->tag, probe[i]),
				  c->scratch[i], SW_WAYS * s->h.meta_size);
			want = true;
		}
		if (!want)
			return 0;
		ret = sw_round(c);
		if (ret < 0)
			return ret;
		if (!enough(c))
			return -EIO;
		for (unsigned int i = 0; i < s->n; i++) {
			uint64_t base;

			if (!c->b[i].n || !c->b[i].answered)
				continue;
			base = bucket_off(s, ke->tag, probe[i]);
			for (unsigned int w = 0; w < SW_WAYS; w++) {
				const uint8_t *m =
					c->scratch[i] + w * s->h.meta_size;

				if (way_is(c, m, ke->tag)) {
					ke->way[i] =
						(int32_t)((base -
							   s->h.meta_off) /
								  s->h.meta_size +
							  w);
					break;
				}
				if (!*(const uint64_t *)m && freeway[i] < 0)
					freeway[i] =
						(int32_t)((base -
							   s->h.meta_off) /
								  s->h.meta_size +
							  w);
			}
			if (ke->way[i] < 0 && freeway[i] < 0)
				probe[i]++; /* bucket full: next one */
			if (ke->way[i] < 0 && freeway[i] >= 0 && claim)
				tryclaim = true;
		}
		if (!tryclaim)
			continue;
		sw_round_begin(c);
		for (unsigned int i = 0; i < s->n; i++)
			if (ke->way[i] < 0 && freeway[i] >= 0)
				op[i] = sw_add_cas(c, i, sw_meta(s, freeway[i]),
						   0, ke->tag);
		ret = sw_round(c);
		if (ret < 0)
			return ret;
		for (unsigned int i = 0; i < s->n; i++) {
			if (!op[i] || !c->b[i].answered)
				continue;
			if (op[i]->old == 0 || op[i]->old == ke->tag) {
				ke->way[i] = freeway[i];
				ke->key_todo[i] = op[i]->old == 0;
			}
		}
	}
	return 0;
}

/*
 * The quorum read of both protocols: one round that reads the key's way
 * meta (or its buckets where its way is unknown) on every node, into
 * c->view.  With @bg the round also carries the client's background
 * posts (Safe-Guess's VER bits).  Where too few nodes knew the key, its
 * buckets wrapped around the index: look it up and read once more.
 * Fewer than a majority answering means the store is gone (-EIO).
 */
int sw_read_quorum(struct mdk_swarm_client *c, struct sw_kent *ke, bool bg)
{
	int ret;

	sw_round_begin(c);
	if (bg)
		sw_add_bg(c);
	sw_add_read_meta(c, ke);
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	if (bg)
		sw_bg_done(c);
	sw_view_build(c, ke, c->view);
	if (sw_popcount(c->view->answered) < c->s->quorum &&
	    c->view->undecided) {
		ret = sw_locate(c, ke, false);
		if (ret)
			return ret;
		sw_round_begin(c);
		sw_add_read_meta(c, ke);
		ret = sw_round(c);
		if (ret < 0)
			return ret;
		sw_view_build(c, ke, c->view);
	}
	if (sw_popcount(c->view->answered) < c->s->quorum) {
		c->dead = true;
		return -EIO;
	}
	return 0;
}

static unsigned int known(struct mdk_swarm *s, struct sw_kent *ke)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < s->n; i++)
		k += ke->way[i] >= 0;
	return k;
}

/* Is there a live node where the key's way is still unknown? */
static bool to_locate(struct mdk_swarm *s, struct sw_kent *ke)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (ke->way[i] < 0 && !mdk_swarm_memnode_crashed(s->nodes[i]))
			return true;
	return false;
}

static int begin_op(struct mdk_swarm_client *c, const void *key, size_t klen,
		    struct sw_kent **kep)
{
	struct mdk_swarm *s = c->s;

	c->last = (struct mdk_swarm_op_stats){ 0 };
	if (c->dead)
		return -ECANCELED;
	if (!key || !klen || klen > s->o.key_size)
		return -EINVAL;
	c->klen = klen;
	memset(c->keyimg, 0, 8 + s->h.key_size);
	c->keyimg[0] = klen;
	memcpy(c->keyimg + 1, key, klen);
	*kep = cache_get(c, key_tag(key, klen), key_tag2(key, klen), true);
	return *kep ? 0 : -ENOMEM;
}

int mdk_swarm_get(struct mdk_swarm_client *c, const void *key, size_t klen,
		  void *val, size_t *vlen)
{
	struct sw_kent *ke;
	int ret = begin_op(c, key, klen, &ke);

	if (ret)
		return ret;
	if (!val || !vlen)
		return -EINVAL;
	/*
	 * No lookup round: where the key's way is unknown, the get reads its
	 * buckets instead of its way meta, in the same round.
	 */
	return c->s->ops->get(c, ke, val, vlen);
}

static int put(struct mdk_swarm_client *c, const void *key, size_t klen,
	       const void *val, size_t vlen, bool tomb, bool must_exist)
{
	struct sw_kent *ke;
	int ret = begin_op(c, key, klen, &ke);

	if (ret)
		return ret;
	if (vlen > c->s->o.value_size || (vlen && !val))
		return -EINVAL;
	if (to_locate(c->s, ke)) {
		if (must_exist) {
			ret = sw_locate(c, ke, false);
			if (ret)
				return ret;
			if (!known(c->s, ke))
				return -ENOENT;
		}
		ret = sw_locate(c, ke, true);
		if (ret)
			return ret;
		if (known(c->s, ke) < c->s->quorum)
			return -ENOSPC;
	}
	return c->s->ops->put(c, ke, val, vlen, tomb);
}

int mdk_swarm_insert(struct mdk_swarm_client *c, const void *key, size_t klen,
		     const void *val, size_t vlen)
{
	return put(c, key, klen, val, vlen, false, false);
}

int mdk_swarm_update(struct mdk_swarm_client *c, const void *key, size_t klen,
		     const void *val, size_t vlen)
{
	return put(c, key, klen, val, vlen, false, true);
}

int mdk_swarm_delete(struct mdk_swarm_client *c, const void *key, size_t klen)
{
	return put(c, key, klen, NULL, 0, true, false);
}

int mdk_swarm_flush(struct mdk_swarm_client *c)
{
	int ret;

	if (c->dead)
		return -ECANCELED;
	c->last = (struct mdk_swarm_op_stats){ 0 };
	if (!c->bg_pending)
		return 0;
	sw_round_begin(c);
	sw_add_bg(c);
	ret = sw_round(c);
	c->last.bg_rtts = c->last.rtts;
	c->last.rtts = 0;
	if (ret < 0)
		return ret;
	sw_bg_done(c);
	return 0;
}

int mdk_swarm_warm(struct mdk_swarm_client *c)
{
	struct mdk_swarm *s = c->s;
	const uint64_t chunk = SW_WAYS;

	if (c->dead)
		return -ECANCELED;
	for (unsigned int i = 0; i < s->n; i++) {
		for (uint64_t w = 0; w < s->h.nways; w += chunk) {
			if (mdk_swarm_memnode_read(
				    s->nodes[i], sw_meta(s, (int32_t)w),
				    c->scratch[i], chunk * s->h.meta_size))
				break;
			for (uint64_t k = 0; k < chunk; k++) {
				const uint8_t *m =
					c->scratch[i] + k * s->h.meta_size;
				const uint64_t *kl =
					(const uint64_t *)(m + s->h.key_off);
				struct sw_kent *ke;

				if (!*(const uint64_t *)m || !*kl ||
				    *kl > s->o.key_size)
					continue;
				ke = cache_get(c, key_tag(kl + 1, *kl),
					       key_tag2(kl + 1, *kl), true);
				if (!ke)
					return -ENOMEM;
				if (ke->tag != *(const uint64_t *)m)
					continue;
				ke->way[i] = (int32_t)(w + k);
			}
		}
	}
	return 0;
}
