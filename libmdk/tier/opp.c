// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tiered OPP(sigma) over a trace (mdk_tier_opp(), mdk/tier.h): one pass
 * of the interval stream gathers each window's gaps as a histogram (the
 * intervals of one gap ending in one window are alike: same start, same
 * saving, same windows occupied); as each window closes, every budget's
 * exact optimum (opp_solve.c) goes into the upper bound as it is and,
 * with capacities, into the schedule repaired in time order.  The tails
 * close last, as a window W without a budget.  A bound that breaks a
 * capacity is then tightened by the Lagrangian bound (opp_bound.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/interval.h>
#include <mdk/trace.h>

#include "../internal.h"
#include "opp_int.h"

#define BATCH 4096

struct topp_run {
	const char *trace;
	struct topp_tiers tt;
	uint32_t W;
	uint64_t window_ns; /* D(w) = L; 0: U(w) x 1 ns */
	size_t n;
	uint64_t *sigma_ppm;
	struct topp_sol *ub, *sched; /* sched: NULL without capacities */
	uint64_t *U, *first; /* W */
	uint64_t *hist, *P; /* W + 1; grown */
	size_t pcap;
	uint32_t gmax;
	uint64_t m;
	uint32_t *start, *reuse; /* BATCH */
	/* with capacities: every window's gaps, for the Lagrangian bound */
	struct topp_group *gr;
	size_t ngr, grcap;
};

static int check_tiers(const struct mdk_tiers *t, char *err, size_t errlen)
{
	unsigned int i;

	if (!t || t->n < 1 || t->n > MDK_TIERS_MAX)
		return mdk_err(err, errlen, -EINVAL,
			       "topp: %u tiers (expected 1 to %u)",
			       t ? t->n : 0, MDK_TIERS_MAX);
	for (i = 0; i < t->n; i++) {
		const struct mdk_tier *x = &t->t[i];

		if (x->cost_ns < 1 || x->cost_ns > 3600000000000ull)
			return mdk_err(
				err, errlen, -EINVAL,
				"topp: tier %u (%s): cost %llu ns (expected at least 1 ns, at most an hour)",
				i + 1, x->name, (unsigned long long)x->cost_ns);
		if (x->save_ppm < 1 || x->save_ppm > MDK_PPM)
			return mdk_err(
				err, errlen, -EINVAL,
				"topp: tier %u (%s): saving %u ppm (expected 1 to %u)",
				i + 1, x->name, x->save_ppm, MDK_PPM);
		if (i && x->cost_ns < t->t[i - 1].cost_ns)
			return mdk_err(
				err, errlen, -EINVAL,
				"topp: tier %u (%s) costs less than the tier above it (expected costs that do not decrease down the list)",
				i + 1, x->name);
	}
	return 0;
}

/* sigma as a whole number of ppm, as OPP holds rho. */
static int sigma_ppm(double sigma, size_t i, uint64_t *out, char *err,
		     size_t errlen)
{
	double x = sigma * 1e6, r = round(x);

	if (!isfinite(sigma) || sigma < 0 || sigma > 1e9 ||
	    fabs(x - r) > 1e-6 * fmax(1, r))
		return mdk_err(
			err, errlen, -EINVAL,
			"topp: sigma[%zu] = %g (expected a stall share from 0 to 1e9, a whole number of ppm)",
			i, sigma);
	*out = (uint64_t)r;
	return 0;
}

static uint64_t budget(uint64_t ppm, uint64_t D)
{
	unsigned __int128 b = (unsigned __int128)ppm * D / MDK_PPM;

	return b > TOPP_BUDGET_MAX ? TOPP_BUDGET_MAX : (uint64_t)b;
}

static uint64_t window_D(const struct topp_run *r, uint32_t w)
{
	return r->window_ns ? r->window_ns : r->U[w];
}

static int sol_alloc(struct topp_sol *s, const struct topp_run *r, bool occ)
{
	unsigned int k;

	s->stall = calloc(r->W, sizeof(*s->stall));
	s->prom = calloc(r->W, sizeof(*s->prom));
	if (!s->stall || !s->prom)
		return -ENOMEM;
	for (k = 0; k < r->tt.t->n; k++) {
		s->diff[k] = calloc((size_t)r->W + 1, sizeof(*s->diff[k]));
		if (!s->diff[k])
			return -ENOMEM;
		if (occ && r->tt.t->t[k].capacity) {
			s->occ[k] = calloc(r->W, sizeof(*s->occ[k]));
			if (!s->occ[k])
				return -ENOMEM;
		}
	}
	return 0;
}

static void sol_free(struct topp_sol *s)
{
	unsigned int k;

	free(s->stall);
	free(s->prom);
	for (k = 0; k < MDK_TIERS_MAX; k++) {
		free(s->diff[k]);
		free(s->occ[k]);
	}
	free(s->log);
}

static void run_free(struct topp_run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->ub)
			sol_free(&r->ub[i]);
		if (r->sched)
			sol_free(&r->sched[i]);
	}
	free(r->ub);
	free(r->sched);
	free(r->sigma_ppm);
	free(r->U);
	free(r->first);
	free(r->hist);
	free(r->P);
	free(r->start);
	free(r->reuse);
	free(r->gr);
}

static int run_alloc(struct topp_run *r)
{
	size_t i;

	r->ub = calloc(r->n, sizeof(*r->ub));
	if (r->tt.capped)
		r->sched = calloc(r->n, sizeof(*r->sched));
	r->U = calloc(r->W, sizeof(*r->U));
	r->first = calloc(r->W, sizeof(*r->first));
	r->hist = calloc((size_t)r->W + 1, sizeof(*r->hist));
	r->start = malloc(BATCH * sizeof(*r->start));
	r->reuse = malloc(BATCH * sizeof(*r->reuse));
	if (!r->ub || (r->tt.capped && !r->sched) || !r->U || !r->first ||
	    !r->hist || !r->start || !r->reuse)
		return -ENOMEM;
	for (i = 0; i < r->n; i++)
		if (sol_alloc(&r->ub[i], r, false) ||
		    (r->sched && sol_alloc(&r->sched[i], r, true)))
			return -ENOMEM;
	return 0;
}

/* The gathered intervals end in window @n (W: the tails): decide them. */
static int close_window(struct topp_run *r, uint32_t n, bool tails)
{
	struct topp_window w = { .n = n,
				 .tails = tails,
				 .hist = r->hist,
				 .gmax = r->gmax,
				 .m = r->m };
	uint64_t cnt[MDK_TIERS_MAX];
	size_t i;

	if (!r->m)
		return 0;
	for (uint32_t g = 1; r->sched && g <= r->gmax; g++) {
		if (!r->hist[g])
			continue;
		if (mdk_grow((void **)&r->gr, &r->grcap, r->ngr + 1,
			     sizeof(*r->gr)))
			return -ENOMEM;
		r->gr[r->ngr++] = (struct topp_group){ n, g, r->hist[g] };
	}
	if (!tails && r->tt.nq >= 2) {
		uint64_t j = 0;
		uint32_t g;

		if (mdk_grow((void **)&r->P, &r->pcap, r->m + 1, sizeof(*r->P)))
			return -ENOMEM;
		r->P[0] = 0;
		for (g = r->gmax; g >= 1; g--)
			for (uint64_t c = r->hist[g]; c; c--, j++)
				r->P[j + 1] = r->P[j] + g;
		w.P = r->P;
	}
	for (i = 0; i < r->n; i++) {
		uint64_t b = tails ? 0 :
				     budget(r->sigma_ppm[i], window_D(r, n));

		if (tails) {
			memset(cnt, 0, sizeof(cnt));
			cnt[r->tt.tail] = r->m;
		} else {
			topp_solve(&r->tt, &w, b, cnt);
		}
		topp_commit_all(&r->tt, &w, cnt, &r->ub[i]);
		if (r->sched)
			topp_commit_repair(&r->tt, &w, cnt, b, &r->sched[i]);
	}
	memset(r->hist, 0, ((size_t)r->gmax + 1) * sizeof(*r->hist));
	r->gmax = 0;
	r->m = 0;
	return 0;
}

static void gap(struct topp_run *r, uint32_t g)
{
	if (!g)
		return; /* a gap of 0 saves nothing */
	r->hist[g]++;
	r->m++;
	r->gmax = MDK_MAX(r->gmax, g);
}

static int pass(struct topp_run *r, struct mdk_trace_reader *rd,
		struct mdk_stream *st, char *err, size_t errlen)
{
	struct mdk_trace_chunk c;
	uint32_t cur = 0, cursor = 0;
	size_t k, i;
	int ret;

	while ((ret = mdk_trace_reader_next(rd, &c, err, errlen)) > 0) {
		size_t off;

		if (c.window >= r->W)
			return mdk_err(err, errlen, -EBADMSG,
				       "%s: window %u beyond the index's %u",
				       r->trace, c.window, r->W);
		if (c.window != cur && close_window(r, cur, false))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		cur = c.window;
		r->U[cur] += c.n;
		for (off = 0; off < c.n; off += k) {
			k = MDK_MIN(c.n - off, (size_t)BATCH);
			ret = mdk_stream_feed(st, cur, c.pages + off, k,
					      r->start, r->reuse,
					      &r->first[cur], err, errlen);
			if (ret)
				return ret;
			for (i = 0; i < k; i++)
				if (r->start[i] != MDK_NONE)
					gap(r, cur - r->start[i] - 1);
		}
	}
	if (ret < 0)
		return ret;
	if (close_window(r, cur, false))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	while ((k = mdk_stream_tails(st, &cursor, r->start, r->reuse, BATCH)))
		for (i = 0; i < k; i++)
			gap(r, r->W - 1 - r->start[i]);
	if (close_window(r, r->W, true))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* @s's point at @sigma; @rates: scratch for W doubles. */
static void point(const struct topp_run *r, const struct topp_sol *s,
		  double sigma, double *rates, struct mdk_tier_point *pt)
{
	uint64_t F = 0, sumU = 0, sumD = 0, occ[MDK_TIERS_MAX] = { 0 };
	size_t nr = 0;
	unsigned int k;
	uint32_t w;

	memset(pt, 0, sizeof(*pt));
	pt->pt.policy = "topp";
	pt->np = 1;
	pt->p[0] = sigma;
	for (w = 0; w < r->W; w++) {
		uint64_t D = window_D(r, w);

		F += r->first[w];
		pt->pt.footprint += F;
		pt->pt.promotions += s->prom[w];
		sumU += r->U[w];
		sumD += D;
		pt->stall_ns += s->stall[w];
		if (r->U[w]) {
			rates[nr] = (double)s->prom[w] / (double)r->U[w];
			pt->pt.max_rate = fmax(pt->pt.max_rate, rates[nr++]);
		}
		if (D)
			pt->max_stall = fmax(pt->max_stall,
					     (double)s->stall[w] / (double)D);
		for (k = 0; k < r->tt.t->n; k++) {
			occ[k] += (uint64_t)s->diff[k][w];
			pt->peak[k] = MDK_MAX(pt->peak[k], occ[k]);
		}
	}
	qsort(rates, nr, sizeof(*rates), cmp_double);
	pt->pt.mean_rate = sumU ? (double)pt->pt.promotions / (double)sumU : 0;
	pt->pt.p99_rate = nr ? rates[(99 * nr + 99) / 100 - 1] : 0;
	pt->pt.saved = s->saved_ppm / MDK_PPM;
	/* exact operands: equal ppm sums give equal doubles */
	pt->pt.savings = pt->pt.footprint ?
				 (double)s->saved_ppm /
					 ((double)pt->pt.footprint * MDK_PPM) :
				 0;
	pt->mean_stall = sumD ? (double)pt->stall_ns / (double)sumD : 0;
	pt->feasible = true;
	for (k = 0; k < r->tt.t->n; k++) {
		uint64_t cap = r->tt.t->t[k].capacity;

		pt->tier_promotions[k] = s->tprom[k];
		if (cap && pt->peak[k] > cap)
			pt->feasible = false;
	}
}

/*
 * A bound beyond the capacities: the Lagrangian one of budget @i if it is
 * below the relaxation's, rounded up (with room for floating point) and
 * never below the schedule.
 */
static int tighten(const struct topp_run *r, size_t i,
		   struct mdk_tier_point *ub)
{
	uint64_t *b = malloc(r->W * sizeof(*b)), ppm;
	double L, lower = (double)r->sched[i].saved_ppm;
	uint32_t w;
	int ret;

	if (!b)
		return -ENOMEM;
	for (w = 0; w < r->W; w++)
		b[w] = budget(r->sigma_ppm[i], window_D(r, w));
	ret = topp_lagrange(&r->tt, r->gr, r->ngr, r->W, b, lower, &L);
	free(b);
	if (ret || !(L * (1 + 1e-9) + 1 < (double)r->ub[i].saved_ppm))
		return ret;
	ppm = (uint64_t)ceil(L * (1 + 1e-9) + 1);
	ppm = MDK_MAX(ppm, r->sched[i].saved_ppm);
	ub->pt.saved = ppm / MDK_PPM;
	ub->pt.savings =
		ub->pt.footprint ?
			(double)ppm / ((double)ub->pt.footprint * MDK_PPM) :
			0;
	return 0;
}

/*
 * The optimum does not fall as the budget grows: a bound at a larger
 * sigma bounds every smaller one too.
 */
static void monotone(const struct topp_run *r, struct mdk_tier_point *ub)
{
	size_t i, j;

	for (i = 0; i < r->n; i++)
		for (j = 0; j < r->n; j++)
			if (r->sigma_ppm[j] >= r->sigma_ppm[i] &&
			    ub[j].pt.savings < ub[i].pt.savings) {
				ub[i].pt.savings = ub[j].pt.savings;
				ub[i].pt.saved = ub[j].pt.saved;
			}
}

static int check_args(const char *trace, const double *sigma, size_t n,
		      const struct mdk_tier_opts *o,
		      const struct mdk_tier_point *ub,
		      const struct mdk_tier_point *sched, char *err,
		      size_t errlen)
{
	if (!trace || !sigma || !o || !ub || !sched)
		return mdk_err(
			err, errlen, -EINVAL,
			"topp: NULL %s (expected a trace, budgets, options and two point arrays)",
			!trace ? "trace" :
			!sigma ? "sigma" :
			!o     ? "options" :
				 "point array");
	if (!n)
		return mdk_err(err, errlen, -EINVAL,
			       "topp: no budget (expected at least one sigma)");
	return check_tiers(o->tiers, err, errlen);
}

/*
 * mdk_tier_opp(), and with @log the placements of the first schedule
 * (the bound's without capacities), *@nlog of them.
 */
static int topp(const char *trace, const double *sigma, size_t n,
		const struct mdk_tier_opts *o, struct mdk_tier_point *ub,
		struct mdk_tier_point *sched, struct topp_place **log,
		size_t *nlog, char *err, size_t errlen)
{
	struct topp_sol *ls = NULL;
	struct topp_run r = { .trace = trace, .n = n };
	struct mdk_trace_reader *rd = NULL;
	struct mdk_stream *st = NULL;
	double *rates = NULL;
	size_t i;
	int ret;

	ret = check_args(trace, sigma, n, o, ub, sched, err, errlen);
	if (ret)
		return ret;
	r.sigma_ppm = calloc(n, sizeof(*r.sigma_ppm));
	if (!r.sigma_ppm)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++)
		ret = sigma_ppm(sigma[i], i, &r.sigma_ppm[i], err, errlen);
	if (ret)
		goto out_free;
	topp_tiers_init(&r.tt, o->tiers);
	ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &rd, err, errlen);
	if (ret)
		goto out_free;
	r.W = mdk_trace_reader_info(rd)->windows;
	if (!mdk_trace_reader_info(rd)->indexed || !r.W) {
		ret = mdk_err(err, errlen, -EINVAL,
			      "%s: %s (expected a closed trace with windows)",
			      trace,
			      r.W ? "no index" : "the trace has no windows");
		goto out_close;
	}
	if (!o->per_access)
		r.window_ns =
			o->window_ns ?
				o->window_ns :
				mdk_trace_reader_info(rd)->window_us * 1000;
	ret = run_alloc(&r);
	if (!ret)
		ret = mdk_stream_new(r.W, &st);
	rates = malloc(r.W * sizeof(*rates));
	if (ret || !rates) {
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		goto out_stream;
	}
	if (log) {
		ls = r.sched ? &r.sched[0] : &r.ub[0];
		ls->logging = true;
	}
	ret = pass(&r, rd, st, err, errlen);
	if (!ret && ls && ls->nomem)
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		point(&r, &r.ub[i], sigma[i], rates, &ub[i]);
		if (r.sched)
			point(&r, &r.sched[i], sigma[i], rates, &sched[i]);
		else
			sched[i] = ub[i];
		if (r.sched && !ub[i].feasible && tighten(&r, i, &ub[i]))
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	if (!ret && r.sched)
		monotone(&r, ub);
	if (ls && !ret) {
		/* the caller takes the log */
		*log = ls->log;
		*nlog = ls->nlog;
		ls->log = NULL;
	}
out_stream:
	free(rates);
	mdk_stream_free(st);
out_close:
	mdk_trace_reader_close(rd);
out_free:
	run_free(&r);
	return ret;
}

int mdk_tier_opp(const char *trace, const double *sigma, size_t n,
		 const struct mdk_tier_opts *o, struct mdk_tier_point *ub,
		 struct mdk_tier_point *sched, char *err, size_t errlen)
{
	return topp(trace, sigma, n, o, ub, sched, NULL, NULL, err, errlen);
}

int mdk__tier_opp_log(const char *trace, double sigma,
		      const struct mdk_tier_opts *o,
		      struct mdk_tier_point *sched, struct topp_place **log,
		      size_t *n, char *err, size_t errlen)
{
	struct mdk_tier_point ub;

	return topp(trace, &sigma, 1, o, &ub, sched, log, n, err, errlen);
}
