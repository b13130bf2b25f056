/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tier goals, host-wide, in the manner of DAMON's node_mem_free_bp and
 * node_mem_used_bp quota goals and its mem_tier recipe:
 *
 *  - dram_free_min: keep at least this share of the DRAM nodes free by
 *    demoting to the CMM-MP node the coldest pages of the policy-mode
 *    cgroups of the CXL back end, coldest across all of them: each
 *    reports, at its window's end, how many of its DRAM pages have been
 *    idle how many windows (its evaluator's idle ages); the histograms
 *    add up here, and the idle age whose pages cover what is missing
 *    below the goal is the threshold each cgroup demotes from;
 *  - tier_used_max: no demotion (the goal's or a policy's own) fills the
 *    CMM-MP node beyond this share;
 *  - promotions (the tier pages a window saw accessed again) run, with
 *    dram_free_min on, only while DRAM is free above the goal plus
 *    MDKD_TIER_PROMOTE_MARGIN, as much as that room holds.
 *
 * Pure logic, no I/O: the pipeline feeds it the host's readings (host.h),
 * policy mode its cgroups' histograms and what they moved.  A reading
 * sets what is needed and the rooms; each move is taken off them until
 * the next reading.
 */
#ifndef MDKD_TIERS_H
#define MDKD_TIERS_H

#include <stdbool.h>
#include <stdint.h>

#include "controller.h"
#include "host.h"

/* Idle ages in windows, 0..MDKD_TIER_AGES - 1, the last bin "or more". */
#define MDKD_TIER_AGES 64
/* The goal never demotes a page accessed in the last window. */
#define MDKD_TIER_MIN_AGE 1
/*
 * The kernel's per-CPU free lists take a node's pages in batches, so its
 * MemFree drops ahead of the pages migrated there: the room under
 * tier_used_max keeps this much back, or 1/256 of the node if more.
 */
#define MDKD_TIER_SLACK (2ULL << 20) /* bytes */
/* Promotions wait for DRAM this far (share of it) above the goal. */
#define MDKD_TIER_PROMOTE_MARGIN 0.05

/* The keys ([global] of mdkd.conf). */
struct mdkd_tiers_conf {
	double dram_free_min; /* share of the DRAM nodes; 0: off */
	double tier_used_max; /* share of the CMM-MP node; 0.9 */
};

/* One cgroup's part: its last histogram, as added to the host's. */
struct mdkd_tiers_cg {
	uint64_t hist[MDKD_TIER_AGES];
	bool in; /* added to the host's */
};

struct mdkd_tiers {
	struct mdkd_tiers_conf conf;
	int tier_node; /* the CMM-MP node of the last reading, -1: none */
	bool goal_on; /* dram_free_min set, DRAM and a CMM-MP node known */
	uint64_t hist[MDKD_TIER_AGES]; /* all cgroups' DRAM pages */
	/* Pages, from the last reading, less what moved since. */
	uint64_t need; /* to demote for the goal (at most tier_room) */
	uint64_t tier_room; /* the CMM-MP node takes, UINT64_MAX: no cap */
	uint64_t promote_room; /* DRAM takes back, UINT64_MAX: no goal */
	uint64_t goal_bytes, cap_bytes; /* the last reading's, bytes */
	/* MDKD_R_TIER_FULL while the cap cuts the need, else RECLAIM */
	enum mdkd_reason held;
	/* Counters, pages. */
	uint64_t demoted, promoted; /* by the cgroups of the CXL back end */
	uint64_t goal_picked; /* picked for the goal */
	uint64_t tier_full; /* decisions the tier cap cut */
	uint64_t promote_cut; /* promotions put off for want of room */
};

/* mdkd_tiers_init() - nothing known: no goal, no cap. */
void mdkd_tiers_init(struct mdkd_tiers *t);

/*
 * mdkd_tiers_update() - apply @conf and a new reading @h: what the goal
 * needs, the rooms under tier_used_max and above the goal.
 */
void mdkd_tiers_update(struct mdkd_tiers *t, const struct mdkd_tiers_conf *conf,
		       const struct mdkd_host *h);

/* mdkd_tiers_report() - @cg's histogram is now @hist (replaces its last). */
void mdkd_tiers_report(struct mdkd_tiers *t, struct mdkd_tiers_cg *cg,
		       const uint64_t *hist);

/* mdkd_tiers_leave() - @cg is gone: its histogram leaves the host's. */
void mdkd_tiers_leave(struct mdkd_tiers *t, struct mdkd_tiers_cg *cg);

/*
 * mdkd_tiers_share() - what @cg demotes for the goal now: its pages idle
 * more than *@min_age windows and *@at_min of those idle exactly that,
 * the threshold where the host's histogram covers the need, split in
 * proportion.  Return: the pages (0: nothing to do).
 */
uint64_t mdkd_tiers_share(const struct mdkd_tiers *t,
			  const struct mdkd_tiers_cg *cg, uint32_t *min_age,
			  uint64_t *at_min);

/*
 * mdkd_tiers_threshold() - the idle age the goal demotes from now (pages
 * idle longer, and some idle exactly that), or -1 when it needs nothing.
 */
int mdkd_tiers_threshold(const struct mdkd_tiers *t);

/*
 * mdkd_tiers_demote_cap() - of @want pages to demote, those the CMM-MP
 * node takes under tier_used_max now.  *@cut: the cap cut them, or holds
 * the goal back (counted in tier_full).
 */
uint64_t mdkd_tiers_demote_cap(struct mdkd_tiers *t, uint64_t want, bool *cut);

/*
 * mdkd_tiers_promote_cap() - of @want pages to promote, those DRAM takes
 * above the goal now; a cut counts in promote_cut.
 */
uint64_t mdkd_tiers_promote_cap(struct mdkd_tiers *t, uint64_t want);

/*
 * mdkd_tiers_moved() - @out pages went to the CMM-MP node (@goal of them
 * picked for the goal), @back came back to DRAM: off the need and the
 * rooms, into the counters.
 */
void mdkd_tiers_moved(struct mdkd_tiers *t, uint64_t out, uint64_t goal,
		      uint64_t back);

#endif /* MDKD_TIERS_H */
