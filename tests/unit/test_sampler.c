// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the sampler's pure parts (bpf/ids.c, target.c,
 * tier.c): the page id encoding, turning BPF records into sorted page ids
 * (and refusing malformed ones), parsing cgroup.procs files of a cgroup
 * subtree, and reading a NUMA node's memory blocks from a /sys tree, on
 * fixtures in tests/fixtures/sampler/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/sampler.h"
#include "bpf/loader.h"
#include "unit.h"

static const char *fixture(const char *name)
{
	static char path[PATH_MAX];
	const char *root = getenv("MDK_FIXTURES");

	snprintf(path, sizeof(path), "%s/sampler/%s",
		 root ? root : "tests/fixtures", name);
	return path;
}

START_TEST(test_page_id_roundtrip)
{
	uint64_t top = (1ULL << 56) - 4096; /* last user page, 5-level */
	uint64_t id = mdk_sampler_page_id(7, 0x7f0012345000ULL);

	ck_assert_uint_eq(mdk_sampler_page_id_proc(id), 7);
	ck_assert_uint_eq(mdk_sampler_page_id_addr(id), 0x7f0012345000ULL);
	ck_assert_uint_eq(mdk_sampler_page_id_addr(mdk_sampler_page_id(3, top)),
			  top);
	ck_assert_uint_eq(mdk_sampler_page_id_proc(mdk_sampler_page_id(3, top)),
			  3);
	/* The largest process number and the offset within a page. */
	id = mdk_sampler_page_id(MDK_SAMPLER_MAX_PROCS - 1, top + 123);
	ck_assert_uint_eq(mdk_sampler_page_id_proc(id),
			  MDK_SAMPLER_MAX_PROCS - 1);
	ck_assert_uint_eq(mdk_sampler_page_id_addr(id), top);
}
END_TEST

START_TEST(test_page_id_sorts_by_process_then_address)
{
	ck_assert(mdk_sampler_page_id(1, 0) >
		  mdk_sampler_page_id(0, (1ULL << 56) - 4096));
	ck_assert(mdk_sampler_page_id(2, 0x2000) >
		  mdk_sampler_page_id(2, 0x1000));
}
END_TEST

START_TEST(test_expand_pte_and_huge_records)
{
	struct sampler_rec r[3] = { 0 };
	uint64_t ids[600];
	size_t n = 0;

	r[0].addr = 0x200000;
	r[0].kind = SAMPLER_REC_PTE;
	r[0].bits[0] = 1 | 1ULL << 63;
	r[0].bits[7] = 1ULL << 63;
	r[0].nr_pages = 3;
	r[1].addr = 0x400000;
	r[1].kind = SAMPLER_REC_HUGE;
	r[1].nr_pages = 512;
	r[1].nr_tier = 512;
	r[2].addr = 0x800000;
	r[2].kind = SAMPLER_REC_PTE;
	r[2].bits[3] = 4;
	r[2].nr_pages = 1;
	ck_assert_int_eq(mdk_sampler_expand(r, 3, 5, ids, 600, &n), 0);
	ck_assert_uint_eq(n, 516);
	ck_assert_uint_eq(ids[0], mdk_sampler_page_id(5, 0x200000));
	ck_assert_uint_eq(ids[1], mdk_sampler_page_id(5, 0x200000 + 63 * 4096));
	ck_assert_uint_eq(ids[2],
			  mdk_sampler_page_id(5, 0x200000 + 511 * 4096));
	ck_assert_uint_eq(ids[3], mdk_sampler_page_id(5, 0x400000));
	ck_assert_uint_eq(ids[514], mdk_sampler_page_id(5, 0x5ff000));
	ck_assert_uint_eq(ids[515], mdk_sampler_page_id(
					    5, 0x800000 + (3 * 64 + 2) * 4096));
}
END_TEST

START_TEST(test_expand_appends_and_reports_no_space)
{
	struct sampler_rec r = { .addr = 0x1000,
				 .kind = SAMPLER_REC_HUGE,
				 .nr_pages = 4 };
	uint64_t ids[6] = { 42, 43 };
	size_t n = 2;

	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 6, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(ids[0], 42);
	ck_assert_uint_eq(ids[2], mdk_sampler_page_id(0, 0x1000));
	/* Full: nothing appended, n kept. */
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 6, &n), -ENOSPC);
	ck_assert_uint_eq(n, 6);
}
END_TEST

START_TEST(test_expand_rejects_malformed_records)
{
	struct sampler_rec r = { .addr = 0x200000, .kind = SAMPLER_REC_PTE };
	uint64_t ids[512];
	size_t n = 0;

	r.bits[0] = 3;
	r.nr_pages = 1; /* popcount says 2 */
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 512, &n), -EINVAL);
	r.nr_pages = 2;
	r.addr = 0x201000; /* a PTE table maps 2 MiB-aligned ranges */
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 512, &n), -EINVAL);
	r.addr = 0x200000;
	r.kind = 9;
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 512, &n), -EINVAL);
	r.kind = SAMPLER_REC_HUGE;
	r.addr = (1ULL << 56) - 4096; /* runs past the user half */
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 512, &n), -EINVAL);
	r.addr = 0x1234; /* not page aligned */
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 512, &n), -EINVAL);
	r.addr = 0x1000;
	r.nr_tier = 3; /* more on the tier than accessed */
	ck_assert_int_eq(mdk_sampler_expand(&r, 1, 0, ids, 512, &n), -EINVAL);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_expand_huge_ranges_of_any_length)
{
	struct sampler_rec r = { .addr = 0x7f0000000000ULL,
				 .kind = SAMPLER_REC_HUGE };
	static const uint32_t lens[] = { 1, 7, 8, 9, 512, 1029 };
	uint64_t *ids = calloc(1040, sizeof(*ids));
	size_t n, i, j;

	ck_assert_ptr_nonnull(ids);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		r.nr_pages = lens[i];
		n = 1;
		ids[n + lens[i]] = 99; /* must stay */
		ck_assert_int_eq(mdk_sampler_expand(&r, 1, 3, ids, 1040, &n),
				 0);
		ck_assert_uint_eq(n, 1 + lens[i]);
		for (j = 0; j < lens[i]; j++)
			ck_assert_uint_eq(
				ids[1 + j],
				mdk_sampler_page_id(3, r.addr + j * 4096));
		ck_assert_uint_eq(ids[n], 99);
	}
	free(ids);
}
END_TEST

START_TEST(test_expand_runs_joins_consecutive_pages)
{
	struct sampler_rec r[4] = { 0 };
	struct mdk_sampler_page_run runs[600];
	size_t n = 0;

	/* Pages 0-2, 63-64 (across a word), 511 of the first table ... */
	r[0].addr = 0x200000;
	r[0].kind = SAMPLER_REC_PTE;
	r[0].bits[0] = 7 | 1ULL << 63;
	r[0].bits[1] = 1;
	r[0].bits[7] = 1ULL << 63;
	r[0].nr_pages = 6;
	/* ... which the next table's first page continues, and then a huge
	 * page right after it: one run 0x3ff000-0x5fffff. */
	r[1].addr = 0x400000;
	r[1].kind = SAMPLER_REC_PTE;
	r[1].bits[0] = 1;
	r[1].nr_pages = 1;
	r[2].addr = 0x401000;
	r[2].kind = SAMPLER_REC_HUGE;
	r[2].nr_pages = 511;
	/* A full table: one run of 512, separate from the one before. */
	r[3].addr = 0x800000;
	r[3].kind = SAMPLER_REC_PTE;
	memset(r[3].bits, 0xff, sizeof(r[3].bits));
	r[3].nr_pages = 512;
	ck_assert_int_eq(mdk_sampler_expand_runs(r, 4, 2, runs, 600, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(runs[0].first, mdk_sampler_page_id(2, 0x200000));
	ck_assert_uint_eq(runs[0].nr, 3);
	ck_assert_uint_eq(runs[1].first,
			  mdk_sampler_page_id(2, 0x200000 + 63 * 4096));
	ck_assert_uint_eq(runs[1].nr, 2);
	ck_assert_uint_eq(runs[2].first, mdk_sampler_page_id(2, 0x3ff000));
	ck_assert_uint_eq(runs[2].nr, 1 + 1 + 511);
	ck_assert_uint_eq(runs[3].first, mdk_sampler_page_id(2, 0x800000));
	ck_assert_uint_eq(runs[3].nr, 512);
	/* Alternate pages: 256 runs, which the capacity must allow for. */
	memset(&r[0], 0, sizeof(r[0]));
	r[0].addr = 0x200000;
	r[0].kind = SAMPLER_REC_PTE;
	memset(r[0].bits, 0x55, sizeof(r[0].bits));
	r[0].nr_pages = 256;
	n = 0;
	ck_assert_int_eq(mdk_sampler_expand_runs(r, 1, 0, runs, 255, &n),
			 -ENOSPC);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(mdk_sampler_expand_runs(r, 1, 0, runs, 256, &n), 0);
	ck_assert_uint_eq(n, 256);
	ck_assert_uint_eq(runs[255].first,
			  mdk_sampler_page_id(0, 0x200000 + 510 * 4096));
	ck_assert_uint_eq(runs[255].nr, 1);
	r[0].nr_pages = 255; /* malformed */
	ck_assert_int_eq(mdk_sampler_expand_runs(r, 1, 0, runs, 600, &n),
			 -EINVAL);
}
END_TEST

START_TEST(test_cgroup_pids_whole_subtree_sorted_unique)
{
	static const pid_t want[] = { 5, 10, 20, 30, 40 };
	pid_t *pids = NULL;
	size_t nr = 0, cap = 0, i;
	char msg[256] = "";

	ck_assert_int_eq(mdk_sampler_cgroup_pids(fixture("cgroup-tree"), &pids,
						 &nr, &cap, msg, sizeof(msg)),
			 0);
	ck_assert_uint_eq(nr, 5);
	for (i = 0; i < nr; i++)
		ck_assert_int_eq(pids[i], want[i]);
	free(pids);
}
END_TEST

START_TEST(test_read_pids_names_file_and_line)
{
	char path[PATH_MAX + 32], msg[512] = "";
	pid_t *pids = NULL;
	size_t nr = 0, cap = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", fixture("cgroup-bad"));
	ck_assert_int_eq(mdk_sampler_read_pids(path, &pids, &nr, &cap, msg,
					       sizeof(msg)),
			 -EINVAL);
	ck_assert_msg(strstr(msg,
			     "cgroup.procs:2: expected a PID, got 'seven'"),
		      "message: %s", msg);
	free(pids);
	pids = NULL;
	nr = cap = 0;
	ck_assert_int_eq(mdk_sampler_cgroup_pids(fixture("no-such-cgroup"),
						 &pids, &nr, &cap, msg,
						 sizeof(msg)),
			 -ENOENT);
	free(pids);
}
END_TEST

START_TEST(test_node_blocks_from_sys)
{
	uint64_t bm[2], bytes = 0;
	char msg[256] = "";

	ck_assert_int_eq(mdk_sampler_node_blocks(fixture("sys-node1"), 1, bm, 2,
						 &bytes, msg, sizeof(msg)),
			 0);
	ck_assert_uint_eq(bytes, 128ULL << 20);
	ck_assert_uint_eq(bm[0], 0xff00);
	ck_assert_uint_eq(bm[1], 1);
	ck_assert_int_eq(mdk_sampler_node_blocks(fixture("sys-node1"), 0, bm, 2,
						 &bytes, msg, sizeof(msg)),
			 0);
	ck_assert_uint_eq(bm[0], 0xff);
	ck_assert_uint_eq(bm[1], 0);
}
END_TEST

START_TEST(test_node_blocks_errors)
{
	uint64_t bm[1], bytes;
	char msg[512] = "";

	/* Block 64 does not fit a one-word map. */
	ck_assert_int_eq(mdk_sampler_node_blocks(fixture("sys-node1"), 1, bm, 1,
						 &bytes, msg, sizeof(msg)),
			 -E2BIG);
	ck_assert_msg(strstr(msg, "memory64"), "message: %s", msg);
	ck_assert_int_eq(mdk_sampler_node_blocks(fixture("sys-node1"), 3, bm, 1,
						 &bytes, msg, sizeof(msg)),
			 -ENOENT);
	ck_assert_msg(strstr(msg, "no NUMA node 3"), "message: %s", msg);
	ck_assert_int_eq(mdk_sampler_node_blocks(fixture("sys-bad-block"), 0,
						 bm, 1, &bytes, msg,
						 sizeof(msg)),
			 -EINVAL);
	ck_assert_msg(strstr(msg,
			     "block_size_bytes:1: expected a power of two"),
		      "message: %s", msg);
}
END_TEST

START_TEST(test_parse_target_pids_and_cgroups)
{
	char cg[PATH_MAX];
	pid_t *pids = NULL;
	size_t nr = 0;

	ck_assert_int_eq(mdk_sampler_parse_target("12,7,300", cg, sizeof(cg),
						  &pids, &nr),
			 0);
	ck_assert_uint_eq(nr, 3);
	ck_assert_int_eq(pids[0], 12);
	ck_assert_int_eq(pids[2], 300);
	ck_assert_str_eq(cg, "");
	free(pids);
	pids = NULL;
	nr = 0;
	ck_assert_int_eq(mdk_sampler_parse_target("12,,3", cg, sizeof(cg),
						  &pids, &nr),
			 -EINVAL);
	free(pids);
	pids = NULL;
	nr = 0;
	ck_assert_int_eq(mdk_sampler_parse_target("0", cg, sizeof(cg), &pids,
						  &nr),
			 -EINVAL);
	free(pids);
	pids = NULL;
	nr = 0;
	ck_assert_int_eq(mdk_sampler_parse_target(fixture("cgroup-tree"), cg,
						  sizeof(cg), &pids, &nr),
			 0);
	ck_assert_str_eq(cg, fixture("cgroup-tree"));
	ck_assert_uint_eq(nr, 0);
	ck_assert_int_eq(mdk_sampler_parse_target(fixture("nope"), cg,
						  sizeof(cg), &pids, &nr),
			 -ENOENT);
	ck_assert_int_eq(mdk_sampler_parse_target("mdk-no-such-cgroup", cg,
						  sizeof(cg), &pids, &nr),
			 -ENOENT);
	ck_assert_str_eq(cg, "/sys/fs/cgroup/mdk-no-such-cgroup");
	free(pids);
}
END_TEST

static Suite *sampler_suite(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_page_id_roundtrip);
	tcase_add_test(tc, test_page_id_sorts_by_process_then_address);
	tcase_add_test(tc, test_expand_pte_and_huge_records);
	tcase_add_test(tc, test_expand_appends_and_reports_no_space);
	tcase_add_test(tc, test_expand_rejects_malformed_records);
	tcase_add_test(tc, test_expand_huge_ranges_of_any_length);
	tcase_add_test(tc, test_expand_runs_joins_consecutive_pages);
	tcase_add_test(tc, test_cgroup_pids_whole_subtree_sorted_unique);
	tcase_add_test(tc, test_read_pids_names_file_and_line);
	tcase_add_test(tc, test_node_blocks_from_sys);
	tcase_add_test(tc, test_node_blocks_errors);
	tcase_add_test(tc, test_parse_target_pids_and_cgroups);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(sampler_suite)
