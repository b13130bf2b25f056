// SPDX-License-Identifier: GPL-2.0
/*
 * Description: tiered curves (libmdk/tier/: mdk_tier_run(),
 * mdk_tier_simulate(), mdk_tier_best()).  The single-pass curve equals
 * the per-interval simulator on every field of every setting, with 1, 2
 * and 3 tiers, capacities and both D(w); with one tier of unit cost it is
 * AGE's and PACE's curve exactly on the fixtures; a small example worked
 * by hand; bad specs are refused with what was expected.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/tier.h>

#include "mdk_test.h"
#include "policy_test.h"

static struct mdk_tiers tiers_of(const char *list)
{
	struct mdk_tiers t;
	char err[256];

	ck_assert_msg(!mdk_tiers_parse(list, &t, err, sizeof(err)), "%s: %s",
		      list, err);
	return t;
}

static void check_same_tier(const struct mdk_tier_point *a,
			    const struct mdk_tier_point *b, const char *what)
{
	unsigned int k;

	ck_assert_msg(a->pt.promotions == b->pt.promotions,
		      "%s: promotions %llu != %llu", what,
		      (unsigned long long)a->pt.promotions,
		      (unsigned long long)b->pt.promotions);
	ck_assert_msg(a->pt.saved == b->pt.saved, "%s: saved %llu != %llu",
		      what, (unsigned long long)a->pt.saved,
		      (unsigned long long)b->pt.saved);
	ck_assert_msg(a->pt.footprint == b->pt.footprint, "%s: footprint",
		      what);
	ck_assert_msg(a->pt.savings == b->pt.savings,
		      "%s: savings %.17g != %.17g", what, a->pt.savings,
		      b->pt.savings);
	ck_assert_msg(a->pt.max_rate == b->pt.max_rate, "%s: max_rate", what);
	ck_assert_msg(a->pt.mean_rate == b->pt.mean_rate, "%s: mean_rate",
		      what);
	ck_assert_msg(a->pt.p99_rate == b->pt.p99_rate, "%s: p99_rate", what);
	ck_assert_msg(a->max_stall == b->max_stall,
		      "%s: max_stall %.17g != %.17g", what, a->max_stall,
		      b->max_stall);
	ck_assert_msg(a->mean_stall == b->mean_stall, "%s: mean_stall", what);
	ck_assert_msg(a->stall_ns == b->stall_ns, "%s: stall_ns %llu != %llu",
		      what, (unsigned long long)a->stall_ns,
		      (unsigned long long)b->stall_ns);
	for (k = 0; k < MDK_TIERS_MAX; k++) {
		ck_assert_msg(a->tier_promotions[k] == b->tier_promotions[k],
			      "%s: tier %u promotions %llu != %llu", what,
			      k + 1, (unsigned long long)a->tier_promotions[k],
			      (unsigned long long)b->tier_promotions[k]);
		ck_assert_msg(a->peak[k] == b->peak[k],
			      "%s: tier %u peak %llu != %llu", what, k + 1,
			      (unsigned long long)a->peak[k],
			      (unsigned long long)b->peak[k]);
	}
	ck_assert_msg(a->feasible == b->feasible, "%s: feasible", what);
	ck_assert_uint_eq(a->np, b->np);
	for (k = 0; k < a->np; k++)
		ck_assert_msg(a->p[k] == b->p[k], "%s: p[%u]", what, k);
}

/* Every point of @spec's curve over @trace against the simulator. */
static void check_tier_curve(const char *trace, const char *list,
			     const char *spec, uint64_t window_ns)
{
	struct mdk_tiers t = tiers_of(list);
	struct mdk_tier_opts o = { .tiers = &t, .window_ns = window_ns };
	struct mdk_tier_point *pts, sim;
	char err[512], one[256], what[512];
	size_t n, i;

	ck_assert_msg(!mdk_tier_run(trace, spec, &o, &pts, &n, err,
				    sizeof(err)),
		      "%s: %s", spec, err);
	ck_assert_uint_gt(n, 0);
	for (i = 0; i < n; i++) {
		mdk_tier_point_format(&pts[i], one, sizeof(one));
		ck_assert_msg(!mdk_tier_simulate(trace, one, &o, &sim, err,
						 sizeof(err)),
			      "%s: %s", one, err);
		snprintf(what, sizeof(what), "%s [%s]", one, list);
		check_same_tier(&pts[i], &sim, what);
	}
	free(pts);
}

static const char *const lists[] = {
	"t:cost=1",
	"cxl:cost=200,cap=5;swap:cost=5000,ratio=3",
	"cxl:cost=100,cap=9;zswap:cost=900,ratio=2.5,cap=7;swap:cost=8000",
};

START_TEST(test_curve_equals_simulation)
{
	static const char *const specs[] = {
		"tage",
		"tpace:P=0/2/7,A=0/1/4/9",
		"tage:T1=1/3/none,T2=2/5/9/none,T3=4/12/none",
		"tpace:P=0/3/9,A=0/2/6,T2=3/6/none,T3=5/12/none",
	};
	char path[64];
	unsigned int seed, l, s;

	for (seed = 1; seed <= 4; seed++) {
		struct tt *t = seed & 1 ? tt_random(seed, 40, 60) :
					  tt_synth(seed, 40, 60, NULL);

		tt_write(t, path, sizeof(path));
		for (l = 0; l < MDK_ARRAY(lists); l++)
			for (s = 0; s < MDK_ARRAY(specs); s++) {
				/* the 3-tier grids need 3 tiers, tage a few */
				if ((s >= 2) != (l == 2) && s != 1)
					continue;
				check_tier_curve(path, lists[l], specs[s],
						 seed == 3 ? 1000 : 0);
			}
		unlink(path);
		tt_free(t);
	}
}
END_TEST

/* One tier "t:cost=1ns", per access: @tspec is @cspec's curve exactly. */
static void check_classic(const char *trace, const char *tspec,
			  const char *cspec)
{
	struct mdk_tiers t = tiers_of("t:cost=1ns");
	struct mdk_tier_opts o = { .tiers = &t, .per_access = true };
	struct mdk_policy *p = tt_policy(cspec, 2);
	struct mdk_tier_point *tp;
	struct mdk_point *cp;
	size_t n, nc, i, j = 0;
	char err[512];

	ck_assert_msg(!mdk_tier_run(trace, tspec, &o, &tp, &n, err,
				    sizeof(err)),
		      "%s", err);
	ck_assert_msg(!mdk_mpc_run(trace, &p, 1, 0, &cp, &nc, err, sizeof(err)),
		      "%s", err);
	for (i = 0; i < n; i++) {
		const struct mdk_point *a = &tp[i].pt, *b;

		if (isinf(tp[i].p[0]))
			continue; /* T1=none: never reclaims */
		ck_assert_uint_lt(j, nc);
		b = &cp[j++];
		ck_assert(tp[i].p[0] == b->p1);
		ck_assert(tp[i].np == 1 || tp[i].p[1] == b->p2);
		ck_assert_msg(a->max_rate == b->max_rate &&
				      tp[i].max_stall == b->max_rate,
			      "%s %zu: max_rate %g %g %g", tspec, i,
			      a->max_rate, tp[i].max_stall, b->max_rate);
		ck_assert(a->mean_rate == b->mean_rate);
		ck_assert(a->p99_rate == b->p99_rate);
		ck_assert_msg(a->savings == b->savings, "%s %zu: %g != %g",
			      tspec, i, a->savings, b->savings);
		ck_assert_uint_eq(a->promotions, b->promotions);
		ck_assert_uint_eq(a->saved, b->saved);
		ck_assert_uint_eq(a->footprint, b->footprint);
	}
	ck_assert_uint_eq(j, nc);
	free(tp);
	free(cp);
	mdk_policy_free(p);
}

START_TEST(test_one_tier_is_classic)
{
	static const char *const fx[] = { "mdk/mix/trace.mdkt",
					  "mdk/redis/trace.mdkt.zst",
					  "mdk/sqlite/trace.mdkt.zst" };
	char path[512], ex[] = "/tmp/mdk-tier-ex-XXXXXX";
	unsigned int i;

	example_trace(ex);
	for (i = 0; i <= MDK_ARRAY(fx); i++) {
		const char *trace = i < MDK_ARRAY(fx) ?
					    fixture(fx[i], path, sizeof(path)) :
					    ex;

		check_classic(trace, "tage:T1=1/2/3/5/8/13/21/34/55/89/none",
			      "age:T=1/2/3/5/8/13/21/34/55/89");
		check_classic(trace, "tpace:P=0/1/3/10/30,A=0/1/2/5/20",
			      "pace:P=0/1/3/10/30,A=0/1/2/5/20");
	}
	unlink(ex);
}
END_TEST

/*
 * Windows 0..5 of 1 us: page 0 accessed in 0 and 5, page 1 in 0 and 2,
 * page 2 in 1.  tage:T1=1,T2=3 with cxl (100 ns, cap 1) and swap (1 us,
 * half a page saved):
 *
 *   page 0, gap 4:  cxl in 2..3, swap in 4 (2 + 0.5 saved), promoted in
 *                   window 5 from swap: 1000 ns
 *   page 1, gap 1:  due in cxl at the end of window 1, accessed in 2:
 *                   promoted from cxl (100 ns), nothing saved
 *   page 1, tail 3: cxl in 4..5 (2 saved); swap due after window 5
 *   page 2, tail 4: cxl in 3..4, swap in 5 (2 + 0.5 saved)
 *
 * saved 7 of a footprint 2 + 3 x 5 = 17; stall 100 in window 2 and 1000
 * in window 5, so max_stall 1000 / 1000 and mean_stall 1100 / 6000; cxl
 * holds 1, 2, 2, 1 pages in windows 2..5 (peak 2, over its capacity),
 * swap 1 in windows 4 and 5.
 */
START_TEST(test_worked_example)
{
	static const struct {
		uint32_t w;
		uint64_t ids[2];
		size_t n;
	} acc[] = { { 0, { 10, 11 }, 2 },
		    { 1, { 12 }, 1 },
		    { 2, { 11 }, 1 },
		    { 5, { 10 }, 1 } };
	struct mdk_trace_writer_opts wo = { .window_us = 1 };
	struct mdk_tiers t =
		tiers_of("cxl:cost=100,cap=1;swap:cost=1us,save=0.5");
	struct mdk_tier_opts o = { .tiers = &t };
	char path[] = "/tmp/mdk-tier-XXXXXX", err[256];
	struct mdk_trace_writer *w;
	struct mdk_tier_point *pts, sim;
	size_t n, i;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(!mdk_trace_writer_open(path, &wo, &w, err, sizeof(err)));
	for (i = 0; i < MDK_ARRAY(acc); i++)
		ck_assert(!mdk_trace_writer_put(w, acc[i].w, acc[i].ids,
						acc[i].n, 0, err, sizeof(err)));
	ck_assert_msg(!mdk_trace_writer_close(w, err, sizeof(err)), "%s", err);
	ck_assert_msg(!mdk_tier_run(path, "tage:T1=1,T2=3", &o, &pts, &n, err,
				    sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(pts[0].pt.saved, 7);
	ck_assert_uint_eq(pts[0].pt.footprint, 17);
	ck_assert(pts[0].pt.savings == 7.0 / 17);
	ck_assert_uint_eq(pts[0].pt.promotions, 2);
	ck_assert_uint_eq(pts[0].tier_promotions[0], 1);
	ck_assert_uint_eq(pts[0].tier_promotions[1], 1);
	ck_assert_uint_eq(pts[0].stall_ns, 1100);
	ck_assert(pts[0].max_stall == 1.0);
	ck_assert(pts[0].mean_stall == 1100.0 / 6000);
	ck_assert(pts[0].pt.max_rate == 1.0);
	ck_assert(pts[0].pt.mean_rate == 2.0 / 5);
	ck_assert_uint_eq(pts[0].peak[0], 2);
	ck_assert_uint_eq(pts[0].peak[1], 1);
	ck_assert(!pts[0].feasible);
	ck_assert_int_eq(mdk_tier_best(pts, n, 1.0), -1);
	ck_assert(!mdk_tier_simulate(path, "tage:T1=1,T2=3", &o, &sim, err,
				     sizeof(err)));
	check_same_tier(&pts[0], &sim, "worked example");
	free(pts);
	/* cxl holding 2 pages makes it feasible, and the best within 1.0 */
	t.t[0].capacity = 2;
	ck_assert(!mdk_tier_run(path, "tage:T1=1,T2=3/none", &o, &pts, &n, err,
				sizeof(err)));
	ck_assert_uint_eq(n, 2);
	ck_assert(pts[0].feasible);
	ck_assert_int_eq(mdk_tier_best(pts, n, 1.0), 0);
	ck_assert_int_eq(mdk_tier_best(pts, n, 0.5), -1);
	free(pts);
	unlink(path);
}
END_TEST

START_TEST(test_bad_specs)
{
	static const struct {
		const char *spec;
		int ret;
		const char *msg;
	} bad[] = {
		{ "tage:T3=5", -EINVAL,
		  "T3 given, but the tier list has 2 tiers" },
		{ "tpace:T1=3", -EINVAL, "no T1" },
		{ "topp:T1=0.1", -EINVAL,
		  "topp: unknown parameter 'T1' (expected sigma)" },
		{ "topp:sigma=-1", -EINVAL, "sigma" },
		{ "tage:T1=0", -EINVAL, "T1=0 is out of range" },
		{ "tage:T1=x", -EINVAL, "bad value 'x' for T1" },
		{ "tage:X=1", -EINVAL,
		  "unknown parameter 'X' (expected T1..T2)" },
		{ "tpace:P=none", -EINVAL, "bad value 'none' for P" },
		{ "tage:T1=5,T1=6", -EINVAL, "T1 given twice" },
		{ "tage:T1=5,T2=3", -EINVAL, "no setting has increasing T's" },
		{ "age:T=3", -EINVAL, "expected tage, tpace or topp" },
		{ "tage:T1", -EINVAL, "expected KEY=VALUES" },
	};
	struct mdk_tiers t = tiers_of("cxl:cost=100;swap:cost=1us");
	struct mdk_tier_opts o = { .tiers = &t }, none = { 0 };
	struct mdk_tier_point *pts, pt;
	struct tt *tr = tt_random(7, 12, 10);
	char path[64], err[512];
	size_t n, i;

	tt_write(tr, path, sizeof(path));
	for (i = 0; i < MDK_ARRAY(bad); i++) {
		err[0] = 0;
		ck_assert_int_eq(mdk_tier_run(path, bad[i].spec, &o, &pts, &n,
					      err, sizeof(err)),
				 bad[i].ret);
		ck_assert_msg(strstr(err, bad[i].msg), "%s: '%s' lacks '%s'",
			      bad[i].spec, err, bad[i].msg);
		ck_assert_ptr_null(pts);
	}
	ck_assert_int_eq(mdk_tier_simulate(path, "tage:T1=2/3,T2=5", &o, &pt,
					   err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "names 2 settings"), "%s", err);
	ck_assert_int_eq(mdk_tier_run(path, "tage", &none, &pts, &n, err,
				      sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "no tier list"), "%s", err);
	unlink(path);
	tt_free(tr);
}
END_TEST

/* A trace without a window length and no window_ns: D(w) = U(w) x 1 ns. */
/* A point's spec: every parameter, none and topp's sigma; snprintf's return. */
START_TEST(test_point_format)
{
	struct mdk_tier_point p = { .pt.policy = "tpace", .np = 4 };
	char buf[64];

	p.p[0] = 2, p.p[1] = 4, p.p[2] = 9, p.p[3] = INFINITY;
	ck_assert_int_eq(mdk_tier_point_format(&p, buf, sizeof(buf)), 26);
	ck_assert_str_eq(buf, "tpace:P=2,A=4,T2=9,T3=none");
	ck_assert_int_eq(mdk_tier_point_format(&p, buf, 9), 26);
	ck_assert_str_eq(buf, "tpace:P=");
	p.pt.policy = "tage", p.np = 2;
	ck_assert_int_eq(mdk_tier_point_format(&p, buf, sizeof(buf)), 14);
	ck_assert_str_eq(buf, "tage:T1=2,T2=4");
	p.pt.policy = "topp-bound", p.np = 1, p.p[0] = 0.001;
	mdk_tier_point_format(&p, buf, sizeof(buf));
	ck_assert_str_eq(buf, "topp:sigma=0.001");
}
END_TEST

START_TEST(test_per_access_fallback)
{
	struct mdk_tiers t = tiers_of("cxl:cost=100;swap:cost=1us");
	struct mdk_tier_opts o = { .tiers = &t }, pa = o;
	struct mdk_tier_point *a, *b;
	struct tt *tr = tt_random(3, 30, 40);
	char path[64], err[512];
	size_t na, nb, i;

	pa.per_access = true;
	tt_write(tr, path, sizeof(path));
	ck_assert(!mdk_tier_run(path, "tage", &o, &a, &na, err, sizeof(err)));
	ck_assert(!mdk_tier_run(path, "tage", &pa, &b, &nb, err, sizeof(err)));
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++)
		check_same_tier(&a[i], &b[i], "per access");
	/* some setting stalls, and per access its share can exceed 1 */
	for (i = 0; i < na && a[i].max_stall <= 1; i++)
		;
	ck_assert_uint_lt(i, na);
	free(a);
	free(b);
	unlink(path);
	tt_free(tr);
}
END_TEST

static Suite *tier_curve_suite(void)
{
	Suite *s = suite_create("tier_curve");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_curve_equals_simulation);
	tcase_add_test(tc, test_one_tier_is_classic);
	tcase_add_test(tc, test_worked_example);
	tcase_add_test(tc, test_bad_specs);
	tcase_add_test(tc, test_per_access_fallback);
	tcase_add_test(tc, test_point_format);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tier_curve_suite)
