/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tiered curves' internals (libmdk/tier/, Documentation/mdk.rst,
 * "Tiers"): a parsed tage or tpace spec and its settings (spec.c), the
 * settings prepared against an MPC generator's bins and their evaluation
 * over its histograms (curve.c), peak occupancy in a whole-trace pass
 * (occ.c).  Shared with the live evaluator (evaluator_tier.c).
 */
#ifndef MDK_TIER_INT_H
#define MDK_TIER_INT_H

#include <mdk/tier.h>

#include "../mpc_int.h"

#pragma GCC visibility push(hidden)

/* A wait of "none": the page never enters the tier. */
#define MDK__TIER_INF UINT64_MAX

enum mdk__tier_kind { MDK__TAGE, MDK__TPACE, MDK__TOPP };

/*
 * A spec's grids and settings.  Parameters in spec order: T1..TK for
 * tage, P, A, T2..TK for tpace; a setting is np values, MDK__TIER_INF
 * for none.
 */
struct mdk__tier_spec {
	enum mdk__tier_kind kind;
	const char *name; /* "tage", "tpace", "topp" */
	unsigned int K; /* tiers */
	unsigned int np;
	struct mdk_grid grid[MDK_TIERS_MAX + 1];
	size_t nset;
	uint64_t *set; /* nset x np */
};

/*
 * mdk__tier_spec_parse() - @spec for @K tiers over a trace of @W windows
 * (the default grids' range).  0, -EINVAL, -E2BIG or -ENOMEM, with the
 * message in @err.  topp's one parameter, sigma, is in ppm.
 */
int mdk__tier_spec_parse(const char *spec, unsigned int K, uint32_t W,
			 struct mdk__tier_spec *ts, char *err, size_t errlen);
void mdk__tier_spec_free(struct mdk__tier_spec *ts);

/*
 * mdk__tier_waits() - the entry waits d[0..K-1] of setting @v for an
 * interval whose opening access's prior reuse distance is above P
 * (@above; tpace only), and d[K] = MDK__TIER_INF.
 */
void mdk__tier_waits(const struct mdk__tier_spec *ts, const uint64_t *v,
		     bool above, uint64_t *d);

/*
 * mdk__tier_gen_policy() - a policy whose generator bins every wait of
 * @ts: age with T = the finite T's, pace with P and A = A and the T's.
 * Caller frees.  0 or -errno.
 */
int mdk__tier_gen_policy(const struct mdk__tier_spec *ts,
			 struct mdk_policy **out, char *err, size_t errlen);

/*
 * The settings against a generator's bins.  Rows [0, ri) of the r-bins
 * are the intervals "not above P" (group 0), rows [ri, nr) the others
 * (group 1; empty for tage).  d and bin are nset x 2 x (K + 1): the waits
 * of each group and the g-bin from which gaps are >= that wait.
 */
struct mdk__tier_prep {
	size_t nset;
	unsigned int K;
	uint32_t *ri;
	uint64_t *d;
	uint32_t *bin;
};

/* 0, -EINVAL (a wait the generator does not bin) or -ENOMEM. */
int mdk__tier_prep(const struct mdk__tier_spec *ts, const struct mdk_gen *g,
		   struct mdk__tier_prep *pp, char *err, size_t errlen);
void mdk__tier_prep_free(struct mdk__tier_prep *pp);

static inline size_t mdk__tier_ix(const struct mdk__tier_prep *pp, size_t i,
				  unsigned int grp, unsigned int k)
{
	return (i * 2 + grp) * (pp->K + 1) + k;
}

/*
 * mdk__tier_eval() - every setting of @ts over windows @lo..@hi of @m
 * (tails end at @hi): all fields but peak (0) and feasible (true).
 * @window_ns 0: D(w) = U(w) x 1 ns.  Returns the number of points in the
 * malloc'ed *@pts or -errno.
 */
long mdk__tier_eval(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		    const struct mdk__tier_spec *ts, const struct mdk_tiers *t,
		    uint64_t window_ns, struct mdk_tier_point **pts, char *err,
		    size_t errlen);

/*
 * Peak occupancy over a whole-trace pass (occ.c): open intervals by
 * start window and r-bin, updated per access; at the end of each window
 * every setting's occupancy of every tier is a range sum of them.
 */
struct mdk__tier_occ;

int mdk__tier_occ_new(const struct mdk__tier_prep *pp, const struct mdk_mpc *m,
		      uint32_t W, struct mdk__tier_occ **out);
void mdk__tier_occ_free(struct mdk__tier_occ *o);
/* @n accesses of @window, as mdk_stream_feed() reported them. */
void mdk__tier_occ_add(struct mdk__tier_occ *o, uint32_t window,
		       const uint32_t *start, const uint32_t *reuse, size_t n);
/* Close every window before @w (all their accesses added). */
void mdk__tier_occ_until(struct mdk__tier_occ *o, uint32_t w);
/* The peaks and feasibility of every setting into @pts. */
void mdk__tier_occ_peaks(const struct mdk__tier_occ *o,
			 const struct mdk_tiers *t, struct mdk_tier_point *pts);

/* @o checked: a tier list of 1..MDK_TIERS_MAX tiers.  0 or -EINVAL. */
int mdk__tier_opts_check(const struct mdk_tier_opts *o, char *err,
			 size_t errlen);
/* D(w)'s window length in ns from @o and the trace's; 0: per access. */
uint64_t mdk__tier_window_ns(const struct mdk_tier_opts *o, uint64_t trace_us);

/* The points' settings (np, p[]) and policy name from @ts. */
void mdk__tier_fill_settings(const struct mdk__tier_spec *ts,
			     struct mdk_tier_point *pts);

#pragma GCC visibility pop

/*
 * mdk__tier_opp_points() - topp's curve: in a malloc'ed *@pts of 2 x
 * ts->nset points, mdk_tier_opp()'s feasible schedule for every sigma of
 * @ts (ppm), then its upper bound for every sigma (policy "topp-bound").
 * 0 or -errno.
 */
int mdk__tier_opp_points(const char *trace, const struct mdk__tier_spec *ts,
			 const struct mdk_tier_opts *o,
			 struct mdk_tier_point **pts, char *err, size_t errlen);

#endif /* MDK_TIER_INT_H */
