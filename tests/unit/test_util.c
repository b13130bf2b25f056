// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the shared helpers of <mdk/util.h> (libmdk/util.c):
 * mdk_grow() grows arrays and refuses sizes that overflow, mdk_hash64()
 * is the splitmix64 finaliser, a bijection whose low bits spread, and
 * mdk_splitmix64() gives the reference sequence.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <mdk/util.h>

#include "unit.h"

START_TEST(test_grow_keeps_contents)
{
	uint32_t *a = NULL;
	size_t cap = 0, i;

	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(mdk_grow((void **)&a, &cap, i + 1, sizeof(*a)),
				 0);
		ck_assert_uint_ge(cap, i + 1);
		a[i] = (uint32_t)(i * 7);
	}
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(a[i], i * 7);
	free(a);
}
END_TEST

/* Doubling from 16: room for 17 is 32, and a need within cap is free. */
START_TEST(test_grow_doubles)
{
	char *a = NULL, *before;
	size_t cap = 0;

	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 1, 1), 0);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 17, 1), 0);
	ck_assert_uint_eq(cap, 32);
	before = a;
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 32, 1), 0);
	ck_assert_ptr_eq(a, before);
	ck_assert_uint_eq(cap, 32);
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 1000, 1), 0);
	ck_assert_uint_eq(cap, 1024);
	free(a);
}
END_TEST

/* A size past SIZE_MAX is refused, and the array is left as it was. */
START_TEST(test_grow_refuses_overflow)
{
	uint64_t *a = NULL, *before;
	size_t cap = 0;

	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 4, sizeof(*a)), 0);
	a[3] = 42;
	before = a;
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, SIZE_MAX / 4, sizeof(*a)),
			 -ENOMEM);
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, SIZE_MAX, 1), -ENOMEM);
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 17, SIZE_MAX / 8),
			 -ENOMEM);
	ck_assert_ptr_eq(a, before);
	ck_assert_uint_eq(cap, 16);
	ck_assert_uint_eq(a[3], 42);
	free(a);

	/* The first 16 elements of a huge size overflow too. */
	a = NULL;
	cap = 0;
	ck_assert_int_eq(mdk_grow((void **)&a, &cap, 1, SIZE_MAX / 8), -ENOMEM);
	ck_assert_ptr_null(a);
	ck_assert_uint_eq(cap, 0);
}
END_TEST

/* The splitmix64 finaliser's known values (splitmix64 seeded with 0). */
START_TEST(test_hash64_known_values)
{
	ck_assert_uint_eq(mdk_hash64(0), 0);
	ck_assert_uint_eq(mdk_hash64(0x9e3779b97f4a7c15ull),
			  0xe220a8397b1dcdafull);
	ck_assert_uint_eq(mdk_hash64(2 * 0x9e3779b97f4a7c15ull),
			  0x6e789e6aa1b965f4ull);
}
END_TEST

/* splitmix64's reference sequence from a state of 0, and the state kept. */
START_TEST(test_splitmix64_sequence)
{
	uint64_t s = 0;

	ck_assert_uint_eq(mdk_splitmix64(&s), 0xe220a8397b1dcdafull);
	ck_assert_uint_eq(s, 0x9e3779b97f4a7c15ull);
	ck_assert_uint_eq(mdk_splitmix64(&s), 0x6e789e6aa1b965f4ull);
	ck_assert_uint_eq(mdk_splitmix64(&s), 0x06c45d188009454full);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* No two of a sample of neighbouring and spread inputs collide. */
START_TEST(test_hash64_no_collisions)
{
	enum { N = 1 << 16 };
	uint64_t *h = malloc(2 * N * sizeof(*h));
	size_t i;

	ck_assert_ptr_nonnull(h);
	for (i = 0; i < N; i++) {
		h[i] = mdk_hash64(i);
		h[N + i] = mdk_hash64((uint64_t)(i + 1) << 40 | 0xffff);
	}
	qsort(h, 2 * N, sizeof(*h), cmp_u64);
	for (i = 1; i < 2 * N; i++)
		ck_assert_uint_ne(h[i - 1], h[i]);
	free(h);
}
END_TEST

/* Low bits index hash tables: consecutive ids spread over 256 buckets. */
START_TEST(test_hash64_low_bits_spread)
{
	unsigned int count[256] = { 0 }, i;

	for (i = 0; i < 256 * 64; i++)
		count[mdk_hash64(i) & 255]++;
	for (i = 0; i < 256; i++) {
		ck_assert_uint_gt(count[i], 24);
		ck_assert_uint_lt(count[i], 112);
	}
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_grow_keeps_contents);
	tcase_add_test(tc, test_grow_doubles);
	tcase_add_test(tc, test_grow_refuses_overflow);
	tcase_add_test(tc, test_hash64_known_values);
	tcase_add_test(tc, test_splitmix64_sequence);
	tcase_add_test(tc, test_hash64_no_collisions);
	tcase_add_test(tc, test_hash64_low_bits_spread);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(util_suite)
