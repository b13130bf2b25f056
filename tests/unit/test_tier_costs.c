// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkd's tier_file (daemon/tier_costs.c) on a fake tree: a
 * missing file is no error ("no tier costs: run mdkctl tier calibrate" in
 * the status); a calibrated file's costs reach the status on reload; a bad
 * file fails the reload naming file:line and keeps the costs read before;
 * a bad file at start stops mdkd with file:line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "daemon/manager.h"
#include "daemon/request.h"
#include "fakecg.h"
#include "unit.h"

static char tiers[PATH_MAX + 16];

/* The configuration: the fake tree's roots and tier_file = @tiers. */
static void conf(struct fakecg *f)
{
	snprintf(tiers, sizeof(tiers), "%s/tiers", f->top);
	fake_write(f->conf,
		   "[global]\ncgroup_root = %s\nproc_root = %s\n"
		   "state_dir = %s\nsocket = %s\ntier_file = %s\n",
		   f->root, f->proc, f->state, f->sock, tiers);
}

static struct mdkd *start(struct fakecg *f, char *err, size_t errlen)
{
	struct mdkd_config *cfg;
	struct mdkd *d;

	ck_assert_msg(!mdkd_config_load(f->conf, &cfg, err, errlen), "%s", err);
	d = mdkd_new(cfg, f->conf, NULL, false, mdkd_request_handle, err,
		     errlen);
	if (!d)
		mdkd_config_free(cfg);
	return d;
}

/* daemon.tier_costs of the status, as a JSON string of itself. */
static char *costs_of(struct mdkd *d)
{
	static const char line[] = "{\"v\":1,\"cmd\":\"status\"}";
	static char text[2048];
	struct mdkd_buf out = { 0 };
	struct json_object *o, *dm, *c;

	mdkd_request_handle(d, line, strlen(line), &out);
	o = json_tokener_parse(out.data);
	ck_assert_ptr_nonnull(o);
	mdkd_buf_free(&out);
	ck_assert(json_object_object_get_ex(o, "daemon", &dm));
	ck_assert(json_object_object_get_ex(dm, "tier_costs", &c));
	snprintf(text, sizeof(text), "%s",
		 json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return text;
}

START_TEST(test_missing_then_reload)
{
	struct fakecg f;
	struct mdkd *d;
	char err[1024], *c;

	fake_setup(&f, NULL);
	conf(&f);
	d = start(&f, err, sizeof(err));
	ck_assert_msg(d, "%s", err);
	ck_assert(!d->costs.loaded);
	c = costs_of(d);
	ck_assert_msg(
		strstr(c, "\"loaded\":false") &&
			strstr(c, "no tier costs: run mdkctl tier calibrate") &&
			strstr(c, "\"tiers\":[]"),
		"%s", c);

	fake_write(tiers, "# calibrated\ncxl:cost=2100ns,cap=1024\n"
			  "zswap:cost=9000ns\nswap:cost=80000ns\n");
	ck_assert_msg(!mdkd_reload_config(d, err, sizeof(err)), "%s", err);
	c = costs_of(d);
	ck_assert_msg(
		strstr(c, "\"loaded\":true") &&
			strstr(c,
			       "{\"name\":\"cxl\",\"cost_ns\":2100,\"capacity_pages\":1024}") &&
			strstr(c,
			       "{\"name\":\"swap\",\"cost_ns\":80000,\"capacity_pages\":null}") &&
			strstr(c, " UTC\""),
		"%s", c);

	/* bad on line 3: the reload fails there, the costs stay */
	fake_write(tiers, "cxl:cost=3000ns\n\nzswap:cost=soon\n");
	ck_assert_int_eq(mdkd_reload_config(d, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "tiers:3") && strstr(err, "cost 'soon'"),
		      "%s", err);
	ck_assert_str_eq(d->last_reload_error, err);
	ck_assert(d->costs.loaded);
	ck_assert_uint_eq(d->costs.tiers.n, 3);
	ck_assert_uint_eq(d->costs.tiers.t[0].cost_ns, 2100);

	/* removed: back to none, no error */
	unlink(tiers);
	ck_assert_msg(!mdkd_reload_config(d, err, sizeof(err)), "%s", err);
	ck_assert(!d->costs.loaded);
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_bad_file_at_start)
{
	struct fakecg f;
	char err[1024];

	fake_setup(&f, NULL);
	conf(&f);
	fake_write(tiers, "swap:cost=80us\ncxl:cost=2us\n");
	ck_assert_ptr_null(start(&f, err, sizeof(err)));
	ck_assert_msg(strstr(err, "tiers:2") && strstr(err, "costs less"), "%s",
		      err);
	fake_teardown(&f);
}
END_TEST

static Suite *tier_costs_suite(void)
{
	Suite *s = suite_create("tier_costs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_missing_then_reload);
	tcase_add_test(tc, test_bad_file_at_start);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tier_costs_suite)
