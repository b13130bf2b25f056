// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the interval stream (libmdk/interval.c): what each access
 * closes, first accesses, open intervals at the end, the packed 16-bit
 * state agreeing with the full one, and misuse.
 */
#include "mdk_test.h"

START_TEST(test_interval_stream)
{
	/* Page 0 in windows 0, 1, 4; page 1 in 1, 4; page 2 in 4. */
	static const uint32_t w0[] = { 0 }, w1[] = { 0, 1 }, w4[] = { 0, 1, 2 };
	struct mdk_stream *s;
	uint32_t st[3], ru[3], a, r, cur = 0;
	uint64_t first = 0;
	char err[256];

	ck_assert(!mdk_stream_new(0, &s));
	ck_assert(!mdk_stream_feed(s, 0, w0, 1, st, ru, &first, err,
				   sizeof(err)));
	ck_assert(st[0] == MDK_NONE && ru[0] == 0 && first == 1);
	ck_assert(!mdk_stream_feed(s, 1, w1, 2, st, ru, &first, err,
				   sizeof(err)));
	ck_assert(st[0] == 0 && ru[0] == 0); /* closes (0, 1), after a first */
	ck_assert(st[1] == MDK_NONE && first == 2);
	ck_assert(!mdk_stream_feed(s, 4, w4, 3, st, ru, &first, err,
				   sizeof(err)));
	ck_assert(st[0] == 1 && ru[0] == 1); /* closes (1, 4), prior reuse 1 */
	ck_assert(st[1] == 1 && ru[1] == 0);
	ck_assert(st[2] == MDK_NONE && first == 3);
	ck_assert(!mdk_stream_open(s, 0, &a, &r));
	ck_assert(a == 4 && r == 3);
	ck_assert_int_eq(mdk_stream_open(s, 7, &a, &r), -ENOENT);
	ck_assert_uint_eq(mdk_stream_pages(s), 3);
	ck_assert_uint_eq(mdk_stream_tails(s, &cur, st, ru, 2), 2);
	ck_assert(st[0] == 4 && ru[0] == 3 && st[1] == 4 && ru[1] == 3);
	ck_assert_uint_eq(mdk_stream_tails(s, &cur, st, ru, 2), 1);
	ck_assert(st[0] == 4 && ru[0] == 0);
	ck_assert_uint_eq(mdk_stream_tails(s, &cur, st, ru, 2), 0);

	ck_assert_int_eq(mdk_stream_feed(s, 3, w0, 1, st, ru, &first, err,
					 sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "window 3 after window 4"), "%s", err);
	ck_assert_int_eq(mdk_stream_feed(s, 4, w0, 1, st, ru, &first, err,
					 sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "page 0 accessed twice in window 4"), "%s",
		      err);
	mdk_stream_free(s);
}
END_TEST

/* A keyed stream: each interval carries its opening access's key. */
START_TEST(test_interval_keyed)
{
	static const uint32_t w0[] = { 0, 1 }, w2[] = { 0 };
	static const uint32_t k0[] = { 700000, 70000 }, k2[] = { 5 };
	struct mdk_stream *s;
	uint32_t st[2], ru[2], a, r, cur = 0;
	uint64_t first = 0;
	char err[256];

	/* Keys need the full word even for a stream of few windows. */
	ck_assert(!mdk_stream_new_keyed(100, &s));
	ck_assert_int_eq(mdk_stream_feed(s, 0, w0, 2, st, ru, &first, err,
					 sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "needs keys"), "%s", err);
	ck_assert(!mdk_stream_feed_keys(s, 0, w0, k0, 2, st, ru, &first, err,
					sizeof(err)));
	ck_assert(st[0] == MDK_NONE && ru[0] == 0 && first == 2);
	ck_assert(!mdk_stream_feed_keys(s, 2, w2, k2, 1, st, ru, &first, err,
					sizeof(err)));
	ck_assert(st[0] == 0 && ru[0] == 700000); /* closes (0, 2), key 0.7 */
	ck_assert(!mdk_stream_open(s, 0, &a, &r) && a == 2 && r == 5);
	ck_assert_uint_eq(mdk_stream_tails(s, &cur, st, ru, 2), 2);
	ck_assert(st[1] == 0 && ru[1] == 70000);
	mdk_stream_free(s);
	/* and a plain stream refuses keys */
	ck_assert(!mdk_stream_new(0, &s));
	ck_assert_int_eq(mdk_stream_feed_keys(s, 0, w0, k0, 2, st, ru, &first,
					      err, sizeof(err)),
			 -EINVAL);
	mdk_stream_free(s);
}
END_TEST

START_TEST(test_interval_packed_equals_full)
{
	struct tt *t = tt_random(3, 200, 300);
	struct mdk_stream *a, *b;
	uint32_t *pg = malloc(300 * sizeof(*pg)), sa[300], ra[300], sb[300],
		 rb[300];
	uint64_t fa = 0, fb = 0;
	char err[256];
	uint32_t w;

	ck_assert(!mdk_stream_new(0, &a));
	ck_assert(!mdk_stream_new(200, &b));
	for (w = 0; w < t->W; w++) {
		size_t n = tt_window(t, w, pg);

		ck_assert(!mdk_stream_feed(a, w, pg, n, sa, ra, &fa, err,
					   sizeof(err)));
		ck_assert(!mdk_stream_feed(b, w, pg, n, sb, rb, &fb, err,
					   sizeof(err)));
		ck_assert(!memcmp(sa, sb, n * sizeof(*sa)));
		ck_assert(!memcmp(ra, rb, n * sizeof(*ra)));
	}
	ck_assert_uint_eq(fa, fb);
	ck_assert_int_eq(mdk_stream_feed(b, 200, pg, 0, sb, rb, &fb, err,
					 sizeof(err)),
			 -ERANGE);
	mdk_stream_free(a);
	mdk_stream_free(b);
	free(pg);
	tt_free(t);
}
END_TEST

static Suite *interval_suite(void)
{
	Suite *s = suite_create("interval");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_interval_stream);
	tcase_add_test(tc, test_interval_keyed);
	tcase_add_test(tc, test_interval_packed_equals_full);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(interval_suite)
