// SPDX-License-Identifier: GPL-2.0
/*
 * Description: a cgroup's compressibility (daemon/compress.c): LZ4 ratios
 * of zero, text and random pages in that order, random pages at ratio 1
 * (zswap rejects them); memory.stat's zswapped / zswap on a fake cgroupfs,
 * absent keys and an empty zswap told apart; and the sampler on a fake
 * procfs, reading only resident pages, at most the bound a pass, other
 * pages on the next pass.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "daemon/compress.h"
#include "fakecg.h"
#include "unit.h"

#define PAGE 4096
#define BASE 0x100000ull /* the fake process's anonymous mapping */

static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

enum kind { ZERO, TEXT, RANDOM };

static void fill(char *p, enum kind k)
{
	static const char *const w[] = { "memory ", "cold ", "the ",
					 "page ",   "and ",  "tier\n" };
	size_t o = 0, l;

	memset(p, 0, PAGE);
	if (k == RANDOM) {
		for (o = 0; o < PAGE; o += 8) {
			uint64_t x = rnd();

			memcpy(p + o, &x, 8);
		}
		return;
	}
	while (k == TEXT && o < PAGE) {
		const char *s = w[rnd() % 6];

		l = strlen(s);
		memcpy(p + o, s, o + l <= PAGE ? l : PAGE - o);
		o += l;
	}
}

static double ratio_of(enum kind k)
{
	struct mdkd_compress c = { 0 };
	char page[PAGE];
	int i;

	for (i = 0; i < 8; i++) {
		fill(page, k);
		mdkd_compress_page(&c, page);
	}
	ck_assert_uint_eq(c.pages, 8);
	ck_assert_uint_eq(c.in_bytes, 8 * PAGE);
	ck_assert_uint_le(c.out_bytes, c.in_bytes);
	return mdkd_compress_ratio(&c);
}

START_TEST(test_page_ratios)
{
	struct mdkd_compress none = { 0 };
	double z = ratio_of(ZERO), t = ratio_of(TEXT), r = ratio_of(RANDOM);

	ck_assert_msg(z > t && t > 1.5 && r == 1.0,
		      "zero %.2f text %.2f random %.2f", z, t, r);
	ck_assert(mdkd_compress_ratio(&none) == 0);
}
END_TEST

START_TEST(test_memstat)
{
	struct fakecg f;
	char path[PATH_MAX + 32];
	double ratio = 0;

	fake_setup(&f, "");
	fake_cgroup(&f, "a", 1 << 20, 0);
	fake_file(
		&f, "a", "memory.stat",
		"anon 1048576\nfile 0\nzswap 1000000\nzswapped 3500000\nzswpin 7\n");
	snprintf(path, sizeof(path), "%s/a/memory.stat", f.root);
	ck_assert_int_eq(mdkd_compress_memstat(fake_read(path), &ratio), 0);
	ck_assert_double_eq_tol(ratio, 3.5, 1e-9);
	/* 6.1: no such keys */
	fake_file(&f, "a", "memory.stat",
		  "anon 1048576\nfile 0\nzswapped_x 9\n");
	ck_assert_int_eq(mdkd_compress_memstat(fake_read(path), &ratio),
			 -ENOENT);
	/* the keys, nothing in zswap */
	fake_file(&f, "a", "memory.stat", "zswap 0\nzswapped 0\n");
	ck_assert_int_eq(mdkd_compress_memstat(fake_read(path), &ratio),
			 -ENODATA);
	fake_teardown(&f);
}
END_TEST

/*
 * A fake process @pid in cgroup @cg: one anonymous mapping of @n pages at
 * BASE of kind @k, page i resident unless bit i of @absent.
 */
static void fake_proc(struct fakecg *f, const char *cg, int pid, int n,
		      enum kind k, uint64_t absent)
{
	char dir[PATH_MAX + 32], path[PATH_MAX + 64], page[PAGE];
	uint64_t pm;
	FILE *mem, *map;
	int i;

	fake_file(f, cg, "cgroup.procs", "%d\n", pid);
	snprintf(dir, sizeof(dir), "%s/%d", f->proc, pid);
	fake_mkdirs(dir);
	snprintf(path, sizeof(path), "%s/maps", dir);
	fake_write(path,
		   "00400000-00401000 r-xp 00000000 08:01 1234 /bin/prog\n"
		   "%08llx-%08llx rw-p 00000000 00:00 0 \n",
		   BASE, BASE + (unsigned long long)n * PAGE);
	snprintf(path, sizeof(path), "%s/mem", dir);
	mem = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/pagemap", dir);
	map = fopen(path, "w");
	ck_assert(mem && map);
	for (i = 0; i < n; i++) {
		fill(page, k);
		fseek(mem, (long)(BASE + (uint64_t)i * PAGE), SEEK_SET);
		fwrite(page, PAGE, 1, mem);
		pm = (absent >> i & 1) ? 0 : 1ull << 63;
		fseek(map, (long)(BASE / PAGE + (uint64_t)i) * 8, SEEK_SET);
		fwrite(&pm, 8, 1, map);
	}
	fclose(mem);
	fclose(map);
}

static double sampled(struct fakecg *f, const char *cg, unsigned int max,
		      uint64_t *pass, uint64_t *pages)
{
	char path[PATH_MAX + 32];
	struct mdkd_compress c = { 0 };

	snprintf(path, sizeof(path), "%s/%s", f->root, cg);
	ck_assert_int_eq(mdkd_compress_sample(path, f->proc, max, pass, &c), 0);
	*pages = c.pages;
	return mdkd_compress_ratio(&c);
}

START_TEST(test_sampler)
{
	struct fakecg f;
	char path[PATH_MAX + 32];
	struct mdkd_compress c = { 0 };
	uint64_t pass = 0, pages;
	double z, t, r;

	fake_setup(&f, "");
	fake_cgroup(&f, "z", 1 << 20, 0);
	fake_cgroup(&f, "t", 1 << 20, 0);
	fake_cgroup(&f, "r", 1 << 20, 0);
	fake_cgroup(&f, "empty", 0, 0);
	fake_proc(&f, "z", 101, 16, ZERO, 0);
	fake_proc(&f, "t", 102, 16, TEXT, 0);
	/* pages 0-7 swapped out: only the 8 others are read */
	fake_proc(&f, "r", 103, 16, RANDOM, 0xff);
	z = sampled(&f, "z", 64, &pass, &pages);
	ck_assert_uint_eq(pages, 16);
	t = sampled(&f, "t", 64, &pass, &pages);
	r = sampled(&f, "r", 64, &pass, &pages);
	ck_assert_uint_eq(pages, 8);
	ck_assert_msg(z > t && t > 1.5 && r == 1.0,
		      "zero %.2f text %.2f random %.2f", z, t, r);
	/* the bound: 4 pages, every 4th; the next pass shifted by one */
	pass = 0;
	sampled(&f, "t", 4, &pass, &pages);
	ck_assert_uint_eq(pages, 4);
	ck_assert_uint_eq(pass, 1);
	snprintf(path, sizeof(path), "%s/empty", f.root);
	fake_file(&f, "empty", "cgroup.procs", "%s", "");
	ck_assert_int_eq(mdkd_compress_sample(path, f.proc, 64, &pass, &c),
			 -ENOENT);
	fake_teardown(&f);
}
END_TEST

static Suite *compress_suite(void)
{
	Suite *s = suite_create("compress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_page_ratios);
	tcase_add_test(tc, test_memstat);
	tcase_add_test(tc, test_sampler);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(compress_suite)
