// SPDX-License-Identifier: GPL-2.0
/*
 * Description: OPP(rho): per window the floor(rho U) largest gaps, all tails (libmdk/policy/opp.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "policy_test.h"

START_TEST(test_opp_curve_random)
{
	static const char *const specs[] = { "opp", "opp:rho=0-1:0.0625" };

	policy_check_random(specs, MDK_ARRAY(specs));
}
END_TEST

START_TEST(test_opp_curve_synthetic)
{
	static const char *const specs[] = { "opp" };

	policy_check_synthetic(specs, MDK_ARRAY(specs), true);
}
END_TEST

/* tests/fixtures/mdk/mix: mdkctl synth --pages 1500 --windows 40 --seed 7 */
START_TEST(test_opp_golden_fixture)
{
	char path[512];

	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	check_file_point(path, "opp:rho=0.01", 99, 9713);
	check_file_point(path, "opp:rho=0.05", 561, 15094);
	check_file_point(path, "opp:rho=0.2", 2251, 26422);
}
END_TEST

/* The worked example of Documentation/mdk.rst. */
START_TEST(test_opp_golden_example)
{
	char path[] = "/tmp/mdk-example-XXXXXX";

	example_trace(path);
	check_file_point(path, "opp:rho=0.34", 3, 14);
	check_file_point(path, "opp:rho=1", 7, 22);
	unlink(path);
}
END_TEST

START_TEST(test_opp_bad_params)
{
	static const struct bad_param bad[] = {
		{ "opp:rho=2", "out of range" },
		{ "opp:rho=0.0000001", "bad value" },
		{ "opp:rho=5%%", "bad value" },
	};

	policy_check_bad_params("opp", bad, MDK_ARRAY(bad));
}
END_TEST

static Suite *policy_opp_suite(void)
{
	Suite *s = suite_create("policy_opp");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_opp_curve_random);
	tcase_add_test(tc, test_opp_curve_synthetic);
	tcase_add_test(tc, test_opp_golden_fixture);
	tcase_add_test(tc, test_opp_golden_example);
	tcase_add_test(tc, test_opp_bad_params);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_opp_suite)
