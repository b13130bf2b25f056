// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkctl's option values parse one way everywhere: integers
 * within bounds and never negative, counts with K/M/G, fractions as
 * decimals or percents within [0, 1], durations with their units and
 * bounds; malformed text is -EINVAL, out of bounds -ERANGE, and a failed
 * parse leaves the output alone.
 */
#include <errno.h>
#include <stdint.h>

#include "cli/parse.h"
#include "unit.h"

START_TEST(test_u64_bounds_and_bases)
{
	uint64_t v = 7;

	ck_assert_int_eq(mdkctl_parse_u64("42", 10, 0, 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(mdkctl_parse_u64("0x10", 0, 0, 100, &v), 0);
	ck_assert_uint_eq(v, 16);
	ck_assert_int_eq(mdkctl_parse_u64("0x10", 10, 0, 100, &v), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_u64("101", 10, 0, 100, &v), -ERANGE);
	ck_assert_int_eq(mdkctl_parse_u64("1", 10, 2, 100, &v), -ERANGE);
	ck_assert_uint_eq(v, 16);
	ck_assert_int_eq(mdkctl_parse_u64("18446744073709551615", 10, 0,
					  UINT64_MAX, &v),
			 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(mdkctl_parse_u64("18446744073709551616", 10, 0,
					  UINT64_MAX, &v),
			 -EINVAL);
}
END_TEST

START_TEST(test_u64_rejects_negative_and_junk)
{
	static const char *const bad[] = { "-1", " -1", "", "12x", "x", "1 " };
	uint64_t v = 7;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(mdkctl_parse_u64(bad[i], 0, 0, UINT64_MAX, &v) ==
				      -EINVAL,
			      "'%s' accepted", bad[i]);
		ck_assert_uint_eq(v, 7);
	}
}
END_TEST

START_TEST(test_count_suffixes)
{
	unsigned long long v = 0;

	ck_assert_int_eq(mdkctl_parse_count("3", &v), 0);
	ck_assert_uint_eq(v, 3);
	ck_assert_int_eq(mdkctl_parse_count("4K", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(mdkctl_parse_count("2m", &v), 0);
	ck_assert_uint_eq(v, 2ULL << 20);
	ck_assert_int_eq(mdkctl_parse_count("1G", &v), 0);
	ck_assert_uint_eq(v, 1ULL << 30);
	ck_assert_int_eq(mdkctl_parse_count("1T", &v), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_count("-1", &v), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_count("17179869184G", &v), -EINVAL);
	ck_assert_uint_eq(v, 1ULL << 30);
}
END_TEST

START_TEST(test_fraction_forms)
{
	double v = -1;

	ck_assert_int_eq(mdkctl_parse_fraction("0.01", &v), 0);
	ck_assert_double_eq_tol(v, 0.01, 1e-12);
	ck_assert_int_eq(mdkctl_parse_fraction("2.5%", &v), 0);
	ck_assert_double_eq_tol(v, 0.025, 1e-12);
	ck_assert_int_eq(mdkctl_parse_fraction("1e-3", &v), 0);
	ck_assert_double_eq_tol(v, 0.001, 1e-12);
	ck_assert_int_eq(mdkctl_parse_fraction("1", &v), 0);
	ck_assert_int_eq(mdkctl_parse_fraction("101%", &v), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_fraction("-0.1", &v), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_fraction("nan", &v), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_fraction("0.1%%", &v), -EINVAL);
	ck_assert_double_eq(v, 1);
}
END_TEST

START_TEST(test_seconds_and_times)
{
	uint64_t us = 0, ns = 0;

	ck_assert_int_eq(mdkctl_parse_seconds("0.5", &us), 0);
	ck_assert_uint_eq(us, 500000);
	ck_assert_int_eq(mdkctl_parse_seconds("-1", &us), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_seconds("1e12", &us), -EINVAL);
	ck_assert_uint_eq(us, 500000);

	ck_assert_int_eq(mdkctl_parse_window("30", &ns), 0);
	ck_assert_uint_eq(ns, 30000000000ULL);
	ck_assert_int_eq(mdkctl_parse_window("500ms", &ns), 0);
	ck_assert_uint_eq(ns, 500000000ULL);
	ck_assert_int_eq(mdkctl_parse_window("1.5s", &ns), 0);
	ck_assert_uint_eq(ns, 1500000000ULL);
	ck_assert_int_eq(mdkctl_parse_window("2m", &ns), 0);
	ck_assert_uint_eq(ns, 120000000000ULL);
	ck_assert_int_eq(mdkctl_parse_window("1h", &ns), 0);
	ck_assert_uint_eq(ns, 3600000000000ULL);
	ck_assert_int_eq(mdkctl_parse_window("24h", &ns), 0);
	ck_assert_int_eq(mdkctl_parse_window("25h", &ns), -ERANGE);
	ck_assert_int_eq(mdkctl_parse_window("2d", &ns), -ERANGE);
	ck_assert_int_eq(mdkctl_parse_time("7d", 7 * 86400000000000ULL, &ns),
			 0);
	ck_assert_uint_eq(ns, 7 * 86400000000000ULL);
	ck_assert_int_eq(mdkctl_parse_window("0.5ms", &ns), -ERANGE);
	ck_assert_int_eq(mdkctl_parse_window("0", &ns), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_window("10x", &ns), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_window("s", &ns), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_window("-1s", &ns), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_window("nan", &ns), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_window("", &ns), -EINVAL);
	ck_assert_uint_eq(ns, 7 * 86400000000000ULL);
}
END_TEST

static Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_u64_bounds_and_bases);
	tcase_add_test(tc, test_u64_rejects_negative_and_junk);
	tcase_add_test(tc, test_count_suffixes);
	tcase_add_test(tc, test_fraction_forms);
	tcase_add_test(tc, test_seconds_and_times);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(parse_suite)
