// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the migrate actuator against a fake move_pages(2) that
 * keeps the kernel's do_pages_move() contract (6.1, 6.12): a page that
 * fails to migrate stops the call, leaving its run of pages and the pages
 * after it without a status.  Every page that can move ends up on the tier
 * node, each one that cannot is counted failed once, the pages counted
 * moved are the ones on the node, a process that is gone or refused is
 * counted so, and the pages picked back go home.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/pages.h"
#include "bpf/loader.h"
#include "unit.h"

#define NPAGES 10000
#define TIER 1
#define BASE 0x7f0000000000ull

struct fake_page {
	int node; /* -ENOENT: not present */
	int fails; /* migrations that fail before one succeeds */
};

static struct fake_page mem[NPAGES];
static int fake_errno; /* the call fails as a whole with this */
static unsigned long calls;

static struct fake_page *page_at(void *addr)
{
	uint64_t i = ((uintptr_t)addr - BASE) >> 12;

	ck_assert_uint_lt(i, NPAGES);
	return &mem[i];
}

/* Migrate the run [start, end): the number that failed. */
static int flush_run(void **pages, const int *nodes, int start, int end)
{
	int i, failed = 0;

	for (i = start; i < end; i++) {
		struct fake_page *p = page_at(pages[i]);

		if (p->fails > 0) {
			p->fails--;
			failed++;
		} else {
			p->node = nodes[i];
		}
	}
	return failed;
}

/* do_pages_move() and do_pages_stat(), for one target node a call. */
static long fake_move_pages(pid_t pid, unsigned long count, void **pages,
			    const int *nodes, int *status)
{
	int i, start = -1, failed;

	calls++;
	if (fake_errno) {
		errno = fake_errno;
		return -1;
	}
	for (i = 0; i < (int)count; i++) {
		struct fake_page *p = page_at(pages[i]);

		if (!nodes) {
			status[i] = p->node;
			continue;
		}
		if (p->node >= 0 && p->node != nodes[i]) {
			if (start < 0)
				start = i;
			continue; /* queued */
		}
		status[i] = p->node; /* there already, or -ENOENT */
		if (start < 0)
			continue;
		failed = flush_run(pages, nodes, start, i);
		if (failed)
			return failed + count - i - 1;
		for (; start < i; start++)
			status[start] = nodes[start];
		start = -1;
	}
	if (start >= 0) {
		failed = flush_run(pages, nodes, start, count);
		if (failed)
			return failed;
		for (; start < (int)count; start++)
			status[start] = nodes[start];
	}
	return 0;
}

static const struct mdkd_page_sys fake_sys = {
	.move_pages = fake_move_pages,
};

static uint64_t ids[NPAGES];

static pid_t pid_of(void *arg, uint32_t proc)
{
	return 100 + proc;
}

static void setup(void)
{
	int i;

	for (i = 0; i < NPAGES; i++) {
		mem[i].node = 0;
		mem[i].fails = 0;
		ids[i] = mdk_sampler_page_id(1, BASE + ((uint64_t)i << 12));
	}
	fake_errno = 0;
	calls = 0;
}

static struct mdkd_pages pages_out(size_t n)
{
	struct mdkd_pages p = {
		.out = ids,
		.nout = n,
		.tier_node = TIER,
		.home_node = 0,
		.pid_of = pid_of,
	};
	return p;
}

static int on_node(int node)
{
	int i, n = 0;

	for (i = 0; i < NPAGES; i++)
		n += mem[i].node == node;
	return n;
}

START_TEST(test_migrate_all)
{
	struct mdkd_pages p = pages_out(NPAGES);

	setup();
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, NPAGES), 0);
	ck_assert_uint_eq(p.res.out_done, NPAGES);
	ck_assert_uint_eq(p.res.out_tried, NPAGES);
	ck_assert_uint_eq(p.res.failed, 0);
	ck_assert_int_eq(on_node(TIER), NPAGES);
	/* One call a batch when nothing fails. */
	ck_assert_uint_eq(calls, (NPAGES + MDKD_MIGRATE_BATCH - 1) /
					 MDKD_MIGRATE_BATCH);
}
END_TEST

/* A page that never migrates costs itself, not the rest of its batch. */
START_TEST(test_migrate_failure_stops_the_call)
{
	static const int bad[] = { 0, 100, 101, 4000, 4096, 9999 };
	struct mdkd_pages p = pages_out(NPAGES);
	size_t i;

	setup();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		mem[bad[i]].fails = 1000;
	mem[3000].node = -ENOENT;
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, NPAGES), 0);
	ck_assert_uint_eq(p.res.failed, 7);
	ck_assert_uint_eq(p.res.out_done, NPAGES - 7);
	ck_assert_int_eq(on_node(TIER), NPAGES - 7);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(mem[bad[i]].node, 0);
	ck_assert_int_ne(p.res.first_error, 0);
}
END_TEST

/* More failures than rounds: what is counted is still what happened. */
START_TEST(test_migrate_many_failures)
{
	struct mdkd_pages p = pages_out(NPAGES);
	int i;

	setup();
	for (i = 0; i < NPAGES; i += 97)
		mem[i].fails = 1;
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, NPAGES), 0);
	ck_assert_uint_eq(p.res.out_done + p.res.failed, NPAGES);
	ck_assert_int_eq(on_node(TIER), p.res.out_done);
	ck_assert_uint_gt(p.res.out_done, 8 * 97);
}
END_TEST

START_TEST(test_migrate_gone_and_denied)
{
	struct mdkd_pages p = pages_out(NPAGES);

	setup();
	fake_errno = ESRCH;
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, NPAGES), 0);
	ck_assert_uint_eq(p.res.gone, NPAGES);
	ck_assert_uint_eq(p.res.out_done, 0);
	ck_assert_uint_eq(calls, 1);

	p = pages_out(NPAGES);
	fake_errno = EPERM;
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, NPAGES), 0);
	ck_assert_uint_eq(p.res.denied, NPAGES);
	ck_assert_int_eq(p.res.first_error, -EPERM);

	/* A call failing otherwise costs its batch, not the process. */
	p = pages_out(NPAGES);
	fake_errno = ENOMEM;
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, NPAGES), 0);
	ck_assert_uint_eq(p.res.failed, NPAGES);
	ck_assert_uint_eq(p.res.denied + p.res.gone, 0);
}
END_TEST

START_TEST(test_migrate_back_home)
{
	struct mdkd_pages p = pages_out(100);
	int i;

	setup();
	for (i = 0; i < 50; i++)
		mem[i].node = TIER;
	p.out = ids + 100;
	p.back = ids;
	p.nback = 50;
	mem[10].fails = 1000;
	ck_assert_int_eq(mdkd_migrate(&fake_sys, &p, 100), 0);
	ck_assert_uint_eq(p.res.back_done, 49);
	ck_assert_uint_eq(p.res.out_done, 100);
	ck_assert_uint_eq(p.res.failed, 1);
	ck_assert_int_eq(on_node(TIER), 101);
}
END_TEST

static Suite *act_migrate_suite(void)
{
	Suite *s = suite_create("act_migrate");
	TCase *tc = tcase_create("migrate");

	tcase_add_test(tc, test_migrate_all);
	tcase_add_test(tc, test_migrate_failure_stops_the_call);
	tcase_add_test(tc, test_migrate_many_failures);
	tcase_add_test(tc, test_migrate_gone_and_denied);
	tcase_add_test(tc, test_migrate_back_home);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(act_migrate_suite)
