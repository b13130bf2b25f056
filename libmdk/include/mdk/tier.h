/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_TIER_H
#define MDK_TIER_H

/*
 * Tiers: a hierarchy of back ends a reclaimed page moves down while it
 * stays idle (DRAM -> the CMM-MP node -> compressed memory or swap), each
 * with its measured cost of bringing one page back and the DRAM one of
 * its pages frees.  Definitions in Documentation/mdk.rst, "Tiers".
 *
 * Costs are integer nanoseconds and savings integer parts per million of
 * a page, so that the single-pass curves and the simulator add the same
 * integers and agree exactly.
 *
 * A tier list is written as tiers joined by ';' (or newlines, in a file):
 *
 *   NAME:cost=DURATION[,ratio=R|save=FRACTION][,cap=PAGES]
 *
 * "cxl:cost=2.1us,cap=64K;zswap:cost=9us,ratio=3.2;swap:cost=80us".
 * DURATION takes ns (the default), us, ms or s; ratio is a compression
 * ratio >= 1 (the tier saves 1 - 1/ratio of a page); save a fraction in
 * (0, 1] ("0.6" or "60%"; default 1); cap a page count with K, M or G
 * suffixes (powers of 1024; default: unbounded).  NAME is 1-15 of
 * [a-z0-9_-]; mdkd knows "cxl", "zswap" and "swap".  Tiers are listed
 * down the hierarchy, their costs non-decreasing.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/mpc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MDK_TIERS_MAX 3
#define MDK_TIER_NAME_MAX 16
#define MDK_PPM 1000000u

struct mdk_tier {
	char name[MDK_TIER_NAME_MAX];
	uint64_t cost_ns; /* stall of one promotion from the tier, >= 1 */
	uint32_t save_ppm; /* DRAM one page in it frees, 1..MDK_PPM */
	uint64_t capacity; /* pages it holds at most; 0: unbounded */
};

struct mdk_tiers {
	unsigned int n; /* 1..MDK_TIERS_MAX */
	struct mdk_tier t[MDK_TIERS_MAX];
};

/*
 * mdk_tiers_parse() - parse the tier list @spec into *@out.  Returns 0,
 * or -EINVAL with the reason (which tier, which key, what was expected)
 * in @err.
 */
int mdk_tiers_parse(const char *spec, struct mdk_tiers *out, char *err,
		    size_t errlen);

/*
 * mdk_tiers_load() - read a tier file: one tier a line in the syntax
 * above, '#' comments and blank lines ignored (what `mdkctl tier
 * calibrate` writes).  Errors name @path:line.  Returns 0, -EINVAL,
 * -ENOENT or another -errno from reading.
 */
int mdk_tiers_load(const char *path, struct mdk_tiers *out, char *err,
		   size_t errlen);

/*
 * mdk_tiers_format() - @t as a tier list that mdk_tiers_parse() reads
 * back to the same tiers (snprintf semantics).
 */
int mdk_tiers_format(const struct mdk_tiers *t, char *buf, size_t len);

/* mdk_tiers_find() - the index of tier @name in @t, or -1. */
int mdk_tiers_find(const struct mdk_tiers *t, const char *name);

/* mdk_tier_save_ppm() - what a tier of compression ratio @ratio saves. */
uint32_t mdk_tier_save_ppm(double ratio);

/*
 * Tiered curves (libmdk/tier/): tiered AGE, PACE and OPP, in one pass
 * over a trace for every setting of a grid, and the exact simulator they
 * are tested against.  Specs, in the syntax of mdk/policy.h:
 *
 *   tage:T1=VALUES,T2=VALUES,T3=VALUES   tiered AGE (Tk: tier k's wait)
 *   tpace:P=VALUES,A=VALUES,T2=VALUES,T3=VALUES   tiered PACE
 *   topp:sigma=VALUES                    tiered OPP (stall share budget)
 *
 * mdk_tier_run() gives topp's feasible schedule for every sigma, then
 * its upper bound for every sigma (policy "topp-bound"; mdk_tier_opp());
 * mdk_tier_simulate() gives the schedule.
 * with one T per tier of the list (T1 is tiered PACE's d_1, so it has
 * none); a value "none" leaves a tier out.
 */

/* One tiered operating point. */
struct mdk_tier_point {
	/*
	 * The policy's name, the count-based rates of all promotions,
	 * savings (a page in tier k counting s_k), promotions, saved (in
	 * page-windows, rounded down) and footprint; p1/p2 unused.
	 */
	struct mdk_point pt;
	unsigned int np; /* parameters of the setting, in spec order */
	double p[MDK_TIERS_MAX + 1]; /* INFINITY for none */
	double max_stall; /* max over windows of stall(w) / D(w) */
	double mean_stall; /* sum of stall / sum of D(w) */
	uint64_t stall_ns; /* sum of stall(w) */
	uint64_t tier_promotions[MDK_TIERS_MAX];
	uint64_t peak[MDK_TIERS_MAX]; /* largest occupancy_k(w) */
	bool feasible; /* every peak within its tier's capacity */
};

/* What a tiered run measures against. */
struct mdk_tier_opts {
	const struct mdk_tiers *tiers;
	/*
	 * D(w): the window length L in ns; 0 takes the trace's (its
	 * window_us), and per_access (or a trace without one) D(w) = U(w)
	 * x 1 ns.
	 */
	uint64_t window_ns;
	bool per_access;
};

/*
 * mdk_tier_run() - the tiered curve of @spec over the (closed, indexed)
 * @trace: a malloc'ed array of one point per setting in *@pts (caller
 * frees) and its length in *@n.  Returns 0 or -errno (-EINVAL names the
 * bad parameter).
 */
int mdk_tier_run(const char *trace, const char *spec,
		 const struct mdk_tier_opts *o, struct mdk_tier_point **pts,
		 size_t *n, char *err, size_t errlen);

/*
 * mdk_tier_simulate() - the exact simulator: the one setting @spec
 * names, window by window from the definitions.  Returns 0 or -errno.
 */
int mdk_tier_simulate(const char *trace, const char *spec,
		      const struct mdk_tier_opts *o, struct mdk_tier_point *pt,
		      char *err, size_t errlen);

/*
 * mdk_tier_point_format() - the spec of @p's one setting, which the tiered
 * calls parse back: "tage:T1=4,T2=none", "tpace:P=2,A=4,T2=9",
 * "topp:sigma=0.001" (a topp-bound point gives its sigma's topp).
 * snprintf semantics.
 */
int mdk_tier_point_format(const struct mdk_tier_point *p, char *buf,
			  size_t len);

/*
 * mdk_tier_best() - the feasible point of @pts with the most savings
 * whose max_stall is at most @target (ties: lower max_stall, then less
 * stall), or -1.
 */
long mdk_tier_best(const struct mdk_tier_point *pts, size_t n, double target);

/*
 * mdk_tier_opp() - tiered OPP (Documentation/mdk.rst, "Tiered OPP") of
 * the (closed, indexed) @trace for each of the @n stall share budgets
 * @sigma (each window's stall at most floor(sigma D(w)), D(w) as in
 * struct mdk_tier_opts).  @ub[i] receives the upper bound: the exact
 * optimum of every window without the tiers' capacities (its rates,
 * stall and peaks; feasible is false when a peak breaks a capacity, and
 * then its savings are the lower of that and a Lagrangian bound);
 * @sched[i] a schedule within every budget and capacity, repaired from
 * it in time order.  Without capacities, or when the relaxation fits
 * them, both are the exact optimum, field for field.  Points: policy
 * "topp", np = 1, p[0] = sigma.  Returns 0, or
 * -EINVAL (a bad sigma, tier list or option: @err says which), -ENOENT,
 * -ENOMEM or another -errno from reading @trace.
 */
int mdk_tier_opp(const char *trace, const double *sigma, size_t n,
		 const struct mdk_tier_opts *o, struct mdk_tier_point *ub,
		 struct mdk_tier_point *sched, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MDK_TIER_H */
