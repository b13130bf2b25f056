// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the live evaluator of policy mode (libmdk/evaluator*.c) on
 * synthetic windows.  Its curves equal libmdk's offline generators over
 * the same windows (mdk_mpc_run() on the trace written from them) while
 * the horizon holds every window, and a fresh generator fed only the
 * horizon's windows once it slides; forgetting the pages of processes
 * that are gone changes no curve; a grid widened for a setting off it is
 * rebuilt from the ring alone; the pages a setting picks, reclaimed every
 * window, come back exactly when the exact simulator promotes them; auto-
 * tune picks the best setting within the target; measured and acted rates
 * follow the pinned definitions; with mdk_eval_count_unacted() every
 * setting's curve adds the measured promotions beyond the acted ones, per
 * window; bad windows and specs are refused; the idle ages of the pages
 * not reclaimed count and pick the idlest.
 */
#include <mdk/evaluator.h>

#include "mdk_test.h"
#include "bpf/loader.h"

#define POLICIES "age,paw,pace,opp"

static struct mdk_eval *eval_new(uint32_t H, const char *pols)
{
	struct mdk_eval_opts o = { .horizon = H, .policies = pols };
	char err[512];
	struct mdk_eval *e = mdk_eval_new(&o, err, sizeof(err));

	ck_assert_msg(e, "%s", err);
	return e;
}

/* Feed window @w of @t (ids of t), with @measured outside promotions. */
static void feed(struct mdk_eval *e, const struct tt *t, uint32_t w,
		 uint64_t measured)
{
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint64_t *ids = malloc((t->P + 1) * sizeof(*ids));
	size_t n = tt_window(t, w, pg), i;
	char err[512];

	for (i = 0; i < n; i++)
		ids[i] = t->ids[pg[i]];
	ck_assert_msg(!mdk_eval_window(e, ids, n, measured, true, err,
				       sizeof(err)),
		      "window %u: %s", w, err);
	free(pg);
	free(ids);
}

static void check_points(const struct mdk_point *a, long na,
			 const struct mdk_point *b, long nb, const char *what)
{
	long k;

	ck_assert_msg(na == nb, "%s: %ld points != %ld", what, na, nb);
	for (k = 0; k < na; k++) {
		char w[160];

		snprintf(w, sizeof(w), "%s #%ld", what, k);
		ck_assert(a[k].p1 == b[k].p1 && a[k].p2 == b[k].p2);
		check_same(&a[k], &b[k], w);
	}
}

/* Every curve of @e against mdk_mpc_run() over the trace of @t. */
static void check_offline(struct mdk_eval *e, const struct tt *t)
{
	char path[64], spec[8192], err[512];
	size_t i;

	tt_write(t, path, sizeof(path));
	for (i = 0; i < mdk_eval_npolicies(e); i++) {
		struct mdk_policy *p;
		struct mdk_point *a, *b;
		size_t nb;
		long na;

		mdk_policy_spec(mdk_eval_policy(e, i), spec, sizeof(spec));
		ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)),
			      "%s: %s", spec, err);
		ck_assert_msg(!mdk_mpc_run(path, &p, 1, 0, &b, &nb, err,
					   sizeof(err)),
			      "%s", err);
		na = mdk_eval_curve(e, i, &a, err, sizeof(err));
		ck_assert_msg(na >= 0, "%s", err);
		check_points(a, na, b, (long)nb, spec);
		free(a);
		free(b);
		mdk_policy_free(p);
	}
	unlink(path);
}

START_TEST(test_eval_curves_equal_offline)
{
	struct tt *ts[] = { tt_random(3, 20, 120), tt_synth(4, 24, 400, NULL),
			    tt_synth(5, 16, 300,
				     "zipf:share=0.6,s=1.1,frac=0.2") };
	size_t k;

	for (k = 0; k < MDK_ARRAY(ts); k++) {
		/* Horizons that hold the whole trace: exactly the offline
		 * curves, whatever H (the grids are spelled out). */
		uint32_t Hs[] = { ts[k]->W, ts[k]->W + 7 }, j, w;

		for (j = 0; j < MDK_ARRAY(Hs); j++) {
			struct mdk_eval *e = eval_new(Hs[j], POLICIES);

			for (w = 0; w < ts[k]->W; w++)
				feed(e, ts[k], w, 0);
			check_offline(e, ts[k]);
			mdk_eval_free(e);
		}
		tt_free(ts[k]);
	}
}
END_TEST

/* Windows of @t before @w in which page @p was accessed: the last. */
static uint32_t prev_acc(const struct tt *t, size_t p, uint32_t w)
{
	while (w-- > 0)
		if (tt_get(t, p, w))
			return w;
	return MDK_NONE;
}

/*
 * The horizon [lo, hi] from scratch: a generator for @spec fed only those
 * windows, first accesses inside it compulsory, reuse from the history.
 */
static long ref_horizon(const struct tt *t, const char *spec, uint32_t H,
			uint32_t lo, uint32_t hi, struct mdk_point **pts)
{
	struct mdk_policy *p = tt_policy(spec, H);
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint32_t *st = malloc((t->P + 1) * sizeof(*st));
	uint32_t *ru = malloc((t->P + 1) * sizeof(*ru));
	struct mdk_mpc *m;
	char err[256];
	uint32_t w;
	long n;

	ck_assert(!mdk_mpc_new(p, H, &m, err, sizeof(err)));
	for (w = lo; w <= hi; w++) {
		size_t k, c = tt_window(t, w, pg);

		for (k = 0; k < c; k++) {
			uint32_t pr = prev_acc(t, pg[k], w);

			if (pr == MDK_NONE || pr < lo) {
				st[k] = MDK_NONE;
				ru[k] = pr == MDK_NONE ? 0 : w - pr;
			} else {
				uint32_t pp = prev_acc(t, pg[k], pr);

				st[k] = pr;
				ru[k] = pp == MDK_NONE ? 0 : pr - pp;
			}
		}
		ck_assert_msg(!mdk_mpc_add_accesses(m, w, st, ru, c, err,
						    sizeof(err)),
			      "%s", err);
	}
	n = mdk_mpc_eval(m, lo, hi, 0, pts, err, sizeof(err));
	ck_assert_msg(n >= 0, "%s", err);
	mdk_mpc_free(m);
	mdk_policy_free(p);
	free(pg);
	free(st);
	free(ru);
	return n;
}

START_TEST(test_eval_sliding_equals_fresh)
{
	struct tt *t = tt_random(11, 34, 90), *t2 = tt_synth(6, 30, 250, NULL);
	struct tt *ts[] = { t, t2 };
	uint32_t Hs[] = { 6, 13 };
	size_t k, j, i;

	for (k = 0; k < MDK_ARRAY(ts); k++)
		for (j = 0; j < MDK_ARRAY(Hs); j++) {
			struct mdk_eval *e = eval_new(Hs[j], POLICIES);
			uint32_t w, lo, hi;

			for (w = 0; w < ts[k]->W; w++) {
				feed(e, ts[k], w, 0);
				ck_assert(mdk_eval_horizon(e, &lo, &hi));
				ck_assert_uint_eq(hi, w);
				ck_assert_uint_eq(
					lo, w >= Hs[j] ? w - Hs[j] + 1 : 0);
				if (w % 3 && w != ts[k]->W - 1)
					continue;
				for (i = 0; i < mdk_eval_npolicies(e); i++) {
					struct mdk_point *a, *b;
					char spec[8192], err[256], what[8300];
					long na, nb;

					mdk_policy_spec(mdk_eval_policy(e, i),
							spec, sizeof(spec));
					na = mdk_eval_curve(e, i, &a, err,
							    sizeof(err));
					ck_assert_msg(na >= 0, "%s", err);
					nb = ref_horizon(ts[k], spec, Hs[j], lo,
							 hi, &b);
					snprintf(what, sizeof(what),
						 "%s H=%u [%u,%u]", spec, Hs[j],
						 lo, hi);
					check_points(a, na, b, nb, what);
					free(a);
					free(b);
				}
			}
			mdk_eval_free(e);
		}
	tt_free(t);
	tt_free(t2);
}
END_TEST

static bool gone1(uint64_t id, void *arg)
{
	return mdk_sampler_page_id_proc(id) == 1;
}

/*
 * Three processes' pages (proc numbers 0, 1, 2 in the ids); 1 exits after
 * window 7 and its pages are forgotten, their indices reused by process
 * 3's pages from window 9: the curves are those of the same windows as a
 * trace.
 */
START_TEST(test_eval_forget_gone_processes)
{
	struct tt *t = tt_random(21, 18, 160);
	struct mdk_eval *e = eval_new(t->W, POLICIES);
	size_t p, before;
	uint32_t w;

	for (p = 0; p < t->P; p++) {
		uint32_t proc = (uint32_t)(p % 4);

		t->ids[p] =
			mdk_sampler_page_id(proc, 0x7f0000000000ull + p * 4096);
		for (w = 0; w < t->W; w++)
			if ((proc == 1 && w > 7) || (proc == 3 && w < 9))
				t->acc[p * t->W + w] = 0;
	}
	/* ids must increase with p for tt_write: sort the rows by id. */
	{
		size_t *ord = malloc(t->P * sizeof(*ord)), a, b;
		uint8_t *acc = malloc((size_t)t->P * t->W);
		uint64_t *ids = malloc(t->P * sizeof(*ids));

		for (a = 0; a < t->P; a++)
			ord[a] = a;
		for (a = 1; a < t->P; a++)
			for (b = a;
			     b > 0 && t->ids[ord[b]] < t->ids[ord[b - 1]];
			     b--) {
				size_t x = ord[b];

				ord[b] = ord[b - 1];
				ord[b - 1] = x;
			}
		for (a = 0; a < t->P; a++) {
			ids[a] = t->ids[ord[a]];
			memcpy(acc + a * t->W, t->acc + ord[a] * t->W, t->W);
		}
		free(t->ids);
		free(t->acc);
		t->ids = ids;
		t->acc = acc;
		free(ord);
	}
	for (w = 0; w < t->W; w++) {
		feed(e, t, w, 0);
		if (w == 8) {
			before = mdk_eval_pages(e);
			ck_assert_uint_gt(mdk_eval_forget(e, gone1, NULL), 0);
			ck_assert_uint_lt(mdk_eval_pages(e), before);
		}
	}
	check_offline(e, t);
	mdk_eval_free(e);
	tt_free(t);
}
END_TEST

/*
 * Picking and marking the pages every window is running the policy: a
 * page it reclaimed comes back (an acted promotion) exactly when the
 * exact simulator counts a promotion, window by window.
 */
static void check_picks(const struct tt *t, const char *spec, uint32_t H)
{
	struct mdk_eval *e = eval_new(H, "age,paw,pace");
	struct mdk_eval_sel sel;
	struct mdk_sim *sim;
	struct mdk_point pt;
	struct mdk_policy *p = tt_policy(spec, t->W);
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint64_t acted_total = 0;
	char err[512];
	uint32_t w;

	ck_assert_msg(!mdk_eval_find(e, spec, &sel, err, sizeof(err)), "%s",
		      err);
	ck_assert(!mdk_sim_new(p, 0, 0, &sim, err, sizeof(err)));
	for (w = 0; w < t->W; w++) {
		const uint64_t *ids;
		size_t n, nret;

		ck_assert(!mdk_sim_add(sim, w, pg, tt_window(t, w, pg), err,
				       sizeof(err)));
		feed(e, t, w, 0);
		mdk_eval_returned(e, &nret);
		acted_total += nret;
		ck_assert(!mdk_eval_pick(e, &sel, &ids, &n));
		mdk_eval_mark(e, ids, n);
	}
	ck_assert(!mdk_sim_finish(sim, t->W, &pt, err, sizeof(err)));
	ck_assert_msg(acted_total == pt.promotions,
		      "%s H=%u: %llu pages came back, simulator %llu", spec, H,
		      (unsigned long long)acted_total,
		      (unsigned long long)pt.promotions);
	mdk_sim_free(sim);
	mdk_policy_free(p);
	mdk_eval_free(e);
	free(pg);
}

START_TEST(test_eval_picks_match_simulator)
{
	static const char *const specs[] = {
		"age:T=1",	  "age:T=3",	  "paw:P=1,wait=0",
		"paw:P=2,wait=2", "pace:P=1,A=1", "pace:P=3,A=2",
		"pace:P=0,A=5",
	};
	struct tt *t = tt_random(31, 26, 140), *t2 = tt_synth(8, 22, 300, NULL);
	size_t k;

	for (k = 0; k < MDK_ARRAY(specs); k++) {
		check_picks(t, specs[k], t->W);
		check_picks(t, specs[k], 9); /* P < H: the same decisions */
		check_picks(t2, specs[k], t2->W);
	}
	tt_free(t);
	tt_free(t2);
}
END_TEST

/* Window by window too: the acted rates are the simulator's. */
START_TEST(test_eval_acted_rates_are_the_simulators)
{
	struct tt *t = tt_random(41, 20, 100);
	struct mdk_eval *e = eval_new(t->W, "pace");
	struct mdk_policy *p = tt_policy("pace:P=2,A=1", t->W);
	struct mdk_eval_rates m, a;
	struct mdk_eval_sel sel;
	struct mdk_point pt;
	char err[512];
	uint32_t w;

	ck_assert(!mdk_eval_find(e, "pace:P=2,A=1", &sel, err, sizeof(err)));
	for (w = 0; w < t->W; w++) {
		const uint64_t *ids;
		size_t n;

		/* measured: one promotion a window, to check the pooling */
		feed(e, t, w, 1);
		ck_assert(!mdk_eval_pick(e, &sel, &ids, &n));
		mdk_eval_mark(e, ids, n);
	}
	tt_sim(t, p, 0, 0, &pt);
	mdk_eval_rates(e, &m, &a);
	ck_assert_uint_eq(a.promotions, pt.promotions);
	ck_assert_uint_eq(a.windows, t->W);
	ck_assert(a.max_rate == pt.max_rate);
	ck_assert(a.mean_rate == pt.mean_rate);
	ck_assert(a.p99_rate == pt.p99_rate);
	ck_assert_uint_eq(m.promotions, t->W);
	ck_assert_uint_eq(m.accessed, tt_records(t));
	ck_assert(m.mean_rate == (double)t->W / (double)tt_records(t));
	mdk_policy_free(p);
	mdk_eval_free(e);
	tt_free(t);
}
END_TEST

/* Policy 0's curve of @e. */
static long curve0(struct mdk_eval *e, struct mdk_point **pts)
{
	char err[512];
	long n = mdk_eval_curve(e, 0, pts, err, sizeof(err));

	ck_assert_msg(n > 0, "%s", err);
	return n;
}

START_TEST(test_eval_unacted_counted)
{
	struct tt *t = tt_random(43, 20, 100);
	struct mdk_eval *e = eval_new(t->W, "age");
	struct mdk_point *a, *b;
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint64_t x = 0;
	double xmax = 0;
	long n, k;
	uint32_t w;

	/* Nothing marked reclaimed: every measured promotion is unacted. */
	for (w = 0; w < t->W; w++) {
		size_t u = tt_window(t, w, pg);

		feed(e, t, w, w % 3);
		x += w % 3;
		if (u && (double)(w % 3) / (double)u > xmax)
			xmax = (double)(w % 3) / (double)u;
	}
	n = curve0(e, &a);
	mdk_eval_count_unacted(e, true);
	ck_assert_int_eq(curve0(e, &b), n);
	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(b[k].promotions, a[k].promotions + x);
		ck_assert_uint_eq(b[k].saved, a[k].saved);
		ck_assert(b[k].max_rate >= a[k].max_rate);
		ck_assert(b[k].max_rate >= xmax);
		ck_assert(b[k].max_rate <= a[k].max_rate + xmax + 1e-12);
		/* a setting that promotes nothing: the unacted alone */
		if (!a[k].promotions)
			ck_assert(b[k].max_rate == xmax);
	}
	ck_assert(!a[n - 1].promotions);
	free(b);
	mdk_eval_count_unacted(e, false);
	ck_assert_int_eq(curve0(e, &b), n);
	for (k = 0; k < n; k++)
		check_same(&b[k], &a[k], "unacted off again");
	free(a);
	free(b);
	free(pg);
	mdk_eval_free(e);
	tt_free(t);
}
END_TEST

/* Measured promotions at most the acted ones add nothing. */
START_TEST(test_eval_unacted_not_below_acted)
{
	struct tt *t = tt_random(47, 20, 100);
	struct mdk_eval *e = eval_new(t->W, "age");
	struct mdk_eval_rates m, ac;
	struct mdk_eval_sel sel;
	struct mdk_point *a, *b;
	char err[512];
	long n, k;
	uint32_t w;

	ck_assert(!mdk_eval_find(e, "age:T=1", &sel, err, sizeof(err)));
	for (w = 0; w < t->W; w++) {
		const uint64_t *ids;
		size_t np;

		feed(e, t, w, 0);
		ck_assert(!mdk_eval_pick(e, &sel, &ids, &np));
		mdk_eval_mark(e, ids, np);
	}
	mdk_eval_rates(e, &m, &ac);
	ck_assert_uint_gt(ac.promotions, 0);
	n = curve0(e, &a);
	mdk_eval_count_unacted(e, true);
	ck_assert_int_eq(curve0(e, &b), n);
	for (k = 0; k < n; k++)
		check_same(&b[k], &a[k], "measured 0");
	free(a);
	free(b);
	mdk_eval_free(e);
	tt_free(t);
}
END_TEST

/* Best by mdk_mpc_best()'s order, by hand, among settings matching @v. */
static long brute_best(const struct mdk_policy *p, const struct mdk_point *pts,
		       long n, double target, int mask, const uint64_t *v)
{
	long k, b = -1;

	for (k = 0; k < n; k++) {
		struct mdk_setting s;

		mdk_policy_setting(p, (size_t)k, &s);
		if (((mask & 1) && s.v[0] != v[0]) ||
		    ((mask & 2) && s.v[1] != v[1]) || pts[k].max_rate > target)
			continue;
		if (b < 0 || pts[k].saved > pts[b].saved ||
		    (pts[k].saved == pts[b].saved &&
		     (pts[k].max_rate < pts[b].max_rate ||
		      (pts[k].max_rate == pts[b].max_rate &&
		       pts[k].promotions < pts[b].promotions))))
			b = k;
	}
	return b;
}

START_TEST(test_eval_tune_picks_best_feasible)
{
	static const double targets[] = { 0, 0.01, 0.05, 0.1, 0.3, 1 };
	struct tt *t = tt_synth(9, 28, 400, NULL);
	struct mdk_eval *e = eval_new(20, POLICIES);
	size_t k;
	uint32_t w;

	for (w = 0; w < t->W; w++)
		feed(e, t, w, 0);
	for (k = 0; k < MDK_ARRAY(targets); k++) {
		static const struct {
			const char *spec, *name;
			int mask;
			uint64_t v[2];
		} cases[] = {
			{ "pace", "pace", 0, { 0, 0 } },
			{ "age", "age", 0, { 0, 0 } },
			{ "paw:wait=2", "paw", 2, { 0, 2 } },
			{ "pace:A=3", "pace", 2, { 0, 3 } },
		};
		size_t c;

		for (c = 0; c < MDK_ARRAY(cases); c++) {
			struct mdk_eval_sel sel;
			struct mdk_point pt, *pts;
			char err[512];
			long n, b;
			size_t i;
			int ret;

			for (i = 0; i < mdk_eval_npolicies(e); i++)
				if (!strcmp(mdk_policy_name(
						    mdk_eval_policy(e, i)),
					    cases[c].name))
					break;
			n = mdk_eval_curve(e, i, &pts, err, sizeof(err));
			ck_assert(n > 0);
			b = brute_best(mdk_eval_policy(e, i), pts, n,
				       targets[k], cases[c].mask, cases[c].v);
			ret = mdk_eval_tune(e, cases[c].spec, targets[k], &sel,
					    &pt, err, sizeof(err));
			if (b < 0) {
				ck_assert_int_eq(ret, -ENOENT);
			} else {
				ck_assert_msg(!ret, "%s", err);
				ck_assert_int_eq(sel.policy, (int)i);
				ck_assert_int_eq(sel.setting, b);
				ck_assert(pt.saved == pts[b].saved);
				ck_assert(pt.max_rate <= targets[k]);
			}
			free(pts);
		}
	}
	{
		struct mdk_eval_sel sel;
		char err[256];

		ck_assert_int_eq(mdk_eval_tune(e, "pace", -1, &sel, NULL, err,
					       sizeof(err)),
				 -ENOENT);
		ck_assert_int_eq(sel.policy, -1);
		ck_assert_int_eq(mdk_eval_tune(e, "vmin", 0.1, &sel, NULL, err,
					       sizeof(err)),
				 -ENOENT);
	}
	mdk_eval_free(e);
	tt_free(t);
}
END_TEST

/*
 * A setting off the grid widens it: the generator rebuilt from the ring
 * equals one that had the wider grid from the start, also once the
 * horizon slid.
 */
START_TEST(test_eval_find_widens_grid)
{
	struct tt *t = tt_random(51, 30, 120);
	struct mdk_eval *e = eval_new(12, "age,paw,opp");
	struct mdk_eval *ref =
		eval_new(12, "age,paw:wait=2/5,opp,pace:P=2,A=7");
	struct mdk_eval_sel sel;
	char err[512];
	uint32_t w;
	size_t i;

	for (w = 0; w < t->W; w++) {
		feed(e, t, w, 0);
		feed(ref, t, w, 0);
		if (w == 20) {
			ck_assert_msg(!mdk_eval_find(e, "paw:P=3,wait=5", &sel,
						     err, sizeof(err)),
				      "%s", err);
			ck_assert_int_eq(sel.policy, 1);
			/* not evaluated at all: a new single-point curve */
			ck_assert_msg(!mdk_eval_find(e, "pace:P=2,A=7", &sel,
						     err, sizeof(err)),
				      "%s", err);
			ck_assert_int_eq(sel.policy, 3);
			ck_assert_uint_eq(sel.setting, 0);
		}
	}
	ck_assert_uint_eq(mdk_eval_npolicies(e), 4);
	for (i = 0; i < 4; i++) {
		struct mdk_point *a, *b;
		long na = mdk_eval_curve(e, i, &a, err, sizeof(err));
		long nb = mdk_eval_curve(ref, i, &b, err, sizeof(err));

		check_points(a, na, b, nb,
			     mdk_policy_name(mdk_eval_policy(e, i)));
		free(a);
		free(b);
	}
	/* A setting on the grid is found where it is. */
	ck_assert(!mdk_eval_find(e, "age:T=4", &sel, err, sizeof(err)));
	ck_assert_int_eq(sel.policy, 0);
	ck_assert_uint_eq(sel.setting, 3);
	mdk_eval_free(e);
	mdk_eval_free(ref);
	tt_free(t);
}
END_TEST

START_TEST(test_eval_refuses_bad_input)
{
	struct mdk_eval_opts o = { .horizon = 1, .policies = "age" };
	struct mdk_eval *e;
	struct mdk_eval_sel sel;
	uint64_t ids[] = { 5, 3 };
	char err[512];

	ck_assert_ptr_null(mdk_eval_new(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "horizon"));
	o.horizon = MDK_EVAL_MAX_HORIZON + 1;
	ck_assert_ptr_null(mdk_eval_new(&o, err, sizeof(err)));
	o.horizon = 8;
	o.policies = "age,lru";
	ck_assert_ptr_null(mdk_eval_new(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "lru"));
	o.policies = "age,age:T=2";
	ck_assert_ptr_null(mdk_eval_new(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "twice"));
	o.policies = "nosuch";
	ck_assert_ptr_null(mdk_eval_new(&o, err, sizeof(err)));

	e = eval_new(8, "age,opp");
	ck_assert_int_eq(mdk_eval_window(e, ids, 2, 0, false, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "sorted"));
	ck_assert_int_eq(mdk_eval_windows(e), 0);
	ck_assert_int_eq(mdk_eval_find(e, "age:T=1-3", &sel, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(mdk_eval_find(e, "opp:rho=0.01", &sel, err,
				       sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(mdk_eval_find(e, "vmin:T=2", &sel, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(mdk_eval_find(e, "pace", &sel, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "one setting"));
	sel.policy = 1; /* opp decides nothing online */
	{
		const uint64_t *p;
		size_t n;

		ck_assert_int_eq(mdk_eval_pick(e, &sel, &p, &n), -EOPNOTSUPP);
	}
	mdk_eval_free(e);
}
END_TEST

/* The PACE grid the evaluator makes when none is given stays small. */
START_TEST(test_eval_default_pace_grid)
{
	struct mdk_eval *e = eval_new(240, "pace");
	char spec[1024];

	ck_assert_uint_eq(mdk_policy_settings(mdk_eval_policy(e, 0)),
			  MDK_EVAL_PACE_VALUES * MDK_EVAL_PACE_VALUES);
	mdk_policy_spec(mdk_eval_policy(e, 0), spec, sizeof(spec));
	ck_assert_msg(!strncmp(spec, "pace:P=1-", 9) && strstr(spec, "/239,A="),
		      "%s", spec);
	ck_assert_uint_lt(mdk_eval_memory(e), 4u << 20);
	mdk_eval_free(e);
}
END_TEST

/*
 * Idle ages: pages 10..19 accessed in window 0 only, 20..24 in windows 0
 * and 2, 30 in every window; after window 3 they are 3, 1 and 0 windows
 * idle.  Reclaimed pages leave the histogram; a pick takes the idlest,
 * part of the threshold's age, and unites with the policy's pick.
 */
START_TEST(test_eval_idle_ages)
{
	struct mdk_eval *e = eval_new(8, "age");
	uint64_t w0[16], w2[6], w13[1] = { 30 }, hist[3];
	struct mdk_eval_sel sel;
	const uint64_t *ids;
	size_t n, i;
	char err[512];

	for (i = 0; i < 15; i++)
		w0[i] = 10 + i;
	w0[15] = 30;
	for (i = 0; i < 5; i++)
		w2[i] = 20 + i;
	w2[5] = 30;
	ck_assert_int_eq(mdk_eval_window(e, w0, 16, 0, false, err, sizeof(err)),
			 0);
	ck_assert_int_eq(mdk_eval_window(e, w13, 1, 0, false, err, sizeof(err)),
			 0);
	ck_assert_int_eq(mdk_eval_window(e, w2, 6, 0, false, err, sizeof(err)),
			 0);
	ck_assert_int_eq(mdk_eval_window(e, w13, 1, 0, false, err, sizeof(err)),
			 0);
	/* Ages 3 (10 pages), 1 (5), 0 (1); bins 0, 1, >= 2. */
	ck_assert_uint_eq(mdk_eval_idle_hist(e, hist, 3), 16);
	ck_assert_uint_eq(hist[0], 1);
	ck_assert_uint_eq(hist[1], 5);
	ck_assert_uint_eq(hist[2], 10);
	/* Over age 1: the ten; at age 1, two of the five. */
	ck_assert_int_eq(mdk_eval_pick_idle(e, 1, 2, 2, false, &ids, &n), 0);
	ck_assert_uint_eq(n, 12);
	for (i = 0; i < 10; i++)
		ck_assert_uint_eq(ids[i], 10 + i);
	ck_assert_uint_eq(ids[10], 20);
	ck_assert_uint_eq(ids[11], 21);
	/* Reclaimed pages are neither counted nor picked. */
	mdk_eval_mark(e, ids, 4);
	ck_assert_uint_eq(mdk_eval_idle_hist(e, hist, 3), 12);
	ck_assert_uint_eq(hist[2], 6);
	ck_assert_int_eq(mdk_eval_pick_idle(e, 1, 0, 2, false, &ids, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(ids[0], 14);
	/* United with age:T=1's pick (the pages idle a window or more). */
	ck_assert_int_eq(mdk_eval_find(e, "age:T=1", &sel, err, sizeof(err)),
			 0);
	ck_assert_int_eq(mdk_eval_pick(e, &sel, &ids, &n), 0);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(mdk_eval_pick_idle(e, 1, 0, 2, true, &ids, &n), 0);
	ck_assert_uint_eq(n, 11);
	for (i = 1; i < n; i++)
		ck_assert_uint_lt(ids[i - 1], ids[i]);
	mdk_eval_free(e);
}
END_TEST

static Suite *evaluator_suite(void)
{
	Suite *s = suite_create("evaluator");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_eval_curves_equal_offline);
	tcase_add_test(tc, test_eval_sliding_equals_fresh);
	tcase_add_test(tc, test_eval_forget_gone_processes);
	tcase_add_test(tc, test_eval_picks_match_simulator);
	tcase_add_test(tc, test_eval_acted_rates_are_the_simulators);
	tcase_add_test(tc, test_eval_unacted_counted);
	tcase_add_test(tc, test_eval_unacted_not_below_acted);
	tcase_add_test(tc, test_eval_tune_picks_best_feasible);
	tcase_add_test(tc, test_eval_find_widens_grid);
	tcase_add_test(tc, test_eval_refuses_bad_input);
	tcase_add_test(tc, test_eval_default_pace_grid);
	tcase_add_test(tc, test_eval_idle_ages);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(evaluator_suite)
