// SPDX-License-Identifier: GPL-2.0
/*
 * Description: tier lists (mdk/tier.h, libmdk/tier/list.c): every key
 * and unit parses to the integers the curves add, the format reads back
 * to the same tiers, a tier file's error names its line, and bad lists
 * are refused with what was expected, never a made-up default cost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/tier.h>

#include "unit.h"

START_TEST(test_parse_keys)
{
	struct mdk_tiers t;
	char err[256];

	ck_assert_int_eq(
		mdk_tiers_parse(
			"cxl:cost=2.1us,cap=64K; zswap:cost=9us,ratio=4;swap:cost=0.08ms",
			&t, err, sizeof(err)),
		0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(t.t[0].name, "cxl");
	ck_assert_uint_eq(t.t[0].cost_ns, 2100);
	ck_assert_uint_eq(t.t[0].save_ppm, MDK_PPM);
	ck_assert_uint_eq(t.t[0].capacity, 65536);
	ck_assert_uint_eq(t.t[1].cost_ns, 9000);
	ck_assert_uint_eq(t.t[1].save_ppm, 750000);
	ck_assert_uint_eq(t.t[1].capacity, 0);
	ck_assert_uint_eq(t.t[2].cost_ns, 80000);
	ck_assert_int_eq(mdk_tiers_find(&t, "swap"), 2);
	ck_assert_int_eq(mdk_tiers_find(&t, "nvme"), -1);
	ck_assert_int_eq(
		mdk_tiers_parse("z:cost=1s,save=60%", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.t[0].cost_ns, 1000000000ull);
	ck_assert_uint_eq(t.t[0].save_ppm, 600000);
	ck_assert_uint_eq(mdk_tier_save_ppm(1), 0);
	ck_assert_uint_eq(mdk_tier_save_ppm(2), 500000);
}
END_TEST

START_TEST(test_format_round_trip)
{
	struct mdk_tiers a, b;
	char buf[256], err[256];
	int n;

	ck_assert_int_eq(
		mdk_tiers_parse("cxl:cost=1500,cap=3;zswap:cost=7us,ratio=3",
				&a, err, sizeof(err)),
		0);
	n = mdk_tiers_format(&a, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen(buf));
	ck_assert_str_eq(
		buf,
		"cxl:cost=1500ns,save=1.000000,cap=3;zswap:cost=7000ns,save=0.666667");
	ck_assert_int_eq(mdk_tiers_parse(buf, &b, err, sizeof(err)), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	/* snprintf semantics: the length needed, the buffer terminated */
	ck_assert_int_eq(mdk_tiers_format(&a, buf, 5), n);
	ck_assert_str_eq(buf, "cxl:");
}
END_TEST

static void refused(const char *spec, const char *want)
{
	struct mdk_tiers t;
	char err[256] = "";

	ck_assert_int_eq(mdk_tiers_parse(spec, &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, want), "'%s': '%s' lacks '%s'", spec, err,
		      want);
}

START_TEST(test_bad_lists)
{
	refused("", "empty tier list");
	refused("cxl", "expected NAME:cost");
	refused("CXL:cost=1", "expected NAME:cost");
	refused("cxl:save=1", "no cost=DURATION");
	refused("cxl:cost=0", "cost '0'");
	refused("cxl:cost=5 parsecs", "cost '5 parsecs'");
	refused("cxl:cost=1h", "cost '1h'");
	refused("z:cost=1,ratio=0.5", "a compression ratio from 1");
	refused("z:cost=1,save=1.5", "a fraction of a page");
	refused("z:cost=1,ratio=2,save=0.5", "ratio or save once");
	refused("z:cost=1,cap=0", "cap '0'");
	refused("z:cost=1,cap=2T", "cap '2T'");
	refused("z:cost=1,speed=2", "unknown key 'speed'");
	refused("a:cost=1;a:cost=2", "given twice");
	refused("a:cost=2;b:cost=1", "costs less than a");
	refused("a:cost=1;b:cost=2;c:cost=3;d:cost=4", "more than 3 tiers");
}
END_TEST

START_TEST(test_load_names_line)
{
	char path[] = "/tmp/mdk-tiers-XXXXXX", err[512];
	struct mdk_tiers t;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("# measured\ncxl:cost=2us,cap=16   # the node\n\nswap:cost=80us\n",
	      f);
	fclose(f);
	ck_assert_int_eq(mdk_tiers_load(path, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_uint_eq(t.t[0].capacity, 16);
	ck_assert_uint_eq(t.t[1].cost_ns, 80000);
	f = fopen(path, "a");
	fputs("zswap:cost=fast\n", f);
	fclose(f);
	ck_assert_int_eq(mdk_tiers_load(path, &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, ":5 (tier zswap): cost 'fast'"), "%s", err);
	unlink(path);
	ck_assert_int_eq(mdk_tiers_load(path, &t, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, path), "%s", err);
}
END_TEST

static Suite *tier_list_suite(void)
{
	Suite *s = suite_create("tier_list");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_keys);
	tcase_add_test(tc, test_format_round_trip);
	tcase_add_test(tc, test_bad_lists);
	tcase_add_test(tc, test_load_names_line);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tier_list_suite)
