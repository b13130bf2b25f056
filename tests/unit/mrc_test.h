/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_policy_lru.c and test_policy_opt.c: random reference
 * strings, brute-force LRU and OPT memories of k pages, and the checks
 * both policies get, so that each test file holds only its golden numbers.
 * Defined in mrc_test.c.
 */
#ifndef MDK_TESTS_MRC_TEST_H
#define MDK_TESTS_MRC_TEST_H

#include <fcntl.h>

#include "mdk_test.h"

/* @n references over @pages ids, with locality (a hot set that drifts). */
uint64_t *refs_random(uint64_t seed, size_t n, size_t pages);

/* LRU(k): an array kept in recency order, most recent first. */
uint64_t brute_lru(const uint64_t *r, size_t n, size_t k);

/* OPT(k): on a miss with k resident, evict the one used farthest ahead. */
uint64_t brute_opt(const uint64_t *r, size_t n, size_t k);

/* The curve of @spec over @r through mdk_mrc. */
size_t mrc_of(const char *spec, const uint64_t *r, size_t n,
	      struct mdk_mrc_point **pts);

/* A brute-force memory: misses of the @n references at @r with @k pages. */
typedef uint64_t (*brute_fn)(const uint64_t *r, size_t n, size_t k);

/*
 * Cache policy @name's curve equals @brute on random reference strings,
 * for every size from 1 to two more than the pages referenced.
 */
void mrc_check_brute_force(const char *name, brute_fn brute);

/*
 * Long strings over many pages (slot renumbering, larger heaps): @name
 * against @brute where the brute force is fast enough, curves that never
 * rise with the size, and OPT never above LRU.
 */
void mrc_check_long_string(const char *name, brute_fn brute);

/*
 * mdk_mrc_run() of @name: a CSV's rows, or a trace's ids, in file order,
 * against @brute; a bad CSV line is reported with its line number.
 */
void mrc_check_files(const char *name, brute_fn brute);

/*
 * The worked example of Documentation/mdk.rst (22 references to 6
 * pages): @name's misses at sizes 1 to 6 are the pinned @want.
 */
void mrc_check_example(const char *name, const uint64_t want[6]);

#endif /* MDK_TESTS_MRC_TEST_H */
