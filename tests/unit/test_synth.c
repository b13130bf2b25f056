// SPDX-License-Identifier: GPL-2.0
/*
 * Description: synthetic traces (libmdk/synth.c): the same seed gives the
 * same trace, windows come sorted, each generator does what it says
 * (Zipf's density, periodic pages every period, a scan's sweep, phases),
 * bad specs are refused with the key named.
 */
#include "mdk_test.h"

static uint64_t digest(uint64_t pages, uint32_t W, uint64_t seed,
		       const char *spec, uint64_t *records)
{
	struct mdk_synth_opts o = { .pages = pages,
				    .windows = W,
				    .seed = seed };
	struct mdk_synth *s;
	const uint64_t *ids;
	uint64_t h = 0;
	uint32_t w, expect = 0;
	size_t n, i;
	char err[256];

	*records = 0;
	ck_assert(!mdk_synth_new(&o, &s, err, sizeof(err)));
	if (spec)
		ck_assert_msg(!mdk_synth_add(s, spec, err, sizeof(err)), "%s",
			      err);
	while (mdk_synth_next(s, &w, &ids, &n, err, sizeof(err)) > 0) {
		ck_assert_uint_eq(w, expect++);
		for (i = 0; i < n; i++) {
			if (i)
				ck_assert_uint_gt(ids[i], ids[i - 1]);
			h = h * 1000003 + ids[i] + w;
		}
		*records += n;
	}
	ck_assert_uint_eq(expect, W);
	mdk_synth_free(s);
	return h;
}

START_TEST(test_synth_deterministic)
{
	uint64_t r1, r2, r3;

	ck_assert_uint_eq(digest(5000, 30, 1, NULL, &r1),
			  digest(5000, 30, 1, NULL, &r2));
	ck_assert_uint_eq(r1, r2);
	ck_assert_uint_ne(digest(5000, 30, 2, NULL, &r3),
			  digest(5000, 30, 1, NULL, &r1));
	ck_assert_uint_gt(r1, 0);
}
END_TEST

START_TEST(test_synth_generators)
{
	uint64_t r;

	/* Zipf at frac 0.3: about 30% of the pages a window. */
	digest(10000, 20, 3, "zipf:s=0.9,frac=0.3", &r);
	ck_assert_msg(r > 0.27 * 10000 * 20 && r < 0.33 * 10000 * 20, "%llu",
		      (unsigned long long)r);
	/* Periodic without skips: exactly pages / period a window. */
	digest(6000, 12, 3, "periodic:period=6,skip=0", &r);
	ck_assert_uint_eq(r, 6000 * 2);
	/* A scan of 100 pages a window. */
	digest(1000, 25, 3, "scan:rate=100", &r);
	ck_assert_uint_eq(r, 25 * 100);
	/* Phases: the working set's pages at p = 1, the others never. */
	digest(4000, 8, 3, "phase:len=4,frac=0.5,p=1,idle=0", &r);
	ck_assert_msg(r > 0.45 * 4000 * 8 && r < 0.55 * 4000 * 8, "%llu",
		      (unsigned long long)r);
}
END_TEST

START_TEST(test_synth_errors)
{
	static const char *const bad[][2] = {
		{ "lognormal", "unknown generator 'lognormal'" },
		{ "zipf:s=x", "s=x: expected an exponent" },
		{ "zipf:frac=0", "frac=0: expected a fraction above 0" },
		{ "periodic:period=0", "period=0" },
		{ "scan:speed=3", "unknown key 'speed'" },
		{ "phase:p", "expected KEY=VALUE" },
		{ "zipf:share=2", "share=2" },
	};
	struct mdk_synth_opts o = { .pages = 100, .windows = 10 };
	struct mdk_synth *s;
	const uint64_t *ids;
	uint32_t w;
	size_t i, n;
	char err[256];

	ck_assert(!mdk_synth_new(&o, &s, err, sizeof(err)));
	for (i = 0; i < MDK_ARRAY(bad); i++) {
		ck_assert_int_eq(mdk_synth_add(s, bad[i][0], err, sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, bad[i][1]), "%s: '%s'", bad[i][0],
			      err);
	}
	ck_assert(!mdk_synth_add(s, "zipf:share=0.7", err, sizeof(err)));
	ck_assert(!mdk_synth_add(s, "scan:share=0.6", err, sizeof(err)));
	ck_assert_int_eq(mdk_synth_next(s, &w, &ids, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "shares add up to 1.3"), "%s", err);
	mdk_synth_free(s);
	o.pages = 0;
	ck_assert_int_eq(mdk_synth_new(&o, &s, err, sizeof(err)), -EINVAL);
}
END_TEST

static Suite *synth_suite(void)
{
	Suite *s = suite_create("synth");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_synth_deterministic);
	tcase_add_test(tc, test_synth_generators);
	tcase_add_test(tc, test_synth_errors);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(synth_suite)
