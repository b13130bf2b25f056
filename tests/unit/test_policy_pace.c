// SPDX-License-Identifier: GPL-2.0
/*
 * Description: PACE(P, A): at once if the prior reuse distance is above P, else after A idle windows (libmdk/policy/pace.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "mdk_test.h"

START_TEST(test_pace_curve_random)
{
	static const uint32_t Ws[] = { 1, 2, 3, 7, 12, 20 };
	static const size_t Ps[] = { 1, 6, 40 };
	static const char *const specs[] = { "pace", "pace:P=0/2/5,A=0/1/3/9" };
	size_t i, j, k;

	for (i = 0; i < MDK_ARRAY(Ws); i++)
		for (j = 0; j < MDK_ARRAY(Ps); j++)
			for (k = 0; k < MDK_ARRAY(specs); k++) {
				struct tt *t = tt_random(i * 31 + j * 7 + k + 1,
							 Ws[i], Ps[j]);

				check_curve(t, specs[k], 0, true);
				check_curve(t, specs[k], MDK_SAVINGS_PAPER,
					    true);
				tt_free(t);
			}
}
END_TEST

/* Several generators at once: Zipf, periodic, scan and phase changes. */
START_TEST(test_pace_curve_synthetic)
{
	static const char *const specs[] = { "pace" };
	struct tt *t = tt_synth(11, 36, 900, NULL);
	size_t k;

	ck_assert_uint_gt(tt_records(t), 1000);
	for (k = 0; k < MDK_ARRAY(specs); k++)
		check_curve(t, specs[k], 0, false);
	tt_free(t);
}
END_TEST

static void check_file_point(const char *path, const char *spec, uint64_t prom,
			     uint64_t saved)
{
	struct mdk_policy *p;
	struct mdk_point pt, *pts;
	size_t n;
	char err[256];

	ck_assert_int_eq(mdk_policy_new(spec, &p, err, sizeof(err)), 0);
	ck_assert_msg(!mdk_simulate(path, p, 0, 0, &pt, err, sizeof(err)), "%s",
		      err);
	ck_assert_msg(!mdk_mpc_run(path, &p, 1, 0, &pts, &n, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, 1);
	check_same(&pts[0], &pt, spec);
	ck_assert_msg(pt.promotions == prom && pt.saved == saved,
		      "%s: %llu promotions, %llu saved (pinned %llu, %llu)",
		      spec, (unsigned long long)pt.promotions,
		      (unsigned long long)pt.saved, (unsigned long long)prom,
		      (unsigned long long)saved);
	free(pts);
	mdk_policy_free(p);
}

/* tests/fixtures/mdk/mix: mdkctl synth --pages 1500 --windows 40 --seed 7 */
START_TEST(test_pace_golden_fixture)
{
	char path[512];

	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	check_file_point(path, "pace:P=2,A=1", 6317, 33514);
	check_file_point(path, "pace:P=2,A=4", 4792, 28178);
	check_file_point(path, "pace:P=8,A=1", 5816, 30436);
	check_file_point(path, "pace:P=8,A=4", 3712, 17673);
}
END_TEST

START_TEST(test_pace_bad_params)
{
	static const char *const specs[][2] = {
		{ "pace:A=1.5", "bad value" },
		{ "pace:P=1,P=2", "given twice" },
	};
	struct mdk_policy *p;
	char err[256];
	size_t i;

	for (i = 0; i < MDK_ARRAY(specs); i++) {
		err[0] = 0;
		ck_assert_int_eq(mdk_policy_new(specs[i][0], &p, err,
						sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, specs[i][1]) && strstr(err, "pace"),
			      "%s: message '%s' lacks '%s'", specs[i][0], err,
			      specs[i][1]);
	}
}
END_TEST

static Suite *policy_pace_suite(void)
{
	Suite *s = suite_create("policy_pace");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pace_curve_random);
	tcase_add_test(tc, test_pace_curve_synthetic);
	tcase_add_test(tc, test_pace_golden_fixture);
	tcase_add_test(tc, test_pace_bad_params);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_pace_suite)
