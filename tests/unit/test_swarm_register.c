// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the paths of SWARM's register, one at a time, with their
 * round-trip counts: the fast write and its verification riding on the
 * next round, a reader meeting an unverified write (read again, lock,
 * write back, after which reads are fast again), a writer whose clock is
 * behind (stale guess, abort, second write), a writer that crashes after
 * its fast write returned (its acknowledged value must survive) or in the
 * middle of its round (readers must agree), and out-of-place buffers
 * recycled over many writes.
 */
#include <errno.h>
#include <string.h>

#include <mdk/swarm.h>

#include "unit.h"

struct fx {
	struct mdk_memnode *node[5];
	struct mdk_swarm *s;
	struct mdk_swarm_client *c[4];
	char err[256];
};

static void fx_new(struct fx *f, enum mdk_swarm_proto p)
{
	struct mdk_swarm_opts o = { .proto = p, .capacity = 16 };
	uint64_t bytes = mdk_swarm_node_bytes(&o);

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(f->node[i] = mdk_memnode_new_mem(
					      bytes, f->err, sizeof(f->err)));
	f->s = mdk_swarm_format(f->node, 3, &o, f->err, sizeof(f->err));
	ck_assert_msg(f->s, "%s", f->err);
	for (int i = 0; i < 4; i++)
		ck_assert_ptr_nonnull(f->c[i] = mdk_swarm_client_new(
					      f->s, f->err, sizeof(f->err)));
}

static void fx_free(struct fx *f)
{
	for (int i = 0; i < 4; i++)
		mdk_swarm_client_destroy(f->c[i]);
	mdk_swarm_destroy(f->s);
	for (int i = 0; i < 3; i++)
		mdk_memnode_destroy(f->node[i]);
}

/* Every client learns where "k" lives: no lookup round in the counts. */
static void warm(struct fx *f)
{
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(mdk_swarm_warm(f->c[i]), 0);
}

static struct mdk_swarm_op_stats get_is(struct mdk_swarm_client *c,
					const char *want)
{
	struct mdk_swarm_op_stats st;
	char v[64];
	size_t vl = sizeof(v);
	int ret = mdk_swarm_get(c, "k", 1, v, &vl);

	if (!want) {
		ck_assert_int_eq(ret, -ENOENT);
	} else {
		ck_assert_msg(!ret, "get: %s", strerror(-ret));
		ck_assert_uint_eq(vl, strlen(want));
		ck_assert_msg(!memcmp(v, want, vl), "got %.*s, want %s",
			      (int)vl, v, want);
	}
	mdk_swarm_last_op(c, &st);
	return st;
}

static struct mdk_swarm_op_stats put(struct mdk_swarm_client *c, const char *v)
{
	struct mdk_swarm_op_stats st;

	ck_assert_int_eq(mdk_swarm_insert(c, "k", 1, v, strlen(v)), 0);
	mdk_swarm_last_op(c, &st);
	return st;
}

START_TEST(test_register_fast_paths)
{
	struct fx f;
	struct mdk_swarm_op_stats st;

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	put(f.c[0], "a");
	warm(&f);
	ck_assert_int_eq(mdk_swarm_flush(f.c[0]), 0);
	mdk_swarm_last_op(f.c[0], &st);
	ck_assert_uint_eq(st.bg_rtts, 1);
	ck_assert_int_eq(mdk_swarm_flush(f.c[0]), 0); /* nothing pending */
	mdk_swarm_last_op(f.c[0], &st);
	ck_assert_uint_eq(st.bg_rtts, 0);
	for (int i = 0; i < 10; i++) {
		st = put(f.c[0], i % 2 ? "b" : "c");
		ck_assert_uint_eq(st.rtts, 1);
		ck_assert_uint_eq(st.slow, 0);
		/* The verification rides on the writer's next round. */
		st = get_is(f.c[0], i % 2 ? "b" : "c");
		ck_assert_uint_eq(st.rtts, 1);
		st = get_is(f.c[1], i % 2 ? "b" : "c");
		ck_assert_uint_eq(st.rtts, 1);
		ck_assert_uint_eq(st.slow, 0);
	}
	fx_free(&f);
}
END_TEST

START_TEST(test_register_reader_meets_unverified)
{
	struct fx f;
	struct mdk_swarm_op_stats st;

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	put(f.c[0], "old");
	mdk_swarm_flush(f.c[0]);
	warm(&f);
	put(f.c[0], "new"); /* returned; its VER bit is not out yet */
	st = get_is(f.c[1], "new");
	ck_assert_uint_eq(st.slow,
			  MDK_SWARM_SLOW_REREAD | MDK_SWARM_SLOW_LOCKED);
	ck_assert_uint_eq(st.rtts, 4); /* read, read again, lock, write back */
	/* The reader left committed evidence everywhere: fast again. */
	st = get_is(f.c[2], "new");
	ck_assert_uint_eq(st.rtts, 1);
	ck_assert_uint_eq(st.slow, 0);
	/* The writer's own reads of its write are fast. */
	st = get_is(f.c[0], "new");
	ck_assert_uint_eq(st.rtts, 1);
	fx_free(&f);
}
END_TEST

START_TEST(test_register_clock_behind)
{
	struct fx f;
	struct mdk_swarm_op_stats st;

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	mdk_swarm_client_set_clock_skew(f.c[1], -2000000); /* 2 s behind */
	put(f.c[0], "ahead");
	mdk_swarm_flush(f.c[0]);
	warm(&f);
	st = put(f.c[1], "behind");
	ck_assert_uint_eq(st.slow, MDK_SWARM_SLOW_GUESS | MDK_SWARM_SLOW_RETRY);
	ck_assert_uint_eq(st.rtts, 3);
	st = get_is(f.c[2], "behind");
	ck_assert_uint_eq(st.rtts, 1);
	/* The writer caught up with the timestamps it saw: fast again. */
	st = put(f.c[1], "again");
	ck_assert_uint_eq(st.rtts, 1);
	ck_assert_uint_eq(st.slow, 0);
	/* DM-ABD does not care about clocks: always 2 round trips. */
	fx_free(&f);
	fx_new(&f, MDK_SWARM_PROTO_ABD);
	mdk_swarm_client_set_clock_skew(f.c[1], -2000000);
	put(f.c[0], "ahead");
	warm(&f);
	st = put(f.c[1], "behind");
	ck_assert_uint_eq(st.rtts, 2);
	st = get_is(f.c[2], "behind");
	ck_assert_uint_eq(st.rtts, 2);
	fx_free(&f);
}
END_TEST

/* The writer's fast write returned, then it crashed: the value stays. */
START_TEST(test_register_writer_crash_after_ack)
{
	for (int round = 0; round < 20; round++) {
		struct fx f;

		fx_new(&f, MDK_SWARM_PROTO_SWARM);
		mdk_swarm_client_set_chaos(f.c[0], 0, 0x77 + round);
		put(f.c[0], "v1");
		mdk_swarm_flush(f.c[0]);
		warm(&f);
		put(f.c[0], "v2");
		/* Its verification goes out partly, if at all. */
		mdk_swarm_client_crash_after(f.c[0], 1);
		ck_assert_int_eq(mdk_swarm_flush(f.c[0]), -ECANCELED);
		ck_assert_int_eq(mdk_swarm_get(f.c[0], "k", 1, NULL, NULL),
				 -ECANCELED);
		get_is(f.c[1], "v2");
		get_is(f.c[2], "v2");
		ck_assert_uint_eq(get_is(f.c[3], "v2").rtts, 1);
		fx_free(&f);
	}
}
END_TEST

/* The writer crashed in the middle of its round: readers must agree. */
START_TEST(test_register_writer_crash_mid_round)
{
	for (int round = 0; round < 30; round++) {
		struct fx f;
		char v[8];
		size_t vl = sizeof(v);
		const char *seen;

		fx_new(&f,
		       round % 2 ? MDK_SWARM_PROTO_ABD : MDK_SWARM_PROTO_SWARM);
		mdk_swarm_client_set_chaos(f.c[0], 0, 0x99 + round);
		put(f.c[0], "v1");
		mdk_swarm_flush(f.c[0]);
		mdk_swarm_client_crash_after(f.c[0], round % 2 ? 2 : 1);
		ck_assert_int_eq(mdk_swarm_insert(f.c[0], "k", 1, "v2", 2),
				 -ECANCELED);
		ck_assert_int_eq(mdk_swarm_get(f.c[1], "k", 1, v, &vl), 0);
		ck_assert_uint_eq(vl, 2);
		seen = v[1] == '2' ? "v2" : "v1";
		get_is(f.c[2], seen);
		get_is(f.c[1], seen);
		put(f.c[3], "v3");
		get_is(f.c[2], "v3");
		fx_free(&f);
	}
}
END_TEST

/* Out-of-place buffers are reused write after write, value sizes vary. */
START_TEST(test_register_recycling)
{
	struct fx f;
	char v[64];

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	for (int i = 0; i < 500; i++) {
		int len = 1 + i % 60;

		memset(v, 'a' + i % 26, sizeof(v));
		v[len] = 0;
		put(f.c[i % 3], v);
		get_is(f.c[(i + 1) % 4], v);
		if (i % 7 == 0) {
			ck_assert_int_eq(mdk_swarm_delete(f.c[i % 2], "k", 1),
					 0);
			get_is(f.c[3], NULL);
		}
	}
	fx_free(&f);
}
END_TEST

static Suite *swarm_register_suite(void)
{
	Suite *s = suite_create("swarm_register");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_register_fast_paths);
	tcase_add_test(tc, test_register_reader_meets_unverified);
	tcase_add_test(tc, test_register_clock_behind);
	tcase_add_test(tc, test_register_writer_crash_after_ack);
	tcase_add_test(tc, test_register_writer_crash_mid_round);
	tcase_add_test(tc, test_register_recycling);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(swarm_register_suite)
