// SPDX-License-Identifier: GPL-2.0
/* Policy mode: the setting each window runs (mode_policy_int.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller.h"
#include "log.h"
#include "mode_policy_int.h"
#include "pages.h"
#include "target.h"

/*
 * lopp's rate guard.  The curve predicts the rate of the horizon's past;
 * when the model's precision is low, a window's measured rate can still
 * exceed the target.  Then theta rises halfway from the running one to 1
 * (fewer reclaims; to the grid value at or above) and stays at least
 * there: a few windows over the target reach any score.  After a
 * horizon of windows within the target (the curve then holds none of the
 * windows that were over) it steps back down one value of the grid.
 */
/* The setting of @p with v[1] of setting @i and the grid's v[0] next above
 * (@up) or below @theta; -1 for none. */
static long theta_step(const struct mdk_policy *p, size_t i, uint64_t theta,
		       bool up)
{
	struct mdk_setting cur, s;
	size_t k, n = mdk_policy_settings(p);
	long best = -1;
	uint64_t bv = 0;

	if (mdk_policy_setting(p, i, &cur))
		return -1;
	for (k = 0; k < n; k++) {
		mdk_policy_setting(p, k, &s);
		if (s.v[1] != cur.v[1] ||
		    (up ? s.v[0] <= theta : s.v[0] >= theta))
			continue;
		if (best < 0 || (up ? s.v[0] < bv : s.v[0] > bv)) {
			best = (long)k;
			bv = s.v[0];
		}
	}
	return best;
}

/* Hold @sel (lopp's) at or above the guard's theta. */
static void guard_apply(struct policy_state *st, struct mdk_eval_sel *sel)
{
	const struct mdk_policy *p =
		mdk_eval_policy(st->eval, (size_t)sel->policy);
	struct mdk_setting s;
	long k;

	if (!st->t->set->rate_guard || !p || !mdk_policy_keyed(p) ||
	    !st->guard_theta || mdk_policy_setting(p, sel->setting, &s) ||
	    s.v[0] >= st->guard_theta)
		return;
	k = theta_step(p, sel->setting, st->guard_theta - 1, true);
	if (k >= 0)
		sel->setting = (size_t)k;
}

/* After window @index, of @measured promotions over @accessed pages. */
void mdkd_policy_guard_observe(struct policy_state *st, uint64_t index,
			       uint64_t measured, uint64_t accessed)
{
	const struct mdkd_settings *set = st->t->set;
	const struct mdk_policy *p;
	struct mdk_setting s;
	long k;

	if (!set->rate_guard || st->sel.policy < 0 || !accessed)
		return;
	p = mdk_eval_policy(st->eval, (size_t)st->sel.policy);
	if (!p || !mdk_policy_keyed(p) ||
	    mdk_policy_setting(p, st->sel.setting, &s))
		return;
	if ((double)measured > set->target_rate * (double)accessed) {
		uint64_t half = s.v[0] + (1000000 - s.v[0] + 1) / 2;

		k = theta_step(p, st->sel.setting, half - 1, true);
		if (k < 0)
			k = theta_step(p, st->sel.setting, s.v[0], true);
		st->guard_good = 0;
		if (k < 0)
			return; /* already at the top */
		mdk_policy_setting(p, (size_t)k, &s);
		st->guard_theta = s.v[0];
		st->guard_steps++;
		st->guard_window = (int64_t)index;
		log_info("%s: rate guard: window rate %.4f over %g: theta %g",
			 st->t->path, (double)measured / (double)accessed,
			 set->target_rate, s.v[0] / 1e6);
		return;
	}
	if (!st->guard_theta || ++st->guard_good < set->horizon)
		return;
	st->guard_good = 0;
	k = theta_step(p, st->sel.setting, st->guard_theta, false);
	if (k < 0) {
		st->guard_theta = 0;
		return;
	}
	mdk_policy_setting(p, (size_t)k, &s);
	st->guard_theta = s.v[0];
}

/* The setting to run in this window, into st->sel; st->why otherwise. */
void mdkd_policy_choose(struct policy_state *st)
{
	const struct mdkd_settings *set = st->t->set;
	struct mdk_eval_sel sel;
	char err[512];
	int ret;

	if (set->auto_tune) {
		if (mdk_eval_windows(st->eval) < set->warmup) {
			st->why = MDKD_R_WARMUP;
			st->sel.policy = -1;
			return;
		}
		ret = mdk_eval_tune(st->eval, set->policy, set->target_rate,
				    &sel, NULL, err, sizeof(err));
		if (ret == -ENOENT) {
			st->why = MDKD_R_NO_SETTING;
			st->sel.policy = -1;
			return;
		}
	} else {
		ret = mdk_eval_find(st->eval, set->policy, &sel, err,
				    sizeof(err));
	}
	if (ret) {
		mdkd_policy_error(st, "policy %s: %s", set->policy, err);
		st->why = MDKD_R_NO_SETTING;
		st->sel.policy = -1;
		return;
	}
	guard_apply(st, &sel);
	if (sel.policy != st->sel.policy || sel.setting != st->sel.setting) {
		char was[sizeof(st->running)];

		snprintf(was, sizeof(was), "%s", st->running);
		mdk_policy_format(mdk_eval_policy(st->eval, (size_t)sel.policy),
				  sel.setting, st->running,
				  sizeof(st->running));
		if (set->auto_tune) {
			st->tot.tune_changes++;
			log_info("%s: auto-tune: %s -> %s (target %g%%)",
				 st->t->path, *was ? was : "none", st->running,
				 set->target_rate * 100);
		}
	}
	st->sel = sel;
	st->tuned = set->auto_tune;
	st->why = MDKD_R_RECLAIM;
}
