// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the PSI parser reads the some and full lines of a pressure
 * file, rejects malformed ones with the line, and the interval share is
 * the delta of the totals over the elapsed time, clamped to [0, 1].
 */
#include <errno.h>
#include <string.h>

#include "daemon/psi.h"
#include "unit.h"

START_TEST(test_psi_parse_some_full)
{
	static const char text[] =
		"some avg10=1.25 avg60=0.50 avg300=0.10 total=123456\n"
		"full avg10=0.75 avg60=0.00 avg300=0.00 total=789\n";
	struct mdkd_psi p;
	char err[128];

	ck_assert_int_eq(
		mdkd_psi_parse(text, strlen(text), &p, err, sizeof(err)), 0);
	ck_assert_double_eq(p.some.avg10, 1.25);
	ck_assert_double_eq(p.some.avg300, 0.10);
	ck_assert_uint_eq(p.some.total_us, 123456);
	ck_assert(p.has_full);
	ck_assert_double_eq(p.full.avg10, 0.75);
	ck_assert_uint_eq(p.full.total_us, 789);
}
END_TEST

START_TEST(test_psi_parse_some_only)
{
	static const char text[] =
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=5";
	struct mdkd_psi p;
	char err[128];

	ck_assert_int_eq(
		mdkd_psi_parse(text, strlen(text), &p, err, sizeof(err)), 0);
	ck_assert(!p.has_full);
	ck_assert_uint_eq(p.some.total_us, 5);
}
END_TEST

START_TEST(test_psi_parse_rejects_malformed)
{
	static const char *const bad[] = {
		"",
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=0.00 avg60=0.00 total=1\n",
		"some avg10=x avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=-1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1 extra=2\n",
		"some avg10=101 avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999999\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nbogus\n",
	};
	struct mdkd_psi p;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(mdkd_psi_parse(bad[i], strlen(bad[i]), &p, err,
					     sizeof(err)) == -EINVAL,
			      "accepted case %zu", i);
		ck_assert_msg(err[0], "no message for case %zu", i);
	}
	ck_assert_ptr_nonnull(strstr(err, "line 2"));
}
END_TEST

START_TEST(test_psi_fraction_clamps)
{
	ck_assert_double_eq(mdkd_psi_fraction(100, 600, 1000), 0.5);
	ck_assert_double_eq(mdkd_psi_fraction(100, 5000, 1000), 1.0);
	ck_assert_double_eq(mdkd_psi_fraction(600, 100, 1000), 0.0);
	ck_assert_double_eq(mdkd_psi_fraction(0, 10, 0), 0.0);
}
END_TEST

static Suite *psi_suite(void)
{
	Suite *s = suite_create("psi");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_psi_parse_some_full);
	tcase_add_test(tc, test_psi_parse_some_only);
	tcase_add_test(tc, test_psi_parse_rejects_malformed);
	tcase_add_test(tc, test_psi_fraction_clamps);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(psi_suite)
