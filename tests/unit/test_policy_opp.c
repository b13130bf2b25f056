// SPDX-License-Identifier: GPL-2.0
/*
 * Description: OPP(rho): per window the floor(rho U) largest gaps, all tails (libmdk/policy/opp.c).
 * Every point of its single-pass curve equals the exact simulator, and the
 * simulator equals a brute-force residency model, on random traces, on a
 * trace from several synthetic generators and on the committed fixtures,
 * whose numbers are pinned.
 */
#include "mdk_test.h"

START_TEST(test_opp_curve_random)
{
	static const uint32_t Ws[] = { 1, 2, 3, 7, 12, 20 };
	static const size_t Ps[] = { 1, 6, 40 };
	static const char *const specs[] = { "opp", "opp:rho=0-1:0.0625" };
	size_t i, j, k;

	for (i = 0; i < MDK_ARRAY(Ws); i++)
		for (j = 0; j < MDK_ARRAY(Ps); j++)
			for (k = 0; k < MDK_ARRAY(specs); k++) {
				struct tt *t = tt_random(i * 31 + j * 7 + k + 1,
							 Ws[i], Ps[j]);

				check_curve(t, specs[k], 0, true);
				check_curve(t, specs[k], MDK_SAVINGS_PAPER,
					    true);
				tt_free(t);
			}
}
END_TEST

/* Several generators at once: Zipf, periodic, scan and phase changes. */
START_TEST(test_opp_curve_synthetic)
{
	static const char *const specs[] = { "opp" };
	struct tt *t = tt_synth(11, 36, 900, NULL);
	size_t k;

	ck_assert_uint_gt(tt_records(t), 1000);
	for (k = 0; k < MDK_ARRAY(specs); k++)
		check_curve(t, specs[k], 0, true);
	tt_free(t);
}
END_TEST

static void check_file_point(const char *path, const char *spec, uint64_t prom,
			     uint64_t saved)
{
	struct mdk_policy *p;
	struct mdk_point pt, *pts;
	size_t n;
	char err[256];

	ck_assert_int_eq(mdk_policy_new(spec, &p, err, sizeof(err)), 0);
	ck_assert_msg(!mdk_simulate(path, p, 0, 0, &pt, err, sizeof(err)), "%s",
		      err);
	ck_assert_msg(!mdk_mpc_run(path, &p, 1, 0, &pts, &n, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, 1);
	check_same(&pts[0], &pt, spec);
	ck_assert_msg(pt.promotions == prom && pt.saved == saved,
		      "%s: %llu promotions, %llu saved (pinned %llu, %llu)",
		      spec, (unsigned long long)pt.promotions,
		      (unsigned long long)pt.saved, (unsigned long long)prom,
		      (unsigned long long)saved);
	free(pts);
	mdk_policy_free(p);
}

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

/* The worked example of Documentation/mdk.rst (footprint 44 page-windows). */
START_TEST(test_opp_golden_example)
{
	char csv[512], path[] = "/tmp/mdk-example-XXXXXX";
	char err[256];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	fixture("mdk/example/trace.csv", csv, sizeof(csv));
	ck_assert_msg(!mdk_trace_import_csv(csv, path, NULL, err, sizeof(err)),
		      "%s", err);
	check_file_point(path, "opp:rho=0.34", 3, 14);
	check_file_point(path, "opp:rho=1", 7, 22);
	unlink(path);
}
END_TEST

START_TEST(test_opp_bad_params)
{
	static const char *const specs[][2] = {
		{ "opp:rho=2", "out of range" },
		{ "opp:rho=0.0000001", "bad value" },
		{ "opp:rho=5%%", "bad value" },
	};
	struct mdk_policy *p;
	char err[256];
	size_t i;

	for (i = 0; i < MDK_ARRAY(specs); i++) {
		err[0] = 0;
		ck_assert_int_eq(mdk_policy_new(specs[i][0], &p, err,
						sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, specs[i][1]) && strstr(err, "opp"),
			      "%s: message '%s' lacks '%s'", specs[i][0], err,
			      specs[i][1]);
	}
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
