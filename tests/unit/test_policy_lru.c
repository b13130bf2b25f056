// SPDX-License-Identifier: GPL-2.0
/*
 * Description: LRU(k) for every size in one pass (Mattson stack distances, libmdk/policy/lru.c):
 * misses equal a brute-force memory on random reference strings, for
 * every size; CSV and trace inputs give the reference string in file order.
 */
#include "mrc_test.h"

START_TEST(test_lru_brute_force)
{
	mrc_check_brute_force("lru", brute_lru);
}
END_TEST

START_TEST(test_lru_long_string)
{
	mrc_check_long_string("lru", brute_lru);
}
END_TEST

START_TEST(test_lru_files)
{
	mrc_check_files("lru", brute_lru);
}
END_TEST

/* The worked example of Documentation/mdk.rst, pinned. */
START_TEST(test_lru_golden_example)
{
	static const uint64_t want[] = { 22, 18, 15, 11, 7, 6 };

	mrc_check_example("lru", want);
}
END_TEST

static Suite *policy_lru_suite(void)
{
	Suite *s = suite_create("policy_lru");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lru_brute_force);
	tcase_add_test(tc, test_lru_long_string);
	tcase_add_test(tc, test_lru_files);
	tcase_add_test(tc, test_lru_golden_example);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_lru_suite)
