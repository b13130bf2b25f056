// SPDX-License-Identifier: GPL-2.0
/*
 * actuator tier: policy mode's backend auto, each page to its tier.  One
 * action does, in this order, what the two single back ends do:
 *
 *  - the pages of the CMM-MP node a window saw accessed again move back
 *    to DRAM (move_pages(2), as migrate's cxl_promote);
 *  - the pages due on the node move there (move_pages(2));
 *  - the pages due in compressed memory or swap are paged out
 *    (process_madvise(MADV_PAGEOUT)), from DRAM or from the node alike:
 *    the kernel reclaims a page wherever it is.  A list of them, one per
 *    tier: zswap's (or swap's with zswap off), then swap's past zswap
 *    with memory.zswap.max at 0 for its moment (zswap_off.h).
 *
 * The budget the limits leave covers them in that order.  What moved out
 * (to the node and paged out) counts as the action's bytes.
 */
#include <errno.h>
#include <string.h>

#include "controller.h"
#include "log.h"
#include "pages.h"
#include "target.h"
#include "zswap_off.h"

static int tier_attach(struct mdkd_target *t, void *state, char *err,
		       size_t errlen)
{
	return mdkd_pages_attach(t, "tier", err, errlen);
}

/* Log refused pages of @p, a part of the action called @what. */
static void log_refused(const struct mdkd_target *t, const char *what,
			const struct mdkd_pages_result *r)
{
	if (r->denied || r->failed)
		log_debug(
			"%s: tier: %s: %llu done, %llu failed, %llu denied, %llu gone (%s)",
			t->path, what, (unsigned long long)r->out_done,
			(unsigned long long)r->failed,
			(unsigned long long)r->denied,
			(unsigned long long)r->gone, strerror(-r->first_error));
}

/* Page out @q's pages, at most @budget, past zswap if it says so. */
static int tier_pageout(struct mdkd_target *t, struct mdkd_pages *q,
			size_t budget)
{
	struct mdkd_zswap_off z = { .fd = -1 };
	int ret;

	memset(&q->res, 0, sizeof(q->res));
	if (!q->nout || !budget)
		return 0;
	if (q->zswap_off) {
		ret = mdkd_zswap_off(t, &z);
		if (ret) {
			log_debug("%s: tier: memory.zswap.max: %s", t->path,
				  strerror(-ret));
			q->res.first_error = ret;
			return 0; /* not paged out: into zswap they would go */
		}
	}
	ret = mdkd_pageout(t->page_sys, q, budget);
	mdkd_zswap_on(t, &z);
	log_refused(t, q->zswap_off ? "pageout past zswap" : "pageout",
		    &q->res);
	return ret;
}

static int tier_apply(struct mdkd_target *t, void *state, uint64_t bytes,
		      struct mdkd_pages *p)
{
	size_t budget = bytes / MDKD_PAGE_SIZE, n = 0;
	uint64_t out = 0, done = 0;
	struct mdkd_pages *q;
	int ret = 0, err = 0;

	if (!p) {
		mdkd_target_act_done(t, -EINVAL);
		return 1;
	}
	memset(&p->res, 0, sizeof(p->res));
	if (p->nback > budget)
		p->nback = budget; /* the limits cut it (limits.h) */
	budget -= p->nback;
	if (p->tier_node >= 0 && (p->nout || p->nback)) {
		n = p->nout < budget ? p->nout : budget;
		ret = mdkd_migrate(t->page_sys, p, n);
		budget -= n;
		log_refused(t, "move_pages", &p->res);
	}
	out = p->res.out_done;
	done = p->res.out_done + p->res.back_done;
	err = p->res.first_error;
	for (q = p->pageout; q; q = q->pageout) {
		if (ret)
			memset(&q->res, 0, sizeof(q->res));
		else
			ret = tier_pageout(t, q, budget);
		budget -= q->res.out_tried < budget ? q->res.out_tried : budget;
		out += q->res.out_done;
		done += q->res.out_done;
		if (!err)
			err = q->res.first_error;
	}
	t->act_bytes = out * MDKD_PAGE_SIZE;
	/* Nothing moved and an error seen: that error. */
	if (!done && err && err != -ESRCH && !ret)
		ret = err;
	mdkd_target_act_done(t, ret);
	return 1;
}

const struct mdkd_actuator_ops mdkd_act_tier = {
	.name = "tier",
	.action = MDKD_ACT_DEMOTE,
	.swap_backed = false, /* the mode closes its swap tiers itself */
	.help = "backend auto: move_pages(2) to and from the CMM-MP node and process_madvise(MADV_PAGEOUT) of the pages mode policy routes to each tier",
	.state_size = 0,
	.probe = NULL,
	.attach = tier_attach,
	.apply = tier_apply,
	.restore = NULL,
	.detach = NULL,
};
