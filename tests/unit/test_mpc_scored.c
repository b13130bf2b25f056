// SPDX-License-Identifier: GPL-2.0
/*
 * Description: curves scored from a window on (mdk_mpc_run_opts(),
 * mdk_simulate_opts(), libmdk/mpc_scored.c).  On random traces, every
 * setting of age, vmin, paw, pace and opp scored from window F equals a
 * brute force that steps residency over every window and counts windows
 * F.. only, under both savings conventions; L-OPP, trained on windows
 * 0..F-1 alone (mdk_lopp_train_until()), equals the simulator scored from
 * F; scoring from 0 is the plain curve; a window beyond the trace and a
 * training range beyond it are refused with a clear error.
 */
#include <mdk/lopp.h>
#include <mdk/sim.h>

#include "mdk_test.h"

/* Every setting of @spec over @t (written at @path), scored from @F. */
static void check_scored(const struct tt *t, const char *path, const char *spec,
			 uint32_t F, unsigned int flags)
{
	struct mdk_run_opts o = { .flags = flags, .score_from = F };
	struct mdk_policy *p = tt_policy(spec, t->W);
	struct mdk_point *pts;
	size_t n, i;
	char err[512];

	ck_assert_msg(!mdk_mpc_run_opts(path, &p, 1, &o, &pts, &n, err,
					sizeof(err)),
		      "%s: %s", spec, err);
	ck_assert_uint_eq(n, mdk_policy_settings(p));
	for (i = 0; i < n; i++) {
		struct mdk_setting s;
		struct mdk_point b;
		char what[160], f[96];

		mdk_policy_setting(p, i, &s);
		mdk_policy_format(p, i, f, sizeof(f));
		snprintf(what, sizeof(what), "%s from %u%s (W %u)", f, F,
			 flags ? " paper" : "", t->W);
		bf_point_from(t, mdk_policy_name(p), s.v,
			      flags & MDK_SAVINGS_PAPER, F, &b);
		check_same(&pts[i], &b, what);
	}
	free(pts);
	mdk_policy_free(p);
}

START_TEST(test_scored_brute_force)
{
	static const char *const specs[] = { "age", "vmin", "paw:wait=0/2",
					     "pace", "opp:rho=0-0.5:0.05" };
	size_t j, k;

	for (j = 0; j < 8; j++) {
		struct tt *t = tt_random(j + 11, 4 + (uint32_t)j * 2, 25);
		uint32_t from[] = { 1, t->W / 2, t->W - 1 };
		char path[64];

		tt_write(t, path, sizeof(path));
		for (k = 0; k < MDK_ARRAY(specs); k++)
			for (size_t f = 0; f < 3; f++) {
				check_scored(t, path, specs[k], from[f], 0);
				check_scored(t, path, specs[k], from[f],
					     MDK_SAVINGS_PAPER);
			}
		unlink(path);
		tt_free(t);
	}
}
END_TEST

START_TEST(test_scored_lopp)
{
	struct mdk_lopp_train_opts to = { .rho = 0.01, .holdout = 0.2 };
	struct mdk_lopp_train_report rep;
	struct mdk_run_opts o = { .score_from = 20 };
	struct mdk_lopp_model *m;
	struct mdk_policy *p;
	struct mdk_point *pts, *plain;
	char trace[512], model[64], spec[256], err[512];
	size_t n, np, i;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	ck_assert_msg(!mdk_lopp_train_until(trace, &to, 20, &m, &rep, err,
					    sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(rep.windows, 20);
	ck_assert_uint_eq(rep.split, 20); /* held out: windows 20.. */
	lopp_model_to_file(m, model, sizeof(model));
	snprintf(spec, sizeof(spec),
		 "lopp:model=%s,theta=0/0.01/0.1/0.5/1,A=0/1/2/5/none,wait=1",
		 model);
	ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)), "%s", err);
	ck_assert_msg(!mdk_mpc_run_opts(trace, &p, 1, &o, &pts, &n, err,
					sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, 25);
	for (i = 0; i < n; i++) {
		struct mdk_point s;
		char what[128];

		mdk_policy_format(p, i, what, sizeof(what));
		ck_assert_msg(!mdk_simulate_opts(trace, p, i, &o, &s, err,
						 sizeof(err)),
			      "%s", err);
		check_same(&pts[i], &s, what);
	}
	/* Scored windows are fewer: the footprint is smaller. */
	o.score_from = 0;
	ck_assert(!mdk_mpc_run_opts(trace, &p, 1, &o, &plain, &np, err,
				    sizeof(err)));
	ck_assert_uint_eq(np, n);
	ck_assert_uint_lt(pts[0].footprint, plain[0].footprint);
	for (i = 0; i < n; i++) {
		struct mdk_point s;

		ck_assert(!mdk_simulate(trace, p, i, 0, &s, err, sizeof(err)));
		check_same(&plain[i], &s, "scored from 0");
	}
	free(plain);
	free(pts);
	mdk_policy_free(p);
	unlink(model);
}
END_TEST

START_TEST(test_scored_errors)
{
	struct mdk_lopp_train_opts to = { .rho = 0.01 };
	struct mdk_lopp_train_report rep;
	struct mdk_run_opts o = { .score_from = 40 };
	struct mdk_lopp_model *m;
	struct mdk_policy *p;
	struct mdk_point *pts, pt;
	char trace[512], err[512];
	size_t n;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	ck_assert(!mdk_policy_new("age", &p, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_run_opts(trace, &p, 1, &o, &pts, &n, err,
					  sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "window 40: beyond the trace's 40 windows"),
		      "%s", err);
	ck_assert_int_eq(mdk_simulate_opts(trace, p, 0, &o, &pt, err,
					   sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "beyond the trace's 40 windows"), "%s", err);
	mdk_policy_free(p);
	ck_assert_int_eq(mdk_lopp_train_until(trace, &to, 41, &m, &rep, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "beyond the trace's 40 windows"), "%s", err);
}
END_TEST

static Suite *mpc_scored_suite(void)
{
	Suite *s = suite_create("mpc_scored");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_scored_brute_force);
	tcase_add_test(tc, test_scored_lopp);
	tcase_add_test(tc, test_scored_errors);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(mpc_scored_suite)
