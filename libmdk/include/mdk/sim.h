/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_SIM_H
#define MDK_SIM_H

/*
 * The exact simulator: one setting of one policy, evaluated straight from
 * the definitions (Documentation/mdk.rst), window by window.  It decides
 * each interval as it closes (AGE, VMIN, PAW, PACE through the policy's
 * wait, OPP by picking each window's largest gaps), records the windows in
 * which each reclaimed page is absent, and counts savings as occupancy:
 * the sum over windows of the pages that exist but are not resident.  It
 * is the ground truth the single-pass curves are tested against, and a
 * pass over the whole trace per setting.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/mpc.h>
#include <mdk/policy.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mdk_sim;

/*
 * mdk_sim_new() - a simulation of setting @setting of @p (resolved, see
 * mdk_policy_resolve(); @p must outlive the simulation).  @flags:
 * MDK_SAVINGS_PAPER.  Returns 0, -EOPNOTSUPP (cache policies: see mrc.h),
 * -ERANGE (no such setting) or -ENOMEM.
 */
int mdk_sim_new(const struct mdk_policy *p, size_t setting, unsigned int flags,
		struct mdk_sim **out, char *err, size_t errlen);

/*
 * mdk_sim_add() - @n accesses (dense page indices, distinct within the
 * window) of window @window; windows must not decrease.  Returns 0,
 * -EINVAL or -ENOMEM.
 */
int mdk_sim_add(struct mdk_sim *s, uint32_t window, const uint32_t *pages,
		size_t n, char *err, size_t errlen);

/*
 * mdk_sim_add_keys() - mdk_sim_add() for a keyed policy
 * (mdk_policy_keyed()): @keys[i] is access i's key (mdk_keyer_keys()).
 */
int mdk_sim_add_keys(struct mdk_sim *s, uint32_t window, const uint32_t *pages,
		     const uint32_t *keys, size_t n, char *err, size_t errlen);

/*
 * mdk_sim_finish() - end the trace after @windows windows (tails end in
 * window @windows - 1) and fill *@pt.  Returns 0 or -errno.
 */
int mdk_sim_finish(struct mdk_sim *s, uint32_t windows, struct mdk_point *pt,
		   char *err, size_t errlen);

/* One window of a finished simulation. */
struct mdk_sim_window {
	uint64_t accessed; /* U(w) */
	uint64_t footprint; /* F(w) */
	uint64_t promotions; /* promotions(w) */
	uint64_t reclaimed; /* pages of F(w) not resident during w */
	double rate; /* promotions(w) / U(w), 0 when U(w) = 0 */
};

/* mdk_sim_window() - window @w after mdk_sim_finish(); -ERANGE past W. */
int mdk_sim_window(const struct mdk_sim *s, uint32_t w,
		   struct mdk_sim_window *out);

/* mdk_sim_free() - free; NULL is a no-op. */
void mdk_sim_free(struct mdk_sim *s);

/*
 * mdk_simulate() - simulate setting @setting of @p over the trace @trace
 * (resolving @p for its W).  Returns 0 with *@pt filled, or -errno.
 */
int mdk_simulate(const char *trace, struct mdk_policy *p, size_t setting,
		 unsigned int flags, struct mdk_point *pt, char *err,
		 size_t errlen);

/*
 * mdk_sim_score_from() - count only windows @from.. in the point of
 * mdk_sim_finish() (promotions, U(w), savings, footprint); the windows
 * before still make the pages' state.  mdk_sim_finish() refuses @from
 * beyond the trace.  Returns 0, or -EINVAL once finished.
 */
int mdk_sim_score_from(struct mdk_sim *s, uint32_t from);

/*
 * mdk_simulate_opts() - mdk_simulate() with options (struct mdk_run_opts,
 * mdk/mpc.h: the savings convention and the first window scored).
 */
int mdk_simulate_opts(const char *trace, struct mdk_policy *p, size_t setting,
		      const struct mdk_run_opts *o, struct mdk_point *pt,
		      char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MDK_SIM_H */
