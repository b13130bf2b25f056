// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the paths of SWARM's register, one at a time, with their
 * round-trip counts: the fast write and its verification riding on the
 * next round, a reader meeting an unverified write (read again, lock,
 * write back, after which reads are fast again), a writer whose clock is
 * behind (stale guess, abort, second write), a writer that crashes after
 * its fast write returned (its acknowledged value must survive) or in the
 * middle of its round (readers must agree), and out-of-place buffers
 * recycled over many writes.  Then schedules forced with round hooks: a
 * reader must read again before it locks a guess, a later abort word must
 * not hide a committed write, and a writer must keep a guess a reader has
 * locked (three writers and a reader in a precise order).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

#include <mdk/swarm.h>

#include "unit.h"

struct fx {
	struct mdk_swarm_memnode *node[5];
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
		ck_assert_ptr_nonnull(f->node[i] = mdk_swarm_memnode_new_mem(
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
		mdk_swarm_memnode_destroy(f->node[i]);
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

/* A hook that delays the verification a fast-path write posts (round 2). */
static bool delay_post(void *arg, unsigned int round, unsigned int node)
{
	return round != 2;
}

START_TEST(test_register_fast_paths)
{
	struct fx f;
	struct mdk_swarm_op_stats st;

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	st = put(f.c[0], "a"); /* looks the key up, claims it, writes */
	ck_assert_uint_eq(st.rtts, 3);
	ck_assert_uint_eq(st.bg_rtts, 1); /* its verification, posted */
	warm(&f);
	ck_assert_int_eq(mdk_swarm_flush(f.c[0]), 0); /* nothing pending */
	mdk_swarm_last_op(f.c[0], &st);
	ck_assert_uint_eq(st.bg_rtts, 0);
	/* A verification delayed in the network: flush sends it again. */
	mdk_swarm_client_set_hook(f.c[0], delay_post, NULL);
	put(f.c[0], "d");
	mdk_swarm_client_set_hook(f.c[0], NULL, NULL);
	ck_assert_int_eq(mdk_swarm_flush(f.c[0]), 0);
	mdk_swarm_last_op(f.c[0], &st);
	ck_assert_uint_eq(st.bg_rtts, 1);
	ck_assert_uint_eq(get_is(f.c[1], "d").rtts, 1);
	for (int i = 0; i < 10; i++) {
		st = put(f.c[0], i % 2 ? "b" : "c");
		ck_assert_uint_eq(st.rtts, 1);
		ck_assert_uint_eq(st.slow, 0);
		/* The verification went out as the write returned. */
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
	warm(&f);
	/* Returned; its verification is delayed in the network. */
	mdk_swarm_client_set_hook(f.c[0], delay_post, NULL);
	put(f.c[0], "new");
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
	/* A delayed verification rides on the writer's next round. */
	put(f.c[0], "newer");
	get_is(f.c[0], "newer");
	st = get_is(f.c[3], "newer");
	ck_assert_uint_eq(st.rtts, 1);
	ck_assert_uint_eq(st.slow, 0);
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

/*
 * The writer's fast write returned, then it crashed in the middle of its
 * verification (the post that follows the write, or, when that post was
 * delayed, the flush that sends it again): the value stays.
 */
START_TEST(test_register_writer_crash_after_ack)
{
	for (int round = 0; round < 20; round++) {
		struct fx f;

		fx_new(&f, MDK_SWARM_PROTO_SWARM);
		mdk_swarm_client_set_chaos(f.c[0], 0, 0x77 + round);
		put(f.c[0], "v1");
		warm(&f);
		if (round % 2) {
			mdk_swarm_client_set_hook(f.c[0], delay_post, NULL);
			put(f.c[0], "v2");
			mdk_swarm_client_crash_after(f.c[0], 1);
			ck_assert_int_eq(mdk_swarm_flush(f.c[0]), -ECANCELED);
		} else {
			/* Round 1 completes, round 2 (the post) goes out partly. */
			mdk_swarm_client_crash_after(f.c[0], 2);
			put(f.c[0], "v2");
			ck_assert_int_eq(mdk_swarm_flush(f.c[0]), -ECANCELED);
		}
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

/*
 * The schedule: R reads node 0, then stops.  F writes "f" to nodes 0 and 1
 * only and returns (F's clock is ahead).  W installs its guess g_w on
 * all nodes and sees f above it on two: stale; it stops before its second
 * round.  R reads node 2: its view is "old" on node 0 and g_w on node 2,
 * so g_w looks like the highest write.  Locking g_w there would make W
 * keep it although f completed before W started, and the last write, W's,
 * would be lost under f.  Reading again shows f, which R must take.
 */
struct sched {
	sem_t r_paused, r_go, w_paused, w_go;
	struct fx *f;
	char got[8];
	size_t gotlen;
	int ret;
};

static bool r_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched *sc = arg;

	if (round != 1)
		return true;
	if (node == 1)
		return false; /* R's first view is nodes 0 and 2 */
	if (node == 2) {
		sem_post(&sc->r_paused);
		sem_wait(&sc->r_go);
	}
	return true;
}

static bool f_hook(void *arg, unsigned int round, unsigned int node)
{
	return node != 2; /* f reaches nodes 0 and 1 */
}

static bool w_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched *sc = arg;

	if (round == 2 && node == 0) {
		sem_post(&sc->w_paused);
		sem_wait(&sc->w_go);
	}
	return true;
}

static void *r_thread(void *arg)
{
	struct sched *sc = arg;

	sc->gotlen = sizeof(sc->got);
	sc->ret = mdk_swarm_get(sc->f->c[2], "k", 1, sc->got, &sc->gotlen);
	return NULL;
}

static void *w_thread(void *arg)
{
	struct sched *sc = arg;

	ck_assert_int_eq(mdk_swarm_insert(sc->f->c[1], "k", 1, "w", 1), 0);
	return NULL;
}

START_TEST(test_register_reader_rereads_before_locking)
{
	struct sched sc = { 0 };
	struct mdk_swarm_op_stats st;
	pthread_t r, w;
	struct fx f;

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	sc.f = &f;
	sem_init(&sc.r_paused, 0, 0);
	sem_init(&sc.r_go, 0, 0);
	sem_init(&sc.w_paused, 0, 0);
	sem_init(&sc.w_go, 0, 0);
	put(f.c[0], "old");
	mdk_swarm_flush(f.c[0]);
	warm(&f);
	/* F's clock is ahead: its write f is above W's guess, itself above old. */
	mdk_swarm_client_set_clock_skew(f.c[0], 1000000);
	mdk_swarm_client_set_hook(f.c[2], r_hook, &sc);
	mdk_swarm_client_set_hook(f.c[0], f_hook, &sc);
	mdk_swarm_client_set_hook(f.c[1], w_hook, &sc);

	pthread_create(&r, NULL, r_thread, &sc);
	sem_wait(&sc.r_paused);
	st = put(f.c[0], "f");
	ck_assert_uint_eq(st.rtts, 1);
	pthread_create(&w, NULL, w_thread, &sc);
	sem_wait(&sc.w_paused);
	sem_post(&sc.r_go);
	pthread_join(r, NULL);
	ck_assert_int_eq(sc.ret, 0);
	ck_assert_msg(sc.gotlen == 1 && sc.got[0] == 'f', "R got %.*s",
		      (int)sc.gotlen, sc.got);
	mdk_swarm_last_op(f.c[2], &st);
	ck_assert_msg(st.slow & MDK_SWARM_SLOW_REREAD, "slow %#x", st.slow);
	sem_post(&sc.w_go);
	pthread_join(w, NULL);
	mdk_swarm_last_op(f.c[1], &st);
	ck_assert_uint_eq(st.slow, MDK_SWARM_SLOW_GUESS | MDK_SWARM_SLOW_RETRY);
	/* W's write completed last: it is the value. */
	mdk_swarm_client_set_hook(f.c[0], NULL, NULL);
	get_is(f.c[3], "w");
	get_is(f.c[0], "w");
	fx_free(&f);
}
END_TEST

/*
 * Regression: a reader passed over a committed write because its writer's
 * abort word was above it.  W's fast write g completed (its VER bit not
 * out yet) before R started.  R reads node 0 (g, unverified) and stops.
 * A slow client F leaves a higher guess f on node 0 only.  W writes again:
 * its round 1 misses node 1, its guess h is stale (f), so it writes
 * abort = h everywhere, and stops before its third round.  R reads node 1:
 * g unverified, no committed evidence (W's prev = g missed node 1), abort
 * h > g.  g must not be passed over: R may not return "old".
 */
struct sched2 {
	sem_t r_paused, r_go, w_paused, w_go, f_paused, f_go;
	struct fx *f;
	char got[8];
	size_t gotlen;
	int ret;
	bool w_armed;
};

static bool r2_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched2 *sc = arg;

	if (round == 1 && node == 1) {
		sem_post(&sc->r_paused);
		sem_wait(&sc->r_go);
	}
	return round != 1 || node != 2; /* R's first view: nodes 0 and 1 */
}

static bool f2_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched2 *sc = arg;

	if (round == 1 && node == 1) {
		sem_post(&sc->f_paused);
		sem_wait(&sc->f_go);
	}
	return true;
}

static bool w2_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched2 *sc = arg;

	if (!sc->w_armed)
		return round !=
		       2; /* g's verification rides on W's next round */
	if (round == 3 && node == 0) {
		sem_post(&sc->w_paused);
		sem_wait(&sc->w_go);
	}
	return round != 1 || node != 1;
}

static void *r2_thread(void *arg)
{
	struct sched2 *sc = arg;

	sc->gotlen = sizeof(sc->got);
	sc->ret = mdk_swarm_get(sc->f->c[2], "k", 1, sc->got, &sc->gotlen);
	return NULL;
}

static void *f2_thread(void *arg)
{
	struct sched2 *sc = arg;

	mdk_swarm_insert(sc->f->c[3], "k", 1, "f", 1);
	return NULL;
}

static void *w2_thread(void *arg)
{
	struct sched2 *sc = arg;

	ck_assert_int_eq(mdk_swarm_insert(sc->f->c[1], "k", 1, "h", 1), 0);
	return NULL;
}

START_TEST(test_register_later_abort_does_not_hide_commit)
{
	struct sched2 sc = { 0 };
	struct mdk_swarm_op_stats st;
	pthread_t r, w, fth;
	struct fx f;

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	sc.f = &f;
	sem_init(&sc.r_paused, 0, 0);
	sem_init(&sc.r_go, 0, 0);
	sem_init(&sc.w_paused, 0, 0);
	sem_init(&sc.w_go, 0, 0);
	sem_init(&sc.f_paused, 0, 0);
	sem_init(&sc.f_go, 0, 0);
	put(f.c[0], "old");
	mdk_swarm_flush(f.c[0]);
	warm(&f);
	mdk_swarm_client_set_hook(f.c[1], w2_hook, &sc);
	mdk_swarm_client_set_hook(f.c[2], r2_hook, &sc);
	mdk_swarm_client_set_hook(f.c[3], f2_hook, &sc);
	mdk_swarm_client_set_clock_skew(f.c[3], 1000000);
	st = put(f.c[1], "g"); /* fast; its VER delayed to W's next round */
	ck_assert_uint_eq(st.rtts, 1);
	sc.w_armed = true;

	pthread_create(&r, NULL, r2_thread, &sc);
	sem_wait(&sc.r_paused);
	pthread_create(&fth, NULL, f2_thread, &sc);
	sem_wait(&sc.f_paused); /* f is on node 0 only */
	pthread_create(&w, NULL, w2_thread, &sc);
	sem_wait(&sc.w_paused); /* abort = h written, h not retried yet */
	sem_post(&sc.r_go);
	pthread_join(r, NULL);
	ck_assert_int_eq(sc.ret, 0);
	ck_assert_msg(sc.gotlen == 1 && sc.got[0] != 'o', "R got %.*s",
		      (int)sc.gotlen, sc.got);
	sem_post(&sc.w_go);
	pthread_join(w, NULL);
	mdk_swarm_last_op(f.c[1], &st);
	ck_assert_uint_eq(st.slow, MDK_SWARM_SLOW_GUESS | MDK_SWARM_SLOW_RETRY);
	sem_post(&sc.f_go);
	pthread_join(fth, NULL);
	fx_free(&f);
}
END_TEST

/*
 * A reader's lock must make the writer keep its guess.  W's guess g is not
 * provably fresh: a slow client F (clock 1 s ahead) has left a higher
 * guess f on node 0, and W's round 1 reaches nodes 0 and 1 only.  W stops
 * before its second round (abort, read commit).  R reads nodes 1 and 2:
 * g is the highest there, still after a second read, so R locks it
 * (commit = g on nodes 1 and 2, no abort yet), writes it back and returns
 * "w".  X then writes "x" and returns.  W resumes and finds R's lock: it
 * must keep g, which is below x.  A writer that ignored the lock would
 * write "w" again above everything it saw (f, so above x): a read that
 * starts after X returned would get "w", after R already returned "w"
 * before X started, which no order of the writes explains.
 */
struct sched3 {
	sem_t f_paused, f_go, w_paused, w_go;
};

static bool f3_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched3 *sc = arg;

	if (round == 1 && node == 1) {
		sem_post(&sc->f_paused); /* f is on node 0 only */
		sem_wait(&sc->f_go);
	}
	return true;
}

static bool w3_hook(void *arg, unsigned int round, unsigned int node)
{
	struct sched3 *sc = arg;

	if (round == 2 && node == 0) {
		sem_post(&sc->w_paused);
		sem_wait(&sc->w_go);
	}
	return round != 1 || node != 2; /* g reaches nodes 0 and 1 */
}

static bool r3_hook(void *arg, unsigned int round, unsigned int node)
{
	return node != 0; /* R's views are nodes 1 and 2 */
}

struct sched3_put {
	struct mdk_swarm_client *c;
	const char *v;
	int ret;
};

static void *put_thread(void *arg)
{
	struct sched3_put *p = arg;

	p->ret = mdk_swarm_insert(p->c, "k", 1, p->v, strlen(p->v));
	return NULL;
}

START_TEST(test_register_reader_lock_keeps_guess)
{
	struct sched3 sc;
	struct sched3_put fp, wp;
	struct mdk_swarm_op_stats st;
	pthread_t fth, wth;
	struct fx f;
	char v[8];
	size_t vl = sizeof(v);

	fx_new(&f, MDK_SWARM_PROTO_SWARM);
	sem_init(&sc.f_paused, 0, 0);
	sem_init(&sc.f_go, 0, 0);
	sem_init(&sc.w_paused, 0, 0);
	sem_init(&sc.w_go, 0, 0);
	put(f.c[0], "old");
	warm(&f);
	mdk_swarm_client_set_clock_skew(f.c[3], 1000000);
	mdk_swarm_client_set_hook(f.c[3], f3_hook, &sc);
	mdk_swarm_client_set_hook(f.c[1], w3_hook, &sc);
	mdk_swarm_client_set_hook(f.c[2], r3_hook, &sc);

	fp = (struct sched3_put){ .c = f.c[3], .v = "f" };
	pthread_create(&fth, NULL, put_thread, &fp);
	sem_wait(&sc.f_paused);
	wp = (struct sched3_put){ .c = f.c[1], .v = "w" };
	pthread_create(&wth, NULL, put_thread, &wp);
	sem_wait(&sc.w_paused); /* g on nodes 0 and 1, not fresh on node 0 */

	st = get_is(f.c[2], "w");
	ck_assert_uint_eq(st.slow,
			  MDK_SWARM_SLOW_REREAD | MDK_SWARM_SLOW_LOCKED);
	put(f.c[0], "x");
	sem_post(&sc.w_go);
	pthread_join(wth, NULL);
	ck_assert_int_eq(wp.ret, 0);

	/* R returned "w" before X started, X returned: now it is "x". */
	ck_assert_int_eq(mdk_swarm_get(f.c[2], "k", 1, v, &vl), 0);
	ck_assert_msg(
		vl == 1 && v[0] == 'x',
		"read after x returned got \"%.*s\": W dropped the guess R had locked and returned",
		(int)vl, v);
	mdk_swarm_last_op(f.c[1], &st);
	ck_assert_uint_eq(st.slow, MDK_SWARM_SLOW_GUESS | MDK_SWARM_SLOW_KEPT);

	/* F's write completes last. */
	sem_post(&sc.f_go);
	pthread_join(fth, NULL);
	ck_assert_int_eq(fp.ret, 0);
	mdk_swarm_client_set_hook(f.c[2], NULL, NULL);
	get_is(f.c[2], "f");
	get_is(f.c[0], "f");
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
	tcase_add_test(tc, test_register_reader_rereads_before_locking);
	tcase_add_test(tc, test_register_later_abort_does_not_hide_commit);
	tcase_add_test(tc, test_register_reader_lock_keeps_guess);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(swarm_register_suite)
