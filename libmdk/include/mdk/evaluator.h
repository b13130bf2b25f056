/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live evaluator: the curves of a stream of windows as it comes, as
 * mdkd's policy mode keeps them per managed cgroup.  Windows of sorted
 * 64-bit page ids (the sampler's, bpf/loader.h, or any other) go in,
 * one call a window; it keeps
 *
 *  - the interval stream: libmdk's struct mdk_stream over dense indices
 *    that a hash of page ids hands out (and takes back from pages of
 *    processes that are gone);
 *  - the MPCs of the evaluated policies (age, paw, pace and opp by
 *    default) over a sliding horizon of the last H windows, updated
 *    incrementally with libmdk's sliding-horizon protocol (mdk/mpc.h):
 *    each new window is added from the stream, the window that leaves is
 *    subtracted from what the evaluator kept of it, nothing is read twice;
 *  - per page, whether the daemon reclaimed it (and to which tier, for
 *    mdkd's backend auto), so that a policy setting can pick the pages
 *    whose wait expired (mdk_eval_pick()) and the window reports which
 *    reclaimed pages came back ("acted" promotions), from which tier;
 *  - per window, the promotions measured outside (the sampler's BPF
 *    counters), to put the measured rate beside the predicted one;
 *  - for L-OPP ("lopp" among the policies): the features of every access
 *    in the horizon, OPP's labels of the intervals that close, and a
 *    model fitted to them every few windows; lopp's curve over theta is
 *    rebuilt each window from the horizon keyed by the newest model, and
 *    mdk_eval_pick() decides on the key of each page's last access.  Its
 *    curve exists once a model does (before: -ENOENT).
 *
 * The horizon [lo, hi] is the last H windows fed; its curves are those of
 * the sub-trace of windows lo..hi with each page's first access in it
 * compulsory and prior reuse distances from the full history, clamped at
 * H (mdk/mpc.h).  Pure logic: no I/O, no clock.  Documentation/mdkd.rst,
 * "The live evaluator".
 */
#ifndef MDK_EVALUATOR_H
#define MDK_EVALUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/mpc.h>
#include <mdk/policy.h>
#include <mdk/tier.h>

/* The longest horizon: OPP's and AGE's histograms are H x H counters. */
#define MDK_EVAL_MAX_HORIZON 4096
/* PACE's P and A grids when the spec gives none: log-spaced values. */
#define MDK_EVAL_PACE_VALUES 24

struct mdk_eval_opts {
	uint32_t horizon; /* H, 2..MDK_EVAL_MAX_HORIZON windows */
	/* The policies to evaluate, a libmdk list ("age,paw,pace,opp"):
	 * window policies with single-pass curves only. */
	const char *policies;
	unsigned int flags; /* MDK_SAVINGS_PAPER */
	/*
	 * L-OPP (a "lopp" policy, evaluated or found): the rate limit of
	 * the OPP labels it learns (0: 1%), a new model every lopp_retrain
	 * windows (0: 4), fitted to the newest lopp_rows
	 * labelled intervals (0: 65,536).
	 */
	double lopp_rho;
	uint32_t lopp_retrain;
	size_t lopp_rows;
	/* Its model kind: MDK_LOPP_LOGISTIC (0) or MDK_LOPP_TREES (1). */
	uint32_t lopp_model;
	/*
	 * Nonzero: fit in a worker thread, off mdk_eval_window()'s path
	 * (mdkd), the first window after the fit is done taking its model;
	 * 0: inside the retrain window's call, deterministic.
	 */
	uint32_t lopp_async;
};

/* L-OPP's learning so far (mdk_eval_lopp()). */
struct mdk_eval_lopp {
	uint64_t trainings; /* models fitted */
	size_t rows; /* labelled intervals kept */
	double precision, recall; /* of the newest model on them, at 0.5 */
	double auc;
	/* lopp_async: a fit in flight, fits failed, the last one's reason */
	bool fitting;
	uint64_t failures;
	char error[256];
};

/* One setting of one evaluated policy. */
struct mdk_eval_sel {
	int policy; /* index of the evaluated policy, -1 for none */
	size_t setting; /* its setting (mdk_policy_setting()) */
};

/* Rates of a per-window count over the horizon (pinned definitions). */
struct mdk_eval_rates {
	uint32_t windows; /* in the horizon */
	uint64_t promotions, accessed; /* sums */
	double max_rate, mean_rate, p99_rate;
};

struct mdk_eval;

/*
 * mdk_eval_new() - an evaluator with nothing fed.  PACE without P or A
 * gets MDK_EVAL_PACE_VALUES log-spaced values of 1..H-1 for them, so
 * that its histograms stay small; the other policies their libmdk
 * defaults for H windows.
 * Return: the evaluator, or NULL with the reason in @err.
 */
struct mdk_eval *mdk_eval_new(const struct mdk_eval_opts *o, char *err,
			      size_t errlen);
void mdk_eval_free(struct mdk_eval *e);

/*
 * mdk_eval_window() - feed the next window: @n sorted, distinct page ids
 * accessed in it, and the promotions counted outside during it
 * (@measured; @have_measured false when there is no count).  Clears the
 * reclaimed mark of every page accessed; those that had it are the
 * window's acted promotions (mdk_eval_returned()).
 * Return: 0, -EINVAL (ids not sorted and distinct), -ENOMEM, or another
 * negative error from libmdk, with the reason in @err.  After an error
 * the evaluator refuses every further window (-EIO): free it.
 */
int mdk_eval_window(struct mdk_eval *e, const uint64_t *ids, size_t n,
		    uint64_t measured, bool have_measured, char *err,
		    size_t errlen);

/* mdk_eval_windows() - windows fed so far (the next one's number). */
uint64_t mdk_eval_windows(const struct mdk_eval *e);

/*
 * mdk_eval_horizon() - the windows the curves cover, in *@lo and *@hi.
 * Return: false before the first window.
 */
bool mdk_eval_horizon(const struct mdk_eval *e, uint32_t *lo, uint32_t *hi);

/* mdk_eval_capacity() - the horizon H in windows. */
uint32_t mdk_eval_capacity(const struct mdk_eval *e);

/* The evaluated policies, 0..mdk_eval_npolicies()-1, resolved for H. */
size_t mdk_eval_npolicies(const struct mdk_eval *e);
const struct mdk_policy *mdk_eval_policy(const struct mdk_eval *e, size_t i);

/*
 * mdk_eval_curve() - the operating points of every setting of policy @i
 * over the horizon, in a malloc'ed array (caller frees).
 * Return: the number of points, or a negative error code.
 */
long mdk_eval_curve(struct mdk_eval *e, size_t i, struct mdk_point **pts,
		    char *err, size_t errlen);

/*
 * mdk_eval_find() - the place of the single setting @spec ("age:T=4") in
 * the curves.  A policy that is not evaluated yet, or a setting off its
 * grid, is added: the policy's generator is rebuilt with the larger grid
 * from the windows of the horizon the evaluator keeps (no history is
 * lost).
 * Return: 0, -EINVAL (not one setting of a policy with a curve), -ENOMEM.
 */
int mdk_eval_find(struct mdk_eval *e, const char *spec,
		  struct mdk_eval_sel *sel, char *err, size_t errlen);

/*
 * mdk_eval_tune() - auto-tune: among the settings of the evaluated
 * policy @spec names that have the parameter values @spec gives ("pace":
 * all of PACE's; "paw:wait=2": PAW's with a wait of 2), the one with the
 * most savings over the horizon whose max window rate is at most @target
 * (ties: lower max rate, then fewer promotions), with its point in *@pt.
 * Return: 0, -ENOENT when no setting is within @target (or the policy is
 * not evaluated), another negative error code on failure.
 */
int mdk_eval_tune(struct mdk_eval *e, const char *spec, double target,
		  struct mdk_eval_sel *sel, struct mdk_point *pt, char *err,
		  size_t errlen);

/*
 * mdk_eval_point() - the point of setting @sel over the horizon.
 * Return: 0 or a negative error code.
 */
int mdk_eval_point(struct mdk_eval *e, const struct mdk_eval_sel *sel,
		   struct mdk_point *pt, char *err, size_t errlen);

/*
 * mdk_eval_pick() - the pages setting @sel of an online policy reclaims
 * at the end of the last window fed: not reclaimed yet, and idle at least
 * the setting's wait for the interval they are in (mdk_policy_decide(),
 * with the prior reuse distance clamped at H).  *@ids points to a sorted
 * array the evaluator owns, valid until its next call.
 * Return: 0, -EOPNOTSUPP (@sel is not an online policy), -EINVAL.
 */
int mdk_eval_pick(struct mdk_eval *e, const struct mdk_eval_sel *sel,
		  const uint64_t **ids, size_t *n);

/*
 * mdk_eval_mark() - @n pages (ids) were reclaimed (or their reclaim was
 * attempted): none is picked again before it is accessed again.  Unknown
 * ids are ignored.  The mark is mdk_eval_mark_tier()'s deepest tier,
 * MDK_TIERS_MAX, so that no tier's pick takes them either.
 */
void mdk_eval_mark(struct mdk_eval *e, const uint64_t *ids, size_t n);

/*
 * Tiers of the pages moved out (mdk/tier.h; mdkd's backend auto).  A page
 * is in DRAM (tier 0) from its access on, until it is marked: moved down
 * to tier 1..MDK_TIERS_MAX.  An access brings it back to DRAM: the
 * window's acted promotions, each from the tier it was in.
 *
 * mdk_eval_mark_tier() - @n pages (ids) moved to @tier (or their move was
 * attempted), from DRAM or from a shallower or deeper tier: the page is
 * in @tier until its next access.  Unknown ids are ignored.
 * Return: 0, or -EINVAL when @tier is not 1..MDK_TIERS_MAX.
 */
int mdk_eval_mark_tier(struct mdk_eval *e, const uint64_t *ids, size_t n,
		       unsigned int tier);

/*
 * mdk_eval_pick_tier() - the pages due in @tier at the end of the last
 * window fed: idle at least @wait windows (since their last access, not
 * clamped) and in a tier above @tier (DRAM or tiers 1..@tier - 1).
 * *@ids points to a sorted array the evaluator owns, valid until the next
 * call of this function.
 * Return: 0, -EINVAL (@tier not 1..MDK_TIERS_MAX) or -ENOMEM.
 */
int mdk_eval_pick_tier(struct mdk_eval *e, unsigned int tier, uint32_t wait,
		       const uint64_t **ids, size_t *n);

/*
 * mdk_eval_returned_tiers() - of the last window's acted promotions
 * (mdk_eval_returned()), how many came from each tier: @counts[k - 1]
 * for tier k, MDK_TIERS_MAX entries overwritten.
 * Return: the tier of each page of mdk_eval_returned()'s array, in its
 * order, owned by the evaluator until its next window.
 */
const uint8_t *mdk_eval_returned_tiers(const struct mdk_eval *e,
				       uint64_t *counts);

/*
 * mdk_eval_tier_pages() - the pages marked in each tier now (moved there,
 * not accessed since): @counts[k - 1] for tier k, MDK_TIERS_MAX entries
 * overwritten.
 */
void mdk_eval_tier_pages(const struct mdk_eval *e, uint64_t *counts);

/*
 * mdk_eval_age_hist() - every page tracked, wherever it is (DRAM or a
 * tier), by idle age as mdk_eval_idle_hist() counts them: the windows
 * since its last access, ages of @nbins - 1 or more in the last bin.
 * What a tiered AGE setting would hold in each tier now.  Return: the
 * pages counted.
 */
uint64_t mdk_eval_age_hist(const struct mdk_eval *e, uint64_t *hist,
			   size_t nbins);

/*
 * mdk_eval_idle_hist() - the pages not marked reclaimed, by idle age: the
 * windows since their last access (0: accessed in the last window fed),
 * ages of @nbins - 1 or more in the last bin.  @hist[0..@nbins) is
 * overwritten.  Return: the pages counted.
 */
uint64_t mdk_eval_idle_hist(const struct mdk_eval *e, uint64_t *hist,
			    size_t nbins);

/*
 * mdk_eval_pick_idle() - the pages not marked reclaimed whose idle age
 * (clamped at @max_age, as the last bin of mdk_eval_idle_hist()) is over
 * @min_age, and the first @at_min (in page index order) of those whose
 * clamped age is @min_age; with @add, united with the pages of the last
 * mdk_eval_pick() (neither marked).  *@ids points to a sorted, distinct
 * array the evaluator owns, valid until its next call to this function.
 * Return: 0 or -ENOMEM.
 */
int mdk_eval_pick_idle(struct mdk_eval *e, uint32_t min_age, size_t at_min,
		       uint32_t max_age, bool add, const uint64_t **ids,
		       size_t *n);

/*
 * mdk_eval_returned() - the pages of the last window fed that were marked
 * reclaimed (the window's acted promotions), sorted, owned by the
 * evaluator until its next window.
 */
const uint64_t *mdk_eval_returned(const struct mdk_eval *e, size_t *n);

/*
 * mdk_eval_forget() - drop every page @gone says is gone (gone(id, arg)
 * true); their indices are reused.  Their open intervals stay in the
 * curves as tails, as a trace of the same windows has them.
 * Return: the pages dropped.
 */
size_t mdk_eval_forget(struct mdk_eval *e, bool (*gone)(uint64_t id, void *arg),
		       void *arg);

/*
 * mdk_eval_count_unacted() - with @on, every curve (and point, and
 * auto-tune's choice) adds to each setting, in each window of the
 * horizon, the window's measured promotions beyond its acted ones: pages
 * the daemon did not move out that came back anyway, as when a reclaim
 * it runs besides its page-outs takes other pages too (mdkd's swap-cache
 * drop).  They do not depend on the setting, and the evaluator cannot
 * simulate them: it counts them as measured.  Off at first.
 */
void mdk_eval_count_unacted(struct mdk_eval *e, bool on);

/*
 * mdk_eval_rates() - over the horizon: the measured promotions
 * (@measured, windows with a count only) and the acted ones (@acted),
 * each per window over the window's accessed pages.
 */
void mdk_eval_rates(const struct mdk_eval *e, struct mdk_eval_rates *measured,
		    struct mdk_eval_rates *acted);

/*
 * mdk_eval_lopp() - L-OPP's learning, into *@out.
 * Return: false when no lopp policy is evaluated.
 */
bool mdk_eval_lopp(const struct mdk_eval *e, struct mdk_eval_lopp *out);

/*
 * mdk_eval_lopp_wait() - with lopp_async, block until the fit in flight,
 * if any, is done; the next window takes its model.
 */
void mdk_eval_lopp_wait(struct mdk_eval *e);

/* mdk_eval_pages() - pages tracked; mdk_eval_memory() - bytes held. */
size_t mdk_eval_pages(const struct mdk_eval *e);
size_t mdk_eval_memory(const struct mdk_eval *e);

/*
 * Tiered curves over the horizon (mdk/tier.h, Documentation/mdk.rst,
 * "Tiers").  mdk_eval_tier_curve() - the points of every setting of the
 * tiered spec @spec (tage or tpace) over the horizon, from the
 * histograms of the evaluator's age or pace generator (added as
 * mdk_eval_find() adds a policy, when not evaluated), with D(w) from @o.
 * Return: the number of points in the malloc'ed *@pts, or -errno.
 */
long mdk_eval_tier_curve(struct mdk_eval *e, const char *spec,
			 const struct mdk_tier_opts *o,
			 struct mdk_tier_point **pts, char *err, size_t errlen);

/*
 * mdk_eval_tier_tune() - auto-tune over the tiered curve of @spec: the
 * feasible setting with the most savings whose max stall share is at
 * most @target (mdk_tier_best()), in *@pt.
 * Return: 0, -ENOENT when none is within @target, or -errno.
 */
int mdk_eval_tier_tune(struct mdk_eval *e, const char *spec,
		       const struct mdk_tier_opts *o, double target,
		       struct mdk_tier_point *pt, char *err, size_t errlen);

#endif /* MDK_EVALUATOR_H */
