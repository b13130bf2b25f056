// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the tier file mdkctl tier calibrate writes
 * (cli/tier_file.c): medians of the rounds as costs, tiers ordered by
 * measured cost whatever the order measured, cxl's cap kept, the spread
 * and host in comments, and mdk_tiers_load() reads it back to the same
 * tiers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/tier.h>

#include "cli/tier_file.h"
#include "unit.h"

static const struct mdkctl_tier_host host = { "h1", "6.1.0-test",
					      "2026-12-06 11:00:00 UTC", 1024,
					      3 };

START_TEST(test_median)
{
	uint64_t odd[] = { 9, 1, 5 }, even[] = { 4, 1, 3, 10 }, one[] = { 7 };

	ck_assert_uint_eq(mdkctl_tier_median(odd, 3), 5);
	ck_assert_uint_eq(mdkctl_tier_median(even, 4), 3);
	ck_assert_uint_eq(mdkctl_tier_median(one, 1), 7);
	ck_assert_uint_eq(mdkctl_tier_median(one, 0), 0);
}
END_TEST

START_TEST(test_file_reads_back)
{
	uint64_t swap[] = { 90000, 70000, 80000 }, zs[] = { 9000, 8000, 12000 },
		 cxl[] = { 2100, 2000, 2500 };
	/* measured in the order of the probes, not of cost */
	struct mdkctl_tier_meas m[] = {
		{ "swap", swap, 3, 0, "random pages" },
		{ "cxl", cxl, 3, 65536, NULL },
		{ "zswap", zs, 3, 0, NULL },
	};
	char buf[2048], path[] = "/tmp/test_tier_file.XXXXXX", err[256];
	struct mdk_tiers t;
	int fd, n;

	n = mdkctl_tier_file_format(m, 3, &host, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen(buf));
	ck_assert_msg(strstr(buf, "# host h1, kernel 6.1.0-test, 2026-12-06"),
		      "%s", buf);
	ck_assert_msg(
		strstr(buf,
		       "# swap: median 80000 ns a page over 3 rounds, spread 70000-90000 ns (25.0% of the median)\n#   random pages\nswap:cost=80000ns\n"),
		"%s", buf);
	ck_assert_msg(strstr(buf, "cxl:cost=2100ns,cap=65536\n"), "%s", buf);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, (size_t)n), n);
	close(fd);
	ck_assert_int_eq(mdk_tiers_load(path, &t, err, sizeof(err)), 0);
	unlink(path);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(t.t[0].name, "cxl");
	ck_assert_uint_eq(t.t[0].cost_ns, 2100);
	ck_assert_uint_eq(t.t[0].capacity, 65536);
	ck_assert_str_eq(t.t[1].name, "zswap");
	ck_assert_uint_eq(t.t[1].cost_ns, 9000);
	ck_assert_uint_eq(t.t[1].save_ppm, MDK_PPM);
	ck_assert_str_eq(t.t[2].name, "swap");
	ck_assert_uint_eq(t.t[2].cost_ns, 80000);
	ck_assert_uint_eq(t.t[2].capacity, 0);
}
END_TEST

START_TEST(test_short_buffer_and_bad_counts)
{
	uint64_t a[] = { 5 };
	struct mdkctl_tier_meas m[] = { { "swap", a, 1, 0, NULL } };
	char small[16], buf[512];
	int n;

	n = mdkctl_tier_file_format(m, 1, &host, buf, sizeof(buf));
	ck_assert_int_eq(
		mdkctl_tier_file_format(m, 1, &host, small, sizeof(small)), n);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert_int_eq(mdkctl_tier_file_format(m, 0, &host, buf, sizeof(buf)),
			 -EINVAL);
	ck_assert_int_eq(mdkctl_tier_file_format(m, MDK_TIERS_MAX + 1, &host,
						 buf, sizeof(buf)),
			 -EINVAL);
}
END_TEST

static Suite *tier_file_suite(void)
{
	Suite *s = suite_create("tier_file");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_median);
	tcase_add_test(tc, test_file_reads_back);
	tcase_add_test(tc, test_short_buffer_and_bad_counts);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tier_file_suite)
