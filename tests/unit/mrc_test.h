/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_policy_lru.c and test_policy_opt.c: random reference
 * strings and brute-force LRU and OPT memories of k pages.
 */
#ifndef MDK_TESTS_MRC_TEST_H
#define MDK_TESTS_MRC_TEST_H

#include <fcntl.h>

#include "mdk_test.h"

/* @n references over @pages ids, with locality (a hot set that drifts). */
static inline uint64_t *refs_random(uint64_t seed, size_t n, size_t pages)
{
	uint64_t *r = malloc((n + 1) * sizeof(*r)), s = seed + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = tt_rand(&s);
		size_t hot = 1 + pages / 8, base = (i / 97) % pages;

		r[i] = 1000 + (x % 3 ? (base + x % hot) % pages : x % pages);
	}
	return r;
}

/* LRU(k): an array kept in recency order, most recent first. */
static inline uint64_t brute_lru(const uint64_t *r, size_t n, size_t k)
{
	uint64_t *c = malloc((k + 1) * sizeof(*c)), misses = 0;
	size_t len = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < len && c[j] != r[i]; j++)
			;
		if (j == len) {
			misses++;
			if (len < k)
				len++;
			j = len - 1;
		}
		memmove(c + 1, c, j * sizeof(*c));
		c[0] = r[i];
	}
	free(c);
	return misses;
}

/* OPT(k): on a miss with k resident, evict the one used farthest ahead. */
static inline uint64_t brute_opt(const uint64_t *r, size_t n, size_t k)
{
	uint64_t *c = malloc((k + 1) * sizeof(*c)), misses = 0;
	size_t len = 0, i, j;

	for (i = 0; i < n; i++) {
		size_t victim = 0, far = 0;

		for (j = 0; j < len && c[j] != r[i]; j++)
			;
		if (j < len)
			continue;
		misses++;
		if (len < k) {
			c[len++] = r[i];
			continue;
		}
		for (j = 0; j < len; j++) {
			size_t nx;

			for (nx = i + 1; nx < n && r[nx] != c[j]; nx++)
				;
			if (nx > far) {
				far = nx;
				victim = j;
			}
		}
		c[victim] = r[i];
	}
	free(c);
	return misses;
}

/* The curve of @spec over @r through mdk_mrc. */
static inline size_t mrc_of(const char *spec, const uint64_t *r, size_t n,
			    struct mdk_mrc_point **pts)
{
	struct mdk_policy *p;
	struct mdk_mrc *m;
	size_t np;
	char err[256];

	ck_assert(!mdk_policy_new(spec, &p, err, sizeof(err)));
	ck_assert(!mdk_mrc_new(&p, 1, &m, err, sizeof(err)));
	/* In uneven pieces: the curve must not care. */
	for (size_t i = 0; i < n;) {
		size_t k = 1 + (i * 7) % 50;

		if (k > n - i)
			k = n - i;
		ck_assert(!mdk_mrc_add(m, r + i, k, err, sizeof(err)));
		i += k;
	}
	ck_assert_msg(!mdk_mrc_result(m, pts, &np, err, sizeof(err)), "%s",
		      err);
	ck_assert_uint_eq(mdk_mrc_references(m), n);
	mdk_mrc_free(m);
	mdk_policy_free(p);
	return np;
}

#endif /* MDK_TESTS_MRC_TEST_H */
