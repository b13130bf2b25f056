// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the pageout actuator against a fake process_madvise(2)
 * that keeps the kernel's contract: the iovecs are advised in order, the
 * call stops at the first range it refuses and returns the bytes advised
 * before it (or the error when it is the first).  Contiguous pages go as
 * one iovec, a refused range costs its own pages only, more than
 * UIO_MAXIOV ranges take more calls, a process that is gone or refused is
 * counted so; and the swap-cache drop takes what the page-outs left.
 */
#include <errno.h>
#include <string.h>

#include "daemon/pages.h"
#include "bpf/loader.h"
#include "unit.h"

#define NPAGES 8192
#define BASE 0x7f0000000000ull
#define PAGE 4096ull

static unsigned char refused[NPAGES]; /* the kernel refuses this page */
static unsigned char advised[NPAGES];
static int fake_errno; /* pidfd_open fails with this */
static unsigned long calls, iovecs;

static int fake_pidfd_open(pid_t pid)
{
	if (fake_errno) {
		errno = fake_errno;
		return -1;
	}
	return 3;
}

static ssize_t fake_process_madvise(int fd, const struct iovec *iov, size_t n,
				    int advice)
{
	ssize_t done = 0;
	size_t k, i;

	calls++;
	ck_assert_uint_le(n, MDKD_PAGEOUT_MAX_IOV);
	for (k = 0; k < n; k++) {
		uint64_t first = ((uintptr_t)iov[k].iov_base - BASE) / PAGE;
		uint64_t nr = iov[k].iov_len / PAGE;

		iovecs++;
		for (i = 0; i < nr; i++)
			if (refused[first + i])
				break;
		if (i < nr) {
			if (done)
				return done;
			errno = EINVAL;
			return -1;
		}
		for (i = 0; i < nr; i++)
			advised[first + i]++;
		done += (ssize_t)iov[k].iov_len;
	}
	return done;
}

static int fake_close(int fd)
{
	return 0;
}

static const struct mdkd_page_sys fake_sys = {
	.pidfd_open = fake_pidfd_open,
	.process_madvise = fake_process_madvise,
	.close = fake_close,
};

static uint64_t ids[NPAGES];

static pid_t pid_of(void *arg, uint32_t proc)
{
	return 100 + proc;
}

static void setup(void)
{
	memset(refused, 0, sizeof(refused));
	memset(advised, 0, sizeof(advised));
	fake_errno = 0;
	calls = iovecs = 0;
}

/* Every other run of @len pages of process 1, @n pages in all. */
static size_t pick_runs(size_t n, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		ids[i] = mdk_sampler_page_id(
			1, BASE + (i / len * 2 * len + i % len) * PAGE);
	return n;
}

static struct mdkd_pages pages_out(size_t n)
{
	struct mdkd_pages p = { .out = ids, .nout = n, .pid_of = pid_of };

	return p;
}

static size_t nr_advised(void)
{
	size_t i, n = 0;

	for (i = 0; i < NPAGES; i++) {
		ck_assert_uint_le(advised[i], 1);
		n += advised[i];
	}
	return n;
}

/* Every other run of @len pages, @n in all, all advised in @ncalls calls. */
static void all_advised(size_t n, size_t len, unsigned long ncalls)
{
	struct mdkd_pages p = pages_out(pick_runs(n, len));

	ck_assert_int_eq(mdkd_pageout(&fake_sys, &p, n), 0);
	ck_assert_uint_eq(p.res.out_done, n);
	ck_assert_uint_eq(p.res.out_tried, n);
	ck_assert_uint_eq(p.res.failed, 0);
	ck_assert_uint_eq(nr_advised(), n);
	ck_assert_uint_eq(calls, ncalls);
	ck_assert_uint_eq(iovecs, n / len);
}

START_TEST(test_runs_are_one_iovec_each_uio_maxiov_a_call)
{
	all_advised(1000, 100, 1);
	setup();
	all_advised(3000, 1, 3);
}
END_TEST

START_TEST(test_a_refused_range_costs_its_pages_only)
{
	size_t n = pick_runs(1000, 100);
	struct mdkd_pages p = pages_out(n);

	/* One page of the fourth run (pages 600-699). */
	refused[650] = 1;
	ck_assert_int_eq(mdkd_pageout(&fake_sys, &p, n), 0);
	ck_assert_uint_eq(p.res.failed, 100);
	ck_assert_uint_eq(p.res.out_done, n - 100);
	ck_assert_uint_eq(nr_advised(), n - 100);
	ck_assert_uint_eq(advised[700], 0); /* a gap, not picked */
	ck_assert_uint_eq(advised[800], 1); /* after the refused run */
	ck_assert_int_eq(p.res.first_error, -EINVAL);
}
END_TEST

START_TEST(test_a_prefix_and_a_gone_or_refused_process)
{
	size_t n = pick_runs(500, 50);
	struct mdkd_pages p = pages_out(n);

	ck_assert_int_eq(mdkd_pageout(&fake_sys, &p, 120), 0);
	ck_assert_uint_eq(p.res.out_tried, 120);
	ck_assert_uint_eq(nr_advised(), 120);

	setup();
	p = pages_out(n);
	fake_errno = ESRCH;
	ck_assert_int_eq(mdkd_pageout(&fake_sys, &p, n), 0);
	ck_assert_uint_eq(p.res.gone, n);
	ck_assert_uint_eq(p.res.out_done, 0);

	setup();
	p = pages_out(n);
	fake_errno = EPERM;
	ck_assert_int_eq(mdkd_pageout(&fake_sys, &p, n), 0);
	ck_assert_uint_eq(p.res.denied, n);
	ck_assert_uint_eq(nr_advised(), 0);
}
END_TEST

START_TEST(test_swap_cache_drop)
{
	const uint64_t mib = 1 << 20;
	uint64_t pending = 0;

	/* Swap device, written back: all that was advised. */
	ck_assert_uint_eq(mdkd_swap_cache_drop(&pending, 4 * mib, 0, 5 * mib,
					       0),
			  4 * mib);
	ck_assert_uint_eq(pending, 4 * mib);
	/* The next window: less the pages faulted back in. */
	pending = 0;
	ck_assert_uint_eq(mdkd_swap_cache_drop(&pending, 4 * mib, mib, 5 * mib,
					       0),
			  3 * mib);
	/* Under writeback still: the written part now, the rest later. */
	pending = 0;
	ck_assert_uint_eq(mdkd_swap_cache_drop(&pending, 4 * mib, 0, 4 * mib,
					       3 * mib),
			  mib);
	ck_assert_uint_eq(pending, 4 * mib);
	pending -= mib; /* what the drop freed */
	ck_assert_uint_eq(mdkd_swap_cache_drop(&pending, 0, 0, 3 * mib, 0),
			  3 * mib);
	/* Never more than the swap cache holds (it was reclaimed). */
	pending = 8 * mib;
	ck_assert_uint_eq(mdkd_swap_cache_drop(&pending, 0, 0, 2 * mib, 0),
			  2 * mib);
	ck_assert_uint_eq(pending, 2 * mib);
	/* Swap-ins beyond what is pending: nothing. */
	pending = 0;
	ck_assert_uint_eq(
		mdkd_swap_cache_drop(&pending, mib, 2 * mib, 8 * mib, 0), 0);
	ck_assert_uint_eq(pending, 0);
	/* Whole pages. */
	pending = 0;
	ck_assert_uint_eq(mdkd_swap_cache_drop(&pending, 8 * mib, 0, PAGE + 100,
					       0),
			  PAGE);
}
END_TEST

static Suite *act_pageout_suite(void)
{
	Suite *s = suite_create("act_pageout");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_runs_are_one_iovec_each_uio_maxiov_a_call);
	tcase_add_test(tc, test_a_refused_range_costs_its_pages_only);
	tcase_add_test(tc, test_a_prefix_and_a_gone_or_refused_process);
	tcase_add_test(tc, test_swap_cache_drop);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(act_pageout_suite)
