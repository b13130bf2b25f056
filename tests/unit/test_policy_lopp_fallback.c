// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's fallback wait A (libmdk/policy/lopp.c).  On the mix
 * fixture with a trained model: L-OPP(1, A) is AGE(A) point by point
 * (theta = 1 passes no access); the default grid's curve, over theta x A
 * with A's none and AGE's thresholds, equals the exact simulator on a
 * sample of its settings, and its best setting within 1%, 2% and 5% saves
 * at least AGE's best; a spec giving theta alone keeps A = none; bad
 * values of theta, A and wait get a clear error; specs parse back; and
 * mdk_policy_decide(), what mdkd picks with, waits wait or A.
 */
#include <mdk/lopp.h>

#include "policy_test.h"

/* The curve of @spec over @trace (*@p: the policy, resolved). */
static size_t curve(const char *trace, const char *spec, struct mdk_policy **p,
		    struct mdk_point **pts)
{
	char err[512];
	size_t n;

	ck_assert_msg(!mdk_policy_new(spec, p, err, sizeof(err)), "%s", err);
	ck_assert_msg(!mdk_mpc_run(trace, p, 1, 0, pts, &n, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, mdk_policy_settings(*p));
	return n;
}

START_TEST(test_lopp_theta1_is_age)
{
	char trace[512], model[64], spec[256];
	struct mdk_policy *lp, *ap;
	struct mdk_point *l, *a;
	size_t nl, na, j;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	lopp_train_model(trace, model, sizeof(model));
	snprintf(spec, sizeof(spec), "lopp:model=%s,theta=1,A=1-39", model);
	nl = curve(trace, spec, &lp, &l);
	na = curve(trace, "age:T=1-39", &ap, &a);
	ck_assert_uint_eq(nl, 39);
	ck_assert_uint_eq(na, 39);
	for (j = 0; j < na; j++) {
		char what[64];

		snprintf(what, sizeof(what), "lopp:theta=1,A=%zu vs age",
			 j + 1);
		check_same(&l[j], &a[j], what);
		ck_assert_double_eq(l[j].p2, a[j].p1);
	}
	/* And the simulator says so too. */
	for (j = 0; j < na; j += 7) {
		struct mdk_point s;
		char err[512];

		ck_assert_msg(!mdk_simulate(trace, lp, j, 0, &s, err,
					    sizeof(err)),
			      "%s", err);
		check_same(&s, &a[j], "simulated lopp:theta=1 vs age");
	}
	free(l);
	free(a);
	mdk_policy_free(lp);
	mdk_policy_free(ap);
	unlink(model);
}
END_TEST

START_TEST(test_lopp_default_grid)
{
	static const char *const targets[] = { "0.01", "0.02", "0.05" };
	char trace[512], model[64], spec[4096], err[512];
	struct mdk_policy *lp, *ap;
	struct mdk_point *l, *a;
	size_t nl, na, i;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	lopp_train_model(trace, model, sizeof(model));
	snprintf(spec, sizeof(spec), "lopp:model=%s", model);
	nl = curve(trace, spec, &lp, &l);
	na = curve(trace, "age", &ap, &a);
	/* theta's 110 values x A = 1..39 and none (40 windows) */
	ck_assert_uint_eq(nl, 110 * 40);
	mdk_policy_spec(lp, spec, sizeof(spec));
	ck_assert_msg(strstr(spec, ",A=1-39/none,model="), "%s", spec);
	/* A sample of the settings, against the simulator. */
	for (i = 0; i < nl; i += 97) {
		struct mdk_point s;
		char what[128];

		mdk_policy_format(lp, i, what, sizeof(what));
		ck_assert_msg(!mdk_simulate(trace, lp, i, 0, &s, err,
					    sizeof(err)),
			      "%s", err);
		check_same(&l[i], &s, what);
	}
	/* Never below AGE: its settings are the theta = 1 row. */
	for (i = 0; i < MDK_ARRAY(targets); i++) {
		double t = atof(targets[i]);
		long bl = mdk_mpc_best(l, nl, t), ba = mdk_mpc_best(a, na, t);

		ck_assert_int_ge(bl, 0);
		ck_assert_int_ge(ba, 0);
		ck_assert_msg(l[bl].saved >= a[ba].saved,
			      "target %s: lopp %llu < age %llu", targets[i],
			      (unsigned long long)l[bl].saved,
			      (unsigned long long)a[ba].saved);
	}
	free(l);
	free(a);
	mdk_policy_free(lp);
	mdk_policy_free(ap);
	unlink(model);
}
END_TEST

START_TEST(test_lopp_fallback_specs)
{
	static const struct bad_param bad[] = {
		{ "lopp:theta=1.5", "out of range" },
		{ "lopp:A=-1", "bad value '-1' for A" },
		{ "lopp:A=never", "or none" },
		{ "lopp:wait=0/2", "give one wait per policy" },
		{ "lopp:wait=-1", "bad value '-1' for wait" },
		{ "lopp:wait=1,wait=2", "wait given twice" },
	};
	char trace[512], model[64], spec[256], back[4096], want[4096];
	char err[256], f[64];
	struct mdk_policy *p;

	policy_check_bad_params("lopp", bad, MDK_ARRAY(bad));
	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	lopp_train_model(trace, model, sizeof(model));
	/* theta given: A = none, one setting per theta. */
	snprintf(spec, sizeof(spec), "lopp:theta=0.5,model=%s", model);
	ck_assert(!mdk_policy_new(spec, &p, err, sizeof(err)));
	ck_assert(!mdk_policy_resolve(p, 40, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 1);
	mdk_policy_format(p, 0, f, sizeof(f));
	ck_assert_str_eq(f, "lopp:theta=0.5,A=none");
	mdk_policy_free(p);
	/* A and wait parse back. */
	snprintf(spec, sizeof(spec), "lopp:A=none/3/1-2,wait=2,model=%s",
		 model);
	ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)), "%s", err);
	ck_assert(!mdk_policy_resolve(p, 40, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 110 * 4);
	mdk_policy_spec(p, back, sizeof(back));
	ck_assert_msg(strstr(back, ",A=1-3/none,model="), "%s", back);
	snprintf(want, sizeof(want), "model=%s,wait=2", model);
	ck_assert_msg(strstr(back, want), "%s", back);
	mdk_policy_free(p);
	ck_assert_msg(!mdk_policy_new(back, &p, err, sizeof(err)), "%s", err);
	mdk_policy_spec(p, want, sizeof(want));
	ck_assert_str_eq(want, back);
	mdk_policy_free(p);
	unlink(model);
}
END_TEST

/* What mdkd picks with (mdk_policy_decide()): the fallback too. */
START_TEST(test_lopp_decide)
{
	struct mdk_policy *p;
	uint32_t wait = 99;
	char err[256];

	ck_assert_msg(!mdk_policy_new("lopp:theta=0.5/1,A=3/none,wait=2", &p,
				      err, sizeof(err)),
		      "%s", err);
	ck_assert(!mdk_policy_resolve(p, 40, err, sizeof(err)));
	ck_assert(mdk_policy_online(p));
	/* Settings: (0.5, 3), (0.5, none), (1, 3), (1, none). */
	ck_assert_int_eq(mdk_policy_decide(p, 0, 500001, &wait), 1);
	ck_assert_uint_eq(wait, 2); /* passes: wait */
	ck_assert_int_eq(mdk_policy_decide(p, 0, 500000, &wait), 1);
	ck_assert_uint_eq(wait, 3); /* below: A */
	ck_assert_int_eq(mdk_policy_decide(p, 1, 500000, &wait), 0);
	ck_assert_int_eq(mdk_policy_decide(p, 1, 1, &wait), 0);
	/* theta = 1: no key passes, not even the largest. */
	ck_assert_int_eq(mdk_policy_decide(p, 2, MDK_LOPP_KEY_MAX, &wait), 1);
	ck_assert_uint_eq(wait, 3);
	ck_assert_int_eq(mdk_policy_decide(p, 3, MDK_LOPP_KEY_MAX, &wait), 0);
	ck_assert_uint_eq(mdk_lopp_key(1.0), MDK_LOPP_KEY_MAX);
	mdk_policy_free(p);
}
END_TEST

static Suite *policy_lopp_fallback_suite(void)
{
	Suite *s = suite_create("policy_lopp_fallback");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_lopp_theta1_is_age);
	tcase_add_test(tc, test_lopp_default_grid);
	tcase_add_test(tc, test_lopp_fallback_specs);
	tcase_add_test(tc, test_lopp_decide);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_lopp_fallback_suite)
