// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the tier actuator (backend auto) against fake move_pages(2)
 * and process_madvise(2): the node's pages accessed again go home first,
 * then the pages routed to the node move there, then the pages routed to
 * zswap or swap are paged out, the limits' budget covering them in that
 * order; what moved out (to the node and paged out) is the action's
 * bytes; without a node only the page-outs run.  The swap tier's list
 * past zswap is paged out with memory.zswap.max at 0, journalled, and put
 * back after; without memory.zswap.max it is not paged out at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "daemon/controller.h"
#include "daemon/pages.h"
#include "daemon/target.h"
#include "daemon/zswap_off.h"
#include "bpf/loader.h"
#include "unit.h"

#define BASE 0x7f0000000000ull

static uint64_t moved_to[2], advised, advised_zswap_off;
static int done_result = 1;
/* The fake cgroup's memory.zswap.max, "" when it has none. */
static char zswap_max[4096];

static long fake_move_pages(pid_t pid, unsigned long count, void **pages,
			    const int *nodes, int *status)
{
	unsigned long i;

	for (i = 0; i < count; i++) {
		status[i] = nodes ? nodes[i] : 0;
		if (nodes)
			moved_to[nodes[i]]++;
	}
	return 0;
}

static int fake_pidfd_open(pid_t pid)
{
	return 42;
}

static ssize_t fake_process_madvise(int fd, const struct iovec *iov, size_t n,
				    int advice)
{
	ssize_t bytes = 0;
	size_t i;

	char cur[32] = "";
	int zfd;

	for (i = 0; i < n; i++)
		bytes += (ssize_t)iov[i].iov_len;
	advised += (uint64_t)bytes / MDKD_PAGE_SIZE;
	/* What memory.zswap.max says while the kernel pages out. */
	zfd = *zswap_max ? open(zswap_max, O_RDONLY) : -1;
	if (zfd >= 0 && read(zfd, cur, sizeof(cur) - 1) > 0 && cur[0] == '0')
		advised_zswap_off += (uint64_t)bytes / MDKD_PAGE_SIZE;
	if (zfd >= 0)
		close(zfd);
	return bytes;
}

static int fake_close(int fd)
{
	return 0;
}

static const struct mdkd_page_sys fake_sys = {
	.pidfd_open = fake_pidfd_open,
	.process_madvise = fake_process_madvise,
	.move_pages = fake_move_pages,
	.close = fake_close,
};

static void act_done(struct mdkd_target *t, int result)
{
	done_result = result;
}

static const struct mdkd_target_ops ops = { .act_done = act_done };

static pid_t pid_of(void *arg, uint32_t proc)
{
	return 100;
}

/* Pages [from, from + n) of process 1, every other page (runs of one). */
static void pages(uint64_t *ids, size_t from, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ids[i] = mdk_sampler_page_id(1, BASE + ((from + i) << 13));
}

static struct mdkd_target target(void)
{
	struct mdkd_target t = { .path = "t",
				 .page_sys = &fake_sys,
				 .ops = &ops };

	memset(moved_to, 0, sizeof(moved_to));
	advised = advised_zswap_off = 0;
	done_result = 1;
	return t;
}

START_TEST(test_budget_in_order)
{
	uint64_t back[3], out[5], swap[4];
	struct mdkd_target t = target();
	struct mdkd_pages q = { .out = swap, .nout = 4, .pid_of = pid_of },
			  p = { .out = out,
				.nout = 5,
				.back = back,
				.nback = 3,
				.tier_node = 1,
				.home_node = 0,
				.pid_of = pid_of,
				.pageout = &q };

	pages(back, 0, 3);
	pages(out, 10, 5);
	pages(swap, 20, 4);
	/* Ten pages: the 3 promotions, the 5 to the node, 2 page-outs. */
	ck_assert_int_eq(mdkd_act_tier.apply(&t, NULL, 10 * MDKD_PAGE_SIZE, &p),
			 1);
	ck_assert_int_eq(done_result, 0);
	ck_assert_uint_eq(moved_to[0], 3);
	ck_assert_uint_eq(moved_to[1], 5);
	ck_assert_uint_eq(p.res.back_done, 3);
	ck_assert_uint_eq(p.res.out_done, 5);
	ck_assert_uint_eq(advised, 2);
	ck_assert_uint_eq(q.res.out_tried, 2);
	ck_assert_uint_eq(q.res.out_done, 2);
	ck_assert_uint_eq(t.act_bytes, 7 * MDKD_PAGE_SIZE);
	/* Two pages: the promotions cut to two, nothing else. */
	t = target();
	p.nback = 3;
	ck_assert_int_eq(mdkd_act_tier.apply(&t, NULL, 2 * MDKD_PAGE_SIZE, &p),
			 1);
	ck_assert_uint_eq(moved_to[0], 2);
	ck_assert_uint_eq(moved_to[1], 0);
	ck_assert_uint_eq(advised, 0);
	ck_assert_uint_eq(t.act_bytes, 0);
}
END_TEST

START_TEST(test_no_node_pages_out_only)
{
	uint64_t swap[4];
	struct mdkd_target t = target();
	struct mdkd_pages q = { .out = swap, .nout = 4, .pid_of = pid_of },
			  p = { .tier_node = -1,
				.home_node = -1,
				.pid_of = pid_of,
				.pageout = &q };

	pages(swap, 20, 4);
	ck_assert_int_eq(mdkd_act_tier.apply(&t, NULL, 64 * MDKD_PAGE_SIZE, &p),
			 1);
	ck_assert_uint_eq(moved_to[0] + moved_to[1], 0);
	ck_assert_uint_eq(advised, 4);
	ck_assert_uint_eq(t.act_bytes, 4 * MDKD_PAGE_SIZE);
	ck_assert_int_eq(done_result, 0);
	/* No pages at all: the action fails as such. */
	t = target();
	ck_assert_int_eq(mdkd_act_tier.apply(&t, NULL, 4096, NULL), 1);
	ck_assert_int_eq(done_result, -EINVAL);
}
END_TEST

/* Read @path whole into @buf. */
static const char *slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

START_TEST(test_past_zswap)
{
	char root[] = "/tmp/mdk-unit-act-tier-XXXXXX", state[64], jdir[96],
	     buf[64];
	uint64_t zs[3], sw[4];
	struct mdkd_target t = target();
	struct mdkd_pages d = { .out = sw,
				.nout = 4,
				.pid_of = pid_of,
				.zswap_off = true },
			  q = { .out = zs,
				.nout = 3,
				.pid_of = pid_of,
				.pageout = &d },
			  p = { .tier_node = -1,
				.home_node = -1,
				.pid_of = pid_of,
				.pageout = &q };
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(state, sizeof(state), "%s/state", root);
	snprintf(jdir, sizeof(jdir), "%s/zswap-off", state);
	snprintf(zswap_max, sizeof(zswap_max), "%s/memory.zswap.max", root);
	f = fopen(zswap_max, "w");
	ck_assert_ptr_nonnull(f);
	fputs("1048576\n", f);
	fclose(f);
	t.dirfd = open(root, O_RDONLY | O_DIRECTORY);
	t.state_dir = state;
	t.id = 7;
	ck_assert_int_ge(t.dirfd, 0);
	ck_assert(mdkd_zswap_off_able(t.dirfd));
	pages(zs, 0, 3);
	pages(sw, 10, 4);
	/* Six pages: zswap's three as they are, then three past zswap. */
	ck_assert_int_eq(mdkd_act_tier.apply(&t, NULL, 6 * MDKD_PAGE_SIZE, &p),
			 1);
	ck_assert_int_eq(done_result, 0);
	ck_assert_uint_eq(advised, 6);
	ck_assert_uint_eq(advised_zswap_off, 3);
	ck_assert_uint_eq(q.res.out_done, 3);
	ck_assert_uint_eq(d.res.out_tried, 3);
	ck_assert_uint_eq(d.res.out_done, 3);
	ck_assert_uint_eq(t.act_bytes, 6 * MDKD_PAGE_SIZE);
	/* Put back, the journal entry gone. */
	ck_assert_str_eq(slurp(zswap_max, buf, sizeof(buf)), "1048576\n");
	ck_assert_int_eq(rmdir(jdir), 0);
	/* Without memory.zswap.max: zswap's list only, the error kept. */
	unlink(zswap_max);
	ck_assert(!mdkd_zswap_off_able(t.dirfd));
	t = (struct mdkd_target){ .path = "t",
				  .page_sys = &fake_sys,
				  .ops = &ops,
				  .dirfd = t.dirfd,
				  .state_dir = state,
				  .id = 7 };
	advised = advised_zswap_off = 0;
	ck_assert_int_eq(mdkd_act_tier.apply(&t, NULL, 64 * MDKD_PAGE_SIZE, &p),
			 1);
	ck_assert_uint_eq(advised, 3);
	ck_assert_uint_eq(d.res.out_done, 0);
	ck_assert_int_eq(d.res.first_error, -ENOENT);
	ck_assert_uint_eq(t.act_bytes, 3 * MDKD_PAGE_SIZE);
	ck_assert_int_eq(done_result, 0);
	close(t.dirfd);
	*zswap_max = '\0';
	rmdir(state);
	ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

static Suite *act_tier_suite(void)
{
	Suite *s = suite_create("act_tier");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_budget_in_order);
	tcase_add_test(tc, test_no_node_pages_out_only);
	tcase_add_test(tc, test_past_zswap);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(act_tier_suite)
