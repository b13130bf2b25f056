/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_MRC_H
#define MDK_MRC_H

/*
 * Miss-ratio curves of fixed-size memories over a reference string: LRU(k)
 * for every size in one pass (Mattson's stack distances, O(N log M) for N
 * references to M distinct pages), and OPT(k) (Belady: evict the page
 * whose next reference is farthest) for given sizes, O(N log k) each.
 * Misses include the compulsory first reference of every page; the miss
 * ratio is misses / N.
 */
#include <stddef.h>
#include <stdint.h>

#include <mdk/policy.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mdk_mrc_point {
	const char *policy; /* "lru" or "opt" */
	uint64_t size; /* k, pages */
	uint64_t misses;
	double miss_ratio;
};

struct mdk_mrc;

/*
 * mdk_mrc_new() - curves for the @np cache policies @pols (their k grids
 * may be left to the default, resolved against the distinct pages at the
 * end).  The policies must outlive the curve.  Returns 0, -EOPNOTSUPP (not
 * a cache policy) or -ENOMEM.
 */
int mdk_mrc_new(struct mdk_policy *const *pols, size_t np, struct mdk_mrc **out,
		char *err, size_t errlen);

/* mdk_mrc_add() - the next @n references (page ids, in order). */
int mdk_mrc_add(struct mdk_mrc *m, const uint64_t *ids, size_t n, char *err,
		size_t errlen);

/*
 * mdk_mrc_result() - the points of every policy and size, policy by policy
 * in @pols order, sizes ascending: a malloc'ed array (caller frees) in
 * *@pts of *@n points.  Call once.  Returns 0 or -errno.
 */
int mdk_mrc_result(struct mdk_mrc *m, struct mdk_mrc_point **pts, size_t *n,
		   char *err, size_t errlen);

/* References and distinct pages seen so far. */
uint64_t mdk_mrc_references(const struct mdk_mrc *m);
uint64_t mdk_mrc_pages(const struct mdk_mrc *m);

/* mdk_mrc_free() - free; NULL is a no-op. */
void mdk_mrc_free(struct mdk_mrc *m);

/*
 * mdk_mrc_run() - curves of the reference string in @path: an .mdkt trace
 * (its page ids in file order) or a CSV file of "window,page" rows (each
 * row one reference, in file order; "-" reads standard input).  Returns 0
 * with *@pts and *@n as mdk_mrc_result(), and the reference and page
 * counts in *@refs and *@pages (either may be NULL), or -errno.
 */
int mdk_mrc_run(const char *path, struct mdk_policy *const *pols, size_t np,
		struct mdk_mrc_point **pts, size_t *n, uint64_t *refs,
		uint64_t *pages, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MDK_MRC_H */
