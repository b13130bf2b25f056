// SPDX-License-Identifier: GPL-2.0
/*
 * Description: AGE(T): reclaim after T idle windows (libmdk/policy/age.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "policy_test.h"

START_TEST(test_age_curve_random)
{
	static const char *const specs[] = { "age" };

	policy_check_random(specs, MDK_ARRAY(specs));
}
END_TEST

START_TEST(test_age_curve_synthetic)
{
	static const char *const specs[] = { "age" };

	policy_check_synthetic(specs, MDK_ARRAY(specs), true);
}
END_TEST

/* tests/fixtures/mdk/mix: mdkctl synth --pages 1500 --windows 40 --seed 7 */
START_TEST(test_age_golden_fixture)
{
	char path[512];

	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	check_file_point(path, "age:T=1", 5698, 29812);
	check_file_point(path, "age:T=4", 3424, 15678);
	check_file_point(path, "age:T=16", 163, 1734);
}
END_TEST

/* The worked example of Documentation/mdk.rst. */
START_TEST(test_age_golden_example)
{
	char path[] = "/tmp/mdk-example-XXXXXX";

	example_trace(path);
	check_file_point(path, "age:T=2", 4, 6);
	check_file_point(path, "age:T=1", 7, 12);
	unlink(path);
}
END_TEST

START_TEST(test_age_bad_params)
{
	static const struct bad_param bad[] = {
		{ "age:T=0", "out of range" },
		{ "age:T=x", "bad value" },
		{ "age:W=3", "unknown parameter" },
	};

	policy_check_bad_params("age", bad, MDK_ARRAY(bad));
}
END_TEST

static Suite *policy_age_suite(void)
{
	Suite *s = suite_create("policy_age");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_age_curve_random);
	tcase_add_test(tc, test_age_curve_synthetic);
	tcase_add_test(tc, test_age_golden_fixture);
	tcase_add_test(tc, test_age_golden_example);
	tcase_add_test(tc, test_age_bad_params);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_age_suite)
