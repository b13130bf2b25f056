// SPDX-License-Identifier: GPL-2.0
/*
 * Description: trace reports (libmdk/trace_report.c, trace_heat.c): every
 * figure of a hand-computed seven-page trace; then random, synthetic and
 * fixture traces against a brute force over the pages x windows matrix
 * (idle ages, reuse distances, popularity, and the heatmap against page
 * indices renumbered from the ids); errors for a missing file, a corrupt
 * trace and a heatmap too large; an empty trace; a trace never closed.
 */
#include <mdk/report.h>
#include <mdk/util.h>

#include "mdk_test.h"

#define MDK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MDK_MAX(a, b) ((a) > (b) ? (a) : (b))

static struct mdk_report *report_of(const char *path, uint32_t rows,
				    uint32_t cols)
{
	struct mdk_report_opts o = { .heat_ranges = rows,
				     .heat_columns = cols };
	struct mdk_report *r = NULL;
	char err[256];

	ck_assert_msg(!mdk_trace_report_run(path, &o, &r, err, sizeof(err)),
		      "%s", err);
	return r;
}

/*
 * Documentation/mdk.rst's example plus page 106, accessed in window 6
 * only (never reused).
 */
static struct tt *example(void)
{
	static const char *const rows[] = {
		"xxxxxxxx", "x.x.x.x.", "x....x..", "xxx.....",
		"...x...x", ".x..x..x", "......x.",
	};
	struct tt *t = tt_new(8, 7);
	size_t p, w;

	for (p = 0; p < 7; p++) {
		t->ids[p] = 100 + p;
		for (w = 0; w < 8; w++)
			t->acc[p * 8 + w] = rows[p][w] == 'x';
	}
	return t;
}

START_TEST(test_trace_report_by_hand)
{
	static const uint64_t U[8] = { 4, 3, 3, 2, 3, 2, 3, 3 };
	static const uint64_t F[8] = { 4, 5, 5, 6, 6, 6, 7, 7 };
	static const uint64_t idle[3][8] = {
		{ 0, 2, 2, 4, 3, 4, 4, 4 }, /* idle >= 1: F - U */
		{ 0, 0, 1, 2, 2, 2, 3, 2 }, /* >= 2 */
		{ 0, 0, 0, 0, 1, 0, 1, 1 }, /* >= 4 */
	};
	static const uint64_t byw[9] = { 0, 1, 2, 2, 1, 0, 0, 0, 1 };
	struct tt *t = example();
	struct mdk_report *r;
	char path[64];
	uint32_t w, k;

	tt_write(t, path, sizeof(path));
	r = report_of(path, 2, 3);
	ck_assert_uint_eq(r->windows, 8);
	ck_assert_uint_eq(r->pages, 7);
	ck_assert_uint_eq(r->accesses, 23);
	ck_assert_uint_eq(r->buckets, 3);
	for (w = 0; w < 8; w++) {
		ck_assert_uint_eq(r->accessed[w], U[w]);
		ck_assert_uint_eq(r->footprint[w], F[w]);
		for (k = 0; k < 3; k++)
			ck_assert_msg(r->idle[w * 3 + k] == idle[k][w],
				      "idle >= %u in window %u: %lu", 1u << k,
				      w, (unsigned long)r->idle[w * 3 + k]);
	}
	/* Distances: 100 7 x 1, 101 3 x 2, 102 5, 103 2 x 1, 104 4, 105 2 x 3. */
	ck_assert_uint_eq(r->reuse[0], 9);
	ck_assert_uint_eq(r->reuse[1], 5);
	ck_assert_uint_eq(r->reuse[2], 2);
	ck_assert_uint_eq(r->reuses, 16);
	ck_assert_uint_eq(r->never_reused, 1);
	/* Windows a page: 1 2 2 3 3 4 8. */
	for (w = 0; w <= 8; w++)
		ck_assert_uint_eq(r->pages_by_windows[w], byw[w]);
	ck_assert_uint_eq(r->per_page_min, 1);
	ck_assert_uint_eq(r->per_page_p25, 2);
	ck_assert_uint_eq(r->per_page_p50, 3);
	ck_assert_uint_eq(r->per_page_p75, 4);
	ck_assert_uint_eq(r->per_page_p90, 8);
	ck_assert_uint_eq(r->per_page_p99, 8);
	ck_assert_uint_eq(r->per_page_max, 8);
	ck_assert_double_eq_tol(r->per_page_mean, 23.0 / 7, 1e-12);
	/* 1% and 10%: page 100's 8; 50%: 8 + 4 >= 12; 90%: 21 <= 22. */
	ck_assert_uint_eq(r->top[0].share_ppm, 10000);
	ck_assert_uint_eq(r->top[0].pages, 1);
	ck_assert_uint_eq(r->top[1].pages, 1);
	ck_assert_uint_eq(r->top[2].pages, 2);
	ck_assert_uint_eq(r->top[3].pages, 6);
	ck_assert_uint_eq(r->top[0].accesses, 8); /* top 1 page */
	ck_assert_uint_eq(r->top[2].accesses, 18); /* top 4 pages */
	ck_assert_uint_eq(r->top[3].accesses, 23); /* all 7 */
	/*
	 * Ids 100..106 are indices 36..42 of one 64-page leaf: 2 ranges of
	 * 32 indices, the second with the 7 pages; 3 columns of windows
	 * 0-2, 3-5, 6-7: 10, 7 and 6 accesses.
	 */
	ck_assert_uint_eq(r->heat_rows, 2);
	ck_assert_uint_eq(r->heat_cols, 3);
	ck_assert_uint_eq(r->range_first[1], 32);
	ck_assert_uint_eq(r->range_first[2], 64);
	ck_assert_uint_eq(r->range_pages[0], 0);
	ck_assert_uint_eq(r->range_pages[1], 7);
	ck_assert_uint_eq(r->range_id_min[1], 100);
	ck_assert_uint_eq(r->range_id_max[1], 106);
	ck_assert_uint_eq(r->col_first[1], 3);
	ck_assert_uint_eq(r->col_first[2], 6);
	ck_assert_uint_eq(r->col_first[3], 8);
	ck_assert_double_eq(r->heat[0], 0);
	ck_assert_double_eq_tol(r->heat[3], 10.0 / 21, 1e-15);
	ck_assert_double_eq_tol(r->heat[4], 7.0 / 21, 1e-15);
	ck_assert_double_eq_tol(r->heat[5], 6.0 / 14, 1e-15);
	mdk_trace_report_free(r);
	unlink(path);
	tt_free(t);
}
END_TEST

/* Nearest rank over the ascending counts @c of @n pages. */
static uint32_t bf_rank(const uint32_t *c, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n - 1e-9);

	return c[i ? i - 1 : 0];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Idle ages and U, F, straight from the matrix. */
static void bf_windows(const struct tt *t, const struct mdk_report *r)
{
	uint32_t w, k;
	size_t p;

	for (w = 0; w < t->W; w++) {
		uint64_t u = 0, f = 0, ge[32] = { 0 };

		for (p = 0; p < t->P; p++) {
			int64_t last = -1;
			uint32_t v;

			for (v = 0; v <= w; v++)
				if (tt_get(t, p, v))
					last = v;
			if (last < 0)
				continue;
			f++;
			u += tt_get(t, p, w);
			for (k = 0; k < r->buckets; k++)
				ge[k] += w - (uint64_t)last >= (1ull << k);
		}
		ck_assert_uint_eq(r->accessed[w], u);
		ck_assert_uint_eq(r->footprint[w], f);
		for (k = 0; k < r->buckets; k++)
			ck_assert_uint_eq(r->idle[(size_t)w * r->buckets + k],
					  ge[k]);
	}
}

static void bf_reuse_popularity(const struct tt *t, const struct mdk_report *r)
{
	uint64_t reuse[32] = { 0 }, never = 0, A = 0, need, acc;
	uint32_t *c = calloc(t->P + 1, sizeof(*c)), w, k;
	size_t p, n = 0, i;

	for (p = 0; p < t->P; p++) {
		int64_t last = -1;
		uint32_t cnt = 0;

		for (w = 0; w < t->W; w++) {
			if (!tt_get(t, p, w))
				continue;
			if (last >= 0)
				reuse[63 - __builtin_clzll(w - last)]++;
			last = w;
			cnt++;
		}
		never += cnt == 1;
		A += cnt;
		if (cnt)
			c[n++] = cnt;
	}
	for (k = 0; k < r->buckets; k++)
		ck_assert_uint_eq(r->reuse[k], reuse[k]);
	ck_assert_uint_eq(r->never_reused, never);
	ck_assert_uint_eq(r->pages, n);
	ck_assert_uint_eq(r->reuses, A - n);
	qsort(c, n, sizeof(*c), cmp_u32);
	ck_assert_uint_eq(r->per_page_min, c[0]);
	ck_assert_uint_eq(r->per_page_p50, bf_rank(c, n, 0.5));
	ck_assert_uint_eq(r->per_page_p90, bf_rank(c, n, 0.9));
	ck_assert_uint_eq(r->per_page_p99, bf_rank(c, n, 0.99));
	ck_assert_uint_eq(r->per_page_max, c[n - 1]);
	for (k = 0; k < MDK_REPORT_TOPS; k++) {
		double s = r->top[k].share_ppm / 1e6;

		need = (uint64_t)ceil(s * (double)A - 1e-9);
		for (i = 0, acc = 0; acc < need; i++)
			acc += c[n - 1 - i];
		ck_assert_uint_eq(r->top[k].pages, i);
		need = (uint64_t)ceil(s * (double)n - 1e-9);
		for (i = 0, acc = 0; i < need; i++)
			acc += c[n - 1 - i];
		ck_assert_uint_eq(r->top[k].accesses, acc);
	}
	for (w = 0; w <= t->W; w++) {
		for (i = 0, acc = 0; i < n; i++)
			acc += c[i] == w;
		ck_assert_uint_eq(r->pages_by_windows[w], acc);
	}
	free(c);
}

/*
 * The reader's compact index of every page: 64-id leaves numbered in the
 * order the trace first touches them (windows in order, ids ascending).
 */
static uint64_t *bf_indices(const struct tt *t, uint64_t *slots)
{
	uint64_t *idx = calloc(t->P + 1, sizeof(*idx)), *leaf, nleaf = 0;
	bool *seen = calloc(t->P + 1, 1);
	uint32_t w;
	size_t p, j;

	leaf = calloc(t->P + 1, sizeof(*leaf));
	for (w = 0; w < t->W; w++)
		for (p = 0; p < t->P; p++) {
			if (!tt_get(t, p, w) || seen[p])
				continue;
			seen[p] = true;
			for (j = 0; j < nleaf && leaf[j] != t->ids[p] >> 6; j++)
				;
			if (j == nleaf)
				leaf[nleaf++] = t->ids[p] >> 6;
			idx[p] = j * 64 + (t->ids[p] & 63);
		}
	*slots = nleaf * 64;
	free(leaf);
	free(seen);
	return idx;
}

static void bf_heat(const struct tt *t, const struct mdk_report *r,
		    uint32_t rows, uint32_t cols)
{
	uint64_t slots, *idx = bf_indices(t, &slots);
	uint32_t i, j, w;
	size_t p;

	ck_assert_uint_le(r->heat_rows, rows);
	ck_assert_uint_le(r->heat_cols, cols);
	/* Grouping keeps at least 2/3 of the asked side. */
	ck_assert_uint_ge(3 * r->heat_rows, MDK_MIN(2 * rows, 3 * slots));
	ck_assert_uint_ge(3 * r->heat_cols, MDK_MIN(2 * cols, 3 * t->W));
	ck_assert_uint_eq(r->range_first[0], 0);
	ck_assert_uint_eq(r->range_first[r->heat_rows], slots);
	ck_assert_uint_eq(r->col_first[0], 0);
	ck_assert_uint_eq(r->col_first[r->heat_cols], t->W);
	for (i = 0; i < r->heat_rows; i++) {
		uint64_t lo = r->range_first[i], hi = r->range_first[i + 1];
		uint64_t np = 0, idmin = UINT64_MAX, idmax = 0;

		ck_assert_uint_lt(lo, hi);
		for (p = 0; p < t->P; p++) {
			for (w = 0; w < t->W && !tt_get(t, p, w); w++)
				;
			if (w == t->W || idx[p] < lo || idx[p] >= hi)
				continue;
			np++;
			idmin = MDK_MIN(idmin, t->ids[p]);
			idmax = MDK_MAX(idmax, t->ids[p]);
		}
		ck_assert_uint_eq(r->range_pages[i], np);
		ck_assert_uint_eq(r->range_id_min[i], np ? idmin : 0);
		ck_assert_uint_eq(r->range_id_max[i], np ? idmax : 0);
		for (j = 0; j < r->heat_cols; j++) {
			uint32_t a = r->col_first[j], b = r->col_first[j + 1];
			uint64_t n = 0;

			ck_assert_uint_lt(a, b);
			for (p = 0; p < t->P; p++)
				for (w = a; w < b; w++)
					n += idx[p] >= lo && idx[p] < hi &&
					     tt_get(t, p, w);
			ck_assert_double_eq(
				r->heat[(size_t)i * r->heat_cols + j],
				np ? (double)n / (double)(np * (b - a)) : 0);
		}
	}
	free(idx);
}

static void check_brute(const struct tt *t, uint32_t rows, uint32_t cols)
{
	struct mdk_report *r;
	char path[64];

	tt_write(t, path, sizeof(path));
	r = report_of(path, rows, cols);
	ck_assert_uint_eq(r->windows, t->W);
	ck_assert_uint_eq(r->accesses, tt_records(t));
	ck_assert_uint_eq(r->buckets, 64 - __builtin_clzll(t->W - 1));
	bf_windows(t, r);
	bf_reuse_popularity(t, r);
	bf_heat(t, r, rows, cols);
	mdk_trace_report_free(r);
	unlink(path);
}

START_TEST(test_trace_report_brute_random)
{
	struct tt *t = tt_random(7, 300, 2000);

	/* 20 x 30 asked: 80 x 120 fine bins, folded on both axes. */
	check_brute(t, 20, 30);
	check_brute(t, 7, 400);
	tt_free(t);
}
END_TEST

START_TEST(test_trace_report_brute_synth)
{
	struct tt *t = tt_synth(3, 129, 3000, NULL);

	check_brute(t, 200, 400);
	check_brute(t, 1, 1);
	tt_free(t);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A trace file as a matrix (ids sorted, so the same trace once written). */
static struct tt *tt_load(const char *path)
{
	struct mdk_trace_reader *rd;
	struct mdk_trace_chunk c;
	uint64_t *ids = NULL, *u;
	size_t n = 0, cap = 0, P = 0, i;
	char err[256];
	struct tt *t;

	ck_assert_msg(!mdk_trace_reader_open(path, 0, &rd, err, sizeof(err)),
		      "%s", err);
	while (mdk_trace_reader_next(rd, &c, err, sizeof(err)) > 0)
		for (i = 0; i < c.n; i++) {
			ck_assert(!mdk_grow((void **)&ids, &cap, n + 1, 8));
			ids[n++] = c.ids[i];
		}
	qsort(ids, n, sizeof(*ids), cmp_u64);
	for (i = 0; i < n; i++)
		if (!P || ids[P - 1] != ids[i])
			ids[P++] = ids[i];
	t = tt_new(mdk_trace_reader_windows(rd), P);
	memcpy(t->ids, ids, P * sizeof(*ids));
	mdk_trace_reader_close(rd);
	ck_assert(!mdk_trace_reader_open(path, 0, &rd, err, sizeof(err)));
	while (mdk_trace_reader_next(rd, &c, err, sizeof(err)) > 0)
		for (i = 0; i < c.n; i++) {
			u = bsearch(&c.ids[i], t->ids, P, 8, cmp_u64);
			t->acc[(size_t)(u - t->ids) * t->W + c.window] = 1;
		}
	mdk_trace_reader_close(rd);
	free(ids);
	return t;
}

START_TEST(test_trace_report_brute_fixture)
{
	char path[512];
	struct tt *t =
		tt_load(fixture("mdk/mix/trace.mdkt", path, sizeof(path)));

	ck_assert_uint_eq(t->W, 40);
	ck_assert_uint_eq(t->P, 1430);
	check_brute(t, 200, 400);
	tt_free(t);
}
END_TEST

START_TEST(test_trace_report_errors)
{
	struct mdk_report_opts big = { .heat_ranges = MDK_REPORT_HEAT_MAX + 1 };
	struct mdk_report *r = NULL;
	char path[64], err[256];
	struct tt *t = example();
	FILE *f;
	int c;

	ck_assert_int_eq(mdk_trace_report_run("/nonexistent/x.mdkt", NULL, &r,
					      err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "/nonexistent/x.mdkt"), "%s", err);
	ck_assert_ptr_null(r);
	tt_write(t, path, sizeof(path));
	ck_assert_int_eq(mdk_trace_report_run(path, &big, &r, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "expected at most 4096"), "%s", err);
	/* A byte of the first block changed: its checksum fails. */
	f = fopen(path, "r+b");
	ck_assert_ptr_nonnull(f);
	ck_assert(!fseek(f, 80, SEEK_SET));
	c = fgetc(f);
	ck_assert(!fseek(f, 80, SEEK_SET));
	fputc(0x5a ^ c, f);
	fclose(f);
	ck_assert_int_eq(mdk_trace_report_run(path, NULL, &r, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, path), "%s", err);
	ck_assert_ptr_null(r);
	unlink(path);
	tt_free(t);
}
END_TEST

START_TEST(test_trace_report_empty)
{
	struct tt *t = tt_new(1, 0);
	struct mdk_report *r;
	char path[64];

	tt_write(t, path, sizeof(path));
	r = report_of(path, 0, 0);
	ck_assert_uint_eq(r->windows, 1);
	ck_assert_uint_eq(r->pages, 0);
	ck_assert_uint_eq(r->buckets, 0);
	ck_assert_uint_eq(r->accessed[0], 0);
	ck_assert_uint_eq(r->heat_rows, 0);
	ck_assert_uint_eq(r->heat_cols, 1);
	ck_assert_uint_eq(r->never_reused, 0);
	ck_assert_uint_eq(r->top[3].pages, 0);
	mdk_trace_report_free(r);
	unlink(path);
	tt_free(t);
}
END_TEST

/* A trace never closed: read with MDK_TRACE_PARTIAL only, as far as it goes. */
START_TEST(test_trace_report_partial)
{
	static const uint64_t ids[3][2] = { { 1, 2 }, { 2, 3 }, { 1, 3 } };
	struct mdk_report_opts o = { .flags = MDK_TRACE_PARTIAL };
	char path[] = "/tmp/mdk-test-XXXXXX", err[256];
	struct mdk_trace_writer *w;
	struct mdk_report *r = NULL;
	uint32_t win;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(!mdk_trace_writer_open(path, NULL, &w, err, sizeof(err)));
	for (win = 0; win < 3; win++)
		ck_assert(!mdk_trace_writer_put(w, win, ids[win], 2, 0, err,
						sizeof(err)));
	ck_assert(!mdk_trace_writer_begin(w, 3, err, sizeof(err)));
	mdk_trace_writer_abort(w);
	ck_assert_int_lt(mdk_trace_report_run(path, NULL, &r, err, sizeof(err)),
			 0);
	ck_assert_msg(!mdk_trace_report_run(path, &o, &r, err, sizeof(err)),
		      "%s", err);
	/* Pages 1 2 3: idle >= 1 is 1 in windows 1 and 2, >= 2 none. */
	ck_assert_uint_ge(r->windows, 3);
	ck_assert_uint_eq(r->pages, 3);
	ck_assert_uint_eq(r->footprint[2], 3);
	ck_assert_uint_eq(r->idle[1 * r->buckets], 1);
	ck_assert_uint_eq(r->idle[2 * r->buckets], 1);
	ck_assert_uint_eq(r->reuse[0], 2); /* 2 in 0-1, 3 in 1-2 */
	ck_assert_uint_eq(r->reuse[1], 1); /* 1 in 0-2 */
	mdk_trace_report_free(r);
	unlink(path);
}
END_TEST

static Suite *trace_report_suite(void)
{
	Suite *s = suite_create("trace_report");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_trace_report_by_hand);
	tcase_add_test(tc, test_trace_report_brute_random);
	tcase_add_test(tc, test_trace_report_brute_synth);
	tcase_add_test(tc, test_trace_report_brute_fixture);
	tcase_add_test(tc, test_trace_report_errors);
	tcase_add_test(tc, test_trace_report_empty);
	tcase_add_test(tc, test_trace_report_partial);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(trace_report_suite)
