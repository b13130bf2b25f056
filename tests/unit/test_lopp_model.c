// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP's model files (libmdk/lopp/model.c): a model reads
 * back exactly as written, every class of malformed file is refused with
 * -EINVAL and "NAME:LINE: (offset N) expected ..., got ...", and the score
 * and key stay bounded and monotonic, NaN and infinities included.
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#include <mdk/lopp.h>

#include "unit.h"

#define NF MDK_LOPP_FEATURES

static const char good[] =
	"mdk-lopp-model 1\n"
	"# a comment, and a blank line\n"
	"\n"
	"rho 0.01\n"
	"features 12 page_reuse1 page_reuse2 page_reuse3 page_reuse4 page_rate page_recent region_reuse1 region_reuse2 region_reuse3 region_reuse4 region_rate region_recent\n"
	"mean 1 2 3 4 5 6 7 8 9 10 11 12\n"
	"scale 0.5 1 1 1 1 1 1 1 1 1 1 2e0\n"
	"weights 1.5 -0.25 0 0 0 0 0 0 0 0 0 -1e-3\n"
	"bias -2\n";

static struct mdk_lopp_model *parse_ok(const char *text)
{
	struct mdk_lopp_model *m;
	char err[512];

	ck_assert_msg(!mdk_lopp_model_parse(text, strlen(text), "t", &m, err,
					    sizeof(err)),
		      "%s", err);
	return m;
}

START_TEST(test_model_parse_good)
{
	struct mdk_lopp_model *m = parse_ok(good);
	float x[NF] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	double s;

	ck_assert_double_eq(mdk_lopp_model_rho(m), 0.01);
	/* At the mean every standardised feature is 0: logistic(bias). */
	s = mdk_lopp_score(m, x);
	ck_assert_double_eq_tol(s, 1 / (1 + exp(2.0)), 1e-15);
	/* page_reuse1 one scale (0.5) above its mean: + 1.5 */
	x[0] = 1.5f;
	ck_assert_double_eq_tol(mdk_lopp_score(m, x), 1 / (1 + exp(0.5)),
				1e-15);
	mdk_lopp_model_free(m);
}
END_TEST

/* print -> parse -> print is the identity, and so is write -> read. */
START_TEST(test_model_round_trip)
{
	struct mdk_lopp_model *m = parse_ok(good), *m2, *d;
	char path[] = "/tmp/mdk-lopp-model-XXXXXX", err[512];
	char *a = NULL, *b = NULL;
	size_t alen, blen;
	float x[NF];
	struct stat st;
	FILE *f;
	int fd, i;

	f = open_memstream(&a, &alen);
	ck_assert_int_eq(mdk_lopp_model_print(m, f), 0);
	fclose(f);
	m2 = parse_ok(a);
	f = open_memstream(&b, &blen);
	ck_assert_int_eq(mdk_lopp_model_print(m2, f), 0);
	fclose(f);
	ck_assert_str_eq(a, b);
	mdk_lopp_model_free(m2);

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	d = mdk_lopp_model_dup(m);
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(!mdk_lopp_model_write(d, path, err, sizeof(err)), "%s",
		      err);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	ck_assert_msg(!mdk_lopp_model_read(path, &m2, err, sizeof(err)), "%s",
		      err);
	for (i = 0; i < 1000; i++) {
		unsigned int k;

		for (k = 0; k < NF; k++)
			x[k] = (float)((i * 7 + k * 13) % 17) / 3.0f;
		ck_assert(mdk_lopp_score(m, x) == mdk_lopp_score(m2, x));
	}
	mdk_lopp_model_free(m2);
	unlink(path);
	/* A missing file: -ENOENT, the path in the message. */
	ck_assert_int_eq(mdk_lopp_model_read(path, &m2, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_null(m2);
	ck_assert_ptr_nonnull(strstr(err, path));
	/* A directory that does not exist: the write fails, cleanly. */
	ck_assert_int_lt(mdk_lopp_model_write(d,
					      "/nonexistent-mdk-dir/model.mdkm",
					      err, sizeof(err)),
			 0);
	mdk_lopp_model_free(m);
	mdk_lopp_model_free(d);
	free(a);
	free(b);
}
END_TEST

/* Replace the first occurrence of @from in good[] with @to. */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(good, from);
	size_t n = strlen(good) - strlen(from) + strlen(to) + 1;
	char *s = malloc(n);

	ck_assert_ptr_nonnull(at);
	ck_assert_ptr_nonnull(s);
	snprintf(s, n, "%.*s%s%s", (int)(at - good), good, to,
		 at + strlen(from));
	return s;
}

struct bad {
	const char *from, *to; /* edit of good[] */
	const char *want; /* in the message, after "t:" */
};

START_TEST(test_model_parse_bad)
{
	static const struct bad bad[] = {
		{ "mdk-lopp-model 1", "mdk-lopp-model 3",
		  "t:1: (offset 0) expected 'mdk-lopp-model 1'" },
		/* Version 2 is binary (file2.c): text after its line is not. */
		{ "mdk-lopp-model 1", "mdk-lopp-model 2",
		  "t: (offset 17) expected model kind 1 (trees), got " },
		{ "mdk-lopp-model 1", "mdk-lopp-model 1 x",
		  "t:1: (offset 17) expected end of line, got 'x'" },
		{ "mdk-lopp-model 1\n", "", "t:1: (offset 0) expected 'mdk" },
		{ "rho 0.01", "rho 1.5", "t:4: (offset 52) expected rho" },
		{ "rho 0.01", "rho 0x1p-3",
		  "expected rho, a number in [0, 1], got '0x1p-3'" },
		{ "rho 0.01", "rho nan", "got 'nan'" },
		{ "rho 0.01", "rho inf", "got 'inf'" },
		{ "rho 0.01", "rho 0.01.", "got '0.01.'" },
		{ "rho 0.01", "rho 1e", "got '1e'" },
		{ "rho 0.01", "rho",
		  "t:4: (offset 51) expected 1 value after 'rho', got end of line after 0" },
		{ "rho 0.01", "rho 0.01 0.02",
		  "t:4: (offset 57) expected end of line, got '0.02'" },
		{ "rho 0.01", "rho 0.01\nrho 0.02",
		  "t:5: (offset 57) expected each key once ('rho' was on line 4), got 'rho'" },
		{ "rho 0.01\n", "", "expected key 'rho', got end of file" },
		{ "bias -2\n", "",
		  "t:9: (offset 329) expected key 'bias', got end of file" },
		{ "bias -2", "bias 1e999",
		  "expected the bias, a finite number, got '1e999'" },
		{ "rho 0.01", "rh0 0.01", "t:4: (offset 48) expected a key" },
		{ "features 12", "features 13",
		  "expected the feature count 12, got '13'" },
		{ "features 12", "features 12.0", "got '12.0'" },
		{ "page_reuse2", "page_reuse9",
		  "expected feature 1 named 'page_reuse2', got 'page_reuse9'" },
		{ " region_recent\n", "\n",
		  "expected 13 values after 'features', got end of line after 12" },
		{ "region_recent\n", "region_recent extra\n",
		  "expected end of line, got 'extra'" },
		{ "scale 0.5", "scale 0",
		  "expected scale 0, a finite positive number, got '0'" },
		{ "scale 0.5", "scale -1", "got '-1'" },
		{ "mean 1 2", "mean 1 -",
		  "expected mean 1, a finite number, got '-'" },
		{ "weights 1.5", "weights 1.5\r",
		  "expected text, got byte 0x0d" },
		{ "bias -2", "bias -2\x01",
		  "t:9: (offset 336) expected text, got byte 0x01" },
		{ "# a comment", "# a comment\x7f",
		  "expected text, got byte 0x7f" },
	};
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mdk_lopp_model *m = (void *)1;
		char *s = edit(bad[i].from, bad[i].to);
		int ret = mdk_lopp_model_parse(s, strlen(s), "t", &m, err,
					       sizeof(err));

		ck_assert_msg(ret == -EINVAL, "case %zu: %d", i, ret);
		ck_assert_ptr_null(m);
		ck_assert_msg(strstr(err, bad[i].want),
			      "case %zu: '%s' lacks '%s'", i, err, bad[i].want);
		ck_assert_msg(!strncmp(err, "t:", 2) &&
				      strstr(err, ": (offset ") &&
				      strstr(err, " expected ") &&
				      strstr(err, ", got "),
			      "case %zu: '%s'", i, err);
		free(s);
	}
}
END_TEST

/* Bytes the C string cannot hold: NULs, overlong lines, files. */
START_TEST(test_model_parse_bad_bytes)
{
	struct mdk_lopp_model *m;
	size_t n = strlen(good), big = 70000;
	char err[512], *s = malloc(big);

	ck_assert_ptr_nonnull(s);
	/* An embedded NUL in the rho line */
	memcpy(s, good, n);
	s[strstr(good, "0.01") - good + 1] = '\0';
	ck_assert_int_eq(mdk_lopp_model_parse(s, n, "t", &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err,
			     "t:4: (offset 53) expected text, got byte 0x00"),
		      "%s", err);
	/* The good file cut anywhere is refused (or, cut in the last
	 * number, a different bias) and never crashes. */
	for (size_t k = 0; k < n; k++) {
		int ret = mdk_lopp_model_parse(good, k, "t", &m, err,
					       sizeof(err));

		if (!ret)
			mdk_lopp_model_free(m);
		else
			ck_assert_int_eq(ret, -EINVAL);
	}
	/* A comment line of 2000 bytes */
	memcpy(s, good, n);
	memset(s + n, '#', 2000);
	s[n + 2000] = '\n';
	ck_assert_int_eq(mdk_lopp_model_parse(s, n + 2001, "t", &m, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_msg(
		strstr(err,
		       "t:10: (offset 1361) expected a line of at most 1024 bytes"),
		"%s", err);
	/* 70000 bytes of blank lines after a good model */
	memcpy(s, good, n);
	memset(s + n, '\n', big - n);
	ck_assert_int_eq(mdk_lopp_model_parse(s, big, "t", &m, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_msg(
		strstr(err,
		       "(offset 65536) expected a model file of at most 65536 bytes"),
		"%s", err);
	/* Empty */
	ck_assert_int_eq(mdk_lopp_model_parse(s, 0, "t", &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "t:1: (offset 0) expected 'mdk-lopp-model 1"),
		      "%s", err);
	free(s);
}
END_TEST

START_TEST(test_model_score_bounded)
{
	static const char extreme[] =
		"mdk-lopp-model 1\n"
		"rho 1\n"
		"features 12 page_reuse1 page_reuse2 page_reuse3 page_reuse4 page_rate page_recent region_reuse1 region_reuse2 region_reuse3 region_reuse4 region_rate region_recent\n"
		"mean 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"scale 1e-300 1 1 1 1 1 1 1 1 1 1 1\n"
		"weights 1e300 -1e300 1 1 1 1 1 1 1 1 1 1\n"
		"bias 0\n";
	struct mdk_lopp_model *m = parse_ok(extreme);
	float x[NF] = { 0 };
	const float odd[] = { NAN, INFINITY, -INFINITY, 1e38f, -1e38f, 0 };
	size_t i, j;

	for (i = 0; i < (sizeof(odd) / sizeof(odd[0])); i++)
		for (j = 0; j < (sizeof(odd) / sizeof(odd[0])); j++) {
			double s;

			x[0] = odd[i];
			x[1] = odd[j];
			x[5] = odd[(i + j) % (sizeof(odd) / sizeof(odd[0]))];
			s = mdk_lopp_score(m, x);
			ck_assert_msg(s >= 0 && s <= 1, "%g %g: %g", odd[i],
				      odd[j], s);
		}
	/* Bounded, not flat: the extremes reach either end; NaN adds nothing. */
	memset(x, 0, sizeof(x));
	ck_assert_double_eq(mdk_lopp_score(m, x), 0.5);
	x[0] = 1e38f;
	ck_assert_double_eq(mdk_lopp_score(m, x), 1);
	x[0] = -1e38f;
	ck_assert_double_le(mdk_lopp_score(m, x), 1e-300);
	x[0] = NAN;
	x[1] = -INFINITY;
	ck_assert_double_eq(mdk_lopp_score(m, x), 1);
	mdk_lopp_model_free(m);
}
END_TEST

START_TEST(test_model_key_monotonic)
{
	uint32_t prev = 0, k;
	int i;

	ck_assert_uint_eq(mdk_lopp_key(0), 1);
	ck_assert_uint_eq(mdk_lopp_key(-1), 1);
	ck_assert_uint_eq(mdk_lopp_key(NAN), 1);
	ck_assert_uint_eq(mdk_lopp_key(-INFINITY), 1);
	ck_assert_uint_eq(mdk_lopp_key(0.5), 500001);
	ck_assert_uint_eq(mdk_lopp_key(1), MDK_LOPP_KEY_MAX);
	ck_assert_uint_eq(mdk_lopp_key(INFINITY), MDK_LOPP_KEY_MAX);
	for (i = 0; i <= 300007; i++) {
		k = mdk_lopp_key(i / 300007.0);
		if (k < prev || k < 1 || k > MDK_LOPP_KEY_MAX)
			ck_abort_msg("key(%g) = %u after %u", i / 300007.0, k,
				     prev);
		prev = k;
	}
}
END_TEST

START_TEST(test_model_score_monotonic)
{
	struct mdk_lopp_model *m = parse_ok(good);
	float x[NF] = { 0 };
	double prev = -1, s;
	int i;

	/*
	 * page_reuse1's weight is positive: the score rises with it, strictly
	 * until it is all but 1, from all but 0 to all but 1.
	 */
	for (i = -200; i <= 200; i++) {
		x[0] = (float)i / 4;
		s = mdk_lopp_score(m, x);
		ck_assert_msg(s >= 0 && s <= 1, "x %g: %g", x[0], s);
		if (prev < 0.999)
			ck_assert_msg(s > prev, "x %g: %g after %g", x[0], s,
				      prev);
		else
			ck_assert_msg(s >= prev, "x %g: %g after %g", x[0], s,
				      prev);
		if (i == -200)
			ck_assert_double_lt(s, 1e-9);
		prev = s;
	}
	ck_assert_double_gt(s, 1 - 1e-9);
	mdk_lopp_model_free(m);
}
END_TEST

static Suite *lopp_model_suite(void)
{
	Suite *s = suite_create("lopp_model");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_model_parse_good);
	tcase_add_test(tc, test_model_round_trip);
	tcase_add_test(tc, test_model_parse_bad);
	tcase_add_test(tc, test_model_parse_bad_bytes);
	tcase_add_test(tc, test_model_score_bounded);
	tcase_add_test(tc, test_model_key_monotonic);
	tcase_add_test(tc, test_model_score_monotonic);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_model_suite)
