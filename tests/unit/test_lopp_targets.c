// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP earns its place on the committed traces, under the
 * honest protocol of Documentation/mdk.rst ("L-OPP", "Results"): trained
 * on the first half of the windows (OPP's labels at rho = the target,
 * the default logistic model), every policy scored on the second half
 * only, L-OPP's best savings within a max window rate of 1%, 2% and 5%
 * are at least those of AGE, PAW and PACE, and above PAW's on the redis
 * trace.  The traces: the mix fixture (synthetic), and two recorded under
 * QEMU on 6.12 -- redis (tests/experiment/guest.sh's age run, 100
 * windows) and sqlite3 sweeping a table (tests/experiment/sqlite.sh).
 */
#include <unistd.h>

#include <mdk/lopp.h>
#include <mdk/mpc.h>
#include <mdk/policy.h>
#include <mdk/trace.h>

#include "mdk_test.h"

/* @spec's most savings within @rate over windows @from.. (-1: none). */
static double best(const char *trace, const char *spec, uint32_t from,
		   double rate)
{
	struct mdk_run_opts o = { .score_from = from };
	struct mdk_point *pts;
	struct mdk_policy *p;
	char err[512];
	double s = -1;
	size_t n;
	long i;

	ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)), "%s", err);
	ck_assert_msg(!mdk_mpc_run_opts(trace, &p, 1, &o, &pts, &n, err,
					sizeof(err)),
		      "%s: %s", spec, err);
	i = mdk_mpc_best(pts, n, rate);
	if (i >= 0)
		s = pts[i].savings;
	free(pts);
	mdk_policy_free(p);
	return s;
}

static uint32_t windows_of(const char *trace)
{
	struct mdk_trace_reader *r;
	char err[512];
	uint32_t w;

	ck_assert_msg(!mdk_trace_reader_open(trace, 0, &r, err, sizeof(err)),
		      "%s", err);
	w = mdk_trace_reader_info(r)->windows;
	mdk_trace_reader_close(r);
	return w;
}

static void check_trace(const char *rel, bool above_paw)
{
	static const double targets[] = { 0.01, 0.02, 0.05 };
	char trace[512], model[64], spec[128], err[512];
	uint32_t half;
	size_t t;

	fixture(rel, trace, sizeof(trace));
	half = windows_of(trace) / 2;
	for (t = 0; t < MDK_ARRAY(targets); t++) {
		struct mdk_lopp_train_opts o = { .rho = targets[t] };
		struct mdk_lopp_train_report rep;
		struct mdk_lopp_model *m;
		double age, paw, pace, lopp;

		ck_assert_msg(!mdk_lopp_train_until(trace, &o, half, &m, &rep,
						    err, sizeof(err)),
			      "%s", err);
		lopp_model_to_file(m, model, sizeof(model));
		snprintf(spec, sizeof(spec), "lopp:model=%s", model);
		age = best(trace, "age", half, targets[t]);
		paw = best(trace, "paw", half, targets[t]);
		pace = best(trace, "pace", half, targets[t]);
		lopp = best(trace, spec, half, targets[t]);
		unlink(model);
		printf("# %s at %g: age %.4f paw %.4f pace %.4f lopp %.4f (held-out auc %.3f)\n",
		       rel, targets[t], age, paw, pace, lopp, rep.test.auc);
		ck_assert_double_ge(lopp, age);
		ck_assert_double_ge(lopp, paw);
		ck_assert_double_ge(lopp, pace);
		if (above_paw)
			ck_assert_double_gt(lopp, paw);
	}
}

START_TEST(test_targets_mix)
{
	check_trace("mdk/mix/trace.mdkt", false);
}
END_TEST

START_TEST(test_targets_redis)
{
	check_trace("mdk/redis/trace.mdkt.zst", true);
}
END_TEST

START_TEST(test_targets_sqlite)
{
	check_trace("mdk/sqlite/trace.mdkt.zst", false);
}
END_TEST

static Suite *lopp_targets_suite(void)
{
	Suite *s = suite_create("lopp_targets");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_targets_mix);
	tcase_add_test(tc, test_targets_redis);
	tcase_add_test(tc, test_targets_sqlite);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_targets_suite)
