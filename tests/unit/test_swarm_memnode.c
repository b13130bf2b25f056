// SPDX-License-Identifier: GPL-2.0
/*
 * Description: memory nodes: read, write and CAS semantics, bounds and
 * alignment errors, crash injection, the injected round-trip time, a
 * custom back end through the ops struct, and the fd back end over a
 * memfd (two mappings see each other, a truncated file crashes the node
 * through SIGBUS instead of killing the process).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mdk/memnode.h>

#include "unit.h"

START_TEST(test_memnode_rw_cas)
{
	char err[128];
	struct mdk_swarm_memnode *n =
		mdk_swarm_memnode_new_mem(4096, err, sizeof(err));
	uint64_t w[4] = { 1, 2, 3, 4 }, r[4] = { 0 }, old;

	ck_assert_msg(n, "%s", err);
	ck_assert_str_eq(mdk_swarm_memnode_name(n), "mem");
	ck_assert_uint_eq(mdk_swarm_memnode_size(n), 4096);
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 0, r, 32), 0);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
	ck_assert_int_eq(mdk_swarm_memnode_write(n, 64, w, 32), 0);
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 64, r, 32), 0);
	ck_assert(!memcmp(w, r, 32));
	ck_assert_int_eq(mdk_swarm_memnode_cas(n, 64, 1, 9, &old), 0);
	ck_assert_uint_eq(old, 1);
	ck_assert_int_eq(mdk_swarm_memnode_cas(n, 64, 1, 10, &old), 0);
	ck_assert_uint_eq(old, 9); /* failed: it holds 9 */
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 64, r, 8), 0);
	ck_assert_uint_eq(r[0], 9);
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 4, r, 8), -EINVAL);
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 0, r, 12), -EINVAL);
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 4096, r, 8), -ERANGE);
	ck_assert_int_eq(mdk_swarm_memnode_write(n, 4088, w, 16), -ERANGE);
	ck_assert_int_eq(mdk_swarm_memnode_cas(n, 4096, 0, 1, &old), -ERANGE);
	mdk_swarm_memnode_destroy(n);
	ck_assert_ptr_null(mdk_swarm_memnode_new_mem(12, err, sizeof(err)));
	ck_assert_msg(strstr(err, "multiple of 8"), "%s", err);
}
END_TEST

START_TEST(test_memnode_crash_rtt)
{
	char err[128];
	struct mdk_swarm_memnode *n =
		mdk_swarm_memnode_new_mem(64, err, sizeof(err));
	uint64_t v = 5, old;

	ck_assert_uint_eq(mdk_swarm_memnode_rtt(n), 0);
	mdk_swarm_memnode_set_rtt(n, 2500);
	ck_assert_uint_eq(mdk_swarm_memnode_rtt(n), 2500);
	ck_assert(!mdk_swarm_memnode_crashed(n));
	mdk_swarm_memnode_crash(n);
	ck_assert(mdk_swarm_memnode_crashed(n));
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 0, &v, 8), -EIO);
	ck_assert_int_eq(mdk_swarm_memnode_write(n, 0, &v, 8), -EIO);
	ck_assert_int_eq(mdk_swarm_memnode_cas(n, 0, 0, 1, &old), -EIO);
	mdk_swarm_memnode_destroy(n);
	mdk_swarm_memnode_destroy(NULL);
}
END_TEST

/* A back end that fails after a number of accesses. */
struct flaky {
	uint64_t mem[8];
	int left;
};

static int fl_read(void *p, uint64_t off, void *buf, size_t len)
{
	struct flaky *f = p;

	if (f->left-- <= 0)
		return -EIO;
	memcpy(buf, (char *)f->mem + off, len);
	return 0;
}

static int fl_write(void *p, uint64_t off, const void *buf, size_t len)
{
	struct flaky *f = p;

	if (f->left-- <= 0)
		return -EIO;
	memcpy((char *)f->mem + off, buf, len);
	return 0;
}

static int fl_cas(void *p, uint64_t off, uint64_t e, uint64_t d, uint64_t *old)
{
	struct flaky *f = p;

	if (f->left-- <= 0)
		return -EIO;
	*old = f->mem[off / 8];
	if (*old == e)
		f->mem[off / 8] = d;
	return 0;
}

static const struct mdk_swarm_memnode_ops flaky_ops = {
	.name = "flaky",
	.read = fl_read,
	.write = fl_write,
	.cas = fl_cas,
};

START_TEST(test_memnode_custom_backend)
{
	static struct flaky f = { .left = 2 };
	static const struct mdk_swarm_memnode_ops bad = { .name = "bad" };
	struct mdk_swarm_memnode *n;
	uint64_t v = 7, r = 0;
	char err[128];

	ck_assert_ptr_null(
		mdk_swarm_memnode_new(&bad, NULL, 64, err, sizeof(err)));
	ck_assert_msg(strstr(err, "lacks"), "%s", err);
	n = mdk_swarm_memnode_new(&flaky_ops, &f, sizeof(f.mem), err,
				  sizeof(err));
	ck_assert_msg(n, "%s", err);
	ck_assert_str_eq(mdk_swarm_memnode_name(n), "flaky");
	ck_assert_int_eq(mdk_swarm_memnode_write(n, 8, &v, 8), 0);
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 8, &r, 8), 0);
	ck_assert_uint_eq(r, 7);
	/* The back end fails: the node is crashed for good. */
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 8, &r, 8), -EIO);
	ck_assert(mdk_swarm_memnode_crashed(n));
	f.left = 100;
	ck_assert_int_eq(mdk_swarm_memnode_read(n, 8, &r, 8), -EIO);
	mdk_swarm_memnode_destroy(n);
}
END_TEST

START_TEST(test_memnode_fd_shared_and_sigbus)
{
	char err[128];
	int fd = memfd_create("memnode-test", 0);
	struct mdk_swarm_memnode *a, *b;
	uint64_t v = 0xfeed, r = 0, old;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	a = mdk_swarm_memnode_new_fd(fd, 4096, 4096, err, sizeof(err));
	b = mdk_swarm_memnode_new_fd(fd, 4096, 4096, err, sizeof(err));
	ck_assert_msg(a && b, "%s", err);
	ck_assert_str_eq(mdk_swarm_memnode_name(a), "fd");
	ck_assert_int_eq(mdk_swarm_memnode_write(a, 16, &v, 8), 0);
	ck_assert_int_eq(mdk_swarm_memnode_read(b, 16, &r, 8), 0);
	ck_assert_uint_eq(r, 0xfeed);
	ck_assert_int_eq(mdk_swarm_memnode_cas(b, 16, 0xfeed, 1, &old), 0);
	ck_assert_int_eq(mdk_swarm_memnode_read(a, 16, &r, 8), 0);
	ck_assert_uint_eq(r, 1);
	/* The backing object goes away: accesses fault, the node crashes. */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(mdk_swarm_memnode_read(a, 16, &r, 8), -EIO);
	ck_assert(mdk_swarm_memnode_crashed(a));
	ck_assert_int_eq(mdk_swarm_memnode_cas(b, 16, 1, 2, &old), -EIO);
	ck_assert_int_eq(mdk_swarm_memnode_write(b, 0, &v, 8), -EIO);
	mdk_swarm_memnode_destroy(a);
	mdk_swarm_memnode_destroy(b);
	ck_assert_ptr_null(
		mdk_swarm_memnode_new_fd(-1, 0, 4096, err, sizeof(err)));
	ck_assert_msg(strstr(err, "mmap of fd -1"), "%s", err);
	close(fd);
}
END_TEST

START_TEST(test_memnode_cmm_mp_absent)
{
	char err[128];
	unsigned int nd;
	uint64_t sb;

	/* No pool here: a clear error, not a crash. */
	ck_assert_ptr_null(mdk_swarm_memnode_new_cmm_mp(
		"/nonexistent/cmm_mp", 0, MDK_SWARM_MEMNODE_CMM_MP_LAST, 0, err,
		sizeof(err)));
	ck_assert_msg(strstr(err, "cmm_mp"), "%s", err);
	ck_assert_int_lt(mdk_swarm_memnode_cmm_mp_info("/nonexistent/cmm_mp",
						       &nd, &sb, err,
						       sizeof(err)),
			 0);
}
END_TEST

static Suite *swarm_memnode_suite(void)
{
	Suite *s = suite_create("swarm_memnode");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_memnode_rw_cas);
	tcase_add_test(tc, test_memnode_crash_rtt);
	tcase_add_test(tc, test_memnode_custom_backend);
	tcase_add_test(tc, test_memnode_fd_shared_and_sigbus);
	tcase_add_test(tc, test_memnode_cmm_mp_absent);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(swarm_memnode_suite)
