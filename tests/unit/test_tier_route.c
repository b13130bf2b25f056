// SPDX-License-Identifier: GPL-2.0
/*
 * Description: backend auto's routing (daemon/tier_route.c): the entry
 * waits of a tiered AGE setting, where a page goes given its idle age and
 * tier, closed and full tiers holding their pages (shallower open tiers
 * taking them, or none), the window's routing from the evaluator's
 * per-tier picks equal to the page-by-page definition, and the settings
 * that would hold more than a tier's capacity now left out.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/tier_route.h"
#include "unit.h"

static void open_all(struct mdkd_route *r)
{
	unsigned int k;

	for (k = 0; k < MDK_TIERS_MAX; k++) {
		r->t[k].open = true;
		r->t[k].room = UINT64_MAX;
	}
}

START_TEST(test_waits)
{
	struct mdkd_route r;
	double a[] = { 2, 8, INFINITY }, b[] = { 4, 2, INFINITY },
	       c[] = { INFINITY, 3, 6 }, bad[] = { 0.5, 2, 3 };

	ck_assert_int_eq(mdkd_route_waits(&r, a, 3), 0);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_uint_eq(r.t[0].wait, 2);
	ck_assert_uint_eq(r.t[1].wait, 8);
	ck_assert_uint_eq(r.t[2].wait, MDKD_ROUTE_NONE);
	/* A deeper tier due sooner: equal waits skip tier 1. */
	ck_assert_int_eq(mdkd_route_waits(&r, b, 3), 0);
	ck_assert_uint_eq(r.t[0].wait, 2);
	ck_assert_uint_eq(r.t[1].wait, 2);
	ck_assert_int_eq(mdkd_route_waits(&r, c, 3), 0);
	ck_assert_uint_eq(r.t[0].wait, 3);
	ck_assert_uint_eq(r.t[2].wait, 6);
	ck_assert_int_eq(mdkd_route_waits(&r, bad, 3), -EINVAL);
	ck_assert_int_eq(mdkd_route_waits(&r, a, 0), -EINVAL);
	ck_assert_int_eq(mdkd_route_waits(&r, a, MDK_TIERS_MAX + 1), -EINVAL);
}
END_TEST

/* cxl after 2 idle windows, zswap after 8. */
static struct mdkd_route two_tiers(void)
{
	struct mdkd_route r;
	double T[] = { 2, 8 };

	open_all(&r);
	ck_assert_int_eq(mdkd_route_waits(&r, T, 2), 0);
	return r;
}

START_TEST(test_page_by_age)
{
	struct mdkd_route r = two_tiers();
	unsigned int held;

	ck_assert_uint_eq(mdkd_route_page(&r, 1, 0, &held), 0);
	ck_assert_uint_eq(held, 0);
	ck_assert_uint_eq(mdkd_route_page(&r, 2, 0, &held), 1);
	ck_assert_uint_eq(mdkd_route_page(&r, 7, 0, &held), 1);
	/* Idle long enough for both: straight to the deepest. */
	ck_assert_uint_eq(mdkd_route_page(&r, 8, 0, &held), 2);
	/* From the node down to zswap, and nowhere else. */
	ck_assert_uint_eq(mdkd_route_page(&r, 8, 1, &held), 2);
	ck_assert_uint_eq(mdkd_route_page(&r, 3, 1, &held), 1);
	ck_assert_uint_eq(mdkd_route_page(&r, 100, 2, &held), 2);
	ck_assert_uint_eq(held, 0);
}
END_TEST

START_TEST(test_closed_and_full_tiers_hold)
{
	struct mdkd_route r = two_tiers();
	unsigned int held;

	/* The swap valve closes zswap: due there, the page goes to the
	 * node; on the node already, it stays. */
	r.t[1].open = false;
	ck_assert_uint_eq(mdkd_route_page(&r, 9, 0, &held), 1);
	ck_assert_uint_eq(held, 2);
	ck_assert_uint_eq(mdkd_route_page(&r, 9, 1, &held), 1);
	ck_assert_uint_eq(held, 2);
	/* The node holds one more page: the next stays in DRAM. */
	r.t[0].room = 1;
	ck_assert_uint_eq(mdkd_route_page(&r, 2, 0, &held), 1);
	ck_assert_uint_eq(held, 0);
	ck_assert_uint_eq(r.t[0].room, 0);
	ck_assert_uint_eq(mdkd_route_page(&r, 2, 0, &held), 0);
	ck_assert_uint_eq(held, 1);
	ck_assert_uint_eq(mdkd_route_page(&r, 9, 0, &held), 0);
	ck_assert_uint_eq(held, 2);
	/* Reopened, zswap takes what it is due. */
	r.t[1].open = true;
	ck_assert_uint_eq(mdkd_route_page(&r, 9, 0, &held), 2);
	ck_assert_uint_eq(held, 0);
}
END_TEST

/*
 * Random pages (age, tier), settings and tier states: the window's
 * routing from the per-tier due lists is the page-by-page routing in
 * page order.
 */
START_TEST(test_pick_equals_page_by_page)
{
	enum { PAGES = 300, ROUNDS = 200 };
	static uint32_t age[PAGES];
	static unsigned int cur[PAGES];
	static uint64_t due[MDK_TIERS_MAX][PAGES];
	struct mdkd_route_out out;
	unsigned int round, k;

	memset(&out, 0, sizeof(out));
	srand(20);
	for (round = 0; round < ROUNDS; round++) {
		struct mdkd_route r, r2;
		double T[MDK_TIERS_MAX];
		const uint64_t *dp[MDK_TIERS_MAX];
		size_t ndue[MDK_TIERS_MAX] = { 0 }, at[MDK_TIERS_MAX] = { 0 };
		uint64_t held[MDK_TIERS_MAX] = { 0 };
		unsigned int n = 1 + (unsigned int)rand() % MDK_TIERS_MAX, i;

		for (k = 0; k < n; k++) {
			T[k] = rand() % 4 ? 1 + rand() % 10 : INFINITY;
			r.t[k].open = rand() % 4;
			r.t[k].room = rand() % 2 ? UINT64_MAX :
						   (uint64_t)(rand() % 40);
		}
		ck_assert_int_eq(mdkd_route_waits(&r, T, n), 0);
		r2 = r;
		for (i = 0; i < PAGES; i++) {
			age[i] = (uint32_t)(rand() % 14);
			cur[i] = (unsigned int)rand() % (n + 1);
			/* mdk_eval_pick_tier(k, d_k): idle >= d_k, above k */
			for (k = 0; k < n; k++)
				if (cur[i] < k + 1 &&
				    r.t[k].wait != MDKD_ROUTE_NONE &&
				    age[i] >= r.t[k].wait)
					due[k][ndue[k]++] = 3 * i + 7;
		}
		for (k = 0; k < n; k++)
			dp[k] = due[k];
		ck_assert_int_eq(mdkd_route_pick(&r, dp, ndue, &out), 0);
		for (i = 0; i < PAGES; i++) {
			unsigned int h,
				to = mdkd_route_page(&r2, age[i], cur[i], &h);

			if (h)
				held[h - 1]++;
			if (to == cur[i])
				continue;
			ck_assert_uint_lt(at[to - 1], out.n[to - 1]);
			ck_assert_uint_eq(out.ids[to - 1][at[to - 1]++],
					  3 * i + 7);
		}
		for (k = 0; k < n; k++) {
			ck_assert_uint_eq(at[k], out.n[k]);
			ck_assert_uint_eq(held[k], out.held[k]);
			ck_assert_uint_eq(r.t[k].room, r2.t[k].room);
		}
	}
	mdkd_route_out_free(&out);
}
END_TEST

/* What each setting would hold now, against the tiers' capacities. */
START_TEST(test_capped_by_occupancy_now)
{
	struct mdk_tiers t = { .n = 2 };
	struct mdk_tier_point pts[3];
	uint64_t hist[10];
	size_t i;

	for (i = 0; i < 10; i++)
		hist[i] = 100; /* ages 9 and more in the last bin */
	t.t[0].capacity = 250;
	memset(pts, 0, sizeof(pts));
	pts[0].p[0] = 2;
	pts[0].p[1] = 4;
	pts[1].p[0] = 2;
	pts[1].p[1] = INFINITY;
	pts[2].p[0] = INFINITY;
	pts[2].p[1] = 3;
	for (i = 0; i < 3; i++) {
		pts[i].np = 2;
		pts[i].feasible = true;
	}
	mdkd_route_capped(pts, 3, &t, hist, 10);
	/* Ages 2 and 3 on the node, 4 and more in the next tier. */
	ck_assert(pts[0].feasible);
	ck_assert_uint_eq(pts[0].peak[0], 200);
	ck_assert_uint_eq(pts[0].peak[1], 600);
	/* Everything idle 2 windows stays on the node: over its 250. */
	ck_assert(!pts[1].feasible);
	ck_assert_uint_eq(pts[1].peak[0], 800);
	/* The node skipped: nothing there, no cap to mind. */
	ck_assert(pts[2].feasible);
	ck_assert_uint_eq(pts[2].peak[0], 0);
	ck_assert_uint_eq(pts[2].peak[1], 700);
}
END_TEST

static Suite *tier_route_suite(void)
{
	Suite *s = suite_create("tier_route");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_waits);
	tcase_add_test(tc, test_page_by_age);
	tcase_add_test(tc, test_closed_and_full_tiers_hold);
	tcase_add_test(tc, test_pick_equals_page_by_page);
	tcase_add_test(tc, test_capped_by_occupancy_now);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tier_route_suite)
