// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the kernel-free logic of cmm_mp.ko (kmod/cmm_mp_pamt.c),
 * compiled in userspace: parameter parsing, discovery and ranking, the
 * PAMT, the segment state machine, the tier's abstract distance and the
 * search for a usable block run.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "cmm_mp_pamt.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

START_TEST(test_parse_size_suffixes)
{
	u64 v;

	ck_assert_int_eq(cmm_mp_parse_size("1G", &v, NULL), 0);
	ck_assert_uint_eq(v, GiB);
	ck_assert_int_eq(cmm_mp_parse_size("256m", &v, NULL), 0);
	ck_assert_uint_eq(v, 256 * MiB);
	ck_assert_int_eq(cmm_mp_parse_size("0x8000000", &v, NULL), 0);
	ck_assert_uint_eq(v, 128 * MiB);
	ck_assert_int_eq(cmm_mp_parse_size("4k", &v, NULL), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(cmm_mp_parse_size("2T", &v, NULL), 0);
	ck_assert_uint_eq(v, 2ULL << 40);
	ck_assert_int_eq(cmm_mp_parse_size("12345", &v, NULL), 0);
	ck_assert_uint_eq(v, 12345);
}
END_TEST

START_TEST(test_parse_size_rejects_garbage)
{
	const char *end;
	u64 v = 7;

	ck_assert_int_eq(cmm_mp_parse_size("", &v, NULL), -EINVAL);
	ck_assert_int_eq(cmm_mp_parse_size("G", &v, NULL), -EINVAL);
	ck_assert_int_eq(cmm_mp_parse_size("0x", &v, NULL), -EINVAL);
	ck_assert_int_eq(cmm_mp_parse_size("1GB", &v, NULL), -EINVAL);
	ck_assert_int_eq(cmm_mp_parse_size("-1", &v, NULL), -EINVAL);
	ck_assert_int_eq(cmm_mp_parse_size("12 ", &v, NULL), -EINVAL);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(cmm_mp_parse_size("1GB", &v, &end), 0);
	ck_assert_str_eq(end, "B");
}
END_TEST

START_TEST(test_parse_size_overflow)
{
	u64 v;

	ck_assert_int_eq(cmm_mp_parse_size("18446744073709551615", &v, NULL),
			 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(cmm_mp_parse_size("18446744073709551616", &v, NULL),
			 -ERANGE);
	ck_assert_int_eq(cmm_mp_parse_size("0x10000000000000000", &v, NULL),
			 -ERANGE);
	ck_assert_int_eq(cmm_mp_parse_size("16777216T", &v, NULL), -ERANGE);
}
END_TEST

START_TEST(test_parse_devices_count)
{
	struct cmm_mp_announce ann[4];
	char msg[128] = "";
	u32 nr = 0;

	ck_assert_int_eq(
		cmm_mp_parse_devices("3", ann, 4, &nr, msg, sizeof(msg)), 1);
	ck_assert_uint_eq(nr, 3);
	ck_assert_int_eq(cmm_mp_parse_devices("0", ann, 4, &nr, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "1 to 4"));
	ck_assert_int_eq(cmm_mp_parse_devices("5", ann, 4, &nr, msg,
					      sizeof(msg)),
			 -E2BIG);
	ck_assert_int_eq(cmm_mp_parse_devices("2x", ann, 4, &nr, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(
		msg,
		"offset 1: expected a device count or CHIP_ID:CAPACITY,...");
}
END_TEST

START_TEST(test_parse_devices_list)
{
	struct cmm_mp_announce ann[4];
	char msg[128];
	u32 nr = 0;

	ck_assert_int_eq(cmm_mp_parse_devices("0x3c:256M,161:512M", ann, 4, &nr,
					      msg, sizeof(msg)),
			 0);
	ck_assert_uint_eq(nr, 2);
	ck_assert_uint_eq(ann[0].chip_id, 0x3c);
	ck_assert_uint_eq(ann[0].capacity, 256 * MiB);
	ck_assert_uint_eq(ann[1].chip_id, 161);
	ck_assert_uint_eq(ann[1].capacity, 512 * MiB);
}
END_TEST

START_TEST(test_parse_devices_errors_name_offset)
{
	struct cmm_mp_announce ann[2];
	char msg[128];
	u32 nr;

	ck_assert_int_eq(cmm_mp_parse_devices("0x3c:256M;0xa1:1G", ann, 2, &nr,
					      msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg,
			 "offset 9: expected ',' or the end after a capacity");
	ck_assert_int_eq(cmm_mp_parse_devices("0x3c:", ann, 2, &nr, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "offset 5: expected a capacity (such as 256M)");
	ck_assert_int_eq(cmm_mp_parse_devices("zz:1G", ann, 2, &nr, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "offset 0: expected a chip id (0 to 0xffffffff)");
	ck_assert_int_eq(cmm_mp_parse_devices("1:1G,2", ann, 2, &nr, msg,
					      sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "offset 6: expected ':' after the chip id");
	ck_assert_int_eq(cmm_mp_parse_devices("1:1G,2:1G,3:1G", ann, 2, &nr,
					      msg, sizeof(msg)),
			 -E2BIG);
	ck_assert_int_eq(cmm_mp_parse_devices("0x100000000:1G", ann, 2, &nr,
					      msg, sizeof(msg)),
			 -EINVAL);
}
END_TEST

START_TEST(test_announce_count_splits_pool)
{
	struct cmm_mp_announce ann[CMM_MP_MAX_DEVICES];
	char msg[128];
	u32 i, j;

	ck_assert_int_eq(cmm_mp_announce_count(3, GiB, 128 * MiB, ann, msg,
					       sizeof(msg)),
			 0);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(ann[i].capacity, 256 * MiB);
	ck_assert_int_eq(cmm_mp_announce_count(CMM_MP_MAX_DEVICES, 32 * GiB,
					       128 * MiB, ann, msg,
					       sizeof(msg)),
			 0);
	for (i = 0; i < CMM_MP_MAX_DEVICES; i++) {
		ck_assert_uint_ne(ann[i].chip_id, 0);
		ck_assert_uint_le(ann[i].chip_id, 0xff);
		for (j = 0; j < i; j++)
			ck_assert_uint_ne(ann[i].chip_id, ann[j].chip_id);
	}
	ck_assert_int_eq(cmm_mp_announce_count(9, GiB, 128 * MiB, ann, msg,
					       sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(
		msg,
		"9 devices need 9 segments of 128 MiB, the pool has 1024 MiB");
}
END_TEST

START_TEST(test_compose_ranks_by_chip_id)
{
	const struct cmm_mp_announce ann[] = {
		{ 0xa1, 256 * MiB },
		{ 0x3c, 512 * MiB },
		{ 0x7f, 128 * MiB },
	};
	struct cmm_mp_layout l[3];
	char msg[128];

	ck_assert_int_eq(
		cmm_mp_compose(ann, 3, GiB, 128 * MiB, l, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(l[0].chip_id, 0x3c);
	ck_assert_uint_eq(l[0].announced, 1);
	ck_assert_uint_eq(l[0].nha, 0);
	ck_assert_uint_eq(l[1].chip_id, 0x7f);
	ck_assert_uint_eq(l[1].announced, 2);
	ck_assert_uint_eq(l[1].nha, 512 * MiB);
	ck_assert_uint_eq(l[2].chip_id, 0xa1);
	ck_assert_uint_eq(l[2].announced, 0);
	ck_assert_uint_eq(l[2].nha, 640 * MiB);
	ck_assert_uint_eq(l[2].capacity, 256 * MiB);
}
END_TEST

START_TEST(test_compose_rejects_bad_pools)
{
	const struct cmm_mp_announce dup[] = { { 5, 128 * MiB },
					       { 5, 128 * MiB } };
	const struct cmm_mp_announce big[] = { { 1, 512 * MiB },
					       { 2, 640 * MiB } };
	const struct cmm_mp_announce odd[] = { { 1, 100 * MiB } };
	const struct cmm_mp_announce zero[] = { { 1, 0 } };
	struct cmm_mp_layout l[2];
	char msg[160];

	ck_assert_int_eq(cmm_mp_compose(dup, 2, GiB, 128 * MiB, l, msg,
					sizeof(msg)),
			 -EEXIST);
	ck_assert_str_eq(msg, "chip id 0x5 is announced twice");
	ck_assert_int_eq(cmm_mp_compose(big, 2, GiB, 128 * MiB, l, msg,
					sizeof(msg)),
			 -ENOSPC);
	ck_assert_str_eq(msg,
			 "the devices announce more than the pool's 1024 MiB");
	ck_assert_int_eq(cmm_mp_compose(odd, 1, GiB, 128 * MiB, l, msg,
					sizeof(msg)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "not a positive multiple"));
	ck_assert_int_eq(cmm_mp_compose(zero, 1, GiB, 128 * MiB, l, msg,
					sizeof(msg)),
			 -EINVAL);
	ck_assert_int_eq(cmm_mp_compose(zero, 0, GiB, 128 * MiB, l, msg,
					sizeof(msg)),
			 -EINVAL);
}
END_TEST

START_TEST(test_pamt_lookup_every_granule)
{
	const struct cmm_mp_announce ann[] = { { 0xa1, 256 * MiB },
					       { 0x3c, 512 * MiB } };
	struct cmm_mp_layout l[2];
	struct cmm_mp_pamt pamt;
	struct cmm_mp_pamt_entry *e;
	struct cmm_mp_xlate x;
	char msg[128];
	u64 nha, n = cmm_mp_pamt_nr_entries(GiB);

	ck_assert_uint_eq(n, 512);
	e = calloc(n, sizeof(*e));
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(
		cmm_mp_compose(ann, 2, GiB, 128 * MiB, l, msg, sizeof(msg)), 0);
	cmm_mp_pamt_fill(&pamt, GiB, e, l, 2);
	for (nha = 0; nha < GiB; nha += CMM_MP_GRANULE_BYTES / 2 + 4096) {
		ck_assert_int_eq(cmm_mp_pamt_lookup(&pamt, nha, &x), 0);
		ck_assert_uint_eq(x.nha, nha);
		if (nha < 512 * MiB) {
			/* 0x3c ranks first. */
			ck_assert(x.valid);
			ck_assert_uint_eq(x.device, 0);
			ck_assert_uint_eq(x.dev_offset, nha);
		} else if (nha < 768 * MiB) {
			ck_assert(x.valid);
			ck_assert_uint_eq(x.device, 1);
			ck_assert_uint_eq(x.dev_offset, nha - 512 * MiB);
		} else {
			ck_assert(!x.valid);
			ck_assert_uint_eq(x.device, CMM_MP_NONE);
		}
	}
	ck_assert_int_eq(cmm_mp_pamt_lookup(&pamt, GiB - 1, &x), 0);
	ck_assert_int_eq(cmm_mp_pamt_lookup(&pamt, GiB, &x), -ERANGE);
	ck_assert_int_eq(cmm_mp_pamt_lookup(&pamt, UINT64_MAX, &x), -ERANGE);
	free(e);
}
END_TEST

START_TEST(test_pamt_odd_pool_size_rounds_up)
{
	const struct cmm_mp_announce ann[] = { { 1, 128 * MiB } };
	struct cmm_mp_pamt_entry e[65];
	struct cmm_mp_layout l[1];
	struct cmm_mp_pamt pamt;
	struct cmm_mp_xlate x;
	char msg[128];

	ck_assert_uint_eq(cmm_mp_pamt_nr_entries(128 * MiB + 1), 65);
	ck_assert_int_eq(cmm_mp_compose(ann, 1, 128 * MiB + 1, 128 * MiB, l,
					msg, sizeof(msg)),
			 0);
	cmm_mp_pamt_fill(&pamt, 128 * MiB + 1, e, l, 1);
	ck_assert_int_eq(cmm_mp_pamt_lookup(&pamt, 128 * MiB, &x), 0);
	ck_assert(!x.valid);
	ck_assert_int_eq(cmm_mp_pamt_lookup(&pamt, 128 * MiB - 1, &x), 0);
	ck_assert(x.valid);
	ck_assert_uint_eq(x.dev_offset, 128 * MiB - 1);
}
END_TEST

START_TEST(test_adistance_paper_latencies)
{
	/* Two equal devices at 530 and 2725 ns: mean 1627 ns, 16.27 x DRAM. */
	ck_assert_int_eq(cmm_mp_adistance(530, 2725, 512 * MiB, GiB, 576),
			 9371);
	/* All local. */
	ck_assert_int_eq(cmm_mp_adistance(530, 2725, GiB, GiB, 576), 3052);
	/* All remote. */
	ck_assert_int_eq(cmm_mp_adistance(530, 2725, 0, GiB, 576), 15696);
	ck_assert_int_eq(cmm_mp_adistance(530, 2725, 0, 0, 576), 576);
}
END_TEST

START_TEST(test_seg_plan_transitions)
{
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_OFFLINE, CMM_MP_OP_ADD,
					 false),
			 CMM_MP_DO_HOTADD);
	ck_assert_int_eq(
		cmm_mp_seg_plan(CMM_MP_SEG_OFFLINE, CMM_MP_OP_ADD, true), -EIO);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_ADDED, CMM_MP_OP_ADD,
					 false),
			 CMM_MP_DO_NOTHING);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_ONLINE, CMM_MP_OP_ADD,
					 true),
			 CMM_MP_DO_NOTHING);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_SHARED, CMM_MP_OP_ADD,
					 false),
			 -EBUSY);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_OFFLINE, CMM_MP_OP_OFFLINE,
					 false),
			 CMM_MP_DO_NOTHING);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_ADDED, CMM_MP_OP_OFFLINE,
					 true),
			 CMM_MP_DO_HOTREMOVE);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_ONLINE, CMM_MP_OP_OFFLINE,
					 false),
			 CMM_MP_DO_HOTREMOVE);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_SHARED, CMM_MP_OP_OFFLINE,
					 true),
			 CMM_MP_DO_REVOKE);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_OFFLINE, CMM_MP_OP_SHARE,
					 false),
			 CMM_MP_DO_EXPORT);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_OFFLINE, CMM_MP_OP_SHARE,
					 true),
			 -EIO);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_SHARED, CMM_MP_OP_SHARE,
					 false),
			 CMM_MP_DO_NOTHING);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_ONLINE, CMM_MP_OP_SHARE,
					 false),
			 -EBUSY);
	ck_assert_int_eq(cmm_mp_seg_plan((enum cmm_mp_seg_state)9,
					 CMM_MP_OP_SHARE, false),
			 -EINVAL);
	ck_assert_int_eq(cmm_mp_seg_plan(CMM_MP_SEG_OFFLINE,
					 (enum cmm_mp_seg_op)9, false),
			 -EINVAL);
}
END_TEST

START_TEST(test_seg_state_of_blocks)
{
	ck_assert_int_eq(cmm_mp_seg_state_of(false, 0, 2), CMM_MP_SEG_OFFLINE);
	ck_assert_int_eq(cmm_mp_seg_state_of(true, 0, 2), CMM_MP_SEG_ADDED);
	ck_assert_int_eq(cmm_mp_seg_state_of(true, 1, 2), CMM_MP_SEG_ADDED);
	ck_assert_int_eq(cmm_mp_seg_state_of(true, 2, 2), CMM_MP_SEG_ONLINE);
	ck_assert_str_eq(cmm_mp_seg_state_name(CMM_MP_SEG_ADDED), "added");
	ck_assert_str_eq(cmm_mp_seg_state_name(CMM_MP_SEG_SHARED), "shared");
	ck_assert_str_eq(cmm_mp_seg_state_name((enum cmm_mp_seg_state)7), "?");
}
END_TEST

/* The bench's node 1: 1152 MiB from 1 GiB, the last block firmware's. */
static bool bench_block_usable(u64 addr, u64 size, void *arg)
{
	u64 fw_reserved = *(u64 *)arg;

	return addr + size <= fw_reserved;
}

START_TEST(test_find_run_skips_firmware_block)
{
	u64 fw = 0x87fe0000ULL, start = 0, size = 0;

	ck_assert_int_eq(cmm_mp_find_run(GiB, GiB + 1152 * MiB, 128 * MiB,
					 bench_block_usable, &fw, &start,
					 &size),
			 0);
	ck_assert_uint_eq(start, GiB);
	ck_assert_uint_eq(size, GiB);
	/* Unaligned start: only whole blocks count. */
	ck_assert_int_eq(cmm_mp_find_run(GiB + 4096, GiB + 1152 * MiB,
					 128 * MiB, bench_block_usable, &fw,
					 &start, &size),
			 0);
	ck_assert_uint_eq(start, GiB + 128 * MiB);
	ck_assert_uint_eq(size, 896 * MiB);
	fw = GiB;
	ck_assert_int_eq(cmm_mp_find_run(GiB, GiB + 1152 * MiB, 128 * MiB,
					 bench_block_usable, &fw, &start,
					 &size),
			 -ENOENT);
	ck_assert_int_eq(cmm_mp_find_run(GiB, GiB + 64 * MiB, 128 * MiB,
					 bench_block_usable, &fw, &start,
					 &size),
			 -ENOENT);
}
END_TEST

static Suite *cmm_mp_pamt_suite(void)
{
	Suite *s = suite_create("cmm_mp_pamt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_size_suffixes);
	tcase_add_test(tc, test_parse_size_rejects_garbage);
	tcase_add_test(tc, test_parse_size_overflow);
	tcase_add_test(tc, test_parse_devices_count);
	tcase_add_test(tc, test_parse_devices_list);
	tcase_add_test(tc, test_parse_devices_errors_name_offset);
	tcase_add_test(tc, test_announce_count_splits_pool);
	tcase_add_test(tc, test_compose_ranks_by_chip_id);
	tcase_add_test(tc, test_compose_rejects_bad_pools);
	tcase_add_test(tc, test_pamt_lookup_every_granule);
	tcase_add_test(tc, test_pamt_odd_pool_size_rounds_up);
	tcase_add_test(tc, test_adistance_paper_latencies);
	tcase_add_test(tc, test_seg_plan_transitions);
	tcase_add_test(tc, test_seg_state_of_blocks);
	tcase_add_test(tc, test_find_run_skips_firmware_block);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(cmm_mp_pamt_suite)
