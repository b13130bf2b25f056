// SPDX-License-Identifier: GPL-2.0
/*
 * Description: control-socket requests (protocol version 1) decode when
 * well-formed, and every malformed one (not JSON, wrong types, unknown
 * fields or commands, another version, bad paths, oversized strings,
 * trailing bytes, NUL bytes) is refused with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/proto.h"
#include "unit.h"

static int parse(const char *line, struct mdkd_request *req, char *err,
		 size_t errlen)
{
	return mdkd_request_parse(line, strlen(line), req, err, errlen);
}

START_TEST(test_request_ok)
{
	struct mdkd_request req;
	char err[512];

	ck_assert_int_eq(
		parse("{\"v\":1,\"cmd\":\"ping\"}", &req, err, sizeof(err)), 0);
	ck_assert_int_eq(req.cmd, MDKD_CMD_PING);
	ck_assert_int_eq(
		parse(" {\"cmd\":\"status\",\"v\":1,\"cgroup\":\"a/b\"}\r",
		      &req, err, sizeof(err)),
		0);
	ck_assert_int_eq(req.cmd, MDKD_CMD_STATUS);
	ck_assert(req.has_cgroup);
	ck_assert_str_eq(req.cgroup, "a/b");
	ck_assert_int_eq(
		parse("{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"w\","
		      "\"settings\":{\"interval\":\"2s\",\"reclaim_ratio\":0.25,"
		      "\"backoff_max\":3}}",
		      &req, err, sizeof(err)),
		0);
	ck_assert_int_eq(req.cmd, MDKD_CMD_SET);
	ck_assert_uint_eq(req.nsettings, 3);
	ck_assert_str_eq(req.keys[0], "interval");
	ck_assert_str_eq(req.values[0], "2s");
	ck_assert_str_eq(req.values[1], "0.25");
	ck_assert_str_eq(req.values[2], "3");
	ck_assert_int_eq(parse("{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"w\"}",
			       &req, err, sizeof(err)),
			 0);
	ck_assert_int_eq(parse("{\"v\":1,\"cmd\":\"release\",\"cgroup\":\"w\"}",
			       &req, err, sizeof(err)),
			 0);
	ck_assert_int_eq(parse("{\"v\":1,\"cmd\":\"reload\"}", &req, err,
			       sizeof(err)),
			 0);
}
END_TEST

static const struct {
	const char *line, *error;
} bad[] = {
	{ "", "empty request" },
	{ "ping", "not JSON" },
	{ "{\"v\":1,\"cmd\":\"ping\"", "not JSON" },
	{ "{\"v\":1,\"cmd\":\"ping\"} x", "not JSON at offset 21" },
	{ "{\"v\":1,\"cmd\":\"ping\"}{}", "not JSON at offset 20" },
	{ "[1,2]", "expected a JSON object" },
	{ "{\"cmd\":\"ping\"}", "missing \"v\"" },
	{ "{\"v\":1}", "missing \"cmd\"" },
	{ "{\"v\":\"1\",\"cmd\":\"ping\"}", "v: expected an integer" },
	{ "{\"v\":2,\"cmd\":\"ping\"}", "protocol version 2 not supported" },
	{ "{\"v\":1,\"cmd\":3}", "cmd: expected a string" },
	{ "{\"v\":1,\"cmd\":\"explode\"}", "cmd: unknown command 'explode'" },
	{ "{\"v\":1,\"cmd\":\"ping\",\"x\":1}", "unknown field 'x'" },
	{ "{\"v\":1,\"cmd\":\"ping\",\"cgroup\":\"a\"}", "ping: takes no" },
	{ "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\"}",
	  "set: needs \"settings\"" },
	{ "{\"v\":1,\"cmd\":\"set\",\"settings\":{\"a\":\"1\"}}",
	  "set: needs \"cgroup\"" },
	{ "{\"v\":1,\"cmd\":\"status\",\"settings\":{}}", "status: takes no" },
	{ "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"/abs\"}",
	  "cgroup: cgroup path" },
	{ "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"a/../b\"}",
	  "cgroup: cgroup path" },
	{ "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"a/*\"}",
	  "must not be a glob" },
	{ "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":7}",
	  "cgroup: expected a path" },
	{ "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\",\"settings\":[]}",
	  "settings: expected an object" },
	{ "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\",\"settings\":{\"k\":{}}}",
	  "settings: k: expected a string or number" },
	{ "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\",\"settings\":{\"k\":true}}",
	  "settings: k: expected a string or number" },
	{ "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\",\"settings\":{\"\":\"1\"}}",
	  "settings: key '' empty" },
	{ "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"a\\u0000b\"}",
	  "cgroup: expected a path" },
	{ "{\"v\":1,\"cmd\":\"ping\",\"v\":1,\"a\":{\"b\":{\"c\":{\"d\":{}}}}}",
	  "not JSON" },
	{ "{'v':1,'cmd':'ping'}", "not JSON" },
	{ "{\"v\":1,\"cmd\":\"p\xff\"}", "not JSON" },
};

START_TEST(test_request_refused)
{
	struct mdkd_request req;
	char err[512];
	int i = _i;

	err[0] = '\0';
	ck_assert_msg(parse(bad[i].line, &req, err, sizeof(err)) < 0,
		      "accepted case %d: %s", i, bad[i].line);
	ck_assert_msg(strstr(err, bad[i].error), "case %d: got '%s', want '%s'",
		      i, err, bad[i].error);
}
END_TEST

START_TEST(test_request_limits)
{
	static char line[MDKD_REQ_MAX * 2];
	struct mdkd_request req;
	char err[512];
	int n, i;

	/* Over the line limit. */
	n = snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"ping\",\"x\":\"");
	memset(line + n, 'a', MDKD_REQ_MAX);
	strcpy(line + n + MDKD_REQ_MAX, "\"}");
	ck_assert_int_eq(parse(line, &req, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "longer than"));

	/* A value of MDKD_REQ_VALUE_MAX bytes. */
	n = snprintf(
		line, sizeof(line),
		"{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\",\"settings\":{\"k\":\"");
	memset(line + n, 'a', MDKD_REQ_VALUE_MAX);
	strcpy(line + n + MDKD_REQ_VALUE_MAX, "\"}}");
	ck_assert_int_eq(parse(line, &req, err, sizeof(err)), -EINVAL);

	/* More settings than MDKD_REQ_MAX_SETTINGS. */
	n = snprintf(
		line, sizeof(line),
		"{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"a\",\"settings\":{");
	for (i = 0; i <= MDKD_REQ_MAX_SETTINGS; i++)
		n += snprintf(line + n, sizeof(line) - n, "%s\"k%d\":\"1\"",
			      i ? "," : "", i);
	snprintf(line + n, sizeof(line) - n, "}}");
	ck_assert_int_eq(parse(line, &req, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "more than"));

	/* An embedded NUL byte. */
	ck_assert_int_eq(mdkd_request_parse("{\"v\":1,\0\"cmd\":\"ping\"}", 22,
					    &req, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "NUL"));
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_request_ok);
	tcase_add_loop_test(tc, test_request_refused, 0,
			    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_request_limits);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(proto_suite)
