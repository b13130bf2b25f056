// SPDX-License-Identifier: GPL-2.0
/*
 * Description: SWARM-KV's operations on in-process and memfd memory
 * nodes, for the three protocols: insert, get, update, delete, absent
 * keys, the index filling up, attaching a second handle to the same
 * nodes, round-trip counts of the common case, and the errors.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mdk/swarm.h>

#include "unit.h"

#define NMAX 5

struct fx {
	struct mdk_swarm_memnode *node[NMAX];
	unsigned int n;
	struct mdk_swarm *s;
	char err[256];
};

static void fx_new(struct fx *f, enum mdk_swarm_proto proto, unsigned int n,
		   uint32_t capacity)
{
	struct mdk_swarm_opts o = { .proto = proto, .capacity = capacity };
	uint64_t bytes = mdk_swarm_node_bytes(&o);

	ck_assert_uint_gt(bytes, 0);
	f->n = n;
	for (unsigned int i = 0; i < n; i++) {
		f->node[i] = mdk_swarm_memnode_new_mem(bytes, f->err,
						       sizeof(f->err));
		ck_assert_msg(f->node[i], "%s", f->err);
	}
	f->s = mdk_swarm_format(f->node, n, &o, f->err, sizeof(f->err));
	ck_assert_msg(f->s, "%s", f->err);
}

static void fx_free(struct fx *f)
{
	mdk_swarm_destroy(f->s);
	for (unsigned int i = 0; i < f->n; i++)
		mdk_swarm_memnode_destroy(f->node[i]);
}

static const enum mdk_swarm_proto protos[] = { MDK_SWARM_PROTO_SWARM,
					       MDK_SWARM_PROTO_ABD,
					       MDK_SWARM_PROTO_RAW };

START_TEST(test_kv_basic_ops)
{
	enum mdk_swarm_proto p = protos[_i];
	struct fx f;
	struct mdk_swarm_client *c;
	char v[64];
	size_t vl = sizeof(v);

	fx_new(&f, p, p == MDK_SWARM_PROTO_RAW ? 1 : 3, 64);
	c = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	ck_assert_msg(c, "%s", f.err);
	ck_assert_int_eq(mdk_swarm_get(c, "k1", 2, v, &vl), -ENOENT);
	ck_assert_int_eq(mdk_swarm_update(c, "k1", 2, "x", 1), -ENOENT);
	ck_assert_int_eq(mdk_swarm_insert(c, "k1", 2, "hello", 5), 0);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(c, "k1", 2, v, &vl), 0);
	ck_assert_uint_eq(vl, 5);
	ck_assert(!memcmp(v, "hello", 5));
	ck_assert_int_eq(mdk_swarm_update(c, "k1", 2, "world!", 6), 0);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(c, "k1", 2, v, &vl), 0);
	ck_assert_uint_eq(vl, 6);
	ck_assert(!memcmp(v, "world!", 6));
	ck_assert_int_eq(mdk_swarm_delete(c, "k1", 2), 0);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(c, "k1", 2, v, &vl), -ENOENT);
	ck_assert_int_eq(mdk_swarm_insert(c, "k1", 2, "", 0), 0);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(c, "k1", 2, v, &vl), 0);
	ck_assert_uint_eq(vl, 0);
	mdk_swarm_client_destroy(c);
	fx_free(&f);
}
END_TEST

START_TEST(test_kv_many_keys_two_clients)
{
	enum mdk_swarm_proto p = protos[_i];
	struct fx f;
	struct mdk_swarm_client *a, *b;
	char k[32], v[64], want[64];
	size_t vl;

	fx_new(&f, p, p == MDK_SWARM_PROTO_RAW ? 1 : 3, 500);
	a = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	b = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	ck_assert(a && b);
	ck_assert_uint_ne(mdk_swarm_client_id(a), mdk_swarm_client_id(b));
	for (int i = 0; i < 500; i++) {
		int kl = snprintf(k, sizeof(k), "user%020d", i);
		int vlen = snprintf(v, sizeof(v), "value-%d", i * 7);

		ck_assert_int_eq(
			mdk_swarm_insert(i % 2 ? a : b, k, kl, v, vlen), 0);
	}
	for (int i = 0; i < 500; i++) {
		int kl = snprintf(k, sizeof(k), "user%020d", i);
		int wl = snprintf(want, sizeof(want), "value-%d", i * 7);

		vl = sizeof(v);
		ck_assert_int_eq(mdk_swarm_get(i % 2 ? b : a, k, kl, v, &vl),
				 0);
		ck_assert_uint_eq(vl, (size_t)wl);
		ck_assert(!memcmp(v, want, vl));
	}
	mdk_swarm_client_destroy(a);
	mdk_swarm_client_destroy(b);
	fx_free(&f);
}
END_TEST

/* Common case costs: SWARM 1 round trip, DM-ABD 2, RAW 1. */
START_TEST(test_kv_round_trips)
{
	struct fx f;
	struct mdk_swarm_client *a, *b;
	struct mdk_swarm_op_stats st;
	char v[64];
	size_t vl;
	static const unsigned int want[][2] = { { 1, 1 }, { 2, 2 }, { 1, 1 } };
	enum mdk_swarm_proto p = protos[_i];

	fx_new(&f, p, p == MDK_SWARM_PROTO_RAW ? 1 : 3, 64);
	a = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	b = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	ck_assert_int_eq(mdk_swarm_insert(a, "key", 3, "v0", 2), 0);
	ck_assert_int_eq(mdk_swarm_flush(a), 0);
	ck_assert_int_eq(mdk_swarm_warm(b), 0);
	for (int i = 0; i < 20; i++) {
		ck_assert_int_eq(mdk_swarm_update(a, "key", 3, "v1", 2), 0);
		mdk_swarm_last_op(a, &st);
		ck_assert_uint_eq(st.rtts, want[p][1]);
		ck_assert_int_eq(mdk_swarm_flush(a), 0);
		vl = sizeof(v);
		ck_assert_int_eq(mdk_swarm_get(b, "key", 3, v, &vl), 0);
		mdk_swarm_last_op(b, &st);
		ck_assert_uint_eq(st.rtts, want[p][0]);
	}
	mdk_swarm_client_destroy(a);
	mdk_swarm_client_destroy(b);
	fx_free(&f);
}
END_TEST

START_TEST(test_kv_index_full)
{
	struct fx f;
	struct mdk_swarm_client *c;
	char k[32];
	int i, ret = 0;

	fx_new(&f, MDK_SWARM_PROTO_SWARM, 3, 8);
	c = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	for (i = 0; i < 1000 && !ret; i++)
		ret = mdk_swarm_insert(c, k, snprintf(k, sizeof(k), "k%d", i),
				       "v", 1);
	ck_assert_int_eq(ret, -ENOSPC);
	ck_assert_int_ge(i, 9);
	mdk_swarm_client_destroy(c);
	fx_free(&f);
}
END_TEST

START_TEST(test_kv_bad_args)
{
	struct fx f;
	struct mdk_swarm_client *c;
	char big[100] = { 0 }, v[8];
	size_t vl = sizeof(v);
	struct mdk_swarm_opts o = { .proto = MDK_SWARM_PROTO_RAW };

	fx_new(&f, MDK_SWARM_PROTO_SWARM, 3, 8);
	c = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	ck_assert_int_eq(mdk_swarm_insert(c, "", 0, "v", 1), -EINVAL);
	ck_assert_int_eq(mdk_swarm_insert(c, big, 25, "v", 1), -EINVAL);
	ck_assert_int_eq(mdk_swarm_insert(c, "k", 1, big, 65), -EINVAL);
	ck_assert_int_eq(mdk_swarm_insert(c, "k", 1, big, 64), 0);
	ck_assert_int_eq(mdk_swarm_get(c, "k", 1, v, &vl), -EMSGSIZE);
	ck_assert_ptr_null(
		mdk_swarm_format(f.node, 3, &o, f.err, sizeof(f.err)));
	ck_assert_msg(strstr(f.err, "exactly 1"), "%s", f.err);
	o.proto = MDK_SWARM_PROTO_SWARM;
	o.max_clients = 2000;
	ck_assert_ptr_null(
		mdk_swarm_format(f.node, 3, &o, f.err, sizeof(f.err)));
	mdk_swarm_client_destroy(c);
	fx_free(&f);
}
END_TEST

START_TEST(test_kv_client_ids_run_out)
{
	struct fx f;
	struct mdk_swarm_client *c[9];

	fx_new(&f, MDK_SWARM_PROTO_SWARM, 3, 8);
	for (int i = 0; i < 8; i++)
		ck_assert_ptr_nonnull(
			c[i] = mdk_swarm_client_new(f.s, f.err, sizeof(f.err)));
	ck_assert_ptr_null(mdk_swarm_client_new(f.s, f.err, sizeof(f.err)));
	ck_assert_msg(strstr(f.err, "taken"), "%s", f.err);
	for (int i = 0; i < 8; i++)
		mdk_swarm_client_destroy(c[i]);
	fx_free(&f);
}
END_TEST

/* The options a store was formatted with read back, also on attaching. */
START_TEST(test_kv_opts_read_back)
{
	struct mdk_swarm_opts o = { .proto = MDK_SWARM_PROTO_ABD,
				    .capacity = 48,
				    .key_size = 24,
				    .value_size = 40,
				    .max_clients = 5 };
	/* Nodes at page-aligned offsets of the memfd, as mmap needs. */
	uint64_t bytes = (mdk_swarm_node_bytes(&o) + 4095) & ~4095ULL;
	struct mdk_swarm_memnode *n1[3], *n2[3];
	struct mdk_swarm_opts got[2];
	struct mdk_swarm *s1, *s2;
	char err[256];
	int fd = memfd_create("swarm-opts", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)(3 * bytes)), 0);
	for (int i = 0; i < 3; i++) {
		n1[i] = mdk_swarm_memnode_new_fd(fd, (off_t)(i * bytes), bytes,
						 err, sizeof(err));
		n2[i] = mdk_swarm_memnode_new_fd(fd, (off_t)(i * bytes), bytes,
						 err, sizeof(err));
		ck_assert_msg(n1[i] && n2[i], "%s", err);
	}
	s1 = mdk_swarm_format(n1, 3, &o, err, sizeof(err));
	ck_assert_msg(s1, "%s", err);
	s2 = mdk_swarm_attach(n2, 3, err, sizeof(err));
	ck_assert_msg(s2, "%s", err);
	mdk_swarm_opts_get(s1, &got[0]);
	mdk_swarm_opts_get(s2, &got[1]);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(got[k].proto, o.proto);
		ck_assert_uint_eq(got[k].capacity, o.capacity);
		ck_assert_uint_eq(got[k].key_size, o.key_size);
		ck_assert_uint_eq(got[k].value_size, o.value_size);
		ck_assert_uint_eq(got[k].max_clients, o.max_clients);
	}
	mdk_swarm_destroy(s1);
	mdk_swarm_destroy(s2);
	for (int i = 0; i < 3; i++) {
		mdk_swarm_memnode_destroy(n1[i]);
		mdk_swarm_memnode_destroy(n2[i]);
	}
	close(fd);
}
END_TEST

/* Two handles on the same memfd-backed nodes: two hosts sharing segments. */
START_TEST(test_kv_memfd_attach)
{
	struct mdk_swarm_opts o = { .capacity = 32 };
	uint64_t bytes = mdk_swarm_node_bytes(&o);
	struct mdk_swarm_memnode *n1[3], *n2[3];
	struct mdk_swarm *s1, *s2;
	struct mdk_swarm_client *a, *b;
	char err[256], v[16];
	size_t vl = sizeof(v);
	int fd = memfd_create("swarm-test", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)(3 * bytes)), 0);
	for (int i = 0; i < 3; i++) {
		n1[i] = mdk_swarm_memnode_new_fd(fd, (off_t)(i * bytes), bytes,
						 err, sizeof(err));
		n2[i] = mdk_swarm_memnode_new_fd(fd, (off_t)(i * bytes), bytes,
						 err, sizeof(err));
		ck_assert_msg(n1[i] && n2[i], "%s", err);
	}
	s1 = mdk_swarm_format(n1, 3, &o, err, sizeof(err));
	ck_assert_msg(s1, "%s", err);
	s2 = mdk_swarm_attach(n2, 3, err, sizeof(err));
	ck_assert_msg(s2, "%s", err);
	a = mdk_swarm_client_new(s1, err, sizeof(err));
	b = mdk_swarm_client_new(s2, err, sizeof(err));
	ck_assert(a && b);
	ck_assert_uint_ne(mdk_swarm_client_id(a), mdk_swarm_client_id(b));
	ck_assert_int_eq(mdk_swarm_insert(a, "shared", 6, "yes", 3), 0);
	ck_assert_int_eq(mdk_swarm_get(b, "shared", 6, v, &vl), 0);
	ck_assert(vl == 3 && !memcmp(v, "yes", 3));
	/* Node order matters: a permutation is refused, naming the node. */
	{
		struct mdk_swarm_memnode *perm[3] = { n2[1], n2[0], n2[2] };

		ck_assert_ptr_null(mdk_swarm_attach(perm, 3, err, sizeof(err)));
		ck_assert_msg(strstr(err, "replica"), "%s", err);
	}
	/* A device that fails gives SIGBUS: the node just crashes. */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(b, "shared", 6, v, &vl), -EIO);
	ck_assert(mdk_swarm_memnode_crashed(n2[0]));
	mdk_swarm_client_destroy(a);
	mdk_swarm_client_destroy(b);
	mdk_swarm_destroy(s1);
	mdk_swarm_destroy(s2);
	for (int i = 0; i < 3; i++) {
		mdk_swarm_memnode_destroy(n1[i]);
		mdk_swarm_memnode_destroy(n2[i]);
	}
	close(fd);
}
END_TEST

START_TEST(test_kv_attach_garbage)
{
	struct mdk_swarm_memnode *n[3];
	char err[256];

	for (int i = 0; i < 3; i++)
		n[i] = mdk_swarm_memnode_new_mem(8192, err, sizeof(err));
	ck_assert_ptr_null(mdk_swarm_attach(n, 3, err, sizeof(err)));
	ck_assert_msg(strstr(err, "node 0: offset 0: no SWARM-KV store"), "%s",
		      err);
	for (int i = 0; i < 3; i++)
		mdk_swarm_memnode_destroy(n[i]);
}
END_TEST

/* A crashed minority is tolerated; a crashed majority makes ops fail. */
START_TEST(test_kv_node_crash)
{
	struct fx f;
	struct mdk_swarm_client *c;
	char v[16];
	size_t vl = sizeof(v);

	fx_new(&f, _i ? MDK_SWARM_PROTO_ABD : MDK_SWARM_PROTO_SWARM, 5, 16);
	c = mdk_swarm_client_new(f.s, f.err, sizeof(f.err));
	ck_assert_int_eq(mdk_swarm_insert(c, "a", 1, "1", 1), 0);
	mdk_swarm_memnode_crash(f.node[0]);
	mdk_swarm_memnode_crash(f.node[3]);
	ck_assert_int_eq(mdk_swarm_get(c, "a", 1, v, &vl), 0);
	ck_assert(vl == 1 && v[0] == '1');
	ck_assert_int_eq(mdk_swarm_update(c, "a", 1, "2", 1), 0);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(c, "a", 1, v, &vl), 0);
	ck_assert(v[0] == '2');
	mdk_swarm_memnode_crash(f.node[4]);
	vl = sizeof(v);
	ck_assert_int_eq(mdk_swarm_get(c, "a", 1, v, &vl), -EIO);
	mdk_swarm_client_destroy(c);
	fx_free(&f);
}
END_TEST

static Suite *swarm_kv_suite(void)
{
	Suite *s = suite_create("swarm_kv");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_kv_basic_ops, 0, 3);
	tcase_add_loop_test(tc, test_kv_many_keys_two_clients, 0, 3);
	tcase_add_loop_test(tc, test_kv_round_trips, 0, 3);
	tcase_add_test(tc, test_kv_index_full);
	tcase_add_test(tc, test_kv_bad_args);
	tcase_add_test(tc, test_kv_client_ids_run_out);
	tcase_add_test(tc, test_kv_memfd_attach);
	tcase_add_test(tc, test_kv_opts_read_back);
	tcase_add_test(tc, test_kv_attach_garbage);
	tcase_add_loop_test(tc, test_kv_node_crash, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(swarm_kv_suite)
