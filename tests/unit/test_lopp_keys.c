// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's keys of a batch (libmdk/lopp/keys.c, through the
 * policy's keyer) are bit for bit mdk_lopp_key(mdk_lopp_score()) of each
 * row: for ordinary models, for models whose rows fall outside the fast
 * range, and for models whose keys sit on a key boundary, where the
 * folded sum alone would round to the other side.
 */
#include <float.h>
#include <math.h>

#include <mdk/lopp.h>
#include <mdk/policy.h>

#include "unit.h"

#define NF MDK_LOPP_FEATURES
#define PAGES 1024
#define WINDOWS 24

/* Window w's accesses: pages chosen by a fixed generator, in order. */
static size_t window_pages(uint32_t w, uint64_t *ids, uint32_t *pages)
{
	unsigned int seed = 7 + w;
	size_t n = 0;
	uint32_t p;

	for (p = 0; p < PAGES; p++)
		if (rand_r(&seed) % 4 == 0 || (p % 3 == 0 && w % 2 == 0)) {
			/* two regions of 512 pages, with a gap between */
			ids[n] = p < 512 ? p : p + 4096;
			pages[n++] = p;
		}
	return n;
}

static struct mdk_lopp_model *model(const double *mean, const double *scale,
				    const double *w, double bias)
{
	char text[4096], err[512];
	struct mdk_lopp_model *m;
	size_t o = 0;
	int i, k;

	o += snprintf(text + o, sizeof(text) - o,
		      "mdk-lopp-model 1\nrho 0.01\n"
		      "features %d",
		      NF);
	for (i = 0; i < NF; i++)
		o += snprintf(text + o, sizeof(text) - o, " %s",
			      mdk_lopp_feature_name(i));
	for (k = 0; k < 3; k++) {
		const double *v = k == 0 ? mean : k == 1 ? scale : w;

		o += snprintf(text + o, sizeof(text) - o, "\n%s",
			      k == 0 ? "mean" :
			      k == 1 ? "scale" :
				       "weights");
		for (i = 0; i < NF; i++)
			o += snprintf(text + o, sizeof(text) - o, " %.17g",
				      v[i]);
	}
	snprintf(text + o, sizeof(text) - o, "\nbias %.17g\n", bias);
	ck_assert_msg(!mdk_lopp_model_parse(text, strlen(text), "t", &m, err,
					    sizeof(err)),
		      "%s", err);
	return m;
}

/* Every key of the keyer equals the row's key; returns the rows seen. */
static size_t check_keys(const struct mdk_lopp_model *m)
{
	static uint64_t ids[PAGES];
	static uint32_t pages[PAGES], keys[PAGES];
	static float x[PAGES * NF];
	struct mdk_lopp_feat *f;
	struct mdk_keyer *k;
	struct mdk_policy *p;
	char err[512];
	size_t rows = 0, n, i;
	uint32_t w;

	ck_assert(!mdk_policy_new("lopp", &p, err, sizeof(err)));
	ck_assert_msg(!mdk_lopp_policy_set_model(p, m, err, sizeof(err)), "%s",
		      err);
	ck_assert_msg(!mdk_keyer_new(p, &k, err, sizeof(err)), "%s", err);
	ck_assert(!mdk_lopp_feat_new(&f));
	for (w = 0; w < WINDOWS; w++) {
		n = window_pages(w, ids, pages);
		ck_assert_msg(!mdk_keyer_keys(k, w, ids, pages, n, keys, err,
					      sizeof(err)),
			      "%s", err);
		ck_assert(!mdk_lopp_feat_add(f, w, ids, pages, n, x, err,
					     sizeof(err)));
		for (i = 0; i < n; i++) {
			uint32_t want =
				mdk_lopp_key(mdk_lopp_score(m, x + i * NF));

			ck_assert_msg(keys[i] == want,
				      "window %u page %u: key %u, expected %u",
				      w, pages[i], keys[i], want);
		}
		rows += n;
	}
	mdk_lopp_feat_free(f);
	mdk_keyer_free(k);
	mdk_policy_free(p);
	return rows;
}

static const double mean[NF] = { 1.6, 1.6, 1.5, 1.5, 0.53, 3.7,
				 1.1, 1.0, 1.0, 1.0, 0.95, 4.7 };
static const double scale[NF] = { 0.82, 0.83, 0.85, 0.86, 0.3,	0.98,
				  0.35, 0.36, 0.36, 0.37, 0.19, 0.77 };

START_TEST(test_keys_ordinary)
{
	unsigned int seed = 1;
	int t, i;

	for (t = 0; t < 8; t++) {
		double w[NF], bias = -4.0 + t;
		struct mdk_lopp_model *m;

		for (i = 0; i < NF; i++)
			w[i] = (rand_r(&seed) % 2001 - 1000) / 700.0;
		m = model(mean, scale, w, bias);
		ck_assert_uint_gt(check_keys(m), 1000);
		mdk_lopp_model_free(m);
	}
}
END_TEST

/*
 * Scales so small that rows are far out, clamped: scored one by one (the
 * folded sum knows no clamp).
 */
START_TEST(test_keys_out_of_range)
{
	double sc[NF], w[NF];
	struct mdk_lopp_model *m;
	int i;

	for (i = 0; i < NF; i++) {
		sc[i] = i % 2 ? 1e-7 : scale[i];
		w[i] = i % 2 ? 1e-6 : -0.5;
	}
	m = model(mean, sc, w, -1);
	check_keys(m);
	mdk_lopp_model_free(m);
}
END_TEST

/* The key of page_reuse1 = 1 (x0 = log2(2) = 1) with bias @b. */
static uint32_t key_at(double b)
{
	double w[NF] = { 0.75 };
	float x[NF];
	struct mdk_lopp_model *m = model(mean, scale, w, b);
	uint32_t k;
	int i;

	for (i = 0; i < NF; i++)
		x[i] = (float)mean[i];
	x[0] = 1;
	k = mdk_lopp_key(mdk_lopp_score(m, x));
	mdk_lopp_model_free(m);
	return k;
}

/*
 * Biases a few ulps around one where that row's key steps up: the
 * folded sum rounds differently from the exact one, and the keyer must
 * notice and score such rows exactly.
 */
START_TEST(test_keys_boundary)
{
	double lo = -3, hi = -2, b, w[NF] = { 0.75 };
	uint32_t k0 = key_at(lo);
	int j;

	ck_assert_uint_lt(k0, key_at(hi));
	/* bisect down to adjacent doubles: lo keeps k0, hi does not */
	while (nextafter(lo, hi) < hi) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			mid = nextafter(lo, hi);
		if (key_at(mid) == k0)
			lo = mid;
		else
			hi = mid;
	}
	for (b = lo, j = 0; j < 24; j++)
		b = nextafter(b, -INFINITY);
	for (j = 0; j < 48; j++, b = nextafter(b, INFINITY)) {
		struct mdk_lopp_model *m = model(mean, scale, w, b);

		check_keys(m);
		mdk_lopp_model_free(m);
	}
}
END_TEST

static Suite *lopp_keys_suite(void)
{
	Suite *s = suite_create("lopp_keys");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_keys_ordinary);
	tcase_add_test(tc, test_keys_out_of_range);
	tcase_add_test(tc, test_keys_boundary);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_keys_suite)
