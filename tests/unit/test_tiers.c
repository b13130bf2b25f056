// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the tier goals (daemon/tiers.c) on made-up readings: what
 * dram_free_min needs, capped by the room tier_used_max leaves on the
 * CMM-MP node less its slack (tier-full when it cuts the need), the promotion room above the goal
 * plus its margin; the cgroups' idle-age histograms add up and the
 * threshold splits the need among them in proportion, never down to the
 * pages of the last window; what moves comes off the need and the rooms.
 */
#include <stdint.h>
#include <string.h>

#include "daemon/tiers.h"
#include "unit.h"

#define PG MDKD_PAGE_SIZE

/* DRAM of 1000 pages, a tier node of 10000 (its slack: 512 pages). */
static struct mdkd_host host(uint64_t dram_free, uint64_t tier_free)
{
	struct mdkd_host h;

	memset(&h, 0, sizeof(h));
	h.dram_total = 1000 * PG;
	h.dram_free = dram_free * PG;
	h.tier_node = 1;
	h.tier_total = 10000 * PG;
	h.tier_free = tier_free * PG;
	return h;
}

START_TEST(test_update_need_and_rooms)
{
	struct mdkd_tiers_conf c = { .dram_free_min = 0.4,
				     .tier_used_max = 0.9 };
	struct mdkd_tiers t;
	struct mdkd_host h;

	mdkd_tiers_init(&t);
	ck_assert_uint_eq(t.tier_room, UINT64_MAX);
	/* 100 pages below the goal; the node takes 9000 - 0 - 512. */
	h = host(300, 10000);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert(t.goal_on);
	ck_assert_uint_eq(t.need, 100);
	ck_assert_uint_eq(t.tier_room, 8488);
	ck_assert_uint_eq(t.promote_room, 0);
	ck_assert_uint_eq(t.goal_bytes, 400 * PG);
	ck_assert_int_eq(t.held, MDKD_R_RECLAIM);
	/* The node has 8438 used: room 50, the need is cut to it. */
	h = host(300, 1562);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert_uint_eq(t.need, 50);
	ck_assert_uint_eq(t.tier_room, 50);
	ck_assert_int_eq(t.held, MDKD_R_TIER_FULL);
	/* At the cap: nothing, tier-full. */
	h = host(300, 1000);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert_uint_eq(t.need, 0);
	ck_assert_uint_eq(t.tier_room, 0);
	ck_assert_int_eq(t.held, MDKD_R_TIER_FULL);
	/* Above the goal and its 5% margin: 600 - 400 - 50 to promote. */
	h = host(600, 10000);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert_uint_eq(t.need, 0);
	ck_assert_uint_eq(t.promote_room, 150);
	ck_assert_int_eq(t.held, MDKD_R_RECLAIM);
	/* Goal off: no need, promotions unbounded, the cap still holds. */
	c.dram_free_min = 0;
	h = host(300, 1562);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert(!t.goal_on);
	ck_assert_uint_eq(t.need, 0);
	ck_assert_uint_eq(t.promote_room, UINT64_MAX);
	ck_assert_uint_eq(t.tier_room, 50);
	/* No CMM-MP node: neither goal nor cap. */
	c.dram_free_min = 0.4;
	h.tier_node = -1;
	mdkd_tiers_update(&t, &c, &h);
	ck_assert(!t.goal_on);
	ck_assert_uint_eq(t.tier_room, UINT64_MAX);
}
END_TEST

START_TEST(test_share_splits_coldest)
{
	struct mdkd_tiers_conf c = { .dram_free_min = 0.4, .tier_used_max = 1 };
	struct mdkd_tiers_cg a = { 0 }, b = { 0 };
	uint64_t ha[MDKD_TIER_AGES] = { 0 }, hb[MDKD_TIER_AGES] = { 0 };
	uint64_t at_min;
	uint32_t min_age;
	struct mdkd_tiers t;
	struct mdkd_host h = host(300, 10000);

	mdkd_tiers_init(&t);
	mdkd_tiers_update(&t, &c, &h); /* need 100 */
	ha[10] = 30;
	ha[5] = 40;
	hb[MDKD_TIER_AGES - 1] = 20;
	hb[5] = 60;
	hb[0] = 100;
	ck_assert_uint_eq(mdkd_tiers_share(&t, &a, &min_age, &at_min), 0);
	mdkd_tiers_report(&t, &a, ha);
	mdkd_tiers_report(&t, &b, hb);
	ck_assert_uint_eq(t.hist[5], 100);
	/* 20 + 30 over age 5, then 50 of the 100 at age 5: half each. */
	ck_assert_int_eq(mdkd_tiers_threshold(&t), 5);
	ck_assert_uint_eq(mdkd_tiers_share(&t, &a, &min_age, &at_min), 50);
	ck_assert_uint_eq(min_age, 5);
	ck_assert_uint_eq(at_min, 20);
	ck_assert_uint_eq(mdkd_tiers_share(&t, &b, &min_age, &at_min), 50);
	ck_assert_uint_eq(at_min, 30);
	/* A's demotion comes off the need, its pages off its histogram. */
	mdkd_tiers_moved(&t, 50, 50, 0);
	ha[10] = 0;
	ha[5] = 20;
	mdkd_tiers_report(&t, &a, ha);
	ck_assert_uint_eq(t.need, 50);
	ck_assert_uint_eq(t.hist[5], 80);
	/* 20 over age 5, then 30 of the 80 at age 5 (60 of them B's). */
	ck_assert_uint_eq(mdkd_tiers_share(&t, &b, &min_age, &at_min), 43);
	ck_assert_uint_eq(at_min, 23); /* 60 * 30 / 80, rounded up */
	/* More than every page idle a window: all of them, none of age 0. */
	h = host(0, 10000);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert_uint_eq(mdkd_tiers_share(&t, &b, &min_age, &at_min), 80);
	ck_assert_uint_eq(min_age, MDKD_TIER_MIN_AGE);
	/* A cgroup that leaves takes its pages out of the host's. */
	mdkd_tiers_leave(&t, &b);
	ck_assert_uint_eq(t.hist[5], 20);
	ck_assert_uint_eq(t.hist[0], 0);
	ck_assert_uint_eq(mdkd_tiers_share(&t, &b, &min_age, &at_min), 0);
	mdkd_tiers_leave(&t, &b);
	ck_assert_uint_eq(t.hist[5], 20);
}
END_TEST

START_TEST(test_caps_and_moves)
{
	struct mdkd_tiers_conf c = { .dram_free_min = 0.4,
				     .tier_used_max = 0.9 };
	struct mdkd_tiers t;
	struct mdkd_host h = host(300, 1562); /* need 50, room 50 */
	bool cut;

	mdkd_tiers_init(&t);
	mdkd_tiers_update(&t, &c, &h);
	/* The cap cuts the goal's need: every decision counts as held. */
	ck_assert_uint_eq(mdkd_tiers_demote_cap(&t, 30, &cut), 30);
	ck_assert(cut);
	ck_assert_uint_eq(mdkd_tiers_demote_cap(&t, 80, &cut), 50);
	ck_assert(cut);
	ck_assert_uint_eq(t.tier_full, 2);
	ck_assert_uint_eq(mdkd_tiers_promote_cap(&t, 5), 0);
	ck_assert_uint_eq(t.promote_cut, 1);
	mdkd_tiers_moved(&t, 40, 10, 0);
	ck_assert_uint_eq(t.need, 10);
	ck_assert_uint_eq(t.tier_room, 10);
	ck_assert_uint_eq(mdkd_tiers_demote_cap(&t, 20, &cut), 10);
	/* What comes back frees tier room and takes DRAM room. */
	h = host(700, 1562);
	mdkd_tiers_update(&t, &c, &h);
	ck_assert_uint_eq(mdkd_tiers_demote_cap(&t, 20, &cut), 20);
	ck_assert(!cut);
	ck_assert_uint_eq(t.promote_room, 250);
	mdkd_tiers_moved(&t, 0, 0, 100);
	ck_assert_uint_eq(t.promote_room, 150);
	ck_assert_uint_eq(t.tier_room, 150);
	ck_assert_uint_eq(t.demoted, 40);
	ck_assert_uint_eq(t.promoted, 100);
	ck_assert_uint_eq(t.goal_picked, 10);
}
END_TEST

static Suite *tiers_suite(void)
{
	Suite *s = suite_create("tiers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_update_need_and_rooms);
	tcase_add_test(tc, test_share_splits_coldest);
	tcase_add_test(tc, test_caps_and_moves);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tiers_suite)
