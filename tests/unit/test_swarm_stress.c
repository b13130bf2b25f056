// SPDX-License-Identifier: GPL-2.0
/*
 * Description: stress SWARM-KV and DM-ABD with many client threads on
 * in-process memory nodes (heavy contention on one key, skewed clocks,
 * chaos rounds that reach only a majority, clients crashing in the middle
 * of a round, 1 of 3 and 2 of 5 nodes crashing mid-run), record every
 * operation and check that the history is linearizable, crashed clients'
 * writes being pending.  Final reads of every key go into the history, so
 * a lost acknowledged write fails the check.
 *
 * MDK_SWARM_STRESS_SCALE=N multiplies the operations (default 1, sized for
 * the unit-test budget under ASan on two CPUs: 3,000 to 12,000 operations
 * a case).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lincheck.h>
#include <mdk/swarm.h>

#include "unit.h"

struct plan {
	enum mdk_swarm_proto proto;
	unsigned int nodes, threads, keys, ops;
	unsigned int put_pct, del_pct;
	unsigned int node_crashes; /* nodes crashed mid-run */
	unsigned int client_crashes; /* threads whose client crashes */
	uint32_t chaos_ppm;
	int64_t skew_us; /* clocks skewed in [-skew, +skew] */
};

struct run {
	const struct plan *p;
	struct mdk_swarm_memnode *node[9];
	struct mdk_swarm *s;
	unsigned long done; /* operations finished, all threads */
	unsigned long crash_at[9];
	unsigned int slow_seen;
};

struct worker {
	struct run *r;
	unsigned int idx;
	pthread_t th;
	struct mdk_swarm_lin_op *log;
	unsigned int *slowlog;
	size_t nlog;
	unsigned int slow;
	unsigned int acked_puts;
};

static uint64_t rnd(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int scale(void)
{
	const char *e = getenv("MDK_SWARM_STRESS_SCALE");

	return 2 * (e && atoi(e) > 0 ? (unsigned int)atoi(e) : 1);
}

static void crash_due(struct run *r)
{
	unsigned long done = __atomic_add_fetch(&r->done, 1, __ATOMIC_SEQ_CST);

	for (unsigned int i = 0; i < r->p->node_crashes; i++)
		if (done == r->crash_at[i])
			mdk_swarm_memnode_crash(r->node[i * 2 % r->p->nodes]);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	const struct plan *p = r->p;
	uint64_t seed = 0x1234567 + w->idx * 7919ULL, seq = 0;
	struct mdk_swarm_client *c;
	char err[256];

	c = mdk_swarm_client_new(r->s, err, sizeof(err));
	if (!c)
		return NULL;
	if (p->skew_us)
		mdk_swarm_client_set_clock_skew(
			c, (int64_t)(rnd(&seed) % (2 * p->skew_us + 1)) -
				   p->skew_us);
	if (p->chaos_ppm)
		mdk_swarm_client_set_chaos(c, p->chaos_ppm, seed ^ 0xc4a05);
	if (w->idx < p->client_crashes)
		mdk_swarm_client_crash_after(c, 20 + rnd(&seed) % (3 * p->ops));

	for (unsigned int i = 0; i < p->ops; i++) {
		struct mdk_swarm_lin_op *op = &w->log[w->nlog];
		struct mdk_swarm_op_stats st;
		unsigned int k = rnd(&seed) % p->keys, dice = rnd(&seed) % 100;
		char key[16], val[64];
		size_t klen = snprintf(key, sizeof(key), "key%u", k), vlen;
		int ret;

		memset(op, 0, sizeof(*op));
		op->key = k;
		op->client = w->idx;
		if (dice < p->put_pct) {
			op->kind = MDK_SWARM_LIN_PUT;
			op->value = ((uint64_t)(w->idx + 1) << 32) | ++seq;
			memset(val, (int)seq, sizeof(val));
			memcpy(val, &op->value, 8);
			op->call_ns = mdk_swarm_lin_now_ns();
			ret = mdk_swarm_insert(c, key, klen, val, 8 + seq % 40);
		} else if (dice < p->put_pct + p->del_pct) {
			op->kind = MDK_SWARM_LIN_PUT;
			op->value = MDK_SWARM_LIN_ABSENT;
			op->call_ns = mdk_swarm_lin_now_ns();
			ret = mdk_swarm_delete(c, key, klen);
		} else {
			op->kind = MDK_SWARM_LIN_GET;
			vlen = sizeof(val);
			op->call_ns = mdk_swarm_lin_now_ns();
			ret = mdk_swarm_get(c, key, klen, val, &vlen);
			if (!ret) {
				ck_assert_uint_ge(vlen, 8);
				memcpy(&op->value, val, 8);
			} else {
				op->value = MDK_SWARM_LIN_ABSENT;
			}
		}
		op->ret_ns = mdk_swarm_lin_now_ns();
		mdk_swarm_last_op(c, &st);
		w->slow |= st.slow;
		w->slowlog[w->nlog] = st.slow | st.rtts << 8;
		if (ret == -ENOENT && op->kind == MDK_SWARM_LIN_GET)
			ret = 0;
		if (ret == -ECANCELED || ret == -EIO) {
			/* Unknown outcome: a write is pending, a read says nothing. */
			if (op->kind == MDK_SWARM_LIN_PUT) {
				op->ret_ns = MDK_SWARM_LIN_PENDING;
				w->nlog++;
			}
			break;
		}
		ck_assert_msg(!ret, "client %u: op %u on key %u: %s", w->idx, i,
			      k, strerror(-ret));
		w->acked_puts += op->kind == MDK_SWARM_LIN_PUT;
		w->nlog++;
		crash_due(r);
	}
	mdk_swarm_client_destroy(c);
	return NULL;
}

static void run_plan(const struct plan *p)
{
	struct mdk_swarm_opts o = { .proto = p->proto,
				    .capacity = p->keys + 8,
				    .max_clients = p->threads + 2 };
	uint64_t bytes = mdk_swarm_node_bytes(&o);
	struct worker *w = calloc(p->threads, sizeof(*w));
	struct mdk_swarm_lin_report rep;
	struct mdk_swarm_lin_op *all;
	struct mdk_swarm_client *fin;
	struct run r = { .p = p };
	size_t n = 0;
	char err[256];
	unsigned int slow = 0, acked = 0;

	for (unsigned int i = 0; i < p->nodes; i++) {
		r.node[i] = mdk_swarm_memnode_new_mem(bytes, err, sizeof(err));
		ck_assert_msg(r.node[i], "%s", err);
	}
	r.s = mdk_swarm_format(r.node, p->nodes, &o, err, sizeof(err));
	ck_assert_msg(r.s, "%s", err);
	for (unsigned int i = 0; i < p->node_crashes; i++)
		r.crash_at[i] = (unsigned long)p->threads * p->ops * (i + 1) /
				(p->node_crashes + 2);

	for (unsigned int t = 0; t < p->threads; t++) {
		w[t].r = &r;
		w[t].idx = t;
		w[t].log = calloc(p->ops + 1, sizeof(*w[t].log));
		w[t].slowlog = calloc(p->ops + 1, sizeof(*w[t].slowlog));
		ck_assert_int_eq(pthread_create(&w[t].th, NULL, work, &w[t]),
				 0);
	}
	for (unsigned int t = 0; t < p->threads; t++)
		pthread_join(w[t].th, NULL);

	all = calloc((size_t)p->threads * (p->ops + 1) + p->keys, sizeof(*all));
	for (unsigned int t = 0; t < p->threads; t++) {
		memcpy(all + n, w[t].log, w[t].nlog * sizeof(*all));
		n += w[t].nlog;
		slow |= w[t].slow;
		acked += w[t].acked_puts;
	}
	/* Final reads, after everything: a lost acknowledged write shows. */
	fin = mdk_swarm_client_new(r.s, err, sizeof(err));
	ck_assert_msg(fin, "%s", err);
	for (unsigned int k = 0; k < p->keys; k++) {
		struct mdk_swarm_lin_op *op = &all[n++];
		char key[16], val[64];
		size_t vlen = sizeof(val);
		int ret;

		op->key = k;
		op->kind = MDK_SWARM_LIN_GET;
		op->client = p->threads;
		op->call_ns = mdk_swarm_lin_now_ns();
		ret = mdk_swarm_get(fin, key,
				    snprintf(key, sizeof(key), "key%u", k), val,
				    &vlen);
		op->ret_ns = mdk_swarm_lin_now_ns();
		ck_assert_msg(!ret || ret == -ENOENT, "final get: %s",
			      strerror(-ret));
		op->value = MDK_SWARM_LIN_ABSENT;
		if (!ret)
			memcpy(&op->value, val, 8);
	}
	mdk_swarm_client_destroy(fin);

	ck_assert_int_eq(mdk_swarm_lincheck(all, n, 200000000, &rep), 0);
	if (!rep.linearizable && getenv("MDK_SWARM_STRESS_DUMP")) {
		FILE *f = fopen(getenv("MDK_SWARM_STRESS_DUMP"), "w");
		size_t k = 0;

		for (unsigned int t = 0; t < p->threads; t++)
			for (size_t i = 0; i < w[t].nlog; i++, k++)
				fprintf(f, "%llu %u %u %llx %llu %llu %x\n",
					(unsigned long long)all[k].key,
					all[k].client, all[k].kind,
					(unsigned long long)all[k].value,
					(unsigned long long)all[k].call_ns,
					(unsigned long long)all[k].ret_ns,
					w[t].slowlog[i]);
		for (; k < n; k++)
			fprintf(f, "%llu %u %u %llx %llu %llu 0\n",
				(unsigned long long)all[k].key, all[k].client,
				all[k].kind, (unsigned long long)all[k].value,
				(unsigned long long)all[k].call_ns,
				(unsigned long long)all[k].ret_ns);
		fclose(f);
	}
	printf("# %s: %u nodes (%u crashed), %u clients (%u crashed), %u keys: "
	       "%zu ops, %u acked writes, %llu configurations, slow paths %#x\n",
	       mdk_swarm_proto_name(p->proto), p->nodes, p->node_crashes,
	       p->threads, p->client_crashes, p->keys, n, acked,
	       (unsigned long long)rep.explored, slow);
	ck_assert_msg(rep.linearizable, "%s", rep.msg);
	ck_assert_uint_gt(acked, p->threads * p->ops * p->put_pct / 400);

	for (unsigned int t = 0; t < p->threads; t++) {
		free(w[t].log);
		free(w[t].slowlog);
	}
	free(all);
	free(w);
	mdk_swarm_destroy(r.s);
	for (unsigned int i = 0; i < p->nodes; i++)
		mdk_swarm_memnode_destroy(r.node[i]);
}

START_TEST(test_stress_many_keys)
{
	struct plan p = { .proto = _i ? MDK_SWARM_PROTO_ABD :
					MDK_SWARM_PROTO_SWARM,
			  .nodes = 3,
			  .threads = 6,
			  .keys = 16,
			  .ops = 1500 * scale(),
			  .put_pct = 45,
			  .del_pct = 5,
			  .chaos_ppm = 100000 };

	run_plan(&p);
}
END_TEST

START_TEST(test_stress_one_hot_key)
{
	struct plan p = { .proto = _i ? MDK_SWARM_PROTO_ABD :
					MDK_SWARM_PROTO_SWARM,
			  .nodes = 3,
			  .threads = 8,
			  .keys = 1,
			  .ops = 800 * scale(),
			  .put_pct = 50,
			  .chaos_ppm = 300000,
			  .skew_us = 2000 };

	run_plan(&p);
}
END_TEST

START_TEST(test_stress_crash_1_of_3)
{
	struct plan p = { .proto = _i ? MDK_SWARM_PROTO_ABD :
					MDK_SWARM_PROTO_SWARM,
			  .nodes = 3,
			  .threads = 6,
			  .keys = 4,
			  .ops = 1000 * scale(),
			  .put_pct = 50,
			  .node_crashes = 1,
			  .chaos_ppm = 200000,
			  .skew_us = 500 };

	run_plan(&p);
}
END_TEST

START_TEST(test_stress_crash_2_of_5)
{
	struct plan p = { .proto = _i ? MDK_SWARM_PROTO_ABD :
					MDK_SWARM_PROTO_SWARM,
			  .nodes = 5,
			  .threads = 6,
			  .keys = 4,
			  .ops = 1000 * scale(),
			  .put_pct = 50,
			  .node_crashes = 2,
			  .chaos_ppm = 200000,
			  .skew_us = 500 };

	run_plan(&p);
}
END_TEST

START_TEST(test_stress_client_crashes)
{
	struct plan p = { .proto = _i ? MDK_SWARM_PROTO_ABD :
					MDK_SWARM_PROTO_SWARM,
			  .nodes = 3,
			  .threads = 8,
			  .keys = 2,
			  .ops = 800 * scale(),
			  .put_pct = 50,
			  .client_crashes = 4,
			  .chaos_ppm = 200000,
			  .skew_us = 1000 };

	run_plan(&p);
}
END_TEST

static Suite *swarm_stress_suite(void)
{
	Suite *s = suite_create("swarm_stress");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_stress_many_keys, 0, 2);
	tcase_add_loop_test(tc, test_stress_one_hot_key, 0, 2);
	tcase_add_loop_test(tc, test_stress_crash_1_of_3, 0, 2);
	tcase_add_loop_test(tc, test_stress_crash_2_of_5, 0, 2);
	tcase_add_loop_test(tc, test_stress_client_crashes, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(swarm_stress_suite)
