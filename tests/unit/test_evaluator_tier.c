// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the live tiered curves (mdk_eval_tier_curve(),
 * mdk_eval_tier_tune(), libmdk/evaluator_tier.c).  An evaluator fed a
 * whole trace (horizon >= its windows) gives the curve mdk_tier_run()
 * gives for it, from its own age or pace generator, widened or added as
 * needed; peaks are not computed live (0, feasible); auto-tune picks
 * mdk_tier_best()'s point.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/evaluator.h>
#include <mdk/tier.h>

#include "mdk_test.h"

static struct mdk_eval *fed(const struct tt *t, uint32_t H, const char *pols)
{
	struct mdk_eval_opts o = { .horizon = H, .policies = pols };
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint64_t *ids = malloc((t->P + 1) * sizeof(*ids));
	char err[512];
	struct mdk_eval *e = mdk_eval_new(&o, err, sizeof(err));
	uint32_t w;

	ck_assert_msg(e, "%s", err);
	for (w = 0; w < t->W; w++) {
		size_t n = tt_window(t, w, pg), i;

		for (i = 0; i < n; i++)
			ids[i] = t->ids[pg[i]];
		ck_assert_msg(!mdk_eval_window(e, ids, n, 0, false, err,
					       sizeof(err)),
			      "window %u: %s", w, err);
	}
	free(pg);
	free(ids);
	return e;
}

static void check_live(const struct tt *t, const char *trace, const char *pols,
		       const char *list, const char *spec, uint64_t window_ns)
{
	struct mdk_tiers tl;
	struct mdk_tier_opts o = { .tiers = &tl, .window_ns = window_ns };
	struct mdk_eval *e = fed(t, t->W, pols); /* defaults alike */
	struct mdk_tier_point *a, *b;
	char err[512];
	long n;
	size_t nb, i;
	unsigned int k;

	ck_assert(!mdk_tiers_parse(list, &tl, err, sizeof(err)));
	n = mdk_eval_tier_curve(e, spec, &o, &a, err, sizeof(err));
	ck_assert_msg(n > 0, "%s: %s", spec, err);
	ck_assert_msg(!mdk_tier_run(trace, spec, &o, &b, &nb, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq((size_t)n, nb);
	for (i = 0; i < nb; i++) {
		const struct mdk_tier_point *x = &a[i], *y = &b[i];

		ck_assert_uint_eq(x->np, y->np);
		for (k = 0; k < x->np; k++)
			ck_assert(x->p[k] == y->p[k]);
		ck_assert_uint_eq(x->pt.promotions, y->pt.promotions);
		ck_assert_uint_eq(x->pt.saved, y->pt.saved);
		ck_assert_uint_eq(x->pt.footprint, y->pt.footprint);
		ck_assert(x->pt.savings == y->pt.savings);
		ck_assert(x->pt.max_rate == y->pt.max_rate);
		ck_assert(x->pt.mean_rate == y->pt.mean_rate);
		ck_assert(x->pt.p99_rate == y->pt.p99_rate);
		ck_assert_msg(x->max_stall == y->max_stall,
			      "%s [%s] %zu: max_stall %g != %g", spec, pols, i,
			      x->max_stall, y->max_stall);
		ck_assert(x->mean_stall == y->mean_stall);
		ck_assert_uint_eq(x->stall_ns, y->stall_ns);
		for (k = 0; k < MDK_TIERS_MAX; k++) {
			ck_assert_uint_eq(x->tier_promotions[k],
					  y->tier_promotions[k]);
			ck_assert_uint_eq(x->peak[k], 0); /* not live */
		}
		ck_assert(x->feasible);
	}
	free(a);
	free(b);
	mdk_eval_free(e);
}

START_TEST(test_live_equals_run)
{
	static const char *const lists[] = {
		"t:cost=1",
		"cxl:cost=200;swap:cost=5000,ratio=3",
		"cxl:cost=100,cap=4;zswap:cost=900,ratio=2.5;swap:cost=8000",
	};
	char path[64];
	unsigned int seed, l;

	for (seed = 1; seed <= 2; seed++) {
		struct tt *t = seed & 1 ? tt_random(seed, 30, 50) :
					  tt_synth(seed, 30, 50, NULL);

		tt_write(t, path, sizeof(path));
		for (l = 0; l < MDK_ARRAY(lists); l++) {
			/* age evaluated (widened), or not (added) */
			check_live(t, path, "age", lists[l], "tage", 0);
			check_live(t, path, "paw", lists[l], "tage", 1000);
			check_live(t, path, "pace", lists[l],
				   "tpace:P=0/2/7,A=1/4/9", 0);
			check_live(t, path, "age", lists[l], "tpace", 500);
		}
		unlink(path);
		tt_free(t);
	}
}
END_TEST

START_TEST(test_live_tune)
{
	struct tt *t = tt_random(5, 30, 50);
	struct mdk_tiers tl;
	struct mdk_tier_opts o = { .tiers = &tl };
	struct mdk_eval *e = fed(t, 40, "age");
	struct mdk_tier_point *pts, pt;
	char err[512];
	long n, best;

	ck_assert(!mdk_tiers_parse("cxl:cost=100;swap:cost=1000", &tl, err,
				   sizeof(err)));
	ck_assert_int_eq(mdk_eval_tier_curve(e, "tage", NULL, &pts, err,
					     sizeof(err)),
			 -EINVAL);
	n = mdk_eval_tier_curve(e, "tage", &o, &pts, err, sizeof(err));
	ck_assert_int_gt(n, 0);
	best = mdk_tier_best(pts, (size_t)n, 50);
	ck_assert_int_ge(best, 0);
	ck_assert_int_eq(mdk_eval_tier_tune(e, "tage", &o, 50, &pt, err,
					    sizeof(err)),
			 0);
	ck_assert(pt.pt.savings == pts[best].pt.savings);
	ck_assert(pt.max_stall <= 50);
	ck_assert_int_eq(mdk_eval_tier_tune(e, "tage:T1=1", &o, 0, &pt, err,
					    sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "no setting within"), "%s", err);
	ck_assert_int_eq(mdk_eval_tier_tune(e, "topp", &o, 1, &pt, err,
					    sizeof(err)),
			 -EOPNOTSUPP);
	free(pts);
	mdk_eval_free(e);
	tt_free(t);
}
END_TEST

static Suite *evaluator_tier_suite(void)
{
	Suite *s = suite_create("evaluator_tier");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_live_equals_run);
	tcase_add_test(tc, test_live_tune);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(evaluator_tier_suite)
