// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the kernel-free multi-host logic of cmm_mp.ko
 * (kmod/cmm_mp_owner.c), compiled in userspace: the control area's magic
 * word, the owner word's encoding, the transition each operation asks of
 * an owner word given which hosts are alive, and the lease decision.
 */
#include <string.h>

#include "unit.h"

#include "cmm_mp_owner.h"

#define H(n) (1U << (n))

static u64 excl(u32 host, u32 seq)
{
	return cmm_mp_owner_encode(CMM_MP_OWNER_EXCL, H(host), seq);
}

static u64 shared(u32 hosts, u32 seq)
{
	return cmm_mp_owner_encode(CMM_MP_OWNER_SHARE, hosts, seq);
}

START_TEST(test_magic_names_what_differs)
{
	u64 want = cmm_mp_ctl_magic(2, 7);
	char msg[200];

	ck_assert_uint_eq(want >> 32, 0x434d4d50);
	ck_assert_int_eq(cmm_mp_ctl_magic_check(want, want, msg, sizeof(msg)),
			 0);
	ck_assert_int_eq(cmm_mp_ctl_magic_check(cmm_mp_ctl_magic(3, 7), want,
						msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg,
			 "it was set up for 3 hosts, this host has hosts=2");
	ck_assert_int_eq(cmm_mp_ctl_magic_check(cmm_mp_ctl_magic(2, 8), want,
						msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(msg, "set up for 8 segments, this host has 7"));
	ck_assert_int_eq(cmm_mp_ctl_magic_check(0xdeadbeefULL, want, msg,
						sizeof(msg)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "not a CMM-MP control area"));
	ck_assert_int_eq(cmm_mp_ctl_magic_check(want ^ (2ULL << 24), want, msg,
						sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "its layout version is 3, this module's is 1");
}
END_TEST

START_TEST(test_owner_decode_kinds)
{
	u32 holders;

	ck_assert_int_eq(cmm_mp_owner_decode(0, 2, &holders),
			 CMM_MP_OWNER_FREE);
	ck_assert_int_eq(cmm_mp_owner_decode(5ULL << 32, 2, &holders),
			 CMM_MP_OWNER_FREE);
	ck_assert_int_eq(cmm_mp_owner_decode(excl(1, 3), 2, &holders),
			 CMM_MP_OWNER_EXCL);
	ck_assert_uint_eq(holders, H(1));
	ck_assert_int_eq(cmm_mp_owner_decode(shared(H(0) | H(1), 9), 2,
					     &holders),
			 CMM_MP_OWNER_SHARE);
	ck_assert_uint_eq(holders, 3);
	/* Two exclusive holders, a host past hosts, no sharer, stray bits. */
	ck_assert_int_eq(cmm_mp_owner_decode(3, 2, &holders), CMM_MP_OWNER_BAD);
	ck_assert_int_eq(cmm_mp_owner_decode(excl(2, 0), 2, &holders),
			 CMM_MP_OWNER_BAD);
	ck_assert_int_eq(cmm_mp_owner_decode(excl(7, 0), 8, &holders),
			 CMM_MP_OWNER_EXCL);
	ck_assert_int_eq(cmm_mp_owner_decode(CMM_MP_OWNER_SHARED, 2, &holders),
			 CMM_MP_OWNER_BAD);
	ck_assert_int_eq(cmm_mp_owner_decode(1ULL << 9 | 1, 2, &holders),
			 CMM_MP_OWNER_BAD);
}
END_TEST

START_TEST(test_owner_name_as_sysfs)
{
	char buf[64];

	cmm_mp_owner_name(0, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
	cmm_mp_owner_name(excl(1, 4), 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "host 1");
	cmm_mp_owner_name(shared(H(0) | H(1), 4), 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "shared 0,1");
	cmm_mp_owner_name(shared(H(1) | H(3) | H(7), 4), 8, buf, sizeof(buf));
	ck_assert_str_eq(buf, "shared 1,3,7");
	cmm_mp_owner_name(3, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "invalid 0x3");
	/* Truncation never writes past the buffer. */
	ck_assert_int_eq(cmm_mp_owner_name(shared(0xff, 0), 8, buf, 8), 22);
	ck_assert_str_eq(buf, "shared ");
}
END_TEST

START_TEST(test_owner_claim_free_and_busy)
{
	u64 next;
	u32 other;

	/* Free: mine, the change counted. */
	ck_assert_int_eq(cmm_mp_owner_next(0, CMM_MP_OWN_CLAIM, 0, 2, H(0),
					   &next, &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_eq(next, excl(0, 1));
	/* Mine already. */
	ck_assert_int_eq(cmm_mp_owner_next(excl(0, 1), CMM_MP_OWN_CLAIM, 0, 2,
					   H(0), &next, &other),
			 CMM_MP_OWN_HELD);
	ck_assert_uint_eq(next, excl(0, 1));
	/* A live host's: refused, the word kept, the owner named. */
	ck_assert_int_eq(cmm_mp_owner_next(excl(1, 5), CMM_MP_OWN_CLAIM, 0, 2,
					   H(0) | H(1), &next, &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(next, excl(1, 5));
	ck_assert_uint_eq(other, H(1));
	/* Shared by a live host: refused too. */
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1), 5), CMM_MP_OWN_CLAIM, 0,
					   2, H(1), &next, &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(other, H(1));
	/* Shared by this host: refused, naming this host. */
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(0), 5), CMM_MP_OWN_CLAIM, 0,
					   2, 0, &next, &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(other, H(0));
}
END_TEST

START_TEST(test_owner_claim_takes_from_dead)
{
	u64 next;
	u32 other;

	ck_assert_int_eq(cmm_mp_owner_next(excl(1, 5), CMM_MP_OWN_CLAIM, 0, 2,
					   H(0), &next, &other),
			 CMM_MP_OWN_TAKEOVER);
	ck_assert_uint_eq(next, excl(0, 6));
	ck_assert_uint_eq(other, H(1));
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1) | H(2), 5),
					   CMM_MP_OWN_CLAIM, 0, 4, H(0) | H(3),
					   &next, &other),
			 CMM_MP_OWN_TAKEOVER);
	ck_assert_uint_eq(next, excl(0, 6));
	ck_assert_uint_eq(other, H(1) | H(2));
	/* One of the sharers alive: refused. */
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1) | H(2), 5),
					   CMM_MP_OWN_CLAIM, 0, 4, H(2), &next,
					   &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(other, H(2));
}
END_TEST

START_TEST(test_owner_share_joins_sharers)
{
	u64 next;
	u32 other;

	ck_assert_int_eq(cmm_mp_owner_next(0, CMM_MP_OWN_SHARE, 1, 2, 0, &next,
					   &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_eq(next, shared(H(1), 1));
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1), 1), CMM_MP_OWN_SHARE, 0,
					   2, H(1), &next, &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_eq(next, shared(H(0) | H(1), 2));
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(0) | H(1), 2),
					   CMM_MP_OWN_SHARE, 0, 2, H(1), &next,
					   &other),
			 CMM_MP_OWN_HELD);
	/* Dead sharers are dropped as this host joins. */
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1) | H(2), 2),
					   CMM_MP_OWN_SHARE, 0, 3, H(2), &next,
					   &other),
			 CMM_MP_OWN_TAKEOVER);
	ck_assert_uint_eq(next, shared(H(0) | H(2), 3));
	ck_assert_uint_eq(other, H(1));
	/* Exclusively a live host's, or this host's: refused. */
	ck_assert_int_eq(cmm_mp_owner_next(excl(1, 2), CMM_MP_OWN_SHARE, 0, 2,
					   H(1), &next, &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(other, H(1));
	ck_assert_int_eq(cmm_mp_owner_next(excl(0, 2), CMM_MP_OWN_SHARE, 0, 2,
					   H(1), &next, &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(other, H(0));
	/* Exclusively a dead host's: taken, shared by this host alone. */
	ck_assert_int_eq(cmm_mp_owner_next(excl(1, 2), CMM_MP_OWN_SHARE, 0, 2,
					   0, &next, &other),
			 CMM_MP_OWN_TAKEOVER);
	ck_assert_uint_eq(next, shared(H(0), 3));
}
END_TEST

START_TEST(test_owner_release_and_unshare)
{
	u64 next;
	u32 other;

	ck_assert_int_eq(cmm_mp_owner_next(excl(0, 1), CMM_MP_OWN_RELEASE, 0, 2,
					   0, &next, &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_eq(next, 2ULL << 32);
	ck_assert_int_eq(cmm_mp_owner_decode(next, 2, &other),
			 CMM_MP_OWNER_FREE);
	/* Taken over meanwhile: nothing written. */
	ck_assert_int_eq(cmm_mp_owner_next(excl(1, 4), CMM_MP_OWN_RELEASE, 0, 2,
					   0, &next, &other),
			 CMM_MP_OWN_LOST);
	ck_assert_uint_eq(next, excl(1, 4));
	ck_assert_uint_eq(other, H(1));
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(0) | H(1), 4),
					   CMM_MP_OWN_UNSHARE, 0, 2, 0, &next,
					   &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_eq(next, shared(H(1), 5));
	/* The last sharer leaves: free. */
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1), 5), CMM_MP_OWN_UNSHARE,
					   1, 2, 0, &next, &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_eq(next, 6ULL << 32);
	ck_assert_int_eq(cmm_mp_owner_next(shared(H(1), 5), CMM_MP_OWN_UNSHARE,
					   0, 2, 0, &next, &other),
			 CMM_MP_OWN_LOST);
	ck_assert_int_eq(cmm_mp_owner_next(excl(0, 5), CMM_MP_OWN_UNSHARE, 0, 2,
					   0, &next, &other),
			 CMM_MP_OWN_LOST);
}
END_TEST

START_TEST(test_owner_corrupt_word_refused)
{
	u64 next;
	u32 other;
	int op;

	for (op = CMM_MP_OWN_CLAIM; op <= CMM_MP_OWN_UNSHARE; op++) {
		ck_assert_int_eq(cmm_mp_owner_next(3, op, 0, 2, H(0), &next,
						   &other),
				 CMM_MP_OWN_CORRUPT);
		ck_assert_uint_eq(next, 3);
	}
}
END_TEST

/*
 * Two hosts race for one free segment through the same sequence a
 * compare-and-exchange loop runs: both read the word, both decide, one
 * exchange wins, the loser reads again and is refused.
 */
START_TEST(test_owner_race_one_winner)
{
	u64 word = 0, a_next, b_next;
	u32 other;

	ck_assert_int_eq(cmm_mp_owner_next(word, CMM_MP_OWN_CLAIM, 0, 2,
					   H(0) | H(1), &a_next, &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_int_eq(cmm_mp_owner_next(word, CMM_MP_OWN_CLAIM, 1, 2,
					   H(0) | H(1), &b_next, &other),
			 CMM_MP_OWN_WRITE);
	/* Host 1 exchanges first; host 0's exchange (from 0) then fails. */
	word = b_next;
	ck_assert_uint_ne(word, 0);
	ck_assert_int_eq(cmm_mp_owner_next(word, CMM_MP_OWN_CLAIM, 0, 2,
					   H(0) | H(1), &a_next, &other),
			 CMM_MP_OWN_BUSY);
	ck_assert_uint_eq(other, H(1));
	/* Released and claimed again: not the value host 0 first read. */
	ck_assert_int_eq(cmm_mp_owner_next(word, CMM_MP_OWN_RELEASE, 1, 2, 0,
					   &word, &other),
			 CMM_MP_OWN_WRITE);
	ck_assert_uint_ne(word, 0);
}
END_TEST

START_TEST(test_lease_expires_unchanged)
{
	struct cmm_mp_lease l = { 0 };

	ck_assert_int_eq(cmm_mp_lease_observe(&l, 0, 100, 3000),
			 CMM_MP_HOST_ABSENT);
	/* First seen: alive, for a whole lease from now. */
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 7, 1000, 3000),
			 CMM_MP_HOST_ALIVE);
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 7, 3999, 3000),
			 CMM_MP_HOST_ALIVE);
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 7, 4000, 3000),
			 CMM_MP_HOST_DEAD);
	/* It beats again: alive, the lease restarts. */
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 8, 5000, 3000),
			 CMM_MP_HOST_ALIVE);
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 8, 7999, 3000),
			 CMM_MP_HOST_ALIVE);
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 8, 8000, 3000),
			 CMM_MP_HOST_DEAD);
	/* Unloaded cleanly: absent at once. */
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 0, 8001, 3000),
			 CMM_MP_HOST_ABSENT);
	/* Back with the value it had: first seen again, so alive. */
	ck_assert_int_eq(cmm_mp_lease_observe(&l, 8, 9000, 3000),
			 CMM_MP_HOST_ALIVE);
}
END_TEST

static Suite *cmm_mp_owner_suite(void)
{
	Suite *s = suite_create("cmm_mp_owner");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_magic_names_what_differs);
	tcase_add_test(tc, test_owner_decode_kinds);
	tcase_add_test(tc, test_owner_name_as_sysfs);
	tcase_add_test(tc, test_owner_claim_free_and_busy);
	tcase_add_test(tc, test_owner_claim_takes_from_dead);
	tcase_add_test(tc, test_owner_share_joins_sharers);
	tcase_add_test(tc, test_owner_release_and_unshare);
	tcase_add_test(tc, test_owner_corrupt_word_refused);
	tcase_add_test(tc, test_owner_race_one_winner);
	tcase_add_test(tc, test_lease_expires_unchanged);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(cmm_mp_owner_suite)
