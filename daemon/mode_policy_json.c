// SPDX-License-Identifier: GPL-2.0
/*
 * Policy mode's status: the last error, kept for it as every part of
 * policy mode reports one, and the status and live views
 * (mode_policy_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller.h"
#include "jsonout.h"
#include "log.h"
#include "mode_policy_int.h"
#include "pages.h"
#include "target.h"
#include "window_json.h"

void mdkd_policy_error(struct policy_state *st, const char *fmt, ...)
{
	char msg[sizeof(st->last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Log a message once, not every window. */
	if (strcmp(msg, st->last_error))
		log_warn("%s: %s", st->t->path, msg);
	snprintf(st->last_error, sizeof(st->last_error), "%s", msg);
}

static struct json_object *rates_json(const struct mdk_eval_rates *r)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "windows", r->windows);
	mdkd_json_add_u64(o, "promotions", r->promotions);
	mdkd_json_add_u64(o, "accessed", r->accessed);
	mdkd_json_add_double(o, "max_rate", r->max_rate);
	mdkd_json_add_double(o, "mean_rate", r->mean_rate);
	mdkd_json_add_double(o, "p99_rate", r->p99_rate);
	return o;
}

/* [p1, p2|null, max_rate, mean_rate, p99_rate, savings, promotions,
 *  saved, footprint] */
static struct json_object *point_json(const struct mdk_point *p)
{
	struct json_object *a = json_object_new_array_ext(9);

	json_object_array_add(a, json_object_new_double(p->p1));
	json_object_array_add(a,
			      p->has_p2 ? json_object_new_double(p->p2) : NULL);
	json_object_array_add(a, json_object_new_double(p->max_rate));
	json_object_array_add(a, json_object_new_double(p->mean_rate));
	json_object_array_add(a, json_object_new_double(p->p99_rate));
	json_object_array_add(a, json_object_new_double(p->savings));
	json_object_array_add(a, json_object_new_uint64(p->promotions));
	json_object_array_add(a, json_object_new_uint64(p->saved));
	json_object_array_add(a, json_object_new_uint64(p->footprint));
	return a;
}

/* The running setting's name and point, into @o. */
static void running_json(struct policy_state *st, struct json_object *o)
{
	const struct mdkd_settings *set = st->t->set;
	struct json_object *r = json_object_new_object();
	struct mdk_point pt;
	char err[256];

	mdkd_json_add_str(r, "policy", set->policy);
	json_object_object_add(r, "auto_tune",
			       json_object_new_boolean(set->auto_tune));
	mdkd_json_add_double(r, "target_rate", set->target_rate);
	mdkd_json_add_str(r, "reason", mdkd_reason_names[st->why]);
	if (st->sel.policy >= 0 && st->eval &&
	    !mdk_eval_point(st->eval, &st->sel, &pt, err, sizeof(err))) {
		mdkd_json_add_str(r, "setting", st->running);
		json_object_object_add(r, "tuned",
				       json_object_new_boolean(st->tuned));
		json_object_object_add(r, "predicted", point_json(&pt));
	} else {
		json_object_object_add(r, "setting", NULL);
		json_object_object_add(r, "predicted", NULL);
	}
	json_object_object_add(o, "running", r);
}

/* L-OPP's learning and its guard, into @o. */
static void lopp_json(struct policy_state *st, struct json_object *o)
{
	struct mdk_eval_lopp l;
	struct json_object *j;

	if (!mdk_eval_lopp(st->eval, &l))
		return;
	j = json_object_new_object();
	mdkd_json_add_str(j, "model",
			  mdkd_lopp_model_name(st->t->set->lopp_model));
	mdkd_json_add_u64(j, "trainings", l.trainings);
	mdkd_json_add_bool(j, "fitting", l.fitting);
	mdkd_json_add_u64(j, "fit_failures", l.failures);
	mdkd_json_add_u64(j, "rows", l.rows);
	mdkd_json_add_double(j, "precision", l.precision);
	mdkd_json_add_double(j, "recall", l.recall);
	mdkd_json_add_double(j, "auc", l.auc);
	mdkd_json_add_double(j, "guard_theta", st->guard_theta / 1e6);
	mdkd_json_add_u64(j, "guard_steps", st->guard_steps);
	json_object_object_add(j, "guard_window",
			       st->guard_window < 0 ?
				       NULL :
				       json_object_new_int64(st->guard_window));
	json_object_object_add(o, "lopp", j);
}

struct json_object *mdkd_policy_status_json(struct mdkd_target *tgt,
					    void *state)
{
	struct policy_state *st = state;
	struct json_object *o, *w, *t;
	struct mdk_eval_rates m, a;

	if (!st)
		return NULL;
	o = json_object_new_object();
	mdkd_json_add_str(o, "backend", mdkd_backend_name(tgt->set->backend));
	mdkd_json_add_double(o, "window_s", tgt->set->window_us / 1e6);
	if (st->tier_node >= 0)
		json_object_object_add(o, "tier_node",
				       json_object_new_int(st->tier_node));
	running_json(st, o);
	if (tgt->set->backend == MDKD_BACKEND_AUTO)
		mdkd_policy_auto_json(st, o);
	if (st->eval) {
		mdkd_json_add_u64(o, "windows", mdk_eval_windows(st->eval));
		mdkd_json_add_u64(o, "horizon", mdk_eval_capacity(st->eval));
		mdkd_json_add_u64(o, "pages_tracked", mdk_eval_pages(st->eval));
		mdkd_json_add_u64(o, "evaluator_bytes",
				  mdk_eval_memory(st->eval));
		mdk_eval_rates(st->eval, &m, &a);
		json_object_object_add(o, "measured", rates_json(&m));
		json_object_object_add(o, "acted", rates_json(&a));
		lopp_json(st, o);
	}
	if (st->have_last) {
		const struct mdk_sampler_window *l = &st->last;

		w = mdkd_window_json(l);
		mdkd_json_add_u64(w, "picked_pages", st->npicked);
		json_object_object_add(o, "last_window", w);
	}
	t = json_object_new_object();
	mdkd_json_add_u64(t, "windows", st->tot.windows);
	mdkd_json_add_u64(t, "picked_pages", st->tot.picked);
	mdkd_json_add_u64(t, "out_pages", st->tot.out);
	mdkd_json_add_u64(t, "back_pages", st->tot.back);
	mdkd_json_add_u64(t, "failed_pages", st->tot.failed);
	mdkd_json_add_u64(t, "gone_pages", st->tot.gone);
	mdkd_json_add_u64(t, "denied_pages", st->tot.denied);
	mdkd_json_add_u64(t, "paused_windows", st->tot.paused);
	mdkd_json_add_u64(t, "tune_changes", st->tot.tune_changes);
	mdkd_json_add_u64(t, "forgotten_pages", st->tot.forgotten);
	mdkd_json_add_u64(t, "swap_cache_drops", st->tot.drops);
	mdkd_json_add_u64(t, "swap_cache_drop_bytes", st->tot.drop_bytes);
	mdkd_json_add_u64(t, "swap_cache_freed_bytes", st->tot.drop_freed);
	mdkd_json_add_u64(t, "swap_cache_drops_short", st->tot.drop_short);
	mdkd_json_add_double(t, "swap_cache_drop_s", st->tot.drop_us / 1e6);
	/* "anon": memory.reclaim with swappiness=200; "any": without */
	json_object_object_add(
		t, "swap_cache_drop_pages",
		st->drop_probed ? json_object_new_string(
					  st->drop_anon_only ? "anon" : "any") :
				  NULL);
	mdkd_json_add_u64(t, "errors", st->tot.errors);
	mdkd_json_add_u64(t, "goal_picked_pages", st->tot.goal_picked);
	mdkd_json_add_u64(t, "tier_full_windows", st->tot.tier_full);
	mdkd_json_add_u64(t, "promote_cut_pages", st->tot.promote_cut);
	mdkd_json_add_double(t, "sampler_cpu_s", st->tot.sampler_cpu_ns / 1e9);
	json_object_object_add(o, "totals", t);
	json_object_object_add(o, "tiers", mdkd_policy_costs_json(st));
	mdkd_json_add_str(o, "error", st->last_error);
	return o;
}

/*
 * The live curve of the evaluator's policy @i: its points and the best
 * setting within target_rate (for opp also into *@opp_best).  Return: a
 * new object, or NULL with the reason in @err.
 */
static struct json_object *curve_json(struct policy_state *st, size_t i,
				      struct mdk_point *opp_best,
				      bool *have_opp, char *err, size_t errlen)
{
	const struct mdk_policy *p = mdk_eval_policy(st->eval, i);
	struct json_object *po, *arr;
	struct mdk_point *pts;
	char spec[8192];
	long n, k, b;

	n = mdk_eval_curve(st->eval, i, &pts, err, errlen);
	if (n < 0)
		return NULL;
	po = json_object_new_object();
	mdk_policy_spec(p, spec, sizeof(spec));
	mdkd_json_add_str(po, "policy", mdk_policy_name(p));
	mdkd_json_add_str(po, "spec", spec);
	mdkd_json_add_u64(po, "settings", (uint64_t)n);
	b = mdk_mpc_best(pts, (size_t)n, st->t->set->target_rate);
	if (b >= 0) {
		char best[96];

		mdk_policy_format(p, (size_t)b, best, sizeof(best));
		mdkd_json_add_str(po, "best", best);
		json_object_object_add(po, "best_point", point_json(&pts[b]));
		if (!strcmp(mdk_policy_name(p), "opp")) {
			*opp_best = pts[b];
			*have_opp = true;
		}
	} else {
		json_object_object_add(po, "best", NULL);
	}
	arr = json_object_new_array_ext((int)n);
	for (k = 0; k < n; k++)
		json_object_array_add(arr, point_json(&pts[k]));
	json_object_object_add(po, "points", arr);
	free(pts);
	return po;
}

/* What better information could still gain at the target: opp's best
 * against the running setting's point @run (NULL: none). */
static struct json_object *headroom_json(const struct mdk_point *opp_best,
					 const struct mdk_point *run)
{
	struct json_object *hd = json_object_new_object();
	char s[96];

	snprintf(s, sizeof(s), "opp:rho=%g", opp_best->p1);
	mdkd_json_add_str(hd, "opp", s);
	mdkd_json_add_double(hd, "opp_savings", opp_best->savings);
	if (run) {
		mdkd_json_add_double(hd, "running_savings", run->savings);
		mdkd_json_add_double(hd, "headroom",
				     opp_best->savings - run->savings);
	}
	return hd;
}

struct json_object *mdkd_policy_live_json(struct mdkd_target *t, void *state,
					  char *err, size_t errlen)
{
	struct policy_state *st = state;
	struct json_object *o, *pols, *hd = NULL;
	const struct mdkd_settings *set;
	struct mdk_eval_rates m, a;
	struct mdk_point run, opp_best;
	bool have_run = false, have_opp = false;
	uint32_t lo, hi;
	size_t i;

	set = t->set;
	if (!st || !st->eval || !mdk_eval_horizon(st->eval, &lo, &hi)) {
		snprintf(
			err, errlen,
			"%s: no window yet (the first ends %gs after the mode starts)",
			t->path, set->window_us / 1e6);
		return NULL;
	}
	o = json_object_new_object();
	mdkd_json_add_str(o, "cgroup", t->path);
	mdkd_json_add_str(o, "backend", mdkd_backend_name(set->backend));
	mdkd_json_add_double(o, "window_s", set->window_us / 1e6);
	mdkd_json_add_u64(o, "horizon", mdk_eval_capacity(st->eval));
	mdkd_json_add_u64(o, "lo", lo);
	mdkd_json_add_u64(o, "hi", hi);
	mdkd_json_add_u64(o, "windows", hi - lo + 1);
	mdkd_json_add_str(o, "savings", "occupancy");
	mdkd_json_add_double(o, "target_rate", set->target_rate);
	running_json(st, o);
	if (st->sel.policy >= 0)
		have_run =
			!mdk_eval_point(st->eval, &st->sel, &run, err, errlen);
	mdk_eval_rates(st->eval, &m, &a);
	json_object_object_add(o, "measured", rates_json(&m));
	mdkd_json_add_str(
		o, "measured_source",
		st->tier_node >= 0 ?
			"tier residency of accessed pages (STAR) + NUMA promotions" :
			"swap-ins + file refaults + NUMA promotions (BPF)");
	json_object_object_add(o, "acted", rates_json(&a));
	json_object_object_add(
		o, "columns",
		json_tokener_parse(
			"[\"p1\",\"p2\",\"max_rate\",\"mean_rate\",\"p99_rate\",\"savings\",\"promotions\",\"saved\",\"footprint\"]"));
	pols = json_object_new_array();
	for (i = 0; i < mdk_eval_npolicies(st->eval); i++) {
		struct json_object *po =
			curve_json(st, i, &opp_best, &have_opp, err, errlen);

		if (!po) {
			json_object_put(pols);
			json_object_put(o);
			return NULL;
		}
		json_object_array_add(pols, po);
	}
	json_object_object_add(o, "policies", pols);
	if (have_opp)
		hd = headroom_json(&opp_best, have_run ? &run : NULL);
	json_object_object_add(o, "opp_headroom", hd);
	return o;
}
