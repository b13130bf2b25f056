// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the linearizability checker on histories whose verdict is
 * known: sequential and overlapping histories, stale and impossible reads,
 * a write seen twice around another one, pending writes that may or may
 * not take effect, per-key independence, deletes, malformed input, and
 * random histories produced by a sequential register with random
 * overlaps (always linearizable) then corrupted (never).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lincheck.h>

#include "unit.h"

#define P MDK_SWARM_LIN_PUT
#define G MDK_SWARM_LIN_GET
#define A MDK_SWARM_LIN_ABSENT
#define INF MDK_SWARM_LIN_PENDING

static bool lin(const struct mdk_swarm_lin_op *ops, size_t n)
{
	struct mdk_swarm_lin_report rep;

	ck_assert_int_eq(mdk_swarm_lincheck(ops, n, 0, &rep), 0);
	ck_assert_uint_eq(rep.ops, n);
	return rep.linearizable;
}

#define LIN(...)                                                      \
	({                                                            \
		const struct mdk_swarm_lin_op h_[] = { __VA_ARGS__ }; \
		lin(h_, sizeof(h_) / sizeof(h_[0]));                  \
	})

/* { key, value, call, ret, client, kind } */
START_TEST(test_lincheck_sequential)
{
	ck_assert(LIN({ 0, 1, 0, 1, 0, P }, { 0, 1, 2, 3, 1, G }));
	ck_assert(LIN({ 0, A, 0, 1, 0, G }));
	ck_assert(!LIN({ 0, 7, 0, 1, 0, G }));
	/* A stale read after a completed write. */
	ck_assert(!LIN({ 0, 1, 0, 1, 0, P }, { 0, 2, 2, 3, 0, P },
		       { 0, 1, 4, 5, 1, G }));
	/* Absent after a completed write. */
	ck_assert(!LIN({ 0, 1, 0, 1, 0, P }, { 0, A, 2, 3, 1, G }));
	/* Delete, then absent. */
	ck_assert(LIN({ 0, 1, 0, 1, 0, P }, { 0, A, 2, 3, 0, P },
		      { 0, A, 4, 5, 1, G }));
}
END_TEST

START_TEST(test_lincheck_overlaps)
{
	/* A read overlapping a write may return either value. */
	ck_assert(LIN({ 0, 1, 0, 10, 0, P }, { 0, 1, 2, 3, 1, G }));
	ck_assert(LIN({ 0, 1, 0, 10, 0, P }, { 0, A, 2, 3, 1, G }));
	/* ...but not new then old: */
	ck_assert(!LIN({ 0, 1, 0, 10, 0, P }, { 0, 1, 2, 3, 1, G },
		       { 0, A, 4, 5, 2, G }));
	/* Two concurrent writes, reads agree on one order. */
	ck_assert(LIN({ 0, 1, 0, 10, 0, P }, { 0, 2, 0, 10, 1, P },
		      { 0, 1, 11, 12, 2, G }, { 0, 1, 13, 14, 3, G }));
	ck_assert(!LIN({ 0, 1, 0, 10, 0, P }, { 0, 2, 0, 10, 1, P },
		       { 0, 1, 11, 12, 2, G }, { 0, 2, 13, 14, 3, G }));
	/* The same write seen twice around another write. */
	ck_assert(!LIN({ 0, 1, 0, 100, 0, P }, { 0, 2, 0, 100, 1, P },
		       { 0, 1, 10, 11, 2, G }, { 0, 2, 20, 21, 2, G },
		       { 0, 1, 30, 31, 2, G }));
	/* Equal times overlap. */
	ck_assert(LIN({ 0, 1, 0, 5, 0, P }, { 0, A, 5, 6, 1, G }));
}
END_TEST

START_TEST(test_lincheck_pending)
{
	/* A pending write may take effect late, or never. */
	ck_assert(LIN({ 0, 1, 0, INF, 0, P }, { 0, A, 5, 6, 1, G },
		      { 0, 1, 7, 8, 1, G }));
	ck_assert(LIN({ 0, 1, 0, INF, 0, P }, { 0, A, 5, 6, 1, G },
		      { 0, A, 7, 8, 1, G }));
	/* ...but only once, and not before its call. */
	ck_assert(!LIN({ 0, 1, 0, INF, 0, P }, { 0, 1, 5, 6, 1, G },
		       { 0, A, 7, 8, 1, G }));
	ck_assert(!LIN({ 0, 1, 10, INF, 0, P }, { 0, 1, 5, 6, 1, G }));
	/* A pending write of a crashed client and a later complete one. */
	ck_assert(LIN({ 0, 1, 0, INF, 0, P }, { 0, 2, 10, 11, 1, P },
		      { 0, 1, 12, 13, 1, G }));
	ck_assert(!LIN({ 0, 1, 0, INF, 0, P }, { 0, 2, 10, 11, 1, P },
		       { 0, 1, 12, 13, 1, G }, { 0, 2, 14, 15, 1, G }));
}
END_TEST

START_TEST(test_lincheck_keys_independent)
{
	struct mdk_swarm_lin_report rep;
	const struct mdk_swarm_lin_op h[] = {
		{ 1, 5, 0, 1, 0, P }, { 2, 6, 0, 1, 1, P },
		{ 1, 5, 2, 3, 2, G }, { 2, A, 2, 3, 2, G }, /* bad: key 2 */
		{ 3, A, 0, 9, 3, G },
	};

	ck_assert_int_eq(mdk_swarm_lincheck(h, 5, 0, &rep), 0);
	ck_assert(!rep.linearizable);
	ck_assert_uint_eq(rep.bad_key, 2);
	ck_assert_msg(strstr(rep.msg, "key 2"), "%s", rep.msg);
	/* Interleaving per key is what matters, not across keys. */
	ck_assert(LIN({ 1, 1, 0, 1, 0, P }, { 2, 1, 0, 1, 0, P },
		      { 1, 1, 5, 6, 1, G }, { 2, A, 7, 8, 1, P },
		      { 2, A, 9, 10, 2, G }));
}
END_TEST

START_TEST(test_lincheck_bad_input)
{
	struct mdk_swarm_lin_report rep;
	const struct mdk_swarm_lin_op back[] = { { 0, 1, 5, 4, 0, P } };
	const struct mdk_swarm_lin_op kind[] = { { 0, 1, 0, 1, 0, 0 },
						 { 0, 1, 0, 1, 0, 7 } };

	ck_assert_int_eq(mdk_swarm_lincheck(back, 1, 0, &rep), -EINVAL);
	ck_assert_msg(strstr(rep.msg, "operation 0: returns before"), "%s",
		      rep.msg);
	ck_assert_int_eq(mdk_swarm_lincheck(kind, 2, 0, &rep), -EINVAL);
	ck_assert_msg(strstr(rep.msg, "operation 1: unknown kind"), "%s",
		      rep.msg);
	ck_assert_int_eq(mdk_swarm_lincheck(NULL, 0, 0, &rep), 0);
	ck_assert(rep.linearizable);
}
END_TEST

static uint64_t rnd(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A sequential register run: each operation takes effect at its step and
 * gets a call before and a return after it, stretched at random so that
 * operations overlap (concurrency up to 8).
 */
static size_t gen(struct mdk_swarm_lin_op *h, size_t n, uint64_t seed)
{
	uint64_t state = A, x = seed;

	for (size_t i = 0; i < n; i++) {
		uint64_t t = 1000 + 100 * i;

		h[i].key = 42;
		h[i].client = (uint32_t)(i % 8);
		h[i].call_ns = t - rnd(&x) % 400;
		h[i].ret_ns = t + rnd(&x) % 400;
		if (rnd(&x) % 2) {
			h[i].kind = P;
			h[i].value = rnd(&x) % 4 ? i + 1 : A;
			/*
			 * Some writes are pending: most never take effect
			 * (a value nobody reads), some do.
			 */
			if (rnd(&x) % 10 == 0) {
				h[i].ret_ns = INF;
				if (rnd(&x) % 8)
					h[i].value = 1000000 + i;
				else
					state = h[i].value;
			} else {
				state = h[i].value;
			}
		} else {
			h[i].kind = G;
			h[i].value = state;
		}
	}
	return n;
}

START_TEST(test_lincheck_random)
{
	struct mdk_swarm_lin_op h[2000];
	struct mdk_swarm_lin_report rep;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		size_t n = gen(h, 2000, seed), bad;

		ck_assert_int_eq(mdk_swarm_lincheck(h, n, 0, &rep), 0);
		ck_assert_msg(rep.linearizable, "seed %llu: %s",
			      (unsigned long long)seed, rep.msg);
		/* A read of a value never written cannot be linearized. */
		for (bad = n / 2; h[bad].kind != G; bad++)
			;
		h[bad].value = 999999;
		ck_assert_int_eq(mdk_swarm_lincheck(h, n, 0, &rep), 0);
		ck_assert(!rep.linearizable);
	}
}
END_TEST

START_TEST(test_lincheck_budget)
{
	/* 40 concurrent writes and reads of many values: a big search. */
	struct mdk_swarm_lin_op h[40];
	struct mdk_swarm_lin_report rep;

	for (int i = 0; i < 40; i++)
		h[i] = (struct mdk_swarm_lin_op){
			0,	     (uint64_t)(i % 20) + 1, 0, 1000,
			(uint32_t)i, i < 20 ? P : G
		};
	h[39].value = 12345; /* impossible: forces the whole search */
	ck_assert_int_eq(mdk_swarm_lincheck(h, 40, 1000, &rep), -E2BIG);
	ck_assert_msg(strstr(rep.msg, "budget"), "%s", rep.msg);
}
END_TEST

static Suite *swarm_lincheck_suite(void)
{
	Suite *s = suite_create("swarm_lincheck");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_lincheck_sequential);
	tcase_add_test(tc, test_lincheck_overlaps);
	tcase_add_test(tc, test_lincheck_pending);
	tcase_add_test(tc, test_lincheck_keys_independent);
	tcase_add_test(tc, test_lincheck_bad_input);
	tcase_add_test(tc, test_lincheck_random);
	tcase_add_test(tc, test_lincheck_budget);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(swarm_lincheck_suite)
