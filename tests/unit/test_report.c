// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkctl's output helpers (cli/jsonout.c, cli/report.c):
 * JSON structure, escaping and number formats as json-c prints them, the
 * exact JSON of a point and CSV columns, number parsing, and an MPC
 * scatter plot written by gnuplot.
 */
#include <sys/stat.h>

#include "daemon/jsonout.h"
#include "mdk_test.h"
#include "cli/report.h"

static char *capture(void (*fn)(FILE *f))
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_ptr_nonnull(f);
	fn(f);
	fclose(f);
	return buf;
}

static void json_doc(FILE *f)
{
	struct json_object *o = json_object_new_object(),
			   *a = json_object_new_array();

	mdkd_json_add_str(o, "s", "a\"b\\c\n\x01");
	mdkd_json_add_u64(o, "u", 18446744073709551615ull);
	mdkd_json_add_double(o, "d", 0.25);
	mdkd_json_add_double(o, "nan", NAN);
	mdkd_json_push(a, json_object_new_int64(-3));
	mdkd_json_push(a, json_object_new_boolean(true));
	mdkd_json_push(a, NULL);
	mdkd_json_push(a, json_object_new_object());
	mdkd_json_add(o, "a", a);
	ck_assert_int_eq(mdkd_json_print(f, o), 0);
	json_object_put(o);
}

/* The formats mdkctl's documents had before json-c: no ".0", no "\/". */
static void json_numbers(FILE *f)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_double(o, "int", 4);
	mdkd_json_add_double(o, "zero", 0);
	mdkd_json_add_double(o, "tenth", 0.1);
	mdkd_json_add_double(o, "third", 1.0 / 3);
	mdkd_json_add_double(o, "big", 1e21);
	mdkd_json_add_double(o, "inf", INFINITY);
	mdkd_json_add_fixed(o, "f2", 2.0 / 3, 2);
	mdkd_json_add_fixed(o, "f0", 1234.5678, 0);
	mdkd_json_add_fixed(o, "finf", -INFINITY, 3);
	mdkd_json_add_i64(o, "neg", -7);
	mdkd_json_add_bool(o, "no", false);
	mdkd_json_add_str(o, "path", "/sys/fs/cgroup/a b");
	ck_assert_int_eq(mdkd_json_print(f, o), 0);
	json_object_put(o);
}

/* The points every format is checked on: a PAW setting, an OPP one, LRU. */
static const struct mdk_point point_paw = { .policy = "paw",
					    .p1 = 3,
					    .p2 = 2,
					    .has_p2 = true,
					    .max_rate = 0.5,
					    .mean_rate = 0.125,
					    .p99_rate = 0.25,
					    .savings = 0.1,
					    .promotions = 7,
					    .saved = 30,
					    .footprint = 300 };
static const struct mdk_point point_opp = { .policy = "opp",
					    .p1 = 0.001,
					    .max_rate = 0.001,
					    .savings = 1.0 / 3,
					    .promotions = 1 };
static const struct mdk_mrc_point point_lru = { .policy = "lru",
						.size = 64,
						.misses = 10,
						.miss_ratio = 0.5 };

static void json_points(FILE *f)
{
	struct json_object *p;

	p = mdkctl_point_json(&point_paw);
	ck_assert_int_eq(mdkd_json_print(f, p), 0);
	json_object_put(p);
	p = mdkctl_point_json(&point_opp);
	ck_assert_int_eq(mdkd_json_print(f, p), 0);
	json_object_put(p);
	p = mdkctl_mrc_json(&point_lru);
	ck_assert_int_eq(mdkd_json_print(f, p), 0);
	json_object_put(p);
	ck_assert_int_eq(mdkd_json_print(f, NULL), -ENOMEM);
}

START_TEST(test_report_json)
{
	ck_assert_str_eq(
		capture(json_doc),
		"{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"u\":18446744073709551615,"
		"\"d\":0.25,\"nan\":null,\"a\":[-3,true,null,{}]}\n");
	ck_assert_str_eq(
		capture(json_numbers),
		"{\"int\":4,\"zero\":0,\"tenth\":0.1,\"third\":0.3333333333,"
		"\"big\":1e+21,\"inf\":null,\"f2\":0.67,\"f0\":1235,"
		"\"finf\":null,\"neg\":-7,\"no\":false,"
		"\"path\":\"/sys/fs/cgroup/a b\"}\n");
	ck_assert_str_eq(
		capture(json_points),
		"{\"policy\":\"paw\",\"setting\":\"paw:P=3,wait=2\",\"p1\":3,"
		"\"p2\":2,\"max_rate\":0.5,\"mean_rate\":0.125,"
		"\"p99_rate\":0.25,\"savings\":0.1,\"promotions\":7,"
		"\"saved_page_windows\":30,\"footprint_page_windows\":300}\n"
		"{\"policy\":\"opp\",\"setting\":\"opp:rho=0.001\","
		"\"p1\":0.001,\"p2\":null,\"max_rate\":0.001,\"mean_rate\":0,"
		"\"p99_rate\":0,\"savings\":0.3333333333,\"promotions\":1,"
		"\"saved_page_windows\":0,\"footprint_page_windows\":0}\n"
		"{\"policy\":\"lru\",\"size\":64,\"misses\":10,"
		"\"miss_ratio\":0.5}\n");
}
END_TEST

static void csv_rows(FILE *f)
{
	fputs(MDKCTL_MPC_CSV_HEADER "\n", f);
	mdkctl_point_csv(f, &point_paw);
	mdkctl_point_csv(f, &point_opp);
	fputs(MDKCTL_MRC_CSV_HEADER "\n", f);
	mdkctl_mrc_csv(f, &point_lru);
}

START_TEST(test_report_csv)
{
	struct mdk_point p = {
		.policy = "pace", .p1 = 4, .p2 = 9, .has_p2 = true
	};
	char set[64];

	ck_assert_str_eq(
		capture(csv_rows),
		"policy,p1,p2,max_rate,mean_rate,p99_rate,savings,promotions\n"
		"paw,3,2,0.5,0.125,0.25,0.1,7\n"
		"opp,0.001,,0.001,0,0,0.3333333333,1\n"
		"policy,size,misses,miss_ratio\n"
		"lru,64,10,0.5\n");
	mdkctl_point_setting(&p, set, sizeof(set));
	ck_assert_str_eq(set, "pace:P=4,A=9");
}
END_TEST

START_TEST(test_report_parse)
{
	unsigned long long c;
	double f;

	ck_assert(!mdkctl_parse_fraction("0.02", &f) && f == 0.02);
	ck_assert(!mdkctl_parse_fraction("2%", &f) && f == 0.02);
	ck_assert(!mdkctl_parse_fraction("1e-3", &f) && f == 0.001);
	ck_assert_int_eq(mdkctl_parse_fraction("2", &f), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_fraction("x", &f), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_fraction("-1%", &f), -EINVAL);
	ck_assert(!mdkctl_parse_count("4M", &c) && c == 4ull << 20);
	ck_assert(!mdkctl_parse_count("12", &c) && c == 12);
	ck_assert_int_eq(mdkctl_parse_count("4X", &c), -EINVAL);
	ck_assert_int_eq(mdkctl_parse_count("-4", &c), -EINVAL);
}
END_TEST

START_TEST(test_report_plot)
{
	struct mdk_point pts[3] = {
		{ .policy = "age", .max_rate = 0.01, .savings = 0.2 },
		{ .policy = "age", .max_rate = 0.02, .savings = 0.3 },
		{ .policy = "age", .max_rate = 0.04, .savings = 0.35 },
	};
	struct mdkctl_curve c[2] = { { "age", pts, 3 }, { "opp", pts, 2 } };
	char dir[] = "/tmp/mdk-plot-XXXXXX", svg[64], png[64], bad[64],
	     err[256];
	struct stat st;
	char head[8] = { 0 };
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/m.svg", dir);
	snprintf(png, sizeof(png), "%s/m.png", dir);
	snprintf(bad, sizeof(bad), "%s/m.pdf", dir);
	ck_assert_msg(!mdkctl_plot_mpc(svg, "it's a test", c, 2, 0.02, err,
				       sizeof(err)),
		      "%s", err);
	ck_assert_msg(!mdkctl_plot_mpc(png, "t", c, 2, -1, err, sizeof(err)),
		      "%s", err);
	ck_assert(!stat(svg, &st) && st.st_size > 500);
	f = fopen(png, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(head, 1, 4, f), 4);
	fclose(f);
	ck_assert(!memcmp(head, "\x89PNG", 4));
	ck_assert_int_eq(mdkctl_plot_mpc(bad, "t", c, 2, -1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err,
			     "expected a plot file ending in .svg or .png"),
		      "%s", err);
	unlink(svg);
	unlink(png);
	rmdir(dir);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_report_json);
	tcase_add_test(tc, test_report_csv);
	tcase_add_test(tc, test_report_parse);
	tcase_add_test(tc, test_report_plot);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(report_suite)
