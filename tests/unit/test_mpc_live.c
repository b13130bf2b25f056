// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkctl mpc --live's reading of mdkd's "mpc" reply
 * (cli/mpc_live.c): a reply as mode_policy.c writes it becomes the
 * curves, the running setting with its predicted point, the measured and
 * acted rates and the OPP headroom; the points print as mdkctl mpc's CSV;
 * a malformed reply is refused with the field that was wrong.
 */
#include <string.h>

#include "mdk_test.h"
#include "cli/mpc_live.h"
#include "cli/report.h"

static const char reply[] =
	"{\"cgroup\":\"w\",\"backend\":\"swap\",\"window_s\":2.0,"
	"\"horizon\":30,\"lo\":0,\"hi\":6,\"windows\":7,"
	"\"savings\":\"occupancy\",\"target_rate\":0.01,"
	"\"running\":{\"policy\":\"age:T=2\",\"auto_tune\":false,"
	"\"target_rate\":0.01,\"reason\":\"nothing\",\"setting\":\"age:T=2\","
	"\"tuned\":false,\"predicted\":[2,null,0,0,0,0.5,0,70,140]},"
	"\"measured\":{\"windows\":7,\"promotions\":3,\"accessed\":300,"
	"\"max_rate\":0.02,\"mean_rate\":0.01,\"p99_rate\":0.02},"
	"\"measured_source\":\"swap-ins\","
	"\"acted\":{\"windows\":7,\"promotions\":0,\"accessed\":300,"
	"\"max_rate\":0,\"mean_rate\":0,\"p99_rate\":0},"
	"\"policies\":[{\"policy\":\"age\",\"spec\":\"age:T=1-2\",\"settings\":2,"
	"\"points\":[[1,null,0,0,0,0.6,0,84,140],[2,null,0,0,0,0.5,0,70,140]]},"
	"{\"policy\":\"pace\",\"spec\":\"pace:P=1,A=1\",\"settings\":1,"
	"\"points\":[[1,1,0.1,0.05,0.1,0.7,9,98,140]]},"
	"{\"policy\":\"opp\",\"spec\":\"opp:rho=0.01\",\"settings\":1,"
	"\"points\":[[0.01,null,0.01,0.01,0.01,0.75,3,105,140]]}],"
	"\"opp_headroom\":{\"opp\":\"opp:rho=0.01\",\"opp_savings\":0.75,"
	"\"running_savings\":0.5,\"headroom\":0.25}}";

static int parse(const char *text, struct mdkctl_live_mpc *m, char *err,
		 size_t len)
{
	struct json_object *o = json_tokener_parse(text);
	int ret;

	ck_assert_ptr_nonnull(o);
	ret = mdkctl_live_mpc_parse(o, m, err, len);
	json_object_put(o); /* the parse holds its own reference */
	return ret;
}

START_TEST(test_live_reply_parsed)
{
	struct mdkctl_live_mpc m;
	char err[256], buf[1024];
	FILE *f;

	ck_assert_int_eq(parse(reply, &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m.cgroup, "w");
	ck_assert_str_eq(m.backend, "swap");
	ck_assert_str_eq(m.setting, "age:T=2");
	ck_assert(!m.auto_tune);
	ck_assert_uint_eq(m.lo, 0);
	ck_assert_uint_eq(m.hi, 6);
	ck_assert_uint_eq(m.horizon, 30);
	ck_assert(m.have_predicted);
	ck_assert_str_eq(m.predicted.policy, "age");
	ck_assert_double_eq(m.predicted.savings, 0.5);
	ck_assert(m.measured.have);
	ck_assert_double_eq(m.measured.max_rate, 0.02);
	ck_assert_double_eq(m.acted.promotions, 0);
	ck_assert(m.have_opp && m.have_headroom);
	ck_assert_double_eq(m.headroom, 0.25);
	ck_assert_uint_eq(m.npolicies, 3);
	ck_assert_str_eq(m.names[1], "pace");
	ck_assert_uint_eq(m.npts[0], 2);
	ck_assert(!m.pts[0][1].has_p2);
	ck_assert(m.pts[1][0].has_p2);
	ck_assert_uint_eq(m.pts[1][0].promotions, 9);
	ck_assert_uint_eq(m.pts[2][0].saved, 105);

	f = fmemopen(buf, sizeof(buf), "w");
	ck_assert_ptr_nonnull(f);
	mdkctl_point_csv(f, &m.pts[0][1]);
	mdkctl_point_csv(f, &m.pts[1][0]);
	fclose(f);
	ck_assert_msg(!strncmp(buf, "age,2,", 6) && strstr(buf, "\npace,1,1,"),
		      "CSV rows: %s", buf);
	mdkctl_live_mpc_free(&m);
}
END_TEST

/* No running setting yet (auto-tune warming up), no OPP evaluated. */
START_TEST(test_live_reply_without_setting)
{
	static const char text[] =
		"{\"cgroup\":\"w\",\"backend\":\"cxl\",\"window_s\":30,"
		"\"horizon\":240,\"lo\":0,\"hi\":0,\"target_rate\":0.01,"
		"\"running\":{\"auto_tune\":true,\"reason\":\"warmup\","
		"\"setting\":null,\"predicted\":null},"
		"\"measured\":{\"windows\":0,\"promotions\":0,\"accessed\":0,"
		"\"max_rate\":0,\"mean_rate\":0,\"p99_rate\":0},"
		"\"measured_source\":\"STAR\","
		"\"acted\":{\"windows\":0,\"promotions\":0,\"accessed\":0,"
		"\"max_rate\":0,\"mean_rate\":0,\"p99_rate\":0},"
		"\"policies\":[],\"opp_headroom\":null}";
	struct mdkctl_live_mpc m;
	char err[256];

	ck_assert_int_eq(parse(text, &m, err, sizeof(err)), 0);
	ck_assert_ptr_null(m.setting);
	ck_assert(m.auto_tune && !m.have_predicted && !m.have_opp);
	ck_assert_str_eq(m.reason, "warmup");
	ck_assert_uint_eq(m.npolicies, 0);
	mdkctl_live_mpc_free(&m);
}
END_TEST

static const struct {
	const char *from, *to, *error;
} bad[] = {
	{ "\"cgroup\":\"w\"", "\"cgroup\":7", "cgroup: expected a string" },
	{ "\"hi\":6", "\"hi\":\"6\"", "hi: expected a number" },
	{ "[2,null,0,0,0,0.5,0,70,140]]}", "[2,null,0,0,0,0.5,0,70]]}",
	  "policies[0].points[1]: expected 9 numbers" },
	{ "\"predicted\":[2,null,", "\"predicted\":[null,null,",
	  "running.predicted: expected 9 numbers" },
	{ "\"measured\":{\"windows\":7", "\"measured\":{\"window\":7",
	  "measured.windows: expected a number" },
	{ "\"policies\":[", "\"policies\":7,\"x\":[",
	  "policies: expected an array" },
};

START_TEST(test_live_reply_errors_name_the_field)
{
	char text[sizeof(reply) + 64], err[256];
	const char *at = strstr(reply, bad[_i].from);
	struct mdkctl_live_mpc m;
	size_t pre;

	ck_assert_ptr_nonnull(at);
	pre = (size_t)(at - reply);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)pre, reply, bad[_i].to,
		 at + strlen(bad[_i].from));
	ck_assert_int_eq(parse(text, &m, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, bad[_i].error), "case %d: got '%s'", _i, err);
	ck_assert_ptr_null(m.doc);
}
END_TEST

static Suite *mpc_live_suite(void)
{
	Suite *s = suite_create("mpc_live");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_live_reply_parsed);
	tcase_add_test(tc, test_live_reply_without_setting);
	tcase_add_loop_test(tc, test_live_reply_errors_name_the_field, 0,
			    sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(mpc_live_suite)
