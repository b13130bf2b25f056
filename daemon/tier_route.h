/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The routing of policy mode's backend auto, pure: which tier each page
 * goes to at a window's end, given its idle age, the tier it is in, the
 * running tiered AGE setting and which tiers take pages now.
 *
 * Tiers 1..n are the cgroup's tier list (mdk/tier.h), down the hierarchy;
 * DRAM is tier 0.  Tiered AGE(T_1..T_n) moves a page into tier k once it
 * has been idle d_k = min over j >= k of T_j windows (Documentation/mdk.rst,
 * "Tiers").  A page idle @age windows in tier @cur goes to the deepest
 * tier k > cur with d_k <= age that is open and has room, else stays where
 * it is.  A page that does not reach the deepest tier it is due in is
 * held by that tier (closed, or full): counted there, whether it went to
 * a shallower tier or stayed.  Pages never move up here: an access brings
 * a page back to DRAM.
 */
#ifndef MDKD_TIER_ROUTE_H
#define MDKD_TIER_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/tier.h>

/* No wait: the setting leaves the tier out. */
#define MDKD_ROUTE_NONE UINT32_MAX

struct mdkd_route_tier {
	uint32_t wait; /* d_k in idle windows, MDKD_ROUTE_NONE: left out */
	bool open; /* false: closed (swap valve, no room): its pages stay */
	uint64_t room; /* pages it takes now, UINT64_MAX: no cap */
};

struct mdkd_route {
	unsigned int n; /* tiers, 1..MDK_TIERS_MAX */
	struct mdkd_route_tier t[MDK_TIERS_MAX];
};

/* Where the pages of one window go. */
struct mdkd_route_out {
	uint64_t *ids[MDK_TIERS_MAX]; /* sorted, disjoint; tier k at k - 1 */
	size_t n[MDK_TIERS_MAX], cap[MDK_TIERS_MAX];
	/* Pages whose deepest due tier is k that it did not take. */
	uint64_t held[MDK_TIERS_MAX];
};

/*
 * mdkd_route_waits() - the entry waits of tiered AGE(@T[0..@n)), each a
 * number of idle windows >= 1 or INFINITY (none), into @r's tiers:
 * d_k = min over j >= k of T_j, MDKD_ROUTE_NONE when all are none.
 * Sets @r->n; leaves open and room alone.
 * Return: 0, or -EINVAL (a T below 1 or not a whole number, @n out of
 * 1..MDK_TIERS_MAX).
 */
int mdkd_route_waits(struct mdkd_route *r, const double *T, unsigned int n);

/*
 * mdkd_route_page() - the tier a page idle @age windows in tier @cur goes
 * to (@cur: it stays), one page taken off that tier's room.  *@held_in:
 * the deepest tier the page is due in when it does not go there, else 0.
 */
unsigned int mdkd_route_page(struct mdkd_route *r, uint32_t age,
			     unsigned int cur, unsigned int *held_in);

/*
 * mdkd_route_pick() - route a window's pages: @due[k - 1] (@ndue[k - 1]
 * sorted ids) are the pages due in tier k, idle at least d_k and above
 * it (mdk_eval_pick_tier()); empty for a tier left out.  Each page goes
 * to the deepest open tier with room it is due in, the rooms taken in
 * page order, into @out (emptied first); held as mdkd_route_page() says.
 * The same answer as mdkd_route_page() page by page.
 * Return: 0 or -ENOMEM.
 */
int mdkd_route_pick(struct mdkd_route *r, const uint64_t *const *due,
		    const size_t *ndue, struct mdkd_route_out *out);

/*
 * mdkd_route_capped() - keep the tiers' capacities in the choice of a
 * setting: for each tiered AGE point of @pts[0..@n) over the tiers @t,
 * the pages it would hold in each tier now, those of the idle ages
 * d_k..d_{k+1} - 1 of @hist (every page by idle age, the last of @nbins
 * bins "or more": mdk_eval_age_hist()), into its peak; a point that
 * would hold more than a tier's capacity is not feasible.  (The live
 * curve computes no peaks: this is the occupancy of the pages now, the
 * steady state of a workload as it is.)
 */
void mdkd_route_capped(struct mdk_tier_point *pts, size_t n,
		       const struct mdk_tiers *t, const uint64_t *hist,
		       size_t nbins);

/* mdkd_route_out_free() - the arrays of @out. */
void mdkd_route_out_free(struct mdkd_route_out *out);

#endif /* MDKD_TIER_ROUTE_H */
