// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of policy_test.h: the checks every window policy gets.
 */
#include <mdk/lopp.h>

#include "policy_test.h"

void policy_check_random(const char *const *specs, size_t n)
{
	static const uint32_t Ws[] = { 1, 2, 3, 7, 12, 20 };
	static const size_t Ps[] = { 1, 6, 40 };
	size_t i, j, k;

	for (i = 0; i < MDK_ARRAY(Ws); i++)
		for (j = 0; j < MDK_ARRAY(Ps); j++)
			for (k = 0; k < n; k++) {
				struct tt *t = tt_random(i * 31 + j * 7 + k + 1,
							 Ws[i], Ps[j]);

				check_curve(t, specs[k], 0, true);
				check_curve(t, specs[k], MDK_SAVINGS_PAPER,
					    true);
				tt_free(t);
			}
}

void policy_check_synthetic(const char *const *specs, size_t n, bool brute)
{
	struct tt *t = tt_synth(11, 36, 900, NULL);
	size_t k;

	ck_assert_uint_gt(tt_records(t), 1000);
	for (k = 0; k < n; k++)
		check_curve(t, specs[k], 0, brute);
	tt_free(t);
}

void check_file_point(const char *path, const char *spec, uint64_t prom,
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

void example_trace(char *path)
{
	char csv[512], err[256];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	fixture("mdk/example/trace.csv", csv, sizeof(csv));
	ck_assert_msg(!mdk_trace_import_csv(csv, path, NULL, err, sizeof(err)),
		      "%s", err);
}

void policy_check_bad_params(const char *name, const struct bad_param *bad,
			     size_t n)
{
	struct mdk_policy *p;
	char err[256];
	size_t i;

	for (i = 0; i < n; i++) {
		err[0] = 0;
		ck_assert_int_eq(mdk_policy_new(bad[i].spec, &p, err,
						sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, bad[i].msg) && strstr(err, name),
			      "%s: message '%s' lacks '%s'", bad[i].spec, err,
			      bad[i].msg);
	}
}

void lopp_train_model(const char *trace, char *path, size_t len)
{
	struct mdk_lopp_train_opts o = { .rho = 0.01, .holdout = 0.2 };
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m;
	char err[512];

	ck_assert_msg(!mdk_lopp_train(trace, &o, &m, &rep, err, sizeof(err)),
		      "%s", err);
	lopp_model_to_file(m, path, len);
}
