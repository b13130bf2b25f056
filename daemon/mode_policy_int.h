/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of policy mode share: its per-cgroup state and the
 * functions one file calls in another.  mode_policy.c holds the hooks,
 * mode_policy_tune.c the choice of setting (auto-tune, lopp's rate guard),
 * mode_policy_swap.c the swap-cache drop, mode_policy_json.c the status
 * and live views, mode_policy_source.c the sampler as the window source,
 * mode_policy_auto.c backend auto (its report in mode_policy_auto_json.c).
 */
#ifndef MDKD_MODE_POLICY_INT_H
#define MDKD_MODE_POLICY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>
#include <mdk/evaluator.h>
#include <mdk/trace.h>

#include "bpf/loader.h"
#include "compress.h"
#include "controller.h"
#include "pages.h"
#include "tier_route.h"
#include "tiers.h"

struct mdkd_policy_source;

struct policy_totals {
	uint64_t windows; /* windows fed to the evaluator */
	uint64_t picked; /* pages the settings picked */
	uint64_t out; /* pages advised (pageout) or demoted (migrate) */
	uint64_t back; /* pages promoted back (migrate) */
	uint64_t failed, gone, denied; /* pages the actuator could not move */
	uint64_t paused; /* windows whose page-outs PSI paused */
	uint64_t tune_changes; /* auto-tune switched settings */
	uint64_t forgotten; /* pages of processes that were gone */
	uint64_t drops; /* swap-cache drops run (memory.reclaim writes) */
	uint64_t drop_bytes; /* bytes they asked for */
	uint64_t drop_freed; /* bytes the swap cache shrank by meanwhile */
	uint64_t drop_short; /* drops the kernel answered EAGAIN (less) */
	uint64_t drop_us; /* their wall time */
	uint64_t sampler_cpu_ns; /* the sampler's CPU time */
	uint64_t errors; /* windows lost to a sampler or evaluator error */
	uint64_t goal_picked; /* pages dram_free_min added to the picks */
	uint64_t tier_full; /* windows tier_used_max cut */
	uint64_t promote_cut; /* returned pages left for want of DRAM room */
};

/* One tier of backend auto, in the last window and in total. */
struct policy_auto_tier {
	uint64_t moved; /* pages moved into it (done) */
	uint64_t tried; /* pages routed to it (tried) */
	uint64_t returned; /* acted promotions from it */
	uint64_t held; /* pages due in it that it did not take */
};

/* Backend auto (mode_policy_auto.c). */
struct policy_auto {
	/* The cgroup's tiers now: its list restricted to what exists. */
	struct mdk_tiers tiers;
	/* Tier of the node, of page-outs, of page-outs past zswap (swap
	 * while zswap is on); 0: none. */
	unsigned int cxl, out, disk;
	char tiers_msg[256]; /* what was left out and why, as last logged */
	char setting[96]; /* the running tiered AGE setting, "" none */
	struct mdk_tier_point pt; /* its point over the horizon */
	struct mdkd_route route; /* its waits and the tiers' states */
	const char *closed[MDK_TIERS_MAX]; /* why a tier took nothing, or NULL */
	struct mdkd_route_out ro;
	uint64_t *due[MDK_TIERS_MAX];
	size_t ndue[MDK_TIERS_MAX], duecap[MDK_TIERS_MAX];
	uint64_t *back; /* the node's pages accessed again */
	size_t backcap;
	struct mdkd_pages pageout; /* the page-outs, for actuator tier */
	struct mdkd_pages diskout; /* then those past zswap */
	uint64_t in_tier[MDK_TIERS_MAX]; /* pages marked in each, now */
	/* the last window */
	struct policy_auto_tier win[MDK_TIERS_MAX];
	uint64_t stall_ns; /* its promotions at their tiers' costs */
	double stall_share; /* over the window's length */
	/* totals */
	struct policy_auto_tier tot[MDK_TIERS_MAX];
	uint64_t tot_stall_ns, tot_windows;
	double max_stall_share;
};

/*
 * The cgroup's compressibility (compress.h), refreshed at most once a
 * window when the status asks.
 */
struct policy_costs {
	uint64_t pass; /* of the sampler of pages */
	double ratio; /* 0: unknown */
	const char *source; /* "memory.stat", "sampled" or "" */
	struct mdkd_compress sum; /* the samples, halved past 4096 pages */
	uint64_t at_us; /* when refreshed */
	bool done;
};

struct policy_state {
	const struct mdkd_policy_source *src_ops;
	void *src;
	struct mdk_eval *eval;
	uint32_t gone_proc; /* proc_gone()'s last answer, for this process */
	bool gone_last;
	bool started; /* window 0 began */
	int tier_node, home_node; /* cxl */

	struct mdk_trace_writer *trace;
	char trace_path[sizeof(((struct mdkd_settings *)0)->trace_file)];
	bool trace_failed;

	/* the setting this window runs */
	struct mdk_eval_sel sel;
	/* lopp's rate guard: no theta below guard_theta (ppm) */
	uint64_t guard_theta;
	uint32_t guard_good; /* windows within the target since a step */
	uint64_t guard_steps;
	int64_t guard_window; /* sampler window of the last step; -1: none */
	uint64_t lopp_failures; /* lopp's failed fits, as last logged */
	char running[96];
	bool tuned;
	enum mdkd_reason why; /* MDKD_R_RECLAIM, or why nothing is picked */
	char last_error[256];

	/* the decision, for the actuator */
	struct mdkd_pages pages;
	size_t npicked; /* in pages.out: the policy's and the goal's */

	/* the tier goals (tiers.h; backend cxl on the host's CMM-MP node) */
	struct mdkd_tiers_cg tier_cg; /* this cgroup's idle ages, reported */
	size_t goal_picked; /* pages of pages.out the goal added */
	bool tier_full; /* tier_used_max cut this window's demotions */

	/* the swap-cache drop: what the last window advised, and what
	 * page-outs left in the swap cache that was not dropped yet */
	uint64_t advised_bytes;
	uint64_t pending_bytes;
	/* memory.reclaim takes swappiness=200 (probed at the first drop) */
	bool drop_probed, drop_anon_only;
	const struct mdkd_sample *cur; /* in observe: the interval's sample */

	struct policy_auto au; /* backend auto */

	struct mdk_sampler_window last; /* counters only (pages not kept) */
	bool have_last;
	struct policy_totals tot;
	struct mdkd_target *t;

	/* measured costs: compressibility, kept (mode_policy_costs.c) */
	struct policy_costs costs;
};

/* mode_policy_costs.c: the cgroup's "tiers" status object */
struct json_object *mdkd_policy_costs_json(struct policy_state *st);
/* The cgroup's compression ratio (refreshed at most once a window), 0
 * while unknown: backend auto's zswap saving. */
double mdkd_policy_costs_ratio(struct policy_state *st);

/* mode_policy_json.c */
/* Log a message once (not every window) and keep it for the status. */
void mdkd_policy_error(struct policy_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* mode_policy_tune.c */
/* lopp's rate guard: the window @index measured @measured promotions of
 * @accessed accessed pages. */
void mdkd_policy_guard_observe(struct policy_state *st, uint64_t index,
			       uint64_t measured, uint64_t accessed);
/* The setting to run in this window, into st->sel; st->why otherwise. */
void mdkd_policy_choose(struct policy_state *st);

/* mode_policy_swap.c: the sampler's before_reset hook, swap back end. */
void mdkd_policy_drop_swap_cache(void *arg, const struct mdk_sampler_window *w);

/* mode_policy_tiers.c: the tier goals (tiers.h), backend cxl. */
/* At the window's end, after the policy's pick: report the idle ages, add
 * the goal's pages, cap the demotions and the promotions. */
void mdkd_policy_tiers_pick(struct policy_state *st);
/* After the action: what moved, and the idle ages without it. */
void mdkd_policy_tiers_moved(struct policy_state *st);
/* The cgroup stops: its ages leave the host's. */
void mdkd_policy_tiers_leave(struct policy_state *st);

/* mode_policy_auto.c: backend auto. */
/* At the window's end: the tiers, the setting, the routing of pages. */
void mdkd_policy_auto_pick(struct policy_state *st,
			   const struct mdkd_sample *cur);
/* After the PSI guard (@go false: paused): the page counts to act on, in
 * st->pages, st->au.pageout and st->au.diskout.  Return: the pages to
 * move out. */
size_t mdkd_policy_auto_out(struct policy_state *st, bool go);
/* After the action: mark what moved with its tier, count it. */
void mdkd_policy_auto_moved(struct policy_state *st);
/* The mode stops: the arrays. */
void mdkd_policy_auto_free(struct policy_state *st);
/* mode_policy_auto_json.c: its part of the status, into @o. */
void mdkd_policy_auto_json(struct policy_state *st, struct json_object *o);

/* mode_policy_json.c */
struct json_object *mdkd_policy_status_json(struct mdkd_target *t, void *state);
struct json_object *mdkd_policy_live_json(struct mdkd_target *t, void *state,
					  char *err, size_t errlen);

#endif /* MDKD_MODE_POLICY_INT_H */
