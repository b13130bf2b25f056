// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's gradient-boosted trees (libmdk/learn/fit_trees.c,
 * libmdk/lopp/trees.c, libmdk/lopp/file2.c): trees trained on the mix
 * fixture rank held-out intervals well above chance, as the logistic model;
 * a trees model round-trips through its version 2 file byte for byte and
 * scores the same after reading; every malformed file is refused with its
 * name and byte offset; a set without positive rows is refused at fit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xgboost/c_api.h>
#include <zlib.h>

#include <mdk/lopp.h>

#include "mdk_test.h"
#include "unit.h"

#define NF MDK_LOPP_FEATURES

/*
 * tests/fixtures/mdk/mix (mdkctl synth --pages 1500 --windows 40 --seed 7)
 * at rho 10%: the held-out last 8 windows have positives (old tails).
 */
static struct mdk_lopp_model *train_mix(enum mdk_lopp_kind kind,
					unsigned int trees,
					struct mdk_lopp_train_report *rep)
{
	struct mdk_lopp_train_opts o = { .rho = 0.1, .holdout = 0.2 };
	struct mdk_lopp_model *m;
	char path[512], err[512];

	o.fit.kind = kind;
	o.fit.trees = trees;
	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	ck_assert_msg(!mdk_lopp_train(path, &o, &m, rep, err, sizeof(err)),
		      "%s", err);
	ck_assert_int_eq(mdk_lopp_model_kind(m), kind);
	return m;
}

/*
 * Both kinds rank the held-out windows' intervals well above chance
 * (logistic 0.89, trees 0.83 when written).
 */
START_TEST(test_trees_rank_well)
{
	struct mdk_lopp_train_report rl, rt;
	struct mdk_lopp_model *l = train_mix(MDK_LOPP_LOGISTIC, 0, &rl);
	struct mdk_lopp_model *t = train_mix(MDK_LOPP_TREES, 0, &rt);

	printf("# mix, held-out AUC: logistic %.4f, trees %.4f\n", rl.test.auc,
	       rt.test.auc);
	ck_assert_uint_eq(rl.test.rows, rt.test.rows);
	ck_assert_double_gt(rt.test.auc, 0.75);
	ck_assert_double_gt(rl.test.auc, 0.75);
	mdk_lopp_model_free(l);
	mdk_lopp_model_free(t);
}
END_TEST

static char *print(const struct mdk_lopp_model *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_int_eq(mdk_lopp_model_print(m, f), 0);
	fclose(f);
	return buf;
}

START_TEST(test_trees_round_trip)
{
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m = train_mix(MDK_LOPP_TREES, 30, &rep), *b, *d;
	char path[] = "/tmp/mdk-lopp-trees-XXXXXX", err[512];
	size_t alen, blen, i;
	char *a, *bb;
	float x[NF];
	int fd;

	a = print(m, &alen);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(mdk_lopp_model_write(m, path, err, sizeof(err)), 0);
	ck_assert_msg(!mdk_lopp_model_read(path, &b, err, sizeof(err)), "%s",
		      err);
	unlink(path);
	ck_assert_int_eq(mdk_lopp_model_kind(b), MDK_LOPP_TREES);
	ck_assert_double_eq(mdk_lopp_model_rho(b), 0.1);
	bb = print(b, &blen);
	ck_assert_uint_eq(alen, blen);
	ck_assert(!memcmp(a, bb, alen));
	d = mdk_lopp_model_dup(b);
	ck_assert_ptr_nonnull(d);
	/* Scores equal, and the trees tell rows apart. */
	for (i = 0; i < 2000; i++) {
		double s;
		unsigned int k;

		for (k = 0; k < NF; k++)
			x[k] = (float)((i * 7919 + k * 104729) % 97) / 9.0f;
		s = mdk_lopp_score(m, x);
		ck_assert_double_eq(s, mdk_lopp_score(b, x));
		ck_assert_double_eq(s, mdk_lopp_score(d, x));
		ck_assert(s >= 0 && s <= 1);
	}
	x[0] = NAN;
	ck_assert_double_eq(mdk_lopp_score(m, x), mdk_lopp_score(b, x));
	free(a);
	free(bb);
	mdk_lopp_model_free(m);
	mdk_lopp_model_free(b);
	mdk_lopp_model_free(d);
}
END_TEST

static void put_le(char *p, uint64_t v, unsigned int n)
{
	while (n--) {
		*p++ = (char)(v & 0xff);
		v >>= 8;
	}
}

/* @buf (@len bytes) is refused, the message holding @want. */
static void refused(const char *buf, size_t len, const char *want)
{
	struct mdk_lopp_model *m = (void *)1;
	char err[1024];

	ck_assert_int_eq(mdk_lopp_model_parse(buf, len, "f.mdkm", &m, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
	ck_assert_msg(!strncmp(err, "f.mdkm", 6), "'%s' names no file", err);
}

START_TEST(test_trees_file_malformed)
{
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m = train_mix(MDK_LOPP_TREES, 5, &rep);
	size_t len, fl, tl, poff;
	char *a = print(m, &len), *c = malloc(len + 8);

	/* Offsets of the header (file2.c). */
	fl = (unsigned char)a[45] | (size_t)(unsigned char)a[46] << 8;
	tl = (unsigned char)a[47 + fl] | (size_t)(unsigned char)a[48 + fl] << 8;
	poff = 49 + fl + tl + 12;

	memcpy(c, a, len);
	c[15] = '3';
	refused(c, len, "(offset 0) expected 'mdk-lopp-model 1'");
	memcpy(c, a, len);
	put_le(c + 17, 7, 4);
	refused(c, len, "(offset 17) expected model kind 1 (trees), got 7");
	memcpy(c, a, len);
	put_le(c + 37, 0, 8);
	refused(c, len, "(offset 37) expected a model trained with positive");
	memcpy(c, a, len);
	c[47] = 'P';
	refused(c, len,
		"(offset 45) model was trained with features 'Page_reuse1");
	refused(a, 30, "(offset 29) expected the training rows (8 bytes)");
	refused(a, len - 1, "truncated");
	memcpy(c, a, len);
	c[len] = 'x';
	refused(c, len + 1, "expected end of file after the payload, got 1");
	memcpy(c, a, len);
	c[len - 1] ^= 1;
	refused(c, len, "CRC-32 mismatch");
	/* A payload with a good CRC that XGBoost refuses. */
	memcpy(c, a, len);
	memset(c + poff, 'z', 16);
	put_le(c + poff - 4,
	       crc32(0, (const unsigned char *)c + poff,
		     (unsigned)(len - poff)),
	       4);
	refused(c, len, "XGBoost refused the model");
	free(a);
	free(c);
	mdk_lopp_model_free(m);
}
END_TEST

START_TEST(test_trees_no_positives)
{
	struct mdk_lopp_fit_opts o = { .kind = MDK_LOPP_TREES };
	struct mdk_lopp_model *m = (void *)1;
	struct mdk_lopp_set *s;
	float x[NF] = { 0 };
	char err[512];
	int i;

	ck_assert_int_eq(mdk_lopp_set_new(64, &s), 0);
	for (i = 0; i < 64; i++) {
		x[0] = (float)i;
		mdk_lopp_set_add(s, x, false);
	}
	ck_assert_int_eq(mdk_lopp_fit_with(s, 0.01, &o, &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, "labelled keep"), "%s", err);
	mdk_lopp_set_add(s, x, true);
	ck_assert_msg(!mdk_lopp_fit_with(s, 0.01, &o, &m, err, sizeof(err)),
		      "%s", err);
	ck_assert_int_eq(mdk_lopp_model_kind(m), MDK_LOPP_TREES);
	mdk_lopp_model_free(m);
	o.kind = 5;
	ck_assert_int_eq(mdk_lopp_fit_with(s, 0.01, &o, &m, err, sizeof(err)),
			 -EINVAL);
	mdk_lopp_set_free(s);
}
END_TEST

/* libmdk's walk of the trees scores as XGBoost's own predictor does. */
START_TEST(test_trees_match_xgboost)
{
	static const char cfg[] =
		"{\"type\": 0, \"training\": false, \"iteration_begin\": 0, "
		"\"iteration_end\": 0, \"strict_shape\": false, "
		"\"missing\": NaN, \"cache_id\": 0}";
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m = train_mix(MDK_LOPP_TREES, 0, &rep);
	enum { N = 4000 };
	float *x = malloc(N * NF * sizeof(*x));
	const bst_ulong *shape;
	const float *res;
	bst_ulong dim;
	BoosterHandle h;
	size_t len, fl, tl, poff, i;
	char *a = print(m, &len), arr[256];
	double worst = 0;

	fl = (unsigned char)a[45] | (size_t)(unsigned char)a[46] << 8;
	tl = (unsigned char)a[47 + fl] | (size_t)(unsigned char)a[48 + fl] << 8;
	poff = 49 + fl + tl + 12;
	for (i = 0; i < N * NF; i++)
		x[i] = (float)((i * 7919) % 131) / 11.0f;
	x[5] = NAN; /* a missing feature takes XGBoost's default branch */
	ck_assert_int_eq(XGBoosterCreate(NULL, 0, &h), 0);
	ck_assert_int_eq(XGBoosterLoadModelFromBuffer(h, a + poff, len - poff),
			 0);
	snprintf(arr, sizeof(arr),
		 "{\"data\": [%zu, true], \"shape\": [%d, %d], "
		 "\"typestr\": \"<f4\", \"version\": 3}",
		 (size_t)x, N, NF);
	ck_assert_msg(!XGBoosterPredictFromDense(h, arr, cfg, NULL, &shape,
						 &dim, &res),
		      "%s", XGBGetLastError());
	for (i = 0; i < N; i++) {
		double d = fabs(res[i] - mdk_lopp_score(m, x + i * NF));

		worst = d > worst ? d : worst;
	}
	printf("# walk vs XGBoost: worst difference %g over %d rows\n", worst,
	       N);
	ck_assert_double_lt(worst, 1e-6);
	XGBoosterFree(h);
	free(a);
	free(x);
	mdk_lopp_model_free(m);
}
END_TEST

static Suite *lopp_trees_suite(void)
{
	Suite *s = suite_create("lopp_trees");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_trees_rank_well);
	tcase_add_test(tc, test_trees_round_trip);
	tcase_add_test(tc, test_trees_file_malformed);
	tcase_add_test(tc, test_trees_no_positives);
	tcase_add_test(tc, test_trees_match_xgboost);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_trees_suite)
