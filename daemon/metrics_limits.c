// SPDX-License-Identifier: GPL-2.0
/*
 * The limits' part of mdkd's metrics (metrics.h): the host's readings, the
 * valves, the caps and the counters of every action, as status JSON and
 * Prometheus text.
 */
#include <stdio.h>

#include "jsonout.h"
#include "metrics.h"

/* Tried, applied and limit hits of each action, as one object. */
static struct json_object *actions_json(const struct mdkd_action_stats *a)
{
	struct json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < MDKD_ACT_NR; i++) {
		struct json_object *x = json_object_new_object();

		mdkd_json_add_u64(x, "tried_bytes", a[i].tried_bytes);
		mdkd_json_add_u64(x, "applied_bytes", a[i].applied_bytes);
		mdkd_json_add_u64(x, "limit_hits", a[i].limit_hits);
		json_object_object_add(o, mdkd_action_names[i], x);
	}
	return o;
}

static const char *valve_state(const struct mdkd_limits *l)
{
	enum mdkd_reason r = mdkd_limits_valve_reason(l);

	return r == MDKD_R_RECLAIM ? "open" : mdkd_reason_names[r];
}

struct json_object *mdkd_limits_json(const struct mdkd_limits *l,
				     const struct mdkd_host *h)
{
	struct json_object *o = json_object_new_object(), *held;
	int i;

	json_object_object_add(o, "active", json_object_new_boolean(l->active));
	mdkd_json_add_double(o, "mem_free_pct", mdkd_host_free_share(h) * 100);
	mdkd_json_add_double(o, "active_below_pct", l->conf.active_below * 100);
	mdkd_json_add_str(o, "swap_valve", valve_state(l));
	mdkd_json_add_u64(o, "swap_total", h->swap_total);
	mdkd_json_add_double(o, "swap_used_pct", mdkd_host_swap_used(h) * 100);
	mdkd_json_add_double(o, "zswap_pool_used_pct",
			     mdkd_host_zswap_used(h) * 100);
	mdkd_json_add_double(o, "swap_max_used_pct",
			     l->conf.swap_max_used * 100);
	mdkd_json_add_u64(o, "swap_room",
			  l->swap_room == UINT64_MAX ? 0 : l->swap_room);
	mdkd_json_add_double(o, "swap_overshoot", l->swap_overshoot);
	mdkd_json_add_double(o, "swapout_bytes_per_s", h->swapout_rate);
	mdkd_json_add_u64(o, "swapout_max_rate", l->conf.swapout_max_rate);
	mdkd_json_add_u64(o, "valve_closures", l->valve_closures);
	json_object_object_add(o, "reclaim_swappiness_supported",
			       json_object_new_boolean(l->swappiness_ok));
	mdkd_json_add_u64(o, "host_max_rate", l->conf.host_max_rate);
	mdkd_json_add_double(o, "max_cpu_pct", l->conf.max_cpu * 100);
	mdkd_json_add_double(o, "cpu_budget_us", l->cpu_tokens_us);
	mdkd_json_add_u64(o, "cpu_deferred", l->deferred);
	mdkd_json_add_u64(o, "inactive_ticks", l->inactive_ticks);
	held = json_object_new_object();
	for (i = 0; i < MDKD_R_NR; i++)
		if (l->held[i])
			mdkd_json_add_u64(held, mdkd_reason_names[i],
					  l->held[i]);
	json_object_object_add(o, "held", held);
	json_object_object_add(o, "actions", actions_json(l->act));
	return o;
}

struct json_object *mdkd_limits_cg_json(const struct mdkd_limits_cg *c)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_str(o, "held",
			  c->held == MDKD_R_RECLAIM ?
				  "none" :
				  mdkd_reason_names[c->held]);
	mdkd_json_add_u64(o, "cpu_deferred", c->deferred);
	mdkd_json_add_u64(o, "inactive_intervals", c->inactive);
	json_object_object_add(o, "file_only",
			       json_object_new_boolean(c->file_only));
	mdkd_json_add_u64(o, "file_only_decisions", c->file_only_decisions);
	json_object_object_add(o, "actions", actions_json(c->act));
	return o;
}

/* The three counters of each action, of cgroup @path (NULL: the host). */
static void prom_actions(struct mdkd_buf *b, const char *path,
			 const struct mdkd_action_stats *a)
{
	static const char *const what[] = { "tried_bytes", "applied_bytes",
					    "limit_hits" };
	int i, w;

	for (i = 0; i < MDKD_ACT_NR; i++) {
		uint64_t v[] = { a[i].tried_bytes, a[i].applied_bytes,
				 a[i].limit_hits };

		for (w = 0; w < 3; w++) {
			mdkd_buf_printf(b, "mdkd_action_%s_total{", what[w]);
			if (path) {
				mdkd_buf_printf(b, "cgroup=\"");
				mdkd_prom_label(b, path);
				mdkd_buf_printf(b, "\",");
			}
			mdkd_buf_printf(b, "action=\"%s\"} %llu\n",
					mdkd_action_names[i],
					(unsigned long long)v[w]);
		}
	}
}

void mdkd_limits_prom(const struct mdkd_limits *l, const struct mdkd_host *h,
		      struct mdkd_cgroup *const *cgs, size_t n,
		      struct mdkd_buf *b)
{
	size_t i;

	mdkd_buf_printf(
		b,
		"# HELP mdkd_active 1 while free memory is below active_below\n"
		"# TYPE mdkd_active gauge\nmdkd_active %d\n"
		"# HELP mdkd_swap_valve_open 0 while swap-backed reclaim is stopped\n"
		"# TYPE mdkd_swap_valve_open gauge\nmdkd_swap_valve_open %d\n"
		"# HELP mdkd_swap_used_ratio swap used, share of SwapTotal\n"
		"# TYPE mdkd_swap_used_ratio gauge\nmdkd_swap_used_ratio %.6f\n"
		"# HELP mdkd_zswap_pool_used_ratio zswap pool, share of its limit\n"
		"# TYPE mdkd_zswap_pool_used_ratio gauge\nmdkd_zswap_pool_used_ratio %.6f\n"
		"# HELP mdkd_swapout_bytes_per_second host swap-out rate (pswpout)\n"
		"# TYPE mdkd_swapout_bytes_per_second gauge\nmdkd_swapout_bytes_per_second %.0f\n"
		"# HELP mdkd_swap_valve_closures_total times the swap valve closed\n"
		"# TYPE mdkd_swap_valve_closures_total counter\nmdkd_swap_valve_closures_total %llu\n"
		"# HELP mdkd_cpu_deferred_total cgroups put off by max_cpu\n"
		"# TYPE mdkd_cpu_deferred_total counter\nmdkd_cpu_deferred_total %llu\n",
		l->active, mdkd_limits_valve_reason(l) == MDKD_R_RECLAIM,
		mdkd_host_swap_used(h), mdkd_host_zswap_used(h),
		h->swapout_rate, (unsigned long long)l->valve_closures,
		(unsigned long long)l->deferred);
	mdkd_buf_printf(
		b,
		"# HELP mdkd_action_tried_bytes_total bytes handed to an action (all cgroups without a cgroup label)\n"
		"# TYPE mdkd_action_tried_bytes_total counter\n"
		"# HELP mdkd_action_applied_bytes_total bytes an action did\n"
		"# TYPE mdkd_action_applied_bytes_total counter\n"
		"# HELP mdkd_action_limit_hits_total decisions a limit cut short or held back\n"
		"# TYPE mdkd_action_limit_hits_total counter\n");
	prom_actions(b, NULL, l->act);
	for (i = 0; i < n; i++)
		prom_actions(b, cgs[i]->path, cgs[i]->lim.act);
}
