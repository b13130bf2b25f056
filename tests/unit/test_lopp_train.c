// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's training (libmdk/learn/set.c, fit.c, train.c):
 * OPP's per-window labels on golden cases (ties, rho's rounding, gaps of
 * 0), the labelled ring, precision, recall and AUC on a hand-made set,
 * fit's refusals, labels that agree with OPP's exact simulator and with
 * a brute-force count (tails labelled once old enough), training on a
 * leading part that equals training on the trace cut there, and a model
 * that learns a clear pattern well on held-out windows.
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
		"features 12 page_reuse1 page_reuse2 page_reuse3 page_reuse4 page_rate page_recent region_reuse1 region_reuse2 region_reuse3 region_reuse4 region_rate region_recent\n"
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
/*
 * The labelled rows of @t's windows 0..@W-1 taken as a trace, counted
 * by brute force over its matrix: every interval opening in window @from
 * or later that closes (labelled by mdk_lopp_labels() in its closing
 * window), and every tail idle at least G windows, where G is the
 * smallest gap from which on most closed intervals were reclaimed (else
 * the longest gap + 1), labelled reclaim.
 */
static void brute_rows(const struct tt *t, uint32_t W, uint32_t from,
		       uint32_t rho_ppm, uint64_t *rows, uint64_t *pos,
		       uint64_t *closed_pos)
{
	uint64_t cnt[64] = { 0 }, rec[64] = { 0 }, all = 0, r = 0;
	uint32_t gaps[512], open[512], hist[64] = { 0 }, w, g, G, longest = 0;
	bool label[512];
	size_t p, n;

	ck_assert(t->P <= 512 && W <= 64);
	*rows = *pos = *closed_pos = 0;
	for (w = 0; w < W; w++) {
		uint64_t accessed = 0;

		for (p = n = 0; p < t->P; p++) {
			accessed += tt_get(t, p, w);
			if (!tt_get(t, p, w))
				continue;
			for (g = w; g-- > 0;)
				if (tt_get(t, p, g))
					break;
			if (g == UINT32_MAX)
				continue; /* the page's first access */
			open[n] = g;
			gaps[n++] = w - g - 1;
		}
		mdk_lopp_labels(gaps, n, accessed, rho_ppm, hist, label);
		for (p = 0; p < n; p++) {
			cnt[gaps[p]]++;
			rec[gaps[p]] += label[p];
			longest = gaps[p] > longest ? gaps[p] : longest;
			if (open[p] >= from) {
				*rows += 1;
				*pos += label[p];
				*closed_pos += label[p];
			}
		}
	}
	for (G = longest + 1, g = longest; g >= 1; g--) {
		all += cnt[g];
		r += rec[g];
		if (2 * r > all)
			G = g;
	}
	for (p = 0; p < t->P; p++)
		for (w = W; w-- > from;)
			if (tt_get(t, p, w)) {
				if (W - 1 - w >= G) {
					*rows += 1;
					*pos += 1;
				}
				break;
			}
}

START_TEST(test_train_labels_match_opp)
{
	static const double rhos[] = { 0.02, 0.1, 0.5 };
	struct tt *t = tt_random(11, 40, 300);
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m;
	char path[64], err[512], spec[64];
	uint64_t rows, pos, cpos;
	size_t i;

	tt_write(t, path, sizeof(path));
	for (i = 0; i < MDK_ARRAY(rhos); i++) {
		struct mdk_lopp_train_opts o = { .rho = rhos[i] };
		uint32_t ppm = (uint32_t)llround(rhos[i] * 1e6);
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
		brute_rows(t, t->W, 0, ppm, &rows, &pos, &cpos);
		/* the closed intervals' labels are OPP's own decisions */
		ck_assert_uint_eq(cpos, pt.promotions);
		ck_assert_uint_eq(rep.windows, 40);
		ck_assert_uint_eq(rep.split, 40);
		ck_assert_double_eq(rep.sample, 1);
		ck_assert_uint_eq(rep.intervals, tt_records(t));
		ck_assert_uint_eq(rep.train.rows, rows);
		ck_assert_uint_eq(rep.train.positives, pos);
		/* some tails are too young to label, some old enough */
		ck_assert_uint_lt(rows, tt_records(t));
		ck_assert_uint_gt(pos, cpos);
		ck_assert_uint_eq(rep.test.rows, 0);
		ck_assert_double_eq(mdk_lopp_model_rho(m), rhos[i]);
		mdk_lopp_model_free(m);
	}
	unlink(path);
	tt_free(t);
}
END_TEST

/*
 * Trained on windows 0..19 of 40: the training rows and the model are
 * those of the trace cut after window 19 (no label sees a later window),
 * and the held-out rows are the intervals opening from window 20 on,
 * labelled with the whole trace.
 */
START_TEST(test_train_until_cuts)
{
	struct tt *t = tt_random(5, 40, 300), *cut = tt_new(20, 300);
	struct mdk_lopp_train_opts o = { .rho = 0.1, .holdout = 0.2 };
	struct mdk_lopp_train_report rep, rc;
	struct mdk_lopp_model *m, *mc;
	char path[64], pcut[64], err[512], *a, *b;
	uint64_t rows, pos, cpos;
	size_t p, la, lb;
	FILE *f;

	for (p = 0; p < t->P; p++)
		memcpy(cut->acc + p * 20, t->acc + p * 40, 20);
	memcpy(cut->ids, t->ids, t->P * sizeof(*t->ids));
	tt_write(t, path, sizeof(path));
	tt_write(cut, pcut, sizeof(pcut));
	ck_assert_msg(!mdk_lopp_train_until(path, &o, 20, &m, &rep, err,
					    sizeof(err)),
		      "%s", err);
	o.holdout = 0;
	ck_assert_msg(!mdk_lopp_train(pcut, &o, &mc, &rc, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(rep.windows, 20);
	ck_assert_uint_eq(rep.split, 20);
	ck_assert_uint_eq(rep.train.rows, rc.train.rows);
	ck_assert_uint_eq(rep.train.positives, rc.train.positives);
	ck_assert_uint_eq(rep.train.tp, rc.train.tp);
	brute_rows(t, 40, 20, 100000, &rows, &pos, &cpos);
	ck_assert_uint_eq(rep.test.rows, rows);
	ck_assert_uint_eq(rep.test.positives, pos);
	ck_assert_uint_gt(cpos, 0);
	f = open_memstream(&a, &la);
	mdk_lopp_model_print(m, f);
	fclose(f);
	f = open_memstream(&b, &lb);
	mdk_lopp_model_print(mc, f);
	fclose(f);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	mdk_lopp_model_free(m);
	mdk_lopp_model_free(mc);
	unlink(path);
	unlink(pcut);
	tt_free(t);
	tt_free(cut);
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
	tcase_add_test(tc, test_train_until_cuts);
	tcase_add_test(tc, test_train_clear_pattern);
	tcase_add_test(tc, test_train_refuses);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_train_suite)
