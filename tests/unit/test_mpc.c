// SPDX-License-Identifier: GPL-2.0
/*
 * Description: properties of the curves (libmdk/mpc*.c): OPP never exceeds
 * its rate and saves at least as much as any other setting within it;
 * AGE(T) and VMIN(T) promote the same intervals; the whole-trace driver
 * (closed intervals only, derived histograms) equals the live path; a
 * generator kept over a sliding horizon equals one fed only the horizon;
 * errors for misuse.
 */
#include "mdk_test.h"

static struct tt *some_trace(int i)
{
	switch (i % 3) {
	case 0:
		return tt_random((uint64_t)i + 100, 25, 60);
	case 1:
		return tt_synth((uint64_t)i, 30, 500, NULL);
	default:
		return tt_synth((uint64_t)i, 24, 400,
				"zipf:share=0.7,s=1.1,frac=0.2");
	}
}

START_TEST(test_mpc_opp_within_rate)
{
	int i;

	for (i = 0; i < 6; i++) {
		struct tt *t = some_trace(i);
		struct mdk_policy *p = tt_policy("opp", t->W);
		size_t n = mdk_policy_settings(p), k;

		for (k = 0; k < n; k++) {
			struct mdk_setting set;
			struct mdk_sim *s;
			struct mdk_point pt;
			struct mdk_sim_window sw;
			uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
			char err[256];
			uint32_t w;

			mdk_policy_setting(p, k, &set);
			ck_assert(!mdk_sim_new(p, k, 0, &s, err, sizeof(err)));
			for (w = 0; w < t->W; w++)
				ck_assert(!mdk_sim_add(s, w, pg,
						       tt_window(t, w, pg), err,
						       sizeof(err)));
			ck_assert(!mdk_sim_finish(s, t->W, &pt, err,
						  sizeof(err)));
			ck_assert_msg(pt.max_rate <= set.p1,
				      "rho %g: max rate %g", set.p1,
				      pt.max_rate);
			/* In integers: promotions(w) <= rho_ppm U(w) / 10^6. */
			for (w = 0; !mdk_sim_window(s, w, &sw); w++)
				ck_assert(sw.promotions * 1000000 <=
					  set.v[0] * sw.accessed);
			mdk_sim_free(s);
			free(pg);
		}
		mdk_policy_free(p);
		tt_free(t);
	}
}
END_TEST

START_TEST(test_mpc_opp_dominates)
{
	static const char *const others[] = {
		"age",
		"vmin",
		"paw",
		"paw:wait=0/1/4",
		"pace:P=0-20:2,A=0-20:2",
	};
	int i;

	for (i = 0; i < 6; i++) {
		struct tt *t = some_trace(i);
		struct mdk_policy *opp =
			tt_policy("opp:rho=0-0.2:0.005/0.3/0.5/1", t->W);
		struct mdk_point *o;
		size_t no = tt_mpc(t, opp, 0, &o), k, j, q;
		size_t checked = 0;

		for (k = 0; k < MDK_ARRAY(others); k++) {
			struct mdk_policy *p = tt_policy(others[k], t->W);
			struct mdk_point *x;
			size_t nx = tt_mpc(t, p, 0, &x);

			for (j = 0; j < no; j++)
				for (q = 0; q < nx; q++) {
					if (x[q].max_rate > o[j].p1)
						continue;
					checked++;
					ck_assert_msg(
						o[j].saved >= x[q].saved,
						"trace %d: opp(%g) saves %llu < %s p1=%g p2=%g: %llu at max rate %g",
						i, o[j].p1,
						(unsigned long long)o[j].saved,
						x[q].policy, x[q].p1, x[q].p2,
						(unsigned long long)x[q].saved,
						x[q].max_rate);
				}
			free(x);
			mdk_policy_free(p);
		}
		ck_assert_uint_gt(checked, 100);
		free(o);
		mdk_policy_free(opp);
		tt_free(t);
	}
}
END_TEST

START_TEST(test_mpc_age_vmin_same_promotions)
{
	int i;

	for (i = 0; i < 6; i++) {
		struct tt *t = some_trace(i);
		struct mdk_policy *a = tt_policy("age", t->W);
		struct mdk_policy *v = tt_policy("vmin", t->W);
		struct mdk_point *pa, *pv;
		size_t na = tt_mpc(t, a, 0, &pa), nv = tt_mpc(t, v, 0, &pv), k;

		ck_assert_uint_eq(na, nv);
		for (k = 0; k < na; k++) {
			ck_assert_uint_eq(pa[k].promotions, pv[k].promotions);
			ck_assert(pa[k].max_rate == pv[k].max_rate);
			ck_assert(pa[k].p99_rate == pv[k].p99_rate);
			ck_assert(pa[k].mean_rate == pv[k].mean_rate);
			/* VMIN reclaims the same intervals T windows earlier. */
			ck_assert_uint_ge(pv[k].saved, pa[k].saved);
		}
		free(pa);
		free(pv);
		mdk_policy_free(a);
		mdk_policy_free(v);
		tt_free(t);
	}
}
END_TEST

/* mdk_mpc_run (closed intervals, tails at the end, derived histograms). */
START_TEST(test_mpc_run_matches_live)
{
	static const char *const lists[] = {
		"age,vmin,paw,pace,opp",
		"pace:P=1/3,A=2/5,paw:P=3,wait=5,age:T=5,opp:rho=0.1",
		"age:T=3/7,vmin:T=2/3/7,paw:wait=0/2,opp",
	};
	size_t l;

	for (l = 0; l < MDK_ARRAY(lists); l++) {
		struct tt *t = some_trace((int)l + 1);
		struct mdk_policy **pols;
		struct mdk_point *pts[8];
		size_t np, npts[8], i, k;
		char path[64], err[256];

		tt_write(t, path, sizeof(path));
		ck_assert(!mdk_policy_parse_list(lists[l], &pols, &np, err,
						 sizeof(err)));
		ck_assert_msg(!mdk_mpc_run(path, pols, np, MDK_SAVINGS_PAPER,
					   pts, npts, err, sizeof(err)),
			      "%s", err);
		for (i = 0; i < np; i++) {
			struct mdk_point *live;
			size_t n = tt_mpc(t, pols[i], MDK_SAVINGS_PAPER, &live);

			ck_assert_uint_eq(n, npts[i]);
			for (k = 0; k < n; k++)
				check_same(&pts[i][k], &live[k], lists[l]);
			free(live);
			free(pts[i]);
			mdk_policy_free(pols[i]);
		}
		free(pols);
		unlink(path);
		tt_free(t);
	}
}
END_TEST

START_TEST(test_mpc_paper_convention)
{
	struct tt *t = some_trace(1);
	struct mdk_policy *p = tt_policy("pace", t->W);
	struct mdk_point *a, *b;
	size_t n = tt_mpc(t, p, 0, &a), k;

	ck_assert_uint_eq(tt_mpc(t, p, MDK_SAVINGS_PAPER, &b), n);
	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(b[k].saved, a[k].saved + a[k].promotions);
		ck_assert_uint_eq(b[k].footprint, a[k].footprint);
	}
	free(a);
	free(b);
	mdk_policy_free(p);
	tt_free(t);
}
END_TEST

/* Next access of page @p after window @v, or W. */
static uint32_t next_access(const struct tt *t, size_t p, uint32_t v)
{
	uint32_t n;

	for (n = v + 1; n < t->W; n++)
		if (tt_get(t, p, n))
			break;
	return n;
}

static uint32_t prev_access(const struct tt *t, size_t p, uint32_t v)
{
	uint32_t a;

	for (a = v; a-- > 0;)
		if (tt_get(t, p, a))
			return a;
	return MDK_NONE;
}

/*
 * The sliding protocol of mdk/mpc.h against, for every horizon, a fresh
 * generator fed only the horizon's accesses (first accesses inside it
 * carry their history's reuse distance).
 */
static void check_sliding(const struct tt *t, const char *spec, uint32_t H)
{
	struct mdk_policy *pol = tt_policy(spec, H);
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint32_t *st = malloc((t->P + 1) * sizeof(*st));
	uint32_t *ru = malloc((t->P + 1) * sizeof(*ru));
	struct mdk_stream *s;
	struct mdk_mpc *g;
	uint64_t first = 0;
	char err[256];
	uint32_t hi;

	ck_assert(!mdk_stream_new(0, &s));
	ck_assert(!mdk_mpc_new(pol, H, &g, err, sizeof(err)));
	for (hi = 0; hi < t->W; hi++) {
		uint32_t lo = hi >= H ? hi - H + 1 : 0, w;
		struct mdk_point *a, *b;
		struct mdk_mpc *ref;
		long na, nb, k;
		size_t n;

		if (hi >= H) {
			/* Window v = hi - H leaves. */
			uint32_t v = hi - H;
			size_t p;
			int64_t U = 0;

			for (p = 0; p < t->P; p++) {
				uint32_t pr, nx, r;
				struct mdk_interval iv;

				if (!tt_get(t, p, v))
					continue;
				U++;
				pr = prev_access(t, p, v);
				r = pr == MDK_NONE ? 0 : v - pr;
				nx = next_access(t, p, v);
				iv.start = v;
				iv.reuse = r;
				iv.end = nx <= hi - 1 ? nx : MDK_NONE;
				ck_assert_msg(
					!mdk_mpc_add_interval(g, &iv, -1, err,
							      sizeof(err)),
					"%s", err);
				if (nx <= hi - 1)
					ck_assert(!mdk_mpc_add_window(
						g, nx, 0, 1, err, sizeof(err)));
			}
			ck_assert(!mdk_mpc_add_window(g, v, -U, -U, err,
						      sizeof(err)));
		}
		n = tt_window(t, hi, pg);
		ck_assert(!mdk_stream_feed(s, hi, pg, n, st, ru, &first, err,
					   sizeof(err)));
		ck_assert_msg(!mdk_mpc_add_accesses(g, hi, st, ru, n, err,
						    sizeof(err)),
			      "%s", err);
		na = mdk_mpc_eval(g, lo, hi, 0, &a, err, sizeof(err));
		ck_assert_msg(na >= 0, "%s", err);

		/* The reference: only windows lo..hi. */
		ck_assert(!mdk_mpc_new(pol, H, &ref, err, sizeof(err)));
		for (w = lo; w <= hi; w++) {
			size_t k2, m = tt_window(t, w, pg);

			for (k2 = 0; k2 < m; k2++) {
				uint32_t pr = prev_access(t, pg[k2], w);

				if (pr == MDK_NONE || pr < lo) {
					st[k2] = MDK_NONE;
					ru[k2] = pr == MDK_NONE ? 0 : w - pr;
				} else {
					uint32_t pp =
						prev_access(t, pg[k2], pr);

					st[k2] = pr;
					ru[k2] = pp == MDK_NONE ? 0 : pr - pp;
				}
			}
			ck_assert_msg(!mdk_mpc_add_accesses(ref, w, st, ru, m,
							    err, sizeof(err)),
				      "%s", err);
		}
		nb = mdk_mpc_eval(ref, lo, hi, 0, &b, err, sizeof(err));
		ck_assert_int_eq(na, nb);
		for (k = 0; k < na; k++) {
			char what[96];

			snprintf(what, sizeof(what), "%s H=%u [%u,%u] #%ld",
				 spec, H, lo, hi, k);
			check_same(&a[k], &b[k], what);
		}
		free(a);
		free(b);
		mdk_mpc_free(ref);
	}
	mdk_mpc_free(g);
	mdk_stream_free(s);
	mdk_policy_free(pol);
	free(pg);
	free(st);
	free(ru);
}

START_TEST(test_mpc_sliding_horizon)
{
	static const char *const specs[] = {
		"age",
		"vmin",
		"paw:P=0-8,wait=0/1/2/3",
		"pace:P=0-8,A=0-8",
		"opp",
		"age:T=2/5",
	};
	struct tt *t = tt_random(77, 30, 40), *t2 = tt_synth(5, 26, 300, NULL);
	size_t k;

	for (k = 0; k < MDK_ARRAY(specs); k++) {
		check_sliding(t, specs[k], 8);
		check_sliding(t2, specs[k], 11);
	}
	tt_free(t);
	tt_free(t2);
}
END_TEST

START_TEST(test_mpc_errors)
{
	struct mdk_policy *p = tt_policy("age", 4), *lru;
	struct mdk_point *pts;
	struct mdk_mpc *m;
	uint32_t st[2] = { MDK_NONE, 3 }, ru[2] = { 0, 0 };
	struct mdk_interval iv = { 0, 1, 0 };
	char err[256];

	ck_assert(!mdk_policy_new("lru", &lru, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_new(lru, 4, &m, err, sizeof(err)),
			 -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "mdkctl mrc"), "%s", err);
	ck_assert_int_eq(mdk_mpc_new(p, 0, &m, err, sizeof(err)), -EINVAL);
	ck_assert(!mdk_mpc_new(p, 4, &m, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_eval(m, 0, 0, 0, &pts, err, sizeof(err)),
			 -ERANGE);
	ck_assert(!mdk_mpc_add_accesses(m, 0, st, ru, 1, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_add_interval(m, &iv, 2, err, sizeof(err)),
			 -EINVAL);
	/* Window 4 would reuse window 0's slot, which still holds it. */
	ck_assert_int_eq(mdk_mpc_add_accesses(m, 4, st, ru, 1, err,
					      sizeof(err)),
			 -EBUSY);
	ck_assert_msg(strstr(err, "window 0 still holds events"), "%s", err);
	ck_assert_int_eq(mdk_mpc_eval(m, 0, 5, 0, &pts, err, sizeof(err)),
			 -ERANGE);
	mdk_mpc_free(m);
	/* A previous access in the same window is a caller bug. */
	ck_assert(!mdk_mpc_new(p, 8, &m, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_add_accesses(m, 3, st + 1, ru, 1, err,
					      sizeof(err)),
			 -ERANGE);
	ck_assert_msg(strstr(err, "must be earlier"), "%s", err);
	mdk_mpc_free(m);
	mdk_policy_free(lru);
	mdk_policy_free(p);
}
END_TEST

START_TEST(test_mpc_best)
{
	struct mdk_point pts[4] = {
		{ .max_rate = 0.02, .saved = 10, .promotions = 5 },
		{ .max_rate = 0.01, .saved = 10, .promotions = 4 },
		{ .max_rate = 0.01, .saved = 10, .promotions = 3 },
		{ .max_rate = 0.5, .saved = 90, .promotions = 50 },
	};

	ck_assert_int_eq(mdk_mpc_best(pts, 4, 0.05), 2);
	ck_assert_int_eq(mdk_mpc_best(pts, 4, 1), 3);
	ck_assert_int_eq(mdk_mpc_best(pts, 4, 0.001), -1);
}
END_TEST

static Suite *mpc_suite(void)
{
	Suite *s = suite_create("mpc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_mpc_opp_within_rate);
	tcase_add_test(tc, test_mpc_opp_dominates);
	tcase_add_test(tc, test_mpc_age_vmin_same_promotions);
	tcase_add_test(tc, test_mpc_run_matches_live);
	tcase_add_test(tc, test_mpc_paper_convention);
	tcase_add_test(tc, test_mpc_sliding_horizon);
	tcase_add_test(tc, test_mpc_errors);
	tcase_add_test(tc, test_mpc_best);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(mpc_suite)
