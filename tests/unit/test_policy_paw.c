// SPDX-License-Identifier: GPL-2.0
/*
 * Description: PAW(P; wait): reclaim after wait idle windows if the prior reuse distance is above P (libmdk/policy/paw.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "policy_test.h"

START_TEST(test_paw_curve_random)
{
	static const char *const specs[] = { "paw",
					     "paw:P=0/1/3,wait=0/1/2/5" };

	policy_check_random(specs, MDK_ARRAY(specs));
}
END_TEST

START_TEST(test_paw_curve_synthetic)
{
	static const char *const specs[] = { "paw", "paw:wait=1/3/7" };

	policy_check_synthetic(specs, MDK_ARRAY(specs), true);
}
END_TEST

/* tests/fixtures/mdk/mix: mdkctl synth --pages 1500 --windows 40 --seed 7 */
START_TEST(test_paw_golden_fixture)
{
	char path[512];

	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	check_file_point(path, "paw:P=1,wait=2", 2926, 15082);
	check_file_point(path, "paw:P=4,wait=2", 2188, 11400);
	check_file_point(path, "paw:P=16,wait=2", 57, 491);
}
END_TEST

/* The worked example of Documentation/mdk.rst. */
START_TEST(test_paw_golden_example)
{
	char path[] = "/tmp/mdk-example-XXXXXX";

	example_trace(path);
	check_file_point(path, "paw:P=1,wait=2", 1, 0);
	check_file_point(path, "paw:P=3,wait=2", 0, 0);
	unlink(path);
}
END_TEST

START_TEST(test_paw_bad_params)
{
	static const struct bad_param bad[] = {
		{ "paw:wait=-1", "bad value" },
		{ "paw:Q=1", "unknown parameter" },
	};

	policy_check_bad_params("paw", bad, MDK_ARRAY(bad));
}
END_TEST

static Suite *policy_paw_suite(void)
{
	Suite *s = suite_create("policy_paw");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_paw_curve_random);
	tcase_add_test(tc, test_paw_curve_synthetic);
	tcase_add_test(tc, test_paw_golden_fixture);
	tcase_add_test(tc, test_paw_golden_example);
	tcase_add_test(tc, test_paw_bad_params);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_paw_suite)
