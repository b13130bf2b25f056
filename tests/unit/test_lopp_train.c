// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's training (libmdk/learn/set.c, fit.c, train.c):
 * OPP's per-window labels on golden cases (ties, rho's rounding, gaps of
 * 0), the labelled ring, precision, recall and AUC on a hand-made set,
 * fit's refusals, labels that agree with OPP's exact simulator, and a
 * model that learns a clear pattern well on held-out windows.
 */
#include <mdk/lopp.h>

#include "mdk_test.h"

#define NF MDK_LOPP_FEATURES

static void labels(const uint32_t *gaps, size_t n, uint64_t accessed,
		   uint32_t rho_ppm, const char *want)
{
	uint32_t hist[64] = { 0 };
	bool got[32];
	char s[33];
	size_t i;

	mdk_lopp_labels(gaps, n, accessed, rho_ppm, hist, got);
	for (i = 0; i < n; i++)
		s[i] = got[i] ? '1' : '0';
	s[n] = '\0';
	ck_assert_msg(!strcmp(s, want), "rho %u ppm of %llu: %s, want %s",
		      rho_ppm, (unsigned long long)accessed, s, want);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(hist[i], 0);
}

START_TEST(test_labels_golden)
{
	static const uint32_t g[] = { 3, 1, 3, 0, 2, 3, 1 };
	static const uint32_t zeros[] = { 0, 0, 1, 0 };

	/* budget floor(0.3 x 10) = 3: the three 3s */
	labels(g, 7, 10, 300000, "1010010");
	/* budget 2: ties in index order */
	labels(g, 7, 10, 250000, "1010000");
	/* budget 4: the 3s and the 2 */
	labels(g, 7, 10, 400000, "1010110");
	/* budget 5: one of the two 1s, the first */
	labels(g, 7, 10, 500000, "1110110");
	/* budget covers all: every gap >= 1, never a 0 */
	labels(g, 7, 10, 1000000, "1110111");
	labels(g, 7, 100, 1000000, "1110111");
	/* rho 0: nothing */
	labels(g, 7, 10, 0, "0000000");
	/* rounding: 333333 ppm of 3 is 0.999999: floor 0 */
	labels(g, 7, 3, 333333, "0000000");
	labels(g, 7, 3, 333334, "1000000");
	/* 1% of 99 pages is 0, of 100 pages 1 */
	labels(g, 7, 99, 10000, "0000000");
	labels(g, 7, 100, 10000, "1000000");
	/* gaps of 0 are never reclaimed, whatever the budget */
	labels(zeros, 4, 4, 1000000, "0010");
	/* no interval at all */
	labels(zeros, 0, 4, 1000000, "");
}
END_TEST

static void row(float *x, float v)
{
	unsigned int k;

	for (k = 0; k < NF; k++)
		x[k] = v;
}

START_TEST(test_set_ring)
{
	struct mdk_lopp_set *s;
	float x[NF];
	int i;

	ck_assert_int_eq(mdk_lopp_set_new(0, &s), -EINVAL);
	ck_assert_int_eq(mdk_lopp_set_new(4, &s), 0);
	ck_assert_uint_eq(mdk_lopp_set_size(s), 0);
	for (i = 0; i < 6; i++) {
		row(x, (float)i);
		/* labels 1 1 0 0 0 0: the ring keeps 0 0 0 0 in the end */
		mdk_lopp_set_add(s, x, i < 2);
		ck_assert_uint_eq(mdk_lopp_set_size(s), i < 4 ? i + 1 : 4);
	}
	ck_assert_uint_eq(mdk_lopp_set_positives(s), 0);
	mdk_lopp_set_add(s, x, true);
	ck_assert_uint_eq(mdk_lopp_set_positives(s), 1);
	mdk_lopp_set_clear(s);
	ck_assert_uint_eq(mdk_lopp_set_size(s), 0);
	ck_assert_uint_eq(mdk_lopp_set_positives(s), 0);
	mdk_lopp_set_free(s);
}
END_TEST

/*
 * A hand-made model scores a row by feature 0 alone (weight 1, mean 0,
 * scale 1, bias 0: score = logistic(x0)); the set's rows have x0 chosen
 * to give known decisions and a known AUC.
 */
START_TEST(test_assess_golden)
{
	static const char text[] =
		"mdk-lopp-model 1\nrho 0.5\n"
		"features 12 page_reuse1 page_reuse2 page_reuse3 page_reuse4 page_count page_age region_reuse1 region_reuse2 region_reuse3 region_reuse4 region_count region_age\n"
		"mean 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"scale 1 1 1 1 1 1 1 1 1 1 1 1\n"
		"weights 1 0 0 0 0 0 0 0 0 0 0 0\n"
		"bias 0\n";
	/* x0, label: scores above 0.5 for x0 > 0 */
	static const struct {
		float x0;
		bool y;
	} rows[] = {
		{ 3, true },   { 2, true },  { 1, false },  { 0.5f, true },
		{ -1, false }, { -2, true }, { -3, false }, { -4, false },
	};
	struct mdk_lopp_model *m;
	struct mdk_lopp_set *s;
	struct mdk_lopp_quality q;
	char err[256];
	float x[NF] = { 0 };
	size_t i;

	ck_assert_msg(!mdk_lopp_model_parse(text, strlen(text), "t", &m, err,
					    sizeof(err)),
		      "%s", err);
	ck_assert_int_eq(mdk_lopp_set_new(16, &s), 0);
	for (i = 0; i < MDK_ARRAY(rows); i++) {
		x[0] = rows[i].x0;
		mdk_lopp_set_add(s, x, rows[i].y);
	}
	ck_assert_int_eq(mdk_lopp_assess(m, s, 0.5, &q), 0);
	ck_assert_uint_eq(q.rows, 8);
	ck_assert_uint_eq(q.positives, 4);
	/* decided: 3, 2, 1, 0.5 -> tp 3, fp 1; missed -2 -> fn 1 */
	ck_assert_uint_eq(q.tp, 3);
	ck_assert_uint_eq(q.fp, 1);
	ck_assert_uint_eq(q.fn, 1);
	ck_assert_double_eq_tol(q.precision, 0.75, 1e-12);
	ck_assert_double_eq_tol(q.recall, 0.75, 1e-12);
	/*
	 * AUC: pairs (positive above negative) of 16: 3 and 2 beat all 4
	 * negatives (8), 0.5 beats 3 (-1, -3, -4), -2 beats 2 (-3, -4):
	 * 13 / 16.
	 */
	ck_assert_double_eq_tol(q.auc, 13.0 / 16, 1e-12);
	/* theta 1: nothing decided, precision undefined: 0 */
	ck_assert_int_eq(mdk_lopp_assess(m, s, 1, &q), 0);
	ck_assert_uint_eq(q.tp + q.fp, 0);
	ck_assert_double_eq(q.precision, 0);
	ck_assert_double_eq(q.recall, 0);
	/* ties count half: all rows at one score */
	mdk_lopp_set_clear(s);
	for (i = 0; i < MDK_ARRAY(rows); i++)
		mdk_lopp_set_add(s, x, rows[i].y);
	ck_assert_int_eq(mdk_lopp_assess(m, s, 0.5, &q), 0);
	ck_assert_double_eq_tol(q.auc, 0.5, 1e-12);
	mdk_lopp_set_free(s);
	mdk_lopp_model_free(m);
}
END_TEST

START_TEST(test_fit_refuses)
{
	struct mdk_lopp_model *m = (void *)1;
	struct mdk_lopp_set *s;
	char err[256];
	float x[NF];

	ck_assert_int_eq(mdk_lopp_set_new(8, &s), 0);
	ck_assert_int_eq(mdk_lopp_fit(s, 0.01, 0, &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(err, "no labelled rows"));
	row(x, 1);
	mdk_lopp_set_add(s, x, true);
	row(x, 2);
	mdk_lopp_set_add(s, x, true);
	ck_assert_int_eq(mdk_lopp_fit(s, 0.01, 0, &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "all 2 rows are labelled reclaim"));
	mdk_lopp_set_add(s, x, false);
	ck_assert_int_eq(mdk_lopp_fit(s, 0.01, -1, &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(mdk_lopp_fit(s, 2, 1, &m, err, sizeof(err)), -EINVAL);
	ck_assert_msg(!mdk_lopp_fit(s, 0.01, 1, &m, err, sizeof(err)), "%s",
		      err);
	ck_assert_double_eq(mdk_lopp_model_rho(m), 0.01);
	mdk_lopp_model_free(m);
	mdk_lopp_set_free(s);
}
END_TEST

/*
 * With every interval kept (no sampling, nothing held out), the rows
 * labelled "reclaim" are OPP's promotions, as the exact simulator counts
 * them, plus one tail per page.
 */
START_TEST(test_train_labels_match_opp)
{
	static const double rhos[] = { 0.02, 0.1, 0.5 };
	struct tt *t = tt_random(11, 40, 300);
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m;
	char path[64], err[512], spec[64];
	uint64_t pages = 0;
	size_t i, p;

	tt_write(t, path, sizeof(path));
	for (p = 0; p < t->P; p++)
		for (uint32_t w = 0; w < t->W; w++)
			if (tt_get(t, p, w)) {
				pages++;
				break;
			}
	for (i = 0; i < MDK_ARRAY(rhos); i++) {
		struct mdk_lopp_train_opts o = { .rho = rhos[i] };
		struct mdk_policy *pol;
		struct mdk_point pt;

		snprintf(spec, sizeof(spec), "opp:rho=%g", rhos[i]);
		pol = tt_policy(spec, t->W);
		ck_assert_msg(!mdk_simulate(path, pol, 0, 0, &pt, err,
					    sizeof(err)),
			      "%s", err);
		mdk_policy_free(pol);
		ck_assert_msg(!mdk_lopp_train(path, &o, &m, &rep, err,
					      sizeof(err)),
			      "%s", err);
		ck_assert_uint_eq(rep.windows, 40);
		ck_assert_uint_eq(rep.split, 40);
		ck_assert_double_eq(rep.sample, 1);
		ck_assert_uint_eq(rep.intervals, tt_records(t));
		ck_assert_uint_eq(rep.train.rows, tt_records(t));
		ck_assert_uint_eq(rep.test.rows, 0);
		ck_assert_uint_eq(rep.train.positives, pt.promotions + pages);
		ck_assert_double_eq(mdk_lopp_model_rho(m), rhos[i]);
		mdk_lopp_model_free(m);
	}
	unlink(path);
	tt_free(t);
}
END_TEST

/*
 * A clear pattern: 200 pages accessed in every window (gaps of 0: kept)
 * and 2000 accessed every 5th window (gaps of 4: reclaimed, the budget
 * at rho 100% covers them all), in separate regions.  The only rows the
 * features cannot tell are the hot pages' tails, labelled "reclaim".
 */
START_TEST(test_train_clear_pattern)
{
	struct tt *t = tt_new(200, 2200);
	struct mdk_lopp_train_opts o = { .rho = 1, .holdout = 0.2 };
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m;
	char path[64], err[512];
	size_t p;
	uint32_t w;

	for (p = 0; p < t->P; p++)
		for (w = 0; w < t->W; w++)
			t->acc[p * t->W + w] = p < 200 || (w + p) % 5 == 0;
	tt_write(t, path, sizeof(path));
	ck_assert_msg(!mdk_lopp_train(path, &o, &m, &rep, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(rep.split, 160);
	ck_assert_uint_gt(rep.test.rows, 10000);
	fprintf(stderr,
		"# clear pattern: test precision %.4f recall %.4f auc %.4f (%llu rows, %llu positive); train precision %.4f recall %.4f\n",
		rep.test.precision, rep.test.recall, rep.test.auc,
		(unsigned long long)rep.test.rows,
		(unsigned long long)rep.test.positives, rep.train.precision,
		rep.train.recall);
	ck_assert_double_ge(rep.test.precision, 0.95);
	ck_assert_double_ge(rep.test.recall, 0.95);
	ck_assert_double_ge(rep.test.auc, 0.95);
	mdk_lopp_model_free(m);

	/* Sampling: at most about max_samples rows, all of a page or none. */
	o.max_samples = 5000;
	ck_assert_msg(!mdk_lopp_train(path, &o, &m, &rep, err, sizeof(err)),
		      "%s", err);
	ck_assert_double_lt(rep.sample, 0.2);
	ck_assert_uint_le(rep.train.rows + rep.test.rows, 2 * 5000);
	ck_assert_uint_gt(rep.train.rows + rep.test.rows, 5000 / 2);
	ck_assert_double_ge(rep.test.precision, 0.9);
	mdk_lopp_model_free(m);

	/*
	 * rho 0 reclaims only tails, and the first half of the windows
	 * has none: one class, refused.
	 */
	o.rho = 0;
	o.max_samples = 0;
	o.holdout = 0.5;
	ck_assert_int_eq(mdk_lopp_train(path, &o, &m, &rep, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(err, "labelled keep"));
	unlink(path);
	tt_free(t);
}
END_TEST

START_TEST(test_train_refuses)
{
	struct mdk_lopp_train_opts o = { .rho = 0.01 };
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m = (void *)1;
	struct tt *t = tt_new(4, 2);
	char path[64], err[512];

	ck_assert_int_eq(mdk_lopp_train("/nonexistent.mdkt", &o, &m, &rep, err,
					sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_null(m);
	o.holdout = 0.95;
	ck_assert_int_eq(mdk_lopp_train("/nonexistent.mdkt", &o, &m, &rep, err,
					sizeof(err)),
			 -EINVAL);
	o.holdout = 0;
	o.rho = -0.1;
	ck_assert_int_eq(mdk_lopp_train("/nonexistent.mdkt", &o, &m, &rep, err,
					sizeof(err)),
			 -EINVAL);
	/* Two pages, each once: only tails, one class. */
	t->acc[0] = t->acc[4 + 1] = 1;
	tt_write(t, path, sizeof(path));
	o.rho = 0.5;
	ck_assert_int_eq(mdk_lopp_train(path, &o, &m, &rep, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "labelled reclaim"));
	unlink(path);
	tt_free(t);
}
END_TEST

static Suite *lopp_train_suite(void)
{
	Suite *s = suite_create("lopp_train");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_labels_golden);
	tcase_add_test(tc, test_set_ring);
	tcase_add_test(tc, test_assess_golden);
	tcase_add_test(tc, test_fit_refuses);
	tcase_add_test(tc, test_train_labels_match_opp);
	tcase_add_test(tc, test_train_clear_pattern);
	tcase_add_test(tc, test_train_refuses);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_train_suite)
