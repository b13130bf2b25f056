// SPDX-License-Identifier: GPL-2.0
/*
 * Description: OPT(k), Belady's optimal memory, for given sizes (libmdk/policy/opt.c):
 * misses equal a brute-force memory on random reference strings, for
 * every size; CSV and trace inputs give the reference string in file order.
 */
#include "mrc_test.h"

START_TEST(test_opt_brute_force)
{
	mrc_check_brute_force("opt", brute_opt);
}
END_TEST

START_TEST(test_opt_long_string)
{
	mrc_check_long_string("opt", brute_opt);
}
END_TEST

START_TEST(test_opt_files)
{
	mrc_check_files("opt", brute_opt);
}
END_TEST

/* The worked example of Documentation/mdk.rst, pinned. */
START_TEST(test_opt_golden_example)
{
	static const uint64_t want[] = { 22, 14, 11, 8, 6, 6 };

	mrc_check_example("opt", want);
}
END_TEST

static Suite *policy_opt_suite(void)
{
	Suite *s = suite_create("policy_opt");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_opt_brute_force);
	tcase_add_test(tc, test_opt_long_string);
	tcase_add_test(tc, test_opt_files);
	tcase_add_test(tc, test_opt_golden_example);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_opt_suite)
