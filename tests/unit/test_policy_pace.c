// SPDX-License-Identifier: GPL-2.0
/*
 * Description: PACE(P, A): at once if the prior reuse distance is above P, else after A idle windows (libmdk/policy/pace.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "policy_test.h"

START_TEST(test_pace_curve_random)
{
	static const char *const specs[] = { "pace", "pace:P=0/2/5,A=0/1/3/9" };

	policy_check_random(specs, MDK_ARRAY(specs));
}
END_TEST

START_TEST(test_pace_curve_synthetic)
{
	static const char *const specs[] = { "pace" };

	policy_check_synthetic(specs, MDK_ARRAY(specs), false);
}
END_TEST

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
	static const struct bad_param bad[] = {
		{ "pace:A=1.5", "bad value" },
		{ "pace:P=1,P=2", "given twice" },
	};

	policy_check_bad_params("pace", bad, MDK_ARRAY(bad));
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
