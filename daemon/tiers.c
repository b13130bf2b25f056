// SPDX-License-Identifier: GPL-2.0
/*
 * The tier goals (tiers.h): dram_free_min and tier_used_max on the host's
 * readings, the coldest pages across cgroups from their idle-age
 * histograms.  Pure: no I/O, no clock.
 */
#include <string.h>

#include "log.h"
#include "tiers.h"

void mdkd_tiers_init(struct mdkd_tiers *t)
{
	memset(t, 0, sizeof(*t));
	t->tier_node = -1;
	t->tier_room = t->promote_room = UINT64_MAX;
	t->held = MDKD_R_RECLAIM;
}

static uint64_t pages_of(double bytes)
{
	return bytes > 0 ? (uint64_t)(bytes / MDKD_PAGE_SIZE) : 0;
}

void mdkd_tiers_update(struct mdkd_tiers *t, const struct mdkd_tiers_conf *conf,
		       const struct mdkd_host *h)
{
	enum mdkd_reason held = MDKD_R_RECLAIM;
	double goal, used, slack;

	t->conf = *conf;
	t->tier_node = h->tier_node;
	t->tier_room = UINT64_MAX;
	t->cap_bytes = 0;
	if (h->tier_node >= 0 && h->tier_total) {
		used = (double)(h->tier_total - h->tier_free);
		t->cap_bytes = (uint64_t)(conf->tier_used_max * h->tier_total);
		slack = h->tier_total / 256 > MDKD_TIER_SLACK ?
				h->tier_total / 256 :
				MDKD_TIER_SLACK;
		t->tier_room = pages_of(t->cap_bytes - used - slack);
	}
	t->goal_on = conf->dram_free_min > 0 && h->dram_total &&
		     h->tier_node >= 0;
	t->need = 0;
	t->promote_room = UINT64_MAX;
	t->goal_bytes = 0;
	if (t->goal_on) {
		goal = conf->dram_free_min * h->dram_total;
		t->goal_bytes = (uint64_t)goal;
		t->need = pages_of(goal - (double)h->dram_free);
		t->promote_room =
			pages_of((double)h->dram_free - goal -
				 MDKD_TIER_PROMOTE_MARGIN * h->dram_total);
		if (t->need > t->tier_room) {
			t->need = t->tier_room;
			held = MDKD_R_TIER_FULL;
		}
	}
	if (held != t->held)
		log_info("tier goals: %s",
			 held == MDKD_R_TIER_FULL ?
				 "tier_used_max holds dram_free_min back" :
				 "the CMM-MP node has room for dram_free_min");
	t->held = held;
}

void mdkd_tiers_report(struct mdkd_tiers *t, struct mdkd_tiers_cg *cg,
		       const uint64_t *hist)
{
	int i;

	mdkd_tiers_leave(t, cg);
	for (i = 0; i < MDKD_TIER_AGES; i++) {
		cg->hist[i] = hist[i];
		t->hist[i] += hist[i];
	}
	cg->in = true;
}

void mdkd_tiers_leave(struct mdkd_tiers *t, struct mdkd_tiers_cg *cg)
{
	int i;

	if (!cg->in)
		return;
	for (i = 0; i < MDKD_TIER_AGES; i++) {
		t->hist[i] -= cg->hist[i] < t->hist[i] ? cg->hist[i] :
							 t->hist[i];
		cg->hist[i] = 0;
	}
	cg->in = false;
}

/*
 * The idle age A from the idlest down where the host's pages cover the
 * need, and in *@take how many of those idle exactly A are needed.
 */
static int threshold(const struct mdkd_tiers *t, uint64_t *take)
{
	uint64_t cum = 0;
	int a;

	for (a = MDKD_TIER_AGES - 1; a > MDKD_TIER_MIN_AGE; a--) {
		if (cum + t->hist[a] >= t->need)
			break;
		cum += t->hist[a];
	}
	*take = t->need - cum;
	return a;
}

int mdkd_tiers_threshold(const struct mdkd_tiers *t)
{
	uint64_t take;

	return t->goal_on && t->need ? threshold(t, &take) : -1;
}

uint64_t mdkd_tiers_share(const struct mdkd_tiers *t,
			  const struct mdkd_tiers_cg *cg, uint32_t *min_age,
			  uint64_t *at_min)
{
	uint64_t take, n = 0;
	int a, i;

	*min_age = MDKD_TIER_AGES;
	*at_min = 0;
	if (!t->goal_on || !t->need || !cg->in)
		return 0;
	a = threshold(t, &take);
	*min_age = (uint32_t)a;
	if (take < t->hist[a])
		/* This cgroup's part of age a, rounded up. */
		*at_min = (cg->hist[a] * take + t->hist[a] - 1) / t->hist[a];
	else
		*at_min = cg->hist[a];
	for (i = a + 1; i < MDKD_TIER_AGES; i++)
		n += cg->hist[i];
	return n + *at_min;
}

uint64_t mdkd_tiers_demote_cap(struct mdkd_tiers *t, uint64_t want, bool *cut)
{
	*cut = want > t->tier_room || t->held == MDKD_R_TIER_FULL;
	if (*cut)
		t->tier_full++;
	return want < t->tier_room ? want : t->tier_room;
}

uint64_t mdkd_tiers_promote_cap(struct mdkd_tiers *t, uint64_t want)
{
	if (want <= t->promote_room)
		return want;
	t->promote_cut++;
	return t->promote_room;
}

static void take_off(uint64_t *room, uint64_t n)
{
	if (*room != UINT64_MAX)
		*room = *room > n ? *room - n : 0;
}

void mdkd_tiers_moved(struct mdkd_tiers *t, uint64_t out, uint64_t goal,
		      uint64_t back)
{
	t->demoted += out;
	t->promoted += back;
	t->goal_picked += goal;
	t->need = t->need > out ? t->need - out : 0;
	take_off(&t->tier_room, out);
	take_off(&t->promote_room, back);
	/* What came back may be demoted again: it adds to tier room. */
	if (t->tier_room != UINT64_MAX)
		t->tier_room += back;
}
