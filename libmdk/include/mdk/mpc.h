/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_MPC_H
#define MDK_MPC_H

/*
 * Memory performance curves (MPCs): for every setting of a policy, its
 * operating point (max window promotion rate, savings), computed in one
 * pass over the interval stream (mdk/interval.h) from histograms, plus
 * O(W^2) work per policy (O(W^3) for PACE's 2-D grid) at evaluation.
 *
 * A generator (struct mdk_mpc) is a set of histograms over a ring of
 * @capacity windows.  Every update is linear -- it adds or subtracts
 * events -- so the same generator serves a whole trace (capacity W, fed
 * once, evaluated once) and a live evaluator over a sliding horizon (fed
 * as windows close, with old windows subtracted).  Events:
 *
 *   window w        U(w) accessed pages, of which first(w) first accesses
 *   closed interval (a, n, r): accessed in a and next in n; prior reuse r
 *   open interval   (a, MDK_NONE, r): accessed in a, not since (a tail)
 *
 * mdk_mpc_add_accesses() is the fast path for what a window's accesses
 * mean: each access in window n of a page last accessed in a closes the
 * open interval (a, -, r), adds the closed (a, n, r) and opens (n, -, n-a);
 * a first access opens (n, -, 0) and counts in first(n).
 *
 * Sliding horizon [lo, hi] (the daemon's use).  The horizon's curve is
 * defined as that of the sub-trace of windows lo..hi, each page's first
 * access inside it counting as its first (compulsory) access, and prior
 * reuse distances taken from the full history (clamped at @capacity).
 * The generator holds @capacity windows; feed new windows with
 * mdk_mpc_add_accesses() straight from the interval stream: an access
 * whose previous access is older than the ring is taken as a first access
 * of the horizon.  To move lo past window v, for each page accessed in v
 * (its interval starting in v has prior reuse r, and n is its next access
 * if it is already in the ring):
 *
 *   - subtract that interval with weight -1: closed (v, n, r), or open
 *     (v, MDK_NONE, r) when the page was not accessed again;
 *   - move the page's first access: first(v) -1 and, when n is in the
 *     ring, first(n) +1 (the access in n becomes its first in the horizon);
 *
 * then subtract U(v): mdk_mpc_add_window(m, v, -U(v), -first), or all at
 * once mdk_mpc_add_window(m, v, -U(v), -U(v)) plus first(n) +1 per page
 * accessed again.  A window's ring slot must be empty (everything of
 * window v - capacity subtracted) before window v is added; the generator
 * refuses with -EBUSY otherwise.  tests/unit/test_mpc.c drives exactly
 * this protocol against generators fed only each horizon.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/interval.h>
#include <mdk/policy.h>
#include <mdk/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An operating point: one setting of one policy over a trace. */
struct mdk_point {
	const char *policy; /* static name: "age" */
	double p1, p2; /* the setting (see struct mdk_setting) */
	bool has_p2;
	double max_rate; /* max over windows of promotions(w) / U(w) */
	double mean_rate; /* sum of promotions / sum of U(w) */
	double p99_rate; /* nearest-rank 99th percentile of rate(w), U(w) > 0 */
	double savings; /* saved / footprint */
	uint64_t promotions; /* total */
	uint64_t saved; /* saved page-windows (under the convention) */
	uint64_t footprint; /* sum over windows of F(w), in page-windows */
};

/* Evaluation flags */
#define MDK_SAVINGS_PAPER \
	0x1u /* the paper's convention: one more window per
				* reclaimed gap (reclaim-to-fault time) */

struct mdk_mpc;

/*
 * mdk_mpc_new() - a generator for every setting of @p over a ring of
 * @capacity windows (for a whole trace: its W).  @p is resolved for
 * @capacity windows (mdk_policy_resolve()) and must outlive the generator.
 * Returns 0 with *@out set, -EOPNOTSUPP for a policy without a
 * single-pass curve (lru, opt), -E2BIG when the histograms would need more
 * than 4 GiB, -EINVAL, -ENOMEM.
 */
int mdk_mpc_new(struct mdk_policy *p, uint32_t capacity, struct mdk_mpc **out,
		char *err, size_t errlen);

/* mdk_mpc_free() - free; NULL is a no-op. */
void mdk_mpc_free(struct mdk_mpc *m);

/* mdk_mpc_memory() - bytes of histograms the generator holds. */
size_t mdk_mpc_memory(const struct mdk_mpc *m);

/*
 * mdk_mpc_add_accesses() - @n accesses of window @window: @start[i] is the
 * window of the page's previous access and @reuse[i] that access's prior
 * reuse distance, as mdk_stream_feed() reports them.  A first access has
 * @start[i] MDK_NONE and @reuse[i] its own prior reuse distance (0 for a
 * page never seen: a sliding evaluator may pass the distance to an access
 * before the horizon).  Adds @n to U(window).  Returns 0, -ERANGE (a
 * previous access not earlier, or a window before the ring) or -EBUSY.
 */
int mdk_mpc_add_accesses(struct mdk_mpc *m, uint32_t window,
			 const uint32_t *start, const uint32_t *reuse, size_t n,
			 char *err, size_t errlen);

/*
 * mdk_mpc_add_closed() - the offline fast path: like
 * mdk_mpc_add_accesses() but only the closed intervals (and U, first) are
 * added; open intervals are not tracked per access.  Before evaluating,
 * add the tails -- each page's last access, e.g. from mdk_stream_tails()
 * -- with mdk_mpc_add_tails().  Do not mix with mdk_mpc_add_accesses() on
 * one generator.
 */
int mdk_mpc_add_closed(struct mdk_mpc *m, uint32_t window,
		       const uint32_t *start, const uint32_t *reuse, size_t n,
		       char *err, size_t errlen);

/*
 * mdk_mpc_add_tails() - add (@weight +1) or subtract (-1) @n open
 * intervals: page last accessed in window @start[i], prior reuse distance
 * @reuse[i].  Returns 0, -ERANGE or -EBUSY.
 */
int mdk_mpc_add_tails(struct mdk_mpc *m, const uint32_t *start,
		      const uint32_t *reuse, size_t n, int weight, char *err,
		      size_t errlen);

/* mdk_mpc_add_window() - add @accessed to U(w) and @first to first(w). */
int mdk_mpc_add_window(struct mdk_mpc *m, uint32_t window, int64_t accessed,
		       int64_t first, char *err, size_t errlen);

/*
 * mdk_mpc_add_interval() - add interval @iv (closed, or open with
 * end == MDK_NONE) with @weight (+1 or -1).  Returns 0, -ERANGE or -EBUSY.
 */
int mdk_mpc_add_interval(struct mdk_mpc *m, const struct mdk_interval *iv,
			 int weight, char *err, size_t errlen);

/*
 * mdk_mpc_eval() - the operating point of every setting over windows
 * @lo..@hi (tails end at @hi).  The caller must have subtracted every
 * window before @lo.  Fills a malloc'ed array of mdk_policy_settings()
 * points (caller frees) in *@pts.  Returns the number of points or -errno.
 */
long mdk_mpc_eval(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		  unsigned int flags, struct mdk_point **pts, char *err,
		  size_t errlen);

/*
 * mdk_mpc_run() - the whole-trace curves of @np policies: opens the
 * (closed, indexed) @trace, reads it once and feeds the interval stream
 * to the generators, then evaluates windows 0..W-1.  A policy whose bins
 * nest in another's (every threshold of its grids is one of the other's:
 * AGE, VMIN and OPP in PACE's with the default grids) is not fed but
 * derived from the other's histograms after the pass, so the five
 * default curves cost one generator's pass.
 * @pts[i] and @npts[i] receive policy i's points (caller frees each).
 * Returns 0 or -errno.
 */
int mdk_mpc_run(const char *trace, struct mdk_policy *const *pols, size_t np,
		unsigned int flags, struct mdk_point **pts, size_t *npts,
		char *err, size_t errlen);

/*
 * mdk_mpc_run_threads() - mdk_mpc_run() on @nthreads threads, 0 meaning
 * one per CPU this process may run on (mdk_mpc_threads_online()), at
 * most MDK_MPC_THREADS_MAX.  The pages are cut into @nthreads parts, each
 * thread decodes a share of the windows and feeds one part's intervals to
 * its own copy of the histograms, which are summed at the end: the points
 * equal mdk_mpc_run()'s exactly.  Memory grows by a copy of the fed
 * histograms and two windows of records (8 bytes each) a thread.  A
 * trace the reader cannot seek in is read on one thread.  Returns 0,
 * -EINVAL (@nthreads out of range) or -errno.
 */
#define MDK_MPC_THREADS_MAX 1024u

int mdk_mpc_run_threads(const char *trace, struct mdk_policy *const *pols,
			size_t np, unsigned int flags, unsigned int nthreads,
			struct mdk_point **pts, size_t *npts, char *err,
			size_t errlen);

/*
 * mdk_mpc_threads_online() - the CPUs this process may run on (its
 * affinity mask, else the online CPUs), at least 1.
 */
unsigned int mdk_mpc_threads_online(void);

/*
 * Options of a whole-trace run (mdk_mpc_run_opts(), mdk_simulate_opts()).
 * With @score_from W > 0 only windows W.. are scored: their promotions,
 * U(w), saved page-windows and footprint F(w), so a model trained on
 * windows 0..W-1 (mdk_lopp_train_until()) is evaluated on windows it has
 * not seen, while the pages' state, reuse distances and features still
 * come from every window before.
 */
struct mdk_run_opts {
	unsigned int flags; /* MDK_SAVINGS_PAPER */
	uint32_t score_from; /* the first window scored: 0 .. W-1 */
};

/*
 * mdk_mpc_run_opts() - mdk_mpc_run() with options.  Scoring from a
 * window W > 0: the curves of online policies (age, paw, pace, lopp)
 * still take one pass (the savings before W are those of the trace cut
 * after window W-1, where every open interval is a tail, since their
 * decisions are taken when an interval opens); vmin's and opp's, which
 * look ahead, are simulated setting by setting (mdk_simulate_opts()).
 * Returns 0 or -errno (-EINVAL: @score_from beyond the trace).
 */
int mdk_mpc_run_opts(const char *trace, struct mdk_policy *const *pols,
		     size_t np, const struct mdk_run_opts *o,
		     struct mdk_point **pts, size_t *npts, char *err,
		     size_t errlen);

/*
 * mdk_mpc_best() - index of the point of @pts with the most savings among
 * those whose max_rate is at most @target (ties: lower max_rate, then
 * fewer promotions), or -1 when none qualifies.
 */
long mdk_mpc_best(const struct mdk_point *pts, size_t n, double target);

#ifdef __cplusplus
}
#endif

#endif /* MDK_MPC_H */
