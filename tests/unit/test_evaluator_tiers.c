// SPDX-License-Identifier: GPL-2.0
/*
 * The live evaluator's tier state (mdk/evaluator.h): pages marked into
 * tiers, picked by idle age for the tiers below theirs, and counted per
 * tier when they come back.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <mdk/evaluator.h>

#include "mdk_test.h"

static struct mdk_eval *eval_age(void)
{
	struct mdk_eval_opts o = { .horizon = 8, .policies = "age" };
	char err[512];
	struct mdk_eval *e = mdk_eval_new(&o, err, sizeof(err));

	ck_assert_msg(e, "%s", err);
	return e;
}

static void feed(struct mdk_eval *e, const uint64_t *ids, size_t n)
{
	char err[512];

	ck_assert_int_eq(mdk_eval_window(e, ids, n, 0, false, err, sizeof(err)),
			 0);
}

/*
 * Pages 1..4 accessed in window 0, 5..6 in window 2, 7 in every window:
 * after window 3 they are 3, 1 and 0 windows idle.
 */
static struct mdk_eval *eval_three_ages(void)
{
	struct mdk_eval *e = eval_age();
	uint64_t w0[] = { 1, 2, 3, 4, 7 }, w1[] = { 7 }, w2[] = { 5, 6, 7 };

	feed(e, w0, 5);
	feed(e, w1, 1);
	feed(e, w2, 3);
	feed(e, w1, 1);
	return e;
}

START_TEST(test_pick_by_wait_and_tier)
{
	struct mdk_eval *e = eval_three_ages();
	const uint64_t *ids;
	uint64_t one[] = { 1 }, two[] = { 2 }, five[] = { 5 }, hist[3];
	size_t n;

	/* Idle >= 1: 1..6; >= 2: 1..4; >= 4: none. */
	ck_assert_int_eq(mdk_eval_pick_tier(e, 1, 1, &ids, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_int_eq(mdk_eval_pick_tier(e, 3, 2, &ids, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(ids[0], 1);
	ck_assert_uint_eq(ids[3], 4);
	ck_assert_int_eq(mdk_eval_pick_tier(e, 1, 4, &ids, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* A page in tier 2 is due in tier 3 only; one in tier 1 in 2 and 3. */
	ck_assert_int_eq(mdk_eval_mark_tier(e, one, 1, 2), 0);
	ck_assert_int_eq(mdk_eval_mark_tier(e, five, 1, 1), 0);
	ck_assert_int_eq(mdk_eval_pick_tier(e, 1, 1, &ids, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(ids[0], 2);
	ck_assert_uint_eq(ids[3], 6);
	ck_assert_int_eq(mdk_eval_pick_tier(e, 2, 1, &ids, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(ids[0], 2);
	ck_assert_uint_eq(ids[3], 5);
	ck_assert_int_eq(mdk_eval_pick_tier(e, 3, 1, &ids, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(ids[0], 1);
	/* mdk_eval_mark(): the deepest tier, picked by none. */
	mdk_eval_mark(e, two, 1);
	ck_assert_int_eq(mdk_eval_pick_tier(e, MDK_TIERS_MAX, 1, &ids, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(ids[0], 1);
	ck_assert_uint_eq(ids[1], 3);
	/* Every page counts in the ages, marked or not: 7 (0), 5 and 6
	 * (1), 1..4 (3, in the last of three bins). */
	ck_assert_uint_eq(mdk_eval_age_hist(e, hist, 3), 7);
	ck_assert_uint_eq(hist[0], 1);
	ck_assert_uint_eq(hist[1], 2);
	ck_assert_uint_eq(hist[2], 4);
	/* Marked pages leave the classic idle ages. */
	ck_assert_int_eq(mdk_eval_pick_idle(e, 1, 0, 8, false, &ids, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ids[0], 3);
	mdk_eval_free(e);
}
END_TEST

START_TEST(test_returned_per_tier)
{
	struct mdk_eval *e = eval_three_ages();
	uint64_t a[] = { 1, 2 }, b[] = { 3 }, c[] = { 5, 6 };
	uint64_t back[] = { 1, 3, 5, 6, 7 }, counts[MDK_TIERS_MAX];
	const uint64_t *ret, *ids;
	const uint8_t *tiers;
	size_t n;

	ck_assert_int_eq(mdk_eval_mark_tier(e, a, 2, 1), 0);
	ck_assert_int_eq(mdk_eval_mark_tier(e, b, 1, 3), 0);
	ck_assert_int_eq(mdk_eval_mark_tier(e, c, 2, 2), 0);
	/* Moved further down: page 6 goes from tier 2 to 3. */
	ck_assert_int_eq(mdk_eval_mark_tier(e, c + 1, 1, 3), 0);
	mdk_eval_tier_pages(e, counts);
	ck_assert_uint_eq(counts[0], 2);
	ck_assert_uint_eq(counts[1], 1);
	ck_assert_uint_eq(counts[2], 2);
	feed(e, back, 5);
	ret = mdk_eval_returned(e, &n);
	tiers = mdk_eval_returned_tiers(e, counts);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(ret[0], 1);
	ck_assert_uint_eq(tiers[0], 1);
	ck_assert_uint_eq(ret[1], 3);
	ck_assert_uint_eq(tiers[1], 3);
	ck_assert_uint_eq(tiers[2], 2);
	ck_assert_uint_eq(tiers[3], 3);
	ck_assert_uint_eq(counts[0], 1);
	ck_assert_uint_eq(counts[1], 1);
	ck_assert_uint_eq(counts[2], 2);
	/* Back in DRAM: due again, and the next window counts afresh. */
	feed(e, back + 4, 1);
	mdk_eval_returned_tiers(e, counts);
	ck_assert_uint_eq(counts[0] + counts[1] + counts[2], 0);
	/* Page 2 is still in tier 1, and only it. */
	mdk_eval_tier_pages(e, counts);
	ck_assert_uint_eq(counts[0], 1);
	ck_assert_uint_eq(counts[1] + counts[2], 0);
	/* Idle a window in DRAM: 1, 3, 4, 5, 6 (2 is still in tier 1). */
	ck_assert_int_eq(mdk_eval_pick_tier(e, 1, 1, &ids, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(ids[1], 3);
	ck_assert_uint_eq(ids[2], 4);
	mdk_eval_free(e);
}
END_TEST

START_TEST(test_bad_tier_refused)
{
	struct mdk_eval *e = eval_three_ages();
	uint64_t one[] = { 1 };
	const uint64_t *ids;
	size_t n;

	ck_assert_int_eq(mdk_eval_mark_tier(e, one, 1, 0), -EINVAL);
	ck_assert_int_eq(mdk_eval_mark_tier(e, one, 1, MDK_TIERS_MAX + 1),
			 -EINVAL);
	ck_assert_int_eq(mdk_eval_pick_tier(e, 0, 1, &ids, &n), -EINVAL);
	/* Nothing was marked: page 1 is still due in tier 1. */
	ck_assert_int_eq(mdk_eval_pick_tier(e, 1, 3, &ids, &n), 0);
	ck_assert_uint_eq(n, 4);
	mdk_eval_free(e);
}
END_TEST

static Suite *evaluator_tiers_suite(void)
{
	Suite *s = suite_create("evaluator_tiers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_pick_by_wait_and_tier);
	tcase_add_test(tc, test_returned_per_tier);
	tcase_add_test(tc, test_bad_tier_refused);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(evaluator_tiers_suite)
