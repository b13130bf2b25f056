/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers every layer of mdk needs: libmdk uses them, and they are
 * public so that the daemon, the CLI and SWARM-KV need no copies.
 */
#ifndef MDK_UTIL_H
#define MDK_UTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * mdk_grow() - make the array *@arr of *@cap elements of @elem_size bytes
 * hold at least @need elements: doubling from 16, realloc()ed, *@arr and
 * *@cap updated only on success.  Return: 0, or -ENOMEM (out of memory,
 * or a size that would overflow size_t; *@arr is then untouched).
 */
int mdk_grow(void **arr, size_t *cap, size_t need, size_t elem_size);

/*
 * mdk_hash64() - a bijective 64-bit mixer (the splitmix64 finaliser):
 * every input bit reaches every output bit, so its low bits index a hash
 * table well and a threshold on it samples ids uniformly.  Inline for the
 * hash tables' inner loops; libmdk also exports it (util.c).
 */
inline uint64_t mdk_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/*
 * mdk_splitmix64() - the next number of the splitmix64 generator whose
 * state is *@state: a golden-ratio step, then mdk_hash64().  Seeded by
 * setting *@state; deterministic, so that runs repeat.
 */
inline uint64_t mdk_splitmix64(uint64_t *state)
{
	return mdk_hash64(*state += 0x9e3779b97f4a7c15ull);
}

#endif
