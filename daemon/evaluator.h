/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live evaluator of mdkd's policy mode, per managed cgroup.  The
 * sampler's windows (sorted page ids, daemon/sampler.h) go in, one call a
 * window; it keeps
 *
 *  - the interval stream: libmdk's struct mdk_stream over dense indices
 *    that a hash of page ids hands out (and takes back from pages of
 *    processes that are gone);
 *  - the MPCs of the evaluated policies (age, paw, pace and opp by
 *    default) over a sliding horizon of the last H windows, updated
 *    incrementally with libmdk's sliding-horizon protocol (mdk/mpc.h):
 *    each new window is added from the stream, the window that leaves is
 *    subtracted from what the evaluator kept of it, nothing is read twice;
 *  - per page, whether the daemon reclaimed it, so that a policy setting
 *    can pick the pages whose wait expired (mdkd_eval_pick()) and the
 *    window reports which reclaimed pages came back ("acted" promotions);
 *  - per window, the promotions measured outside (the sampler's BPF
 *    counters), to put the measured rate beside the predicted one.
 *
 * The horizon [lo, hi] is the last H windows fed; its curves are those of
 * the sub-trace of windows lo..hi with each page's first access in it
 * compulsory and prior reuse distances from the full history, clamped at
 * H (mdk/mpc.h).  Pure logic: no I/O, no clock.  Documentation/mdkd.rst,
 * "The live evaluator".
 */
#ifndef MDKD_EVALUATOR_H
#define MDKD_EVALUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/mpc.h>
#include <mdk/policy.h>

/* The longest horizon: OPP's and AGE's histograms are H x H counters. */
#define MDKD_EVAL_MAX_HORIZON 4096
/* PACE's P and A grids when the spec gives none: log-spaced values. */
#define MDKD_EVAL_PACE_VALUES 24

struct mdkd_eval_opts {
	uint32_t horizon; /* H, 2..MDKD_EVAL_MAX_HORIZON windows */
	/* The policies to evaluate, a libmdk list ("age,paw,pace,opp"):
	 * window policies with single-pass curves only. */
	const char *policies;
	unsigned int flags; /* MDK_SAVINGS_PAPER */
};

/* One setting of one evaluated policy. */
struct mdkd_eval_sel {
	int policy; /* index of the evaluated policy, -1 for none */
	size_t setting; /* its setting (mdk_policy_setting()) */
};

/* Rates of a per-window count over the horizon (pinned definitions). */
struct mdkd_eval_rates {
	uint32_t windows; /* in the horizon */
	uint64_t promotions, accessed; /* sums */
	double max_rate, mean_rate, p99_rate;
};

struct mdkd_eval;

/*
 * mdkd_eval_new() - an evaluator with nothing fed.  PACE without P or A
 * gets MDKD_EVAL_PACE_VALUES log-spaced values of 1..H-1 for them, so
 * that its histograms stay small; the other policies their libmdk
 * defaults for H windows.
 * Return: the evaluator, or NULL with the reason in @err.
 */
struct mdkd_eval *mdkd_eval_new(const struct mdkd_eval_opts *o, char *err,
				size_t errlen);
void mdkd_eval_free(struct mdkd_eval *e);

/*
 * mdkd_eval_window() - feed the next window: @n sorted, distinct page ids
 * accessed in it, and the promotions counted outside during it
 * (@measured; @have_measured false when there is no count).  Clears the
 * reclaimed mark of every page accessed; those that had it are the
 * window's acted promotions (mdkd_eval_returned()).
 * Return: 0, -EINVAL (ids not sorted and distinct), -ENOMEM, or another
 * negative error from libmdk, with the reason in @err.  After an error
 * the evaluator refuses every further window (-EIO): free it.
 */
int mdkd_eval_window(struct mdkd_eval *e, const uint64_t *ids, size_t n,
		     uint64_t measured, bool have_measured, char *err,
		     size_t errlen);

/* mdkd_eval_windows() - windows fed so far (the next one's number). */
uint64_t mdkd_eval_windows(const struct mdkd_eval *e);

/*
 * mdkd_eval_horizon() - the windows the curves cover, in *@lo and *@hi.
 * Return: false before the first window.
 */
bool mdkd_eval_horizon(const struct mdkd_eval *e, uint32_t *lo, uint32_t *hi);

/* mdkd_eval_capacity() - the horizon H in windows. */
uint32_t mdkd_eval_capacity(const struct mdkd_eval *e);

/* The evaluated policies, 0..mdkd_eval_npolicies()-1, resolved for H. */
size_t mdkd_eval_npolicies(const struct mdkd_eval *e);
const struct mdk_policy *mdkd_eval_policy(const struct mdkd_eval *e, size_t i);

/*
 * mdkd_eval_curve() - the operating points of every setting of policy @i
 * over the horizon, in a malloc'ed array (caller frees).
 * Return: the number of points, or a negative error code.
 */
long mdkd_eval_curve(struct mdkd_eval *e, size_t i, struct mdk_point **pts,
		     char *err, size_t errlen);

/*
 * mdkd_eval_find() - the place of the single setting @spec ("age:T=4") in
 * the curves.  A policy that is not evaluated yet, or a setting off its
 * grid, is added: the policy's generator is rebuilt with the larger grid
 * from the windows of the horizon the evaluator keeps (no history is
 * lost).
 * Return: 0, -EINVAL (not one setting of a policy with a curve), -ENOMEM.
 */
int mdkd_eval_find(struct mdkd_eval *e, const char *spec,
		   struct mdkd_eval_sel *sel, char *err, size_t errlen);

/*
 * mdkd_eval_tune() - auto-tune: among the settings of the evaluated
 * policy @spec names that have the parameter values @spec gives ("pace":
 * all of PACE's; "paw:wait=2": PAW's with a wait of 2), the one with the
 * most savings over the horizon whose max window rate is at most @target
 * (ties: lower max rate, then fewer promotions), with its point in *@pt.
 * Return: 0, -ENOENT when no setting is within @target (or the policy is
 * not evaluated), another negative error code on failure.
 */
int mdkd_eval_tune(struct mdkd_eval *e, const char *spec, double target,
		   struct mdkd_eval_sel *sel, struct mdk_point *pt, char *err,
		   size_t errlen);

/*
 * mdkd_eval_point() - the point of setting @sel over the horizon.
 * Return: 0 or a negative error code.
 */
int mdkd_eval_point(struct mdkd_eval *e, const struct mdkd_eval_sel *sel,
		    struct mdk_point *pt, char *err, size_t errlen);

/*
 * mdkd_eval_pick() - the pages setting @sel of an online policy reclaims
 * at the end of the last window fed: not reclaimed yet, and idle at least
 * the setting's wait for the interval they are in (mdk_policy_decide(),
 * with the prior reuse distance clamped at H).  *@ids points to a sorted
 * array the evaluator owns, valid until its next call.
 * Return: 0, -EOPNOTSUPP (@sel is not an online policy), -EINVAL.
 */
int mdkd_eval_pick(struct mdkd_eval *e, const struct mdkd_eval_sel *sel,
		   const uint64_t **ids, size_t *n);

/*
 * mdkd_eval_mark() - @n pages (ids) were reclaimed (or their reclaim was
 * attempted): none is picked again before it is accessed again.  Unknown
 * ids are ignored.
 */
void mdkd_eval_mark(struct mdkd_eval *e, const uint64_t *ids, size_t n);

/*
 * mdkd_eval_returned() - the pages of the last window fed that were marked
 * reclaimed (the window's acted promotions), sorted, owned by the
 * evaluator until its next window.
 */
const uint64_t *mdkd_eval_returned(const struct mdkd_eval *e, size_t *n);

/*
 * mdkd_eval_forget() - drop every page of a process @gone says is gone
 * (gone(proc, arg) true for the proc field of its id); their indices are
 * reused.  Their open intervals stay in the curves as tails, as a trace
 * of the same windows has them.  Return: the pages dropped.
 */
size_t mdkd_eval_forget(struct mdkd_eval *e,
			bool (*gone)(uint32_t proc, void *arg), void *arg);

/*
 * mdkd_eval_rates() - over the horizon: the measured promotions
 * (@measured, windows with a count only) and the acted ones (@acted),
 * each per window over the window's accessed pages.
 */
void mdkd_eval_rates(const struct mdkd_eval *e,
		     struct mdkd_eval_rates *measured,
		     struct mdkd_eval_rates *acted);

/* mdkd_eval_pages() - pages tracked; mdkd_eval_memory() - bytes held. */
size_t mdkd_eval_pages(const struct mdkd_eval *e);
size_t mdkd_eval_memory(const struct mdkd_eval *e);

#endif /* MDKD_EVALUATOR_H */
