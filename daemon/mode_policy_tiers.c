// SPDX-License-Identifier: GPL-2.0
/*
 * Policy mode's part in the tier goals (tiers.h), backend cxl on the
 * host's CMM-MP node: at each window's end, report the idle ages of the
 * cgroup's DRAM pages, add to the policy's picks the pages the goal
 * needs of this cgroup, keep the demotions under tier_used_max and the
 * promotions within DRAM's room above the goal; after the action, tell
 * the host what moved and report the ages again.
 */
#include <string.h>

#include "mode_policy_int.h"
#include "target.h"

/* The host's tier goals, when this cgroup takes part in them. */
static struct mdkd_tiers *tiers_of(const struct policy_state *st)
{
	struct mdkd_tiers *tg = st->t->tiers;

	return tg && st->eval && st->tier_node >= 0 &&
			       st->tier_node == tg->tier_node ?
		       tg :
		       NULL;
}

static void report(struct policy_state *st, struct mdkd_tiers *tg)
{
	uint64_t hist[MDKD_TIER_AGES];

	mdk_eval_idle_hist(st->eval, hist, MDKD_TIER_AGES);
	mdkd_tiers_report(tg, &st->tier_cg, hist);
}

/* The goal's pages united with the policy's picks, in st->pages.out. */
static void goal_pick(struct policy_state *st, struct mdkd_tiers *tg)
{
	uint64_t at_min;
	uint32_t min_age;
	const uint64_t *ids;
	size_t n;
	int ret;

	if (!mdkd_tiers_share(tg, &st->tier_cg, &min_age, &at_min))
		return;
	ret = mdk_eval_pick_idle(st->eval, min_age, (size_t)at_min,
				 MDKD_TIER_AGES - 1, st->npicked > 0, &ids, &n);
	if (ret) {
		mdkd_policy_error(st, "picking pages for dram_free_min: %s",
				  strerror(-ret));
		return;
	}
	st->goal_picked = n - st->npicked;
	st->tot.goal_picked += st->goal_picked;
	st->pages.out = ids;
	st->npicked = n;
}

void mdkd_policy_tiers_pick(struct policy_state *st)
{
	struct mdkd_tiers *tg = tiers_of(st);
	uint64_t allowed;
	bool cut;

	st->goal_picked = 0;
	st->tier_full = false;
	if (!tg)
		return;
	report(st, tg);
	goal_pick(st, tg);
	/* Pages cut are not marked: picked again once the node has room. */
	allowed = mdkd_tiers_demote_cap(tg, st->npicked, &cut);
	st->npicked = (size_t)allowed;
	if (cut) {
		st->tier_full = true;
		st->tot.tier_full++;
	}
	if (!tg->goal_on || !st->pages.nback)
		return;
	allowed = mdkd_tiers_promote_cap(tg, st->pages.nback);
	if (allowed < st->pages.nback) {
		/* Still moved out: offered again at their next access. */
		mdk_eval_mark(st->eval, st->pages.back + allowed,
			      st->pages.nback - (size_t)allowed);
		st->tot.promote_cut += st->pages.nback - allowed;
		st->pages.nback = (size_t)allowed;
	}
}

void mdkd_policy_tiers_moved(struct policy_state *st)
{
	struct mdkd_tiers *tg = tiers_of(st);
	const struct mdkd_pages_result *r = &st->pages.res;

	if (!tg)
		return;
	mdkd_tiers_moved(tg, r->out_done,
			 st->goal_picked < r->out_tried ? st->goal_picked :
							  r->out_tried,
			 r->back_done);
	report(st, tg); /* without the pages just moved out */
}

void mdkd_policy_tiers_leave(struct policy_state *st)
{
	if (st->t && st->t->tiers)
		mdkd_tiers_leave(st->t->tiers, &st->tier_cg);
}
