// SPDX-License-Identifier: GPL-2.0
/*
 * Description: policy specs and grids (libmdk/policy*.c): names, values,
 * ranges and lists, default grids for a trace's length, settings and
 * their formatting, and errors that say what was expected.
 */
#include "mdk_test.h"

static struct mdk_policy *parse(const char *spec)
{
	struct mdk_policy *p;
	char err[256];

	ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)), "%s: %s",
		      spec, err);
	return p;
}

START_TEST(test_policy_registry)
{
	static const char *const names[] = { "age", "vmin", "paw", "pace",
					     "opp", "lopp", "lru", "opt" };
	size_t i;

	ck_assert_uint_eq(mdk_policy_count(), MDK_ARRAY(names));
	for (i = 0; i < MDK_ARRAY(names); i++) {
		ck_assert_str_eq(mdk_policy_name_at(i), names[i]);
		ck_assert_ptr_nonnull(mdk_policy_help_at(i));
	}
	ck_assert_ptr_null(mdk_policy_name_at(i));
}
END_TEST

START_TEST(test_policy_grids)
{
	struct mdk_policy *p;
	struct mdk_setting s;
	char buf[64], err[256];

	p = parse("AGE:T=2/5-7/20-30:5");
	ck_assert(!mdk_policy_resolve(p, 100, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 1 + 3 + 3);
	ck_assert(!mdk_policy_setting(p, 4, &s));
	ck_assert(s.v[0] == 20 && s.p1 == 20 && !s.has_p2);
	mdk_policy_format(p, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "age:T=2");
	ck_assert_int_eq(mdk_policy_setting(p, 7, &s), -ERANGE);
	mdk_policy_free(p);

	/* PAW: P major, wait minor; defaults for what is left out. */
	p = parse("paw:wait=1/3");
	ck_assert(!mdk_policy_resolve(p, 10, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 9 * 2);
	ck_assert(!mdk_policy_setting(p, 3, &s));
	ck_assert(s.v[0] == 2 && s.v[1] == 3 && s.has_p2);
	mdk_policy_format(p, 3, buf, sizeof(buf));
	ck_assert_str_eq(buf, "paw:P=2,wait=3");
	mdk_policy_free(p);

	/* Fractions are exact in ppm. */
	p = parse("opp:rho=0.001/1%/0-0.002:0.0005/100%");
	ck_assert(!mdk_policy_resolve(p, 10, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 7);
	ck_assert(!mdk_policy_setting(p, 1, &s));
	ck_assert_uint_eq(s.v[0], 500);
	ck_assert(!mdk_policy_setting(p, 4, &s));
	ck_assert_uint_eq(s.v[0], 2000);
	ck_assert(!mdk_policy_setting(p, 5, &s));
	ck_assert_uint_eq(s.v[0], 10000);
	ck_assert(s.p1 == 0.01);
	mdk_policy_format(p, 6, buf, sizeof(buf));
	ck_assert_str_eq(buf, "opp:rho=1");
	mdk_policy_free(p);

	/* Sizes take binary suffixes. */
	p = parse("lru:k=4K/1M");
	ck_assert(!mdk_policy_resolve(p, 10, err, sizeof(err)));
	ck_assert(!mdk_policy_setting(p, 1, &s));
	ck_assert_uint_eq(s.v[0], 1 << 20);
	ck_assert(mdk_policy_has(p, "k"));
	ck_assert(!mdk_policy_set(p, "k", "7", err, sizeof(err)));
	ck_assert(!mdk_policy_resolve(p, 10, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 1);
	mdk_policy_free(p);
}
END_TEST

START_TEST(test_policy_defaults)
{
	struct mdk_policy *p;
	struct mdk_setting s;
	char err[256];

	p = parse("age");
	ck_assert(!mdk_policy_resolve(p, 240, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 239);
	/* Resolving again for another trace follows it. */
	ck_assert(!mdk_policy_resolve(p, 30, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 29);
	mdk_policy_free(p);

	p = parse("opp");
	ck_assert(!mdk_policy_resolve(p, 240, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 51 + 95);
	ck_assert(!mdk_policy_setting(p, 50, &s));
	ck_assert_uint_eq(s.v[0], 50000);
	ck_assert(!mdk_policy_setting(p, 51, &s));
	ck_assert_uint_eq(s.v[0], 60000);
	mdk_policy_free(p);

	p = parse("paw");
	ck_assert(!mdk_policy_resolve(p, 240, err, sizeof(err)));
	ck_assert(!mdk_policy_setting(p, 0, &s));
	ck_assert_uint_eq(s.v[1], 2);
	mdk_policy_free(p);

	p = parse("pace");
	ck_assert(!mdk_policy_resolve(p, 240, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 239 * 239);
	ck_assert(!mdk_policy_resolve(p, 3000, err, sizeof(err)));
	ck_assert_uint_le(mdk_policy_settings(p), 64 * 64);
	mdk_policy_free(p);

	p = parse("lru");
	ck_assert(!mdk_policy_resolve(p, 100, err, sizeof(err)));
	ck_assert_uint_eq(mdk_policy_settings(p), 100);
	mdk_policy_free(p);
}
END_TEST

START_TEST(test_policy_lists)
{
	struct mdk_policy **v;
	char err[256];
	size_t n, i;

	ck_assert(!mdk_policy_parse_list("age,paw:wait=3,P=2,opp:rho=0.1,vmin",
					 &v, &n, err, sizeof(err)));
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(mdk_policy_name(v[1]), "paw");
	ck_assert(mdk_policy_has(v[1], "wait") && mdk_policy_has(v[1], "P"));
	ck_assert(!mdk_policy_has(v[0], "T"));
	ck_assert_int_eq(mdk_policy_kind(v[2]), MDK_POLICY_BUDGET);
	for (i = 0; i < n; i++)
		mdk_policy_free(v[i]);
	free(v);

	ck_assert_int_eq(mdk_policy_parse_list("T=3,age", &v, &n, err,
					       sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "must follow a policy name"), "%s", err);
	ck_assert_int_eq(mdk_policy_parse_list("", &v, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(mdk_policy_parse_list("age,nope", &v, &n, err,
					       sizeof(err)),
			 -ENOENT);
	ck_assert_msg(
		strstr(err, "unknown policy 'nope' (expected one of age, vmin"),
		"%s", err);
}
END_TEST

START_TEST(test_policy_errors)
{
	static const struct {
		const char *spec;
		int ret;
		const char *msg;
	} bad[] = {
		{ "lfu", -ENOENT, "unknown policy 'lfu'" },
		{ "age:T", -EINVAL, "expected KEY=VALUES" },
		{ "age:T=", -EINVAL, "bad value '' for T" },
		{ "age:T=5-2", -EINVAL, "bad value '5-2'" },
		{ "age:T=1-9:0", -EINVAL, "bad value" },
		{ "age:T=3:2", -EINVAL, "bad value" },
		{ "age:T=1/", -EINVAL, "bad value ''" },
		{ "age:T=99999999999", -EINVAL,
		  "out of range (expected 1 to 4294967294)" },
		{ "age:T=1-2000000", -E2BIG, "more than 1000000 values" },
		{ "opp:rho=-0.1", -EINVAL,
		  "expected a fraction such as 0.01 or 1%" },
		{ "opp:rho=1.5", -EINVAL,
		  "rho=1.5 is out of range (expected 0 to 1)" },
		{ "paw:P=1,x=2", -EINVAL,
		  "unknown parameter 'x' (expected P, wait)" },
		{ "lru:k=0", -EINVAL, "out of range" },
		{ "lru:k=5Q", -EINVAL, "expected a number of pages" },
	};
	struct mdk_policy *p;
	char err[256];
	size_t i;

	for (i = 0; i < MDK_ARRAY(bad); i++) {
		err[0] = 0;
		ck_assert_msg(mdk_policy_new(bad[i].spec, &p, err,
					     sizeof(err)) == bad[i].ret,
			      "%s", bad[i].spec);
		ck_assert_msg(strstr(err, bad[i].msg), "%s: '%s'", bad[i].spec,
			      err);
	}
	/* Too many settings in all: 2000 x 2000. */
	p = parse("pace:P=1-2000,A=1-2000");
	ck_assert_int_eq(mdk_policy_resolve(p, 10, err, sizeof(err)), -E2BIG);
	mdk_policy_free(p);
}
END_TEST

static Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_policy_registry);
	tcase_add_test(tc, test_policy_grids);
	tcase_add_test(tc, test_policy_defaults);
	tcase_add_test(tc, test_policy_lists);
	tcase_add_test(tc, test_policy_errors);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_suite)
