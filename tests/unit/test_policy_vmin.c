// SPDX-License-Identifier: GPL-2.0
/*
 * Description: VMIN(T): reclaim at once every gap of at least T windows and every tail (libmdk/policy/vmin.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "policy_test.h"

START_TEST(test_vmin_curve_random)
{
	static const char *const specs[] = { "vmin" };

	policy_check_random(specs, MDK_ARRAY(specs));
}
END_TEST

START_TEST(test_vmin_curve_synthetic)
{
	static const char *const specs[] = { "vmin" };

	policy_check_synthetic(specs, MDK_ARRAY(specs), true);
}
END_TEST

/* tests/fixtures/mdk/mix: mdkctl synth --pages 1500 --windows 40 --seed 7 */
START_TEST(test_vmin_golden_fixture)
{
	char path[512];

	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	check_file_point(path, "vmin:T=1", 5698, 36629);
	check_file_point(path, "vmin:T=4", 3424, 32926);
	check_file_point(path, "vmin:T=16", 163, 11338);
}
END_TEST

/* The worked example of Documentation/mdk.rst. */
START_TEST(test_vmin_golden_example)
{
	char path[] = "/tmp/mdk-example-XXXXXX";

	example_trace(path);
	check_file_point(path, "vmin:T=2", 4, 19);
	check_file_point(path, "vmin:T=5", 0, 8);
	unlink(path);
}
END_TEST

START_TEST(test_vmin_bad_params)
{
	static const struct bad_param bad[] = {
		{ "vmin:T=0", "out of range" },
		{ "vmin:T=3-1", "bad value" },
	};

	policy_check_bad_params("vmin", bad, MDK_ARRAY(bad));
}
END_TEST

static Suite *policy_vmin_suite(void)
{
	Suite *s = suite_create("policy_vmin");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_vmin_curve_random);
	tcase_add_test(tc, test_vmin_curve_synthetic);
	tcase_add_test(tc, test_vmin_golden_fixture);
	tcase_add_test(tc, test_vmin_golden_example);
	tcase_add_test(tc, test_vmin_bad_params);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_vmin_suite)
