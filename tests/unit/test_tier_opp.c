// SPDX-License-Identifier: GPL-2.0
/*
 * Description: tiered OPP (libmdk/tier/opp.c, Documentation/mdk.rst,
 * "Tiered OPP").  Without capacities the upper bound and the schedule are
 * one point and its savings are the optimum of an integer program that
 * GLPK solves from the trace matrix (tier_ilp.c), on random traces with
 * one, two and three tiers (dominated and equal-cost ones too) and
 * several budgets; with a capacity, bound >= ILP optimum >= schedule, the
 * schedule's own placements (counted here from the trace matrix) within
 * every capacity and budget, and the gap is printed; with
 * one tier of cost 1 ns and saving 1, per accessed page, it is classic
 * OPP(rho) on the committed fixtures, every field; bad input is refused.
 */
#include <math.h>

#include <mdk/tier.h>

#include "libmdk/tier/opp_int.h"
#include "policy_test.h"
#include "tier_ilp.h"

static void tiers(const char *spec, struct mdk_tiers *t)
{
	char err[256];

	ck_assert_msg(!mdk_tiers_parse(spec, t, err, sizeof(err)), "%s: %s",
		      spec, err);
}

/* Each window's budget floor(sigma D(w)), from the matrix itself. */
static void budgets(const struct tt *t, uint64_t window_ns, uint64_t ppm,
		    uint64_t *b)
{
	for (uint32_t w = 0; w < t->W; w++) {
		uint64_t D = window_ns, U = 0;

		for (size_t p = 0; p < t->P; p++)
			U += tt_get(t, p, w);
		if (!window_ns)
			D = U;
		b[w] = ppm * D / 1000000u;
	}
}

static uint64_t pages_used(const struct tt *t)
{
	uint64_t n = 0;

	for (size_t p = 0; p < t->P; p++)
		for (uint32_t w = 0; w < t->W; w++)
			if (tt_get(t, p, w)) {
				n++;
				break;
			}
	return n;
}

static double ilp_savings(const struct tier_ilp *ilp,
			  const struct mdk_tier_point *pt)
{
	return pt->pt.footprint ? (double)ilp->saved_ppm /
					  ((double)pt->pt.footprint * 1e6) :
				  0;
}

static void same_point(const struct mdk_tier_point *a,
		       const struct mdk_tier_point *b, const char *what)
{
	ck_assert_msg(!strcmp(a->pt.policy, b->pt.policy) &&
			      a->pt.max_rate == b->pt.max_rate &&
			      a->pt.mean_rate == b->pt.mean_rate &&
			      a->pt.p99_rate == b->pt.p99_rate &&
			      a->pt.savings == b->pt.savings &&
			      a->pt.promotions == b->pt.promotions &&
			      a->pt.saved == b->pt.saved &&
			      a->pt.footprint == b->pt.footprint &&
			      a->np == b->np && a->p[0] == b->p[0] &&
			      a->max_stall == b->max_stall &&
			      a->mean_stall == b->mean_stall &&
			      a->stall_ns == b->stall_ns &&
			      a->feasible == b->feasible,
		      "%s: bound and schedule differ", what);
	for (unsigned int k = 0; k < MDK_TIERS_MAX; k++)
		ck_assert_msg(a->tier_promotions[k] == b->tier_promotions[k] &&
				      a->peak[k] == b->peak[k],
			      "%s: tier %u differs", what, k);
}

/* Run topp over @t for @sigma; @o's tiers given. */
static void run(const struct tt *t, const double *sigma, size_t n,
		const struct mdk_tier_opts *o, struct mdk_tier_point *ub,
		struct mdk_tier_point *sched)
{
	char path[64], err[256];

	tt_write(t, path, sizeof(path));
	ck_assert_msg(!mdk_tier_opp(path, sigma, n, o, ub, sched, err,
				    sizeof(err)),
		      "%s", err);
	unlink(path);
}

static const double sigmas[] = { 0, 0.1, 0.25, 0.5, 1, 2.5 };
#define NS MDK_ARRAY(sigmas)

/* The ILP optimum of @t at sigmas[i]; its savings in *@sav. */
static void ilp_at(const struct tt *t, const struct mdk_tiers *tl,
		   uint64_t window_ns, size_t i, struct tier_ilp *ilp)
{
	uint64_t *b = calloc(t->W, sizeof(*b));

	budgets(t, window_ns, (uint64_t)llround(sigmas[i] * 1e6), b);
	ck_assert_int_eq(tier_ilp_solve(t, tl, b, 60, ilp), 0);
	free(b);
}

/* No capacities: bound == schedule == the ILP optimum, exactly. */
START_TEST(test_topp_exact_uncapped)
{
	static const char *const lists[] = {
		"a:cost=3",
		"z:cost=2,save=0.4;s:cost=7",
		"z:cost=2,save=0.4;m:cost=3,save=0.7;s:cost=7",
		"c:cost=2;s:cost=9",
		"z:cost=3,save=0.5;m:cost=3,save=0.8;s:cost=4,save=0.8",
		"z:cost=1,save=0.3;m:cost=4,save=0.6;s:cost=5",
	};
	struct mdk_tier_point ub[NS], sched[NS];
	struct mdk_tiers tl;
	size_t checked = 0;

	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct tt *t = tt_random(seed, 3 + seed % 8, 3 + seed % 9);

		for (size_t l = 0; l < MDK_ARRAY(lists); l++) {
			for (int pa = 0; pa < 2; pa++) {
				struct mdk_tier_opts o = { .tiers = &tl };

				tiers(lists[l], &tl);
				o.per_access = pa;
				o.window_ns = pa ? 0 : 20;
				run(t, sigmas, NS, &o, ub, sched);
				for (size_t i = 0; i < NS; i++) {
					struct tier_ilp ilp;
					char what[160];

					snprintf(what, sizeof(what),
						 "seed %llu, %s, sigma %g%s",
						 (unsigned long long)seed,
						 lists[l], sigmas[i],
						 pa ? ", per access" : "");
					same_point(&ub[i], &sched[i], what);
					ilp_at(t, &tl, o.window_ns, i, &ilp);
					ck_assert_msg(
						ub[i].pt.savings ==
							ilp_savings(&ilp,
								    &ub[i]),
						"%s: savings %.17g, ILP %.17g",
						what, ub[i].pt.savings,
						ilp_savings(&ilp, &ub[i]));
					ck_assert_msg(ub[i].feasible &&
							      ub[i].max_stall <=
								      sigmas[i],
						      "%s: max stall %g", what,
						      ub[i].max_stall);
					ck_assert_str_eq(ub[i].pt.policy,
							 "topp");
					ck_assert_uint_eq(ub[i].np, 1);
					ck_assert(ub[i].p[0] == sigmas[i]);
					checked++;
				}
			}
		}
		tt_free(t);
	}
	ck_assert_uint_eq(checked, 12 * MDK_ARRAY(lists) * 2 * NS);
}
END_TEST

/* Within every capacity and budget: peaks, and stall shares. */
static void check_feasible(const struct mdk_tier_point *pt,
			   const struct mdk_tiers *tl, double sigma,
			   const char *what)
{
	ck_assert_msg(pt->feasible, "%s: schedule infeasible", what);
	for (unsigned int k = 0; k < tl->n; k++)
		ck_assert_msg(!tl->t[k].capacity ||
				      pt->peak[k] <= tl->t[k].capacity,
			      "%s: tier %u peak %llu over %llu", what, k,
			      (unsigned long long)pt->peak[k],
			      (unsigned long long)tl->t[k].capacity);
	ck_assert_msg(pt->max_stall <= sigma, "%s: max stall %g", what,
		      pt->max_stall);
}

/* The integer programs solved by check_capped(): count, size, time. */
static size_t ilp_runs, ilp_vars, checked, feasible_ub;
static double ilp_secs_max;

/* ub >= ILP >= schedule, the relative gaps in @gu and @gs (%). */
static void check_capped(const struct tt *t, const char *const *list,
			 uint64_t L, const double *sg, size_t ns, double *gu,
			 double *gs)
{
	struct mdk_tier_point ub[NS], sched[NS];
	struct mdk_tier_opts o = { .window_ns = L };
	struct mdk_tiers tl;
	char spec[160];

	/* the first tier holds a third of the pages */
	snprintf(spec, sizeof(spec), "%s%llu%s", list[0],
		 (unsigned long long)((pages_used(t) + 2) / 3 ?: 1), list[1]);
	tiers(spec, &tl);
	o.tiers = &tl;
	o.per_access = !L;
	run(t, sg, ns, &o, ub, sched);
	for (size_t i = 0; i < ns; i++) {
		uint64_t *b = calloc(t->W, sizeof(*b));
		struct tier_ilp ilp;
		double opt;
		char what[200];

		snprintf(what, sizeof(what), "%s, sigma %g", spec, sg[i]);
		budgets(t, L, (uint64_t)llround(sg[i] * 1e6), b);
		ck_assert_int_eq(tier_ilp_solve(t, &tl, b, 60, &ilp), 0);
		free(b);
		ilp_runs++;
		ilp_vars += ilp.vars;
		ilp_secs_max = fmax(ilp_secs_max, ilp.secs);
		opt = ilp_savings(&ilp, &ub[i]);
		check_feasible(&sched[i], &tl, sg[i], what);
		ck_assert_msg(ub[i].pt.savings >= opt &&
				      opt >= sched[i].pt.savings,
			      "%s: bound %.17g, ILP %.17g, schedule %.17g",
			      what, ub[i].pt.savings, opt, sched[i].pt.savings);
		ck_assert_uint_eq(ub[i].pt.footprint, sched[i].pt.footprint);
		/* a bound within every capacity is the optimum itself */
		if (ub[i].feasible)
			same_point(&ub[i], &sched[i], what);
		feasible_ub += ub[i].feasible;
		checked++;
		if (gu) {
			gu[i] = opt ? 100 * (ub[i].pt.savings - opt) / opt : 0;
			gs[i] = opt ? 100 * (opt - sched[i].pt.savings) / opt :
				      0;
		}
	}
}

/*
 * The node's capacity exactly the bound's peak: the bound is feasible and
 * the schedule is the bound; one page less: the bound is infeasible and
 * no higher (the Lagrangian bound may lower it), and the schedule fits.
 */
static void check_tight(const struct tt *t, uint64_t L)
{
	struct mdk_tier_point ub[NS], sched[NS], u2[NS], s2[NS];
	struct mdk_tier_opts o = { .window_ns = L, .per_access = !L };
	struct mdk_tiers tl;

	tiers("cxl:cost=2,cap=1G;zswap:cost=5,ratio=3;swap:cost=9", &tl);
	o.tiers = &tl;
	run(t, sigmas, NS, &o, u2, s2);
	for (size_t i = 0; i < NS; i++) {
		tl.t[0].capacity = u2[i].peak[0];
		if (!tl.t[0].capacity)
			continue;
		run(t, sigmas, NS, &o, ub, sched);
		ck_assert(ub[i].feasible &&
			  ub[i].pt.savings == u2[i].pt.savings);
		same_point(&ub[i], &sched[i], "capacity at the peak");
		tl.t[0].capacity--;
		if (!tl.t[0].capacity)
			continue;
		run(t, sigmas, NS, &o, ub, sched);
		ck_assert(!ub[i].feasible &&
			  ub[i].pt.savings <= u2[i].pt.savings);
		check_feasible(&sched[i], &tl, sigmas[i],
			       "a page under the peak");
		ck_assert(sched[i].pt.savings <= ub[i].pt.savings);
	}
}

/*
 * The schedule's own placements against the trace matrix, counted here:
 * no more intervals of a gap placed in a window than the trace has, every
 * tier's occupancy within its capacity in every window, every window's
 * stall within floor(sigma D), and the point's savings, stall and peaks
 * those of the placements.
 */
static void check_placements(const struct tt *t, const struct mdk_tiers *tl,
			     uint64_t L, double sigma)
{
	struct mdk_tier_opts o = { .tiers = tl,
				   .window_ns = L,
				   .per_access = !L };
	uint32_t W = t->W;
	uint64_t *have = calloc((size_t)(W + 1) * (W + 1), sizeof(*have));
	uint64_t *used = calloc((size_t)(W + 1) * (W + 1), sizeof(*used));
	uint64_t *stall = calloc(W + 1, sizeof(*stall));
	uint64_t *b = calloc(W, sizeof(*b));
	uint64_t occ[MDK_TIERS_MAX][64] = { { 0 } }, ppm = 0, total = 0;
	struct mdk_tier_point pt;
	struct topp_place *log;
	char path[64], err[256];
	size_t n;

	ck_assert(W < 64 && have && used && stall && b);
	for (size_t p = 0; p < t->P; p++) {
		int64_t last = -1;

		for (uint32_t w = 0; w <= W; w++) {
			if (w < W && !tt_get(t, p, w))
				continue;
			if (last >= 0 && w - last - 1 >= 1)
				have[w * (W + 1) + (w - last - 1)]++;
			last = w;
		}
	}
	tt_write(t, path, sizeof(path));
	ck_assert_msg(!mdk__tier_opp_log(path, sigma, &o, &pt, &log, &n, err,
					 sizeof(err)),
		      "%s", err);
	unlink(path);
	budgets(t, L, (uint64_t)llround(sigma * 1e6), b);
	for (size_t i = 0; i < n; i++) {
		const struct topp_place *q = &log[i];

		ck_assert(q->n <= W && q->g >= 1 && q->g <= q->n &&
			  q->k < tl->n && q->x > 0);
		used[q->n * (W + 1) + q->g] += q->x;
		ck_assert_msg(
			used[q->n * (W + 1) + q->g] <=
				have[q->n * (W + 1) + q->g],
			"window %u gap %u: more placed than the trace has",
			q->n, q->g);
		for (uint32_t w = q->n - q->g; w < q->n; w++)
			occ[q->k][w] += q->x;
		if (q->n < W)
			stall[q->n] += tl->t[q->k].cost_ns * q->x;
		ppm += (uint64_t)tl->t[q->k].save_ppm * q->g * q->x;
	}
	for (uint32_t w = 0; w < W; w++) {
		ck_assert_msg(stall[w] <= b[w],
			      "window %u: stall %llu over %llu", w,
			      (unsigned long long)stall[w],
			      (unsigned long long)b[w]);
		total += stall[w];
	}
	for (unsigned int k = 0; k < tl->n; k++) {
		uint64_t peak = 0;

		for (uint32_t w = 0; w < W; w++) {
			ck_assert_msg(!tl->t[k].capacity ||
					      occ[k][w] <= tl->t[k].capacity,
				      "tier %u window %u: %llu pages", k, w,
				      (unsigned long long)occ[k][w]);
			peak = occ[k][w] > peak ? occ[k][w] : peak;
		}
		ck_assert_uint_eq(peak, pt.peak[k]);
	}
	ck_assert_uint_eq(total, pt.stall_ns);
	ck_assert(pt.pt.savings ==
		  (double)ppm / ((double)pt.pt.footprint * 1e6));
	free(log);
	free(have);
	free(used);
	free(stall);
	free(b);
}

START_TEST(test_topp_capped_placements)
{
	static const char *const lists[] = {
		"cxl:cost=2,cap=2;swap:cost=9",
		"cxl:cost=2,cap=3;zswap:cost=5,ratio=3;swap:cost=9",
		"zswap:cost=2,save=0.5,cap=2;cxl:cost=4,cap=1;swap:cost=9",
		"z:cost=2,save=0.4;m:cost=3,save=0.7;s:cost=7",
	};
	struct mdk_tiers tl;

	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct tt *t =
			tt_random(200 + seed, 4 + seed % 9, 6 + seed % 13);

		for (size_t l = 0; l < MDK_ARRAY(lists); l++) {
			tiers(lists[l], &tl);
			for (size_t i = 0; i < NS; i++) {
				check_placements(t, &tl, 20, sigmas[i]);
				check_placements(t, &tl, 0, sigmas[i]);
			}
		}
		tt_free(t);
	}
}
END_TEST

START_TEST(test_topp_capped_bounds)
{
	static const char *const lists[][2] = {
		{ "cxl:cost=2,cap=", ";swap:cost=9" },
		{ "cxl:cost=2,cap=", ";zswap:cost=5,save=0.5;swap:cost=9" },
		{ "zswap:cost=2,save=0.5,cap=",
		  ";cxl:cost=4,cap=2;swap:cost=9" },
	};

	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct tt *t =
			tt_random(100 + seed, 4 + seed % 7, 6 + seed % 11);

		for (size_t l = 0; l < MDK_ARRAY(lists); l++) {
			check_capped(t, lists[l], 20, sigmas, NS, NULL, NULL);
			check_capped(t, lists[l], 0, sigmas, NS, NULL, NULL);
		}
		check_tight(t, 20);
		check_tight(t, 0);
		tt_free(t);
	}
	/* both cases occur: bounds within and beyond the capacities */
	ck_assert_msg(feasible_ub > 0 && feasible_ub < checked,
		      "%zu of %zu bounds feasible", feasible_ub, checked);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The measured gap of Documentation/mdk.rst, "Tiered OPP": 20 random
 * traces of 12 windows x 30 pages, the CMM-MP node (cost 2 ns, a third
 * of the pages, rounded up) above swap (9 ns), windows of 100 ns.
 */
START_TEST(test_topp_capped_gap)
{
	static const char *const node[] = { "cxl:cost=2,cap=",
					    ";zswap:cost=9,ratio=3" };
	static const double sg[] = { 0.05, 0.1, 0.2, 0.5, 1 };
	enum { NT = 20, NSG = MDK_ARRAY(sg) };
	double gu[NSG][NT], gs[NSG][NT], u[NSG], s[NSG];

	for (size_t i = 0; i < NT; i++) {
		struct tt *t = tt_random(1000 + i, 12, 30);

		check_capped(t, node, 100, sg, NSG, u, s);
		for (size_t j = 0; j < NSG; j++) {
			gu[j][i] = u[j];
			gs[j][i] = s[j];
		}
		tt_free(t);
	}
	printf("# sigma   bound-ILP median max   ILP-schedule median max (%%)\n");
	for (size_t j = 0; j < NSG; j++) {
		qsort(gu[j], NT, sizeof(double), cmp_double);
		qsort(gs[j], NT, sizeof(double), cmp_double);
		printf("# %-7g %10.2f %10.2f %13.2f %10.2f\n", sg[j],
		       (gu[j][NT / 2 - 1] + gu[j][NT / 2]) / 2, gu[j][NT - 1],
		       (gs[j][NT / 2 - 1] + gs[j][NT / 2]) / 2, gs[j][NT - 1]);
	}
	printf("# ILP: %zu programs, %zu binaries on average, each solved in at most %.3f s\n",
	       ilp_runs, ilp_vars / ilp_runs, ilp_secs_max);
	fflush(stdout);
}
END_TEST

/* One tier of cost 1 ns and saving 1, per access: classic OPP(rho). */
static void check_classic(const char *path)
{
	static const double rho[] = { 0, 0.001, 0.01, 0.05, 0.2, 0.34, 1 };
	struct mdk_tier_point ub[MDK_ARRAY(rho)], sched[MDK_ARRAY(rho)];
	struct mdk_tier_opts o = { .per_access = true };
	struct mdk_tiers tl;
	char err[256], spec[64];

	tiers("one:cost=1", &tl);
	o.tiers = &tl;
	ck_assert_msg(!mdk_tier_opp(path, rho, MDK_ARRAY(rho), &o, ub, sched,
				    err, sizeof(err)),
		      "%s", err);
	for (size_t i = 0; i < MDK_ARRAY(rho); i++) {
		struct mdk_policy *p;
		struct mdk_point *pts, *c;
		size_t n;

		snprintf(spec, sizeof(spec), "opp:rho=%g", rho[i]);
		ck_assert_int_eq(mdk_policy_new(spec, &p, err, sizeof(err)), 0);
		ck_assert_msg(!mdk_mpc_run(path, &p, 1, 0, &pts, &n, err,
					   sizeof(err)),
			      "%s", err);
		c = &pts[0];
		same_point(&ub[i], &sched[i], spec);
		ck_assert_msg(
			ub[i].pt.max_rate == c->max_rate &&
				ub[i].pt.mean_rate == c->mean_rate &&
				ub[i].pt.p99_rate == c->p99_rate &&
				ub[i].pt.savings == c->savings &&
				ub[i].pt.promotions == c->promotions &&
				ub[i].pt.saved == c->saved &&
				ub[i].pt.footprint == c->footprint,
			"%s %s: topp %llu promotions %llu saved %.17g, opp %llu %llu %.17g",
			path, spec, (unsigned long long)ub[i].pt.promotions,
			(unsigned long long)ub[i].pt.saved, ub[i].pt.savings,
			(unsigned long long)c->promotions,
			(unsigned long long)c->saved, c->savings);
		/* cost 1 ns over D(w) = U(w) ns: stall shares are rates */
		ck_assert(ub[i].max_stall == c->max_rate &&
			  ub[i].mean_stall == c->mean_rate);
		ck_assert_uint_eq(ub[i].stall_ns, c->promotions);
		ck_assert_uint_eq(ub[i].tier_promotions[0], c->promotions);
		free(pts);
		mdk_policy_free(p);
	}
}

START_TEST(test_topp_is_opp_on_fixtures)
{
	static const char *const fx[] = { "mdk/mix/trace.mdkt",
					  "mdk/redis/trace.mdkt.zst",
					  "mdk/sqlite/trace.mdkt.zst" };
	char path[512], ex[] = "/tmp/mdk-example-XXXXXX";

	for (size_t i = 0; i < MDK_ARRAY(fx); i++)
		check_classic(fixture(fx[i], path, sizeof(path)));
	example_trace(ex);
	check_classic(ex);
	unlink(ex);
}
END_TEST

static void bad(const char *path, const double *sg, size_t n,
		const struct mdk_tier_opts *o, int ret, const char *msg)
{
	struct mdk_tier_point ub[2], sched[2];
	char err[256] = "";

	ck_assert_int_eq(
		mdk_tier_opp(path, sg, n, o, ub, sched, err, sizeof(err)), ret);
	ck_assert_msg(strstr(err, msg), "message '%s' lacks '%s'", err, msg);
}

START_TEST(test_topp_bad_input)
{
	struct mdk_tiers tl, t2;
	struct mdk_tier_opts o = { .tiers = &tl }, o2 = { .tiers = &t2 };
	const double ok[] = { 0.1 }, neg[] = { -0.1 }, nan_[] = { NAN },
		     fine[] = { 1e-7 }, inf_[] = { INFINITY };
	char path[512];

	fixture("mdk/mix/trace.mdkt", path, sizeof(path));
	tiers("a:cost=2;b:cost=9", &tl);
	bad(NULL, ok, 1, &o, -EINVAL, "NULL trace");
	bad(path, NULL, 1, &o, -EINVAL, "NULL sigma");
	bad(path, ok, 1, NULL, -EINVAL, "NULL options");
	bad(path, ok, 0, &o, -EINVAL, "expected at least one sigma");
	bad(path, neg, 1, &o, -EINVAL, "sigma[0] = -0.1");
	bad(path, nan_, 1, &o, -EINVAL, "whole number of ppm");
	bad(path, inf_, 1, &o, -EINVAL, "sigma[0] = inf");
	bad(path, fine, 1, &o, -EINVAL, "whole number of ppm");
	bad("/nonexistent/t.mdkt", ok, 1, &o, -ENOENT, "/nonexistent/t.mdkt");
	t2 = tl;
	t2.n = 0;
	bad(path, ok, 1, &o2, -EINVAL, "0 tiers (expected 1 to 3)");
	t2 = tl;
	t2.t[1].cost_ns = 1;
	bad(path, ok, 1, &o2, -EINVAL, "tier 2 (b) costs less");
	t2 = tl;
	t2.t[0].save_ppm = 0;
	bad(path, ok, 1, &o2, -EINVAL, "tier 1 (a): saving 0 ppm");
	t2 = tl;
	t2.t[0].cost_ns = 0;
	bad(path, ok, 1, &o2, -EINVAL, "tier 1 (a): cost 0 ns");
	o2.tiers = NULL;
	bad(path, ok, 1, &o2, -EINVAL, "0 tiers");
}
END_TEST

/* mdk_tier_run("topp:...") is the schedules then the bounds, simulate one. */
START_TEST(test_topp_through_run)
{
	const double sg[] = { 0.0001, 0.002 };
	struct mdk_tier_point ub[2], sched[2], *pts, one;
	struct mdk_tiers tl;
	struct mdk_tier_opts o = { .tiers = &tl, .window_ns = 5000000000ull };
	char path[512], err[256];
	size_t n;

	fixture("mdk/redis/trace.mdkt.zst", path, sizeof(path));
	tiers("cxl:cost=2.1us,cap=4K;zswap:cost=9us,ratio=3", &tl);
	ck_assert_msg(!mdk_tier_opp(path, sg, 2, &o, ub, sched, err,
				    sizeof(err)),
		      "%s", err);
	ck_assert_msg(!mdk_tier_run(path, "topp:sigma=0.0001/0.2%", &o, &pts,
				    &n, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, 4);
	for (size_t i = 0; i < 2; i++) {
		same_point(&pts[i], &sched[i], "run's schedule");
		ck_assert_str_eq(pts[2 + i].pt.policy, "topp-bound");
		pts[2 + i].pt.policy = "topp";
		same_point(&pts[2 + i], &ub[i], "run's bound");
	}
	/* the capacity binds here: the bound breaks it, the schedule not */
	ck_assert(!ub[0].feasible && sched[0].feasible);
	ck_assert_double_gt(ub[0].pt.savings, sched[0].pt.savings);
	free(pts);
	ck_assert_msg(!mdk_tier_simulate(path, "topp:sigma=0.2%", &o, &one, err,
					 sizeof(err)),
		      "%s", err);
	same_point(&one, &sched[1], "simulate");
	ck_assert_int_eq(mdk_tier_run(path, "topp:rho=1%", &o, &pts, &n, err,
				      sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "expected sigma"), "%s", err);
}
END_TEST

static Suite *tier_opp_suite(void)
{
	Suite *s = suite_create("tier_opp");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_topp_exact_uncapped);
	tcase_add_test(tc, test_topp_capped_bounds);
	tcase_add_test(tc, test_topp_capped_placements);
	tcase_add_test(tc, test_topp_capped_gap);
	tcase_add_test(tc, test_topp_is_opp_on_fixtures);
	tcase_add_test(tc, test_topp_bad_input);
	tcase_add_test(tc, test_topp_through_run);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(tier_opp_suite)
