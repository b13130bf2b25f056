// SPDX-License-Identifier: GPL-2.0
/*
 * Description: LRU(k) for every size in one pass (Mattson stack distances, libmdk/policy/lru.c):
 * misses equal a brute-force memory on random reference strings, for
 * every size; CSV and trace inputs give the reference string in file order.
 */
#include "mrc_test.h"

START_TEST(test_lru_brute_force)
{
	static const size_t Ns[] = { 1, 2, 50, 400, 3000 };
	static const size_t Ps[] = { 1, 3, 20, 120 };
	size_t a, b, i;

	for (a = 0; a < MDK_ARRAY(Ns); a++)
		for (b = 0; b < MDK_ARRAY(Ps); b++) {
			uint64_t *r = refs_random(a * 10 + b, Ns[a], Ps[b]);
			struct mdk_mrc_point *pts;
			char spec[64];
			size_t n;

			snprintf(spec, sizeof(spec), "lru:k=1-%zu", Ps[b] + 2);
			n = mrc_of(spec, r, Ns[a], &pts);
			ck_assert_uint_eq(n, Ps[b] + 2);
			for (i = 0; i < n; i++) {
				uint64_t want =
					brute_lru(r, Ns[a], pts[i].size);

				ck_assert_msg(
					pts[i].misses == want,
					"N=%zu pages=%zu k=%llu: %llu misses, brute force %llu",
					Ns[a], Ps[b],
					(unsigned long long)pts[i].size,
					(unsigned long long)pts[i].misses,
					(unsigned long long)want);
				ck_assert(pts[i].miss_ratio ==
					  (double)want / (double)Ns[a]);
				ck_assert_str_eq(pts[i].policy, "lru");
			}
			free(pts);
			free(r);
		}
}
END_TEST

/* Long strings over many pages: slot renumbering, larger heaps. */
START_TEST(test_lru_long_string)
{
	size_t n = 60000, pages = 5000;
	uint64_t *r = refs_random(99, n, pages);
	struct mdk_mrc_point *pts;
	size_t np, i;

	np = mrc_of("lru:k=1/7/64/500/4999/5000/6000", r, n, &pts);
	ck_assert_uint_eq(np, 7);
	for (i = 0; i < np; i++) {
		uint64_t want = pts[i].size >= 500 && !strcmp("lru", "opt") ?
					0 :
					brute_lru(r, n, pts[i].size);

		if (!want)
			continue; /* brute-force OPT is too slow for large k */
		ck_assert_msg(pts[i].misses == want, "k=%llu: %llu != %llu",
			      (unsigned long long)pts[i].size,
			      (unsigned long long)pts[i].misses,
			      (unsigned long long)want);
	}
	/* Curves never rise with the size; OPT never misses more than LRU. */
	for (i = 1; i < np; i++)
		ck_assert_uint_le(pts[i].misses, pts[i - 1].misses);
	free(pts);
	{
		struct mdk_mrc_point *l, *o;

		mrc_of("lru:k=1/7/64/500", r, n, &l);
		mrc_of("opt:k=1/7/64/500", r, n, &o);
		for (i = 0; i < 4; i++)
			ck_assert_uint_le(o[i].misses, l[i].misses);
		free(l);
		free(o);
	}
	free(r);
}
END_TEST

/* mdk_mrc_run(): a CSV's rows, or a trace's ids, in file order. */
START_TEST(test_lru_files)
{
	static const char csv[] =
		"window,page\n0,1\n0,2\n0,3\n1,1\n1,4\n2,2\n2,1\n";
	static const uint64_t ref[] = { 1, 2, 3, 1, 4, 2, 1 };
	char path[] = "/tmp/mdk-mrc-XXXXXX", tpath[64], err[256];
	struct mdk_mrc_point *pts;
	struct mdk_policy *p;
	uint64_t refs, pages;
	size_t n, i;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, csv, sizeof(csv) - 1),
			 (ssize_t)sizeof(csv) - 1);
	close(fd);
	ck_assert(!mdk_policy_new("lru:k=1-4", &p, err, sizeof(err)));
	ck_assert_msg(!mdk_mrc_run(path, &p, 1, &pts, &n, &refs, &pages, err,
				   sizeof(err)),
		      "%s", err);
	ck_assert(refs == 7 && pages == 4 && n == 4);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(pts[i].misses, brute_lru(ref, 7, i + 1));
	free(pts);
	/* The same rows as a trace: windows sort their ids (1 2 3 | 1 4 | 1 2). */
	snprintf(tpath, sizeof(tpath), "%s.mdkt", path);
	ck_assert(!mdk_trace_import_csv(path, tpath, NULL, err, sizeof(err)));
	ck_assert(!mdk_mrc_run(tpath, &p, 1, &pts, &n, &refs, &pages, err,
			       sizeof(err)));
	{
		static const uint64_t sorted[] = { 1, 2, 3, 1, 4, 1, 2 };

		for (i = 0; i < n; i++)
			ck_assert_uint_eq(pts[i].misses,
					  brute_lru(sorted, 7, i + 1));
	}
	free(pts);
	/* A bad CSV line is reported with its line. */
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "3,x\n", 4), 4);
	close(fd);
	ck_assert_int_eq(mdk_mrc_run(path, &p, 1, &pts, &n, NULL, NULL, err,
				     sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, ":9: expected 'window,page'"), "%s", err);
	mdk_policy_free(p);
	unlink(path);
	unlink(tpath);
}
END_TEST

/* The worked example of Documentation/mdk.rst, pinned. */
START_TEST(test_lru_golden_example)
{
	static const uint64_t want[] = { 22, 18, 15, 11, 7, 6 };
	struct mdk_mrc_point *pts;
	struct mdk_policy *p;
	uint64_t refs, pages;
	char csv[512], err[256];
	size_t n, i;

	fixture("mdk/example/trace.csv", csv, sizeof(csv));
	ck_assert(!mdk_policy_new("lru:k=1-6", &p, err, sizeof(err)));
	ck_assert_msg(!mdk_mrc_run(csv, &p, 1, &pts, &n, &refs, &pages, err,
				   sizeof(err)),
		      "%s", err);
	ck_assert(n == 6 && refs == 22 && pages == 6);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(pts[i].misses, want[i]);
	free(pts);
	mdk_policy_free(p);
}
END_TEST

static Suite *policy_lru_suite(void)
{
	Suite *s = suite_create("policy_lru");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lru_brute_force);
	tcase_add_test(tc, test_lru_long_string);
	tcase_add_test(tc, test_lru_files);
	tcase_add_test(tc, test_lru_golden_example);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_lru_suite)
