// SPDX-License-Identifier: GPL-2.0
/*
 * Description: CSV access lists (libmdk/csv.c): import into traces (header,
 * comments, CRLF, hex, pages in any order, duplicates collapsed), export,
 * and malformed input failing with "file:line: expected ...".
 */
#include "mdk_test.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	static char buf[65536];
	size_t n;
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

struct paths {
	char dir[64], csv[96], trace[96], out[96];
};

static void paths_make(struct paths *p)
{
	snprintf(p->dir, sizeof(p->dir), "/tmp/mdk-csv-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(p->dir));
	snprintf(p->csv, sizeof(p->csv), "%s/in.csv", p->dir);
	snprintf(p->trace, sizeof(p->trace), "%s/t.mdkt", p->dir);
	snprintf(p->out, sizeof(p->out), "%s/out.csv", p->dir);
}

static void paths_clean(struct paths *p)
{
	unlink(p->csv);
	unlink(p->trace);
	unlink(p->out);
	rmdir(p->dir);
}

static void export_to(const char *trace, const char *out)
{
	char err[256];
	FILE *f = fopen(out, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(!mdk_trace_export_csv(trace, f, err, sizeof(err)), "%s",
		      err);
	fclose(f);
}

START_TEST(test_csv_import_export)
{
	struct paths p;
	char err[256];

	paths_make(&p);
	write_file(p.csv, "window,page\r\n"
			  "# a comment\n"
			  "0,5\n"
			  "0,3\n"
			  "0,5\n"
			  "\n"
			  "  2 , 0x10\r\n"
			  "2,7\n"
			  "2,16\n"
			  "5,18446744073709551615\n");
	ck_assert_msg(!mdk_trace_import_csv(p.csv, p.trace, NULL, err,
					    sizeof(err)),
		      "%s", err);
	export_to(p.trace, p.out);
	ck_assert_str_eq(read_text(p.out), "window,page\n"
					   "0,3\n"
					   "0,5\n"
					   "2,7\n"
					   "2,16\n"
					   "5,18446744073709551615\n");
	/* Export then import is the identity. */
	ck_assert(
		!mdk_trace_import_csv(p.out, p.trace, NULL, err, sizeof(err)));
	export_to(p.trace, p.csv);
	ck_assert_str_eq(read_text(p.csv), read_text(p.out));
	paths_clean(&p);
}
END_TEST

START_TEST(test_csv_malformed)
{
	static const char *const bad[][2] = {
		{ "0,1\n1,x\n",
		  "in.csv:2: expected 'window,page' (two unsigned integers), got '1,x'" },
		{ "0,1\n7\n", "in.csv:2: expected 'window,page'" },
		{ "window,page\n0,1,2\n", "in.csv:2: expected 'window,page'" },
		{ "0,1\n-1,2\n", "in.csv:2: expected" },
		{ "0,1\n1,99999999999999999999\n", "in.csv:2: expected" },
		{ "0,1\n0x,1\n", "in.csv:2: expected" },
		{ "5,1\n5,2\n2,3\n",
		  "in.csv:3: window 2 after window 5: windows must be non-decreasing" },
		{ "4294967295,1\n",
		  "in.csv:1: window 4294967295 is above the maximum" },
		{ "0,1\nheader,again\n", "in.csv:2: expected" },
		{ "0,1\n2000000,1\n",
		  "in.csv:2: window 2000000 after window 0: more than 1048576 empty windows" },
	};
	struct paths p;
	char err[512];
	size_t i;

	paths_make(&p);
	for (i = 0; i < MDK_ARRAY(bad); i++) {
		write_file(p.csv, bad[i][0]);
		err[0] = 0;
		ck_assert_int_eq(mdk_trace_import_csv(p.csv, p.trace, NULL, err,
						      sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, bad[i][1]), "case %zu: '%s'", i, err);
		/* No half-written output is left behind. */
		ck_assert_int_ne(access(p.trace, F_OK), 0);
	}
	/* A NUL byte in a line. */
	{
		FILE *f = fopen(p.csv, "w");

		fwrite("0,1\n1,2\0\n", 1, 9, f);
		fclose(f);
		ck_assert_int_eq(mdk_trace_import_csv(p.csv, p.trace, NULL, err,
						      sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, "in.csv:2: NUL byte"), "%s", err);
	}
	ck_assert_int_eq(mdk_trace_import_csv("/nonexistent.csv", p.trace, NULL,
					      err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "/nonexistent.csv"), "%s", err);
	paths_clean(&p);
}
END_TEST

START_TEST(test_csv_reader_order)
{
	struct mdk_csv_reader *c;
	struct paths p;
	uint64_t w, pg;
	char err[256];

	paths_make(&p);
	write_file(p.csv, "3,9\n1,9\n1,9\n");
	ck_assert(!mdk_csv_reader_open(p.csv, &c, err, sizeof(err)));
	ck_assert_int_eq(mdk_csv_reader_next(c, &w, &pg, err, sizeof(err)), 1);
	ck_assert(w == 3 && pg == 9);
	ck_assert_int_eq(mdk_csv_reader_next(c, &w, &pg, err, sizeof(err)), 1);
	ck_assert(w == 1 && pg == 9);
	ck_assert_int_eq(mdk_csv_reader_next(c, &w, &pg, err, sizeof(err)), 1);
	ck_assert_uint_eq(mdk_csv_reader_line(c), 3);
	ck_assert_int_eq(mdk_csv_reader_next(c, &w, &pg, err, sizeof(err)), 0);
	mdk_csv_reader_close(c);
	/* An empty list is a trace of no windows. */
	write_file(p.csv, "window,page\n");
	ck_assert(
		!mdk_trace_import_csv(p.csv, p.trace, NULL, err, sizeof(err)));
	export_to(p.trace, p.out);
	ck_assert_str_eq(read_text(p.out), "window,page\n");
	paths_clean(&p);
}
END_TEST

static Suite *csv_suite(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_csv_import_export);
	tcase_add_test(tc, test_csv_malformed);
	tcase_add_test(tc, test_csv_reader_order);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(csv_suite)
