// SPDX-License-Identifier: GPL-2.0
/*
 * Policy mode, backend auto: its part of the status (mode_policy_int.h),
 * the "auto" object of mdkctl status -j: the tiers, the running tiered
 * setting with its predicted stall, the last window's moves, promotions
 * and measured stall per tier, and the totals; and its counters for the
 * Prometheus file (mode_policy.h).
 */
#include <stdio.h>
#include <string.h>

#include "jsonout.h"
#include "mode_policy.h"
#include "mode_policy_int.h"
#include "target.h"

static struct json_object *tier_json(const struct policy_auto_tier *a)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "moved", a->moved);
	mdkd_json_add_u64(o, "tried", a->tried);
	mdkd_json_add_u64(o, "returned", a->returned);
	mdkd_json_add_u64(o, "held", a->held);
	return o;
}

/* The running setting's point: predicted stall, savings, per-tier peaks. */
static struct json_object *predicted_json(const struct policy_auto *au)
{
	struct json_object *o = json_object_new_object(), *a;
	unsigned int k;

	mdkd_json_add_double(o, "max_stall", au->pt.max_stall);
	mdkd_json_add_double(o, "mean_stall", au->pt.mean_stall);
	mdkd_json_add_double(o, "savings", au->pt.pt.savings);
	mdkd_json_add_double(o, "max_rate", au->pt.pt.max_rate);
	a = json_object_new_array();
	for (k = 0; k < au->tiers.n; k++)
		json_object_array_add(a,
				      json_object_new_uint64(au->pt.peak[k]));
	json_object_object_add(o, "peak_pages", a);
	mdkd_json_add_bool(o, "feasible", au->pt.feasible);
	return o;
}

/* Per tier of the list: its name, cost, wait, state and counters. */
static struct json_object *tiers_json(const struct policy_auto *au,
				      bool running)
{
	struct json_object *a = json_object_new_array();
	unsigned int k;

	for (k = 0; k < au->tiers.n; k++) {
		const struct mdk_tier *t = &au->tiers.t[k];
		struct json_object *o = json_object_new_object();
		uint32_t w = au->route.t[k].wait;

		mdkd_json_add_str(o, "name", t->name);
		mdkd_json_add_u64(o, "cost_ns", t->cost_ns);
		mdkd_json_add_double(o, "save", t->save_ppm / 1e6);
		json_object_object_add(o, "wait",
				       running && w != MDKD_ROUTE_NONE ?
					       json_object_new_uint64(w) :
					       NULL);
		mdkd_json_add_u64(o, "pages", au->in_tier[k]);
		json_object_object_add(
			o, "closed",
			au->closed[k] ? json_object_new_string(au->closed[k]) :
					NULL);
		json_object_object_add(o, "window", tier_json(&au->win[k]));
		json_object_object_add(o, "total", tier_json(&au->tot[k]));
		json_object_array_add(a, o);
	}
	return a;
}

void mdkd_policy_auto_json(struct policy_state *st, struct json_object *o)
{
	const struct mdkd_settings *set = st->t->set;
	struct policy_auto *au = &st->au;
	struct json_object *j = json_object_new_object();
	bool running = au->setting[0] != '\0';
	char list[512];

	mdk_tiers_format(&au->tiers, list, sizeof(list));
	mdkd_json_add_str(j, "tiers", au->tiers.n ? list : "");
	mdkd_json_add_str(j, "left_out", au->tiers_msg);
	mdkd_json_add_double(j, "target_stall", set->target_stall);
	json_object_object_add(j, "setting",
			       running ? json_object_new_string(au->setting) :
					 NULL);
	json_object_object_add(j, "predicted",
			       running ? predicted_json(au) : NULL);
	mdkd_json_add_u64(j, "stall_ns", au->stall_ns);
	mdkd_json_add_double(j, "stall_share", au->stall_share);
	mdkd_json_add_double(j, "max_stall_share", au->max_stall_share);
	mdkd_json_add_double(
		j, "mean_stall_share",
		au->tot_windows ?
			(double)au->tot_stall_ns /
				(au->tot_windows * (set->window_us * 1e3)) :
			0);
	mdkd_json_add_u64(j, "total_stall_ns", au->tot_stall_ns);
	json_object_object_add(j, "per_tier", tiers_json(au, running));
	json_object_object_add(o, "auto", j);
}

bool mdkd_policy_auto_view(const struct mdkd_target *t, void *state,
			   struct mdkd_policy_auto_view *v)
{
	const struct policy_state *st = state;
	const struct policy_auto *au;
	unsigned int k;

	memset(v, 0, sizeof(*v));
	if (!st || t->set->backend != MDKD_BACKEND_AUTO)
		return false;
	au = &st->au;
	v->n = au->tiers.n;
	for (k = 0; k < au->tiers.n; k++) {
		snprintf(v->t[k].name, sizeof(v->t[k].name), "%s",
			 au->tiers.t[k].name);
		v->t[k].pages = au->in_tier[k];
		v->t[k].moved = au->tot[k].moved;
		v->t[k].returned = au->tot[k].returned;
		v->t[k].held = au->tot[k].held;
	}
	v->stall_ns = au->tot_stall_ns;
	v->stall_share = au->stall_share;
	v->predicted_max_stall = au->setting[0] ? au->pt.max_stall : 0;
	return true;
}
