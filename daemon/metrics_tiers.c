// SPDX-License-Identifier: GPL-2.0
/*
 * The tier goals' part of mdkd's metrics (metrics.h): the goal, the cap,
 * the host's DRAM and CMM-MP node, what is needed and moved, as status
 * JSON and Prometheus text.
 */
#include "jsonout.h"
#include "metrics.h"

/* Pages as bytes, null when unbounded. */
static void add_room(struct json_object *o, const char *key, uint64_t pages)
{
	if (pages == UINT64_MAX)
		mdkd_json_add(o, key, NULL);
	else
		mdkd_json_add_u64(o, key, pages * MDKD_PAGE_SIZE);
}

struct json_object *mdkd_tiers_json(const struct mdkd_tiers *t,
				    const struct mdkd_host *h)
{
	struct json_object *o = json_object_new_object();
	int a = mdkd_tiers_threshold(t);

	mdkd_json_add_double(o, "dram_free_min_pct",
			     t->conf.dram_free_min * 100);
	mdkd_json_add_double(o, "dram_free_pct",
			     mdkd_host_dram_free_share(h) * 100);
	mdkd_json_add_double(o, "tier_used_max_pct",
			     t->conf.tier_used_max * 100);
	mdkd_json_add_double(o, "tier_used_pct", mdkd_host_tier_used(h) * 100);
	mdkd_json_add_i64(o, "tier_node", t->tier_node);
	mdkd_json_add_bool(o, "goal_on", t->goal_on);
	mdkd_json_add_u64(o, "dram_total", h->dram_total);
	mdkd_json_add_u64(o, "dram_free", h->dram_free);
	mdkd_json_add_u64(o, "goal_bytes", t->goal_bytes);
	mdkd_json_add_u64(o, "tier_total", h->tier_total);
	mdkd_json_add_u64(o, "tier_cap_bytes", t->cap_bytes);
	mdkd_json_add_u64(o, "need_bytes", t->need * MDKD_PAGE_SIZE);
	add_room(o, "tier_room_bytes", t->tier_room);
	add_room(o, "promote_room_bytes", t->promote_room);
	if (a < 0)
		mdkd_json_add(o, "threshold_age", NULL);
	else
		mdkd_json_add_i64(o, "threshold_age", a);
	if (t->held == MDKD_R_RECLAIM)
		mdkd_json_add(o, "held", NULL);
	else
		mdkd_json_add_str(o, "held", mdkd_reason_names[t->held]);
	mdkd_json_add_u64(o, "demoted_bytes", t->demoted * MDKD_PAGE_SIZE);
	mdkd_json_add_u64(o, "promoted_bytes", t->promoted * MDKD_PAGE_SIZE);
	mdkd_json_add_u64(o, "goal_picked_bytes",
			  t->goal_picked * MDKD_PAGE_SIZE);
	mdkd_json_add_u64(o, "tier_full", t->tier_full);
	mdkd_json_add_u64(o, "promote_cut", t->promote_cut);
	return o;
}

void mdkd_tiers_prom(const struct mdkd_tiers *t, const struct mdkd_host *h,
		     struct mdkd_buf *b)
{
	mdkd_buf_printf(
		b,
		"# HELP mdkd_dram_free_ratio MemFree of the DRAM nodes, share of their MemTotal\n"
		"# TYPE mdkd_dram_free_ratio gauge\nmdkd_dram_free_ratio %.6f\n"
		"# HELP mdkd_dram_free_min_ratio the goal dram_free_min (0: off)\n"
		"# TYPE mdkd_dram_free_min_ratio gauge\nmdkd_dram_free_min_ratio %.6f\n"
		"# HELP mdkd_tier_used_ratio the CMM-MP node's used share\n"
		"# TYPE mdkd_tier_used_ratio gauge\nmdkd_tier_used_ratio %.6f\n"
		"# HELP mdkd_tier_used_max_ratio the cap tier_used_max\n"
		"# TYPE mdkd_tier_used_max_ratio gauge\nmdkd_tier_used_max_ratio %.6f\n"
		"# HELP mdkd_tier_need_bytes what DRAM misses below the goal, still to demote\n"
		"# TYPE mdkd_tier_need_bytes gauge\nmdkd_tier_need_bytes %llu\n"
		"# HELP mdkd_tier_full 1 while tier_used_max holds the goal's demotions back\n"
		"# TYPE mdkd_tier_full gauge\nmdkd_tier_full %d\n"
		"# HELP mdkd_tier_demoted_bytes_total bytes demoted to the CMM-MP node (policy mode, backend cxl)\n"
		"# TYPE mdkd_tier_demoted_bytes_total counter\nmdkd_tier_demoted_bytes_total %llu\n"
		"# HELP mdkd_tier_promoted_bytes_total bytes promoted back to DRAM\n"
		"# TYPE mdkd_tier_promoted_bytes_total counter\nmdkd_tier_promoted_bytes_total %llu\n",
		mdkd_host_dram_free_share(h), t->conf.dram_free_min,
		mdkd_host_tier_used(h), t->conf.tier_used_max,
		(unsigned long long)(t->need * MDKD_PAGE_SIZE),
		t->held == MDKD_R_TIER_FULL,
		(unsigned long long)(t->demoted * MDKD_PAGE_SIZE),
		(unsigned long long)(t->promoted * MDKD_PAGE_SIZE));
}
