// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entries: the image of one value as the nodes hold it (timestamp,
 * length and flags, value words, checksum), and the hash behind both the
 * checksum and the key tags.  The lowest layer of the store: the index
 * (kv.c), the registers (inout.c) and the protocols use it, and it calls
 * none of them.
 */
#include <errno.h>
#include <string.h>

#include "swarm_int.h"

/* xxHash64-style mixing over 8-byte lanes; keys and values are small. */
uint64_t sw_hash(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL);

	while (len >= 8) {
		uint64_t k;

		memcpy(&k, p, 8);
		k *= 0xc2b2ae3d27d4eb4fULL;
		k = (k << 31) | (k >> 33);
		k *= 0x9e3779b185ebca87ULL;
		h ^= k;
		h = ((h << 27) | (h >> 37)) * 0x9e3779b185ebca87ULL +
		    0x85ebca77c2b2ae63ULL;
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t k = 0;

		memcpy(&k, p, len);
		h ^= k * 0x9e3779b185ebca87ULL;
		h = ((h << 23) | (h >> 41)) * 0xc2b2ae3d27d4eb4fULL;
	}
	h ^= h >> 33;
	h *= 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	h *= 0x165667b19e3779f9ULL;
	h ^= h >> 32;
	return h;
}

uint64_t sw_csum(uint64_t tag, const struct sw_entry *e, size_t vwords)
{
	uint64_t h = sw_hash(e->val, vwords * 8, tag ^ e->tsp);

	return h ^ (e->lenflags * 0x9e3779b97f4a7c15ULL) ^ 0x5357524d;
}

void sw_entry_fill(const struct mdk_swarm *s, uint64_t tag, uint64_t *img,
		   uint64_t tsp, const void *val, size_t vlen, bool tomb)
{
	struct sw_entry *e = (struct sw_entry *)img;
	size_t vw = s->h.value_size / 8;

	e->tsp = sw_id(tsp) << 2;
	e->lenflags = vlen | (tomb ? SW_TOMB : 0);
	memset(e->val, 0, vw * 8);
	if (vlen)
		memcpy(e->val, val, vlen);
	e->csum = sw_csum(tag, e, vw);
}

bool sw_entry_valid(const struct mdk_swarm *s, uint64_t tag,
		    const struct sw_entry *e, uint64_t id)
{
	if (!id || sw_id(e->tsp) != id)
		return false;
	if ((e->lenflags & 0xffffffffULL) > s->o.value_size)
		return false;
	return e->csum == sw_csum(tag, e, s->h.value_size / 8);
}

int sw_entry_value(const struct mdk_swarm *s, const struct sw_entry *e,
		   void *val, size_t *vlen)
{
	size_t len = e->lenflags & 0xffffffffULL;

	if (e->lenflags & SW_TOMB)
		return -ENOENT;
	if (len > *vlen)
		return -EMSGSIZE;
	memcpy(val, e->val, len);
	*vlen = len;
	return 0;
}
