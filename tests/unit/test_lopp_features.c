// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's features (libmdk/lopp/features.c) on hand-made
 * access sequences, each value worked out by hand: reuse distances newest
 * first with an unseen one counting MDK_LOPP_RECENT windows, the share of
 * windows with an access since the first, the accesses of the last 32
 * windows (an access 32 windows back no longer counts), the region's own
 * history moving once a window whichever of its pages comes first, and
 * the refusals (a window going back, a page twice in a window).
 */
#include <errno.h>
#include <math.h>

#include <mdk/lopp.h>

#include "mdk_test.h"

#define NF MDK_LOPP_FEATURES

static float lg(double x)
{
	return (float)log2(1 + x);
}

/* Feed page @p (id @id) at window @w alone; its row into @x. */
static void feed(struct mdk_lopp_feat *f, uint32_t w, uint64_t id, uint32_t p,
		 float *x)
{
	char err[256];

	ck_assert_msg(!mdk_lopp_feat_add(f, w, &id, &p, 1, x, err, sizeof(err)),
		      "%s", err);
}

static void want(const float *x, const float *v, const char *what)
{
	for (unsigned int k = 0; k < NF; k++)
		ck_assert_msg(fabsf(x[k] - v[k]) < 1e-6f,
			      "%s: %s is %g, want %g", what,
			      mdk_lopp_feature_name(k), x[k], v[k]);
}

START_TEST(test_features_by_hand)
{
	const float u = lg(MDK_LOPP_RECENT);
	struct mdk_lopp_feat *f;
	float x[NF];

	ck_assert_int_eq(mdk_lopp_feat_new(&f), 0);
	/* page 0 (region 0) in windows 0, 1, 4 and 40 */
	feed(f, 0, 0x1000, 0, x);
	want(x, (float[NF]){ u, u, u, u, 1, lg(1), u, u, u, u, 1, lg(1) },
	     "first access");
	feed(f, 1, 0x1000, 0, x);
	want(x,
	     (float[NF]){ lg(1), u, u, u, 1, lg(2), lg(1), u, u, u, 1, lg(2) },
	     "window 1");
	feed(f, 4, 0x1000, 0, x);
	want(x,
	     (float[NF]){ lg(3), lg(1), u, u, 3.0f / 5, lg(3), lg(3), lg(1), u,
			  u, 3.0f / 5, lg(3) },
	     "window 4");
	/* 36 windows later: windows 0, 1 and 4 are out of the last 32 */
	feed(f, 40, 0x1000, 0, x);
	want(x,
	     (float[NF]){ lg(36), lg(3), lg(1), u, 4.0f / 41, lg(1), lg(36),
			  lg(3), lg(1), u, 4.0f / 41, lg(1) },
	     "window 40");
	/*
	 * Page 1, same region, first seen in window 41: its own history is
	 * new, the region's moves on by one window (reuse 1, 5 windows).
	 */
	feed(f, 41, 0x1001, 1, x);
	want(x,
	     (float[NF]){ u, u, u, u, 1, lg(1), lg(1), lg(36), lg(3), lg(1),
			  5.0f / 42, lg(2) },
	     "a new page of a known region");
	mdk_lopp_feat_free(f);
}
END_TEST

START_TEST(test_features_refuse)
{
	uint64_t ids[2] = { 0x1000, 0x1000 };
	uint32_t pages[2] = { 0, 0 };
	struct mdk_lopp_feat *f;
	float x[2 * NF];
	char err[256];

	ck_assert_int_eq(mdk_lopp_feat_new(&f), 0);
	ck_assert_int_eq(mdk_lopp_feat_add(f, 3, ids, pages, 2, x, err,
					   sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "page 0 twice in window 3"), "%s", err);
	ck_assert_int_eq(mdk_lopp_feat_add(f, 2, ids, pages, 1, x, err,
					   sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "window 2 after window 3"), "%s", err);
	ck_assert_str_eq(mdk_lopp_feature_name(4), "page_rate");
	ck_assert_str_eq(mdk_lopp_feature_name(11), "region_recent");
	ck_assert_ptr_null(mdk_lopp_feature_name(NF));
	mdk_lopp_feat_free(f);
}
END_TEST

static Suite *lopp_features_suite(void)
{
	Suite *s = suite_create("lopp_features");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_features_by_hand);
	tcase_add_test(tc, test_features_refuse);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_features_suite)
