// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tiered curves from an MPC generator's histograms (Documentation/
 * mdk.rst, "How the tiered curves are computed").  The generator bins
 * gaps by every wait of the spec (age: T = every T; pace: P, and A = A
 * and every T), so for a wait d that is a threshold x_j, the intervals
 * with g >= d are the g-bins > j: a suffix sum.  Per window and setting:
 *
 *   promotions from tier k = N(g >= d_k) - N(g >= d_{k+1})
 *   stall(w)               = sum over k of c_k x that
 *
 * and over the horizon, with M(d) = sum of min(g, d) over gaps and tails
 * = sum(g) - sum(g : g >= d) + d N(g >= d), saved = sum over k of s_k
 * (M(d_{k+1}) - M(d_k)) ppm-page-windows.  tpace splits every count by
 * r-bin: rows above P wait d_1 = 0, the others A.  All integers (ns,
 * ppm) until the final divisions, as in the simulator (sim.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tier_int.h"

void mdk__tier_prep_free(struct mdk__tier_prep *pp)
{
	free(pp->ri);
	free(pp->d);
	free(pp->bin);
	memset(pp, 0, sizeof(*pp));
}

/* The g-bin from which gaps are >= @x (a threshold of @g, 0 or none). */
static int bin_ge(const struct mdk_gen *g, uint64_t x, uint32_t *b)
{
	const struct mdk_grid *gr = g->ggrid;
	size_t lo = 0, hi = gr->n;

	if (x == MDK__TIER_INF) {
		*b = g->ng;
		return 0;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (gr->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < gr->n && gr->v[lo] == x)
		*b = (uint32_t)lo + 1;
	else if (!x)
		*b = 0;
	else
		return -EINVAL;
	return 0;
}

/* The first r-bin above @P (a threshold of @g's r grid). */
static int bin_above(const struct mdk_gen *g, uint64_t P, uint32_t *ri)
{
	size_t j;

	for (j = 0; g->rgrid && j < g->rgrid->n; j++)
		if (g->rgrid->v[j] == P) {
			*ri = (uint32_t)j + 1;
			return 0;
		}
	return -EINVAL;
}

int mdk__tier_prep(const struct mdk__tier_spec *ts, const struct mdk_gen *g,
		   struct mdk__tier_prep *pp, char *err, size_t errlen)
{
	size_t n = ts->nset, i, per = 2 * (size_t)(ts->K + 1);
	unsigned int grp, k;

	memset(pp, 0, sizeof(*pp));
	pp->nset = n;
	pp->K = ts->K;
	pp->ri = calloc(n, sizeof(*pp->ri));
	pp->d = calloc(n * per, sizeof(*pp->d));
	pp->bin = calloc(n * per, sizeof(*pp->bin));
	if (!pp->ri || !pp->d || !pp->bin) {
		mdk__tier_prep_free(pp);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const uint64_t *v = ts->set + i * ts->np;

		pp->ri[i] = g->nr;
		if (ts->kind == MDK__TPACE && bin_above(g, v[0], &pp->ri[i]))
			goto unbinned;
		for (grp = 0; grp < 2; grp++) {
			uint64_t *d = pp->d + mdk__tier_ix(pp, i, grp, 0);

			mdk__tier_waits(ts, v, grp, d);
			for (k = 0; k <= ts->K; k++)
				if (bin_ge(g, d[k],
					   pp->bin +
						   mdk__tier_ix(pp, i, grp, k)))
					goto unbinned;
		}
	}
	return 0;

unbinned:
	mdk__tier_prep_free(pp);
	return mdk_err(err, errlen, -EINVAL,
		       "%s: setting %zu has a wait the generator does not bin",
		       ts->name, i);
}

/* 2-D suffix sums of @in (nr x ng) into @S ((nr + 1) x (ng + 1)). */
static void suffix2(const struct mdk_gen *g, const uint64_t *in, uint64_t *S)
{
	uint32_t nr = g->nr, ng = g->ng, i, j;
	size_t w = ng + 1;

	memset(S, 0, (size_t)(nr + 1) * w * sizeof(*S));
	for (i = nr; i-- > 0;) {
		uint64_t run = 0;

		for (j = ng; j-- > 0;) {
			run += in[(size_t)i * ng + j];
			S[(size_t)i * w + j] = run + S[(size_t)(i + 1) * w + j];
		}
	}
}

/* Intervals of group @grp (rows split at @ri) in g-bins >= @b. */
static inline uint64_t grp_ge(const uint64_t *S, size_t w, uint32_t ri,
			      unsigned int grp, uint32_t b)
{
	return grp ? S[(size_t)ri * w + b] : S[b] - S[(size_t)ri * w + b];
}

/* What one evaluation accumulates beside the points. */
struct tev {
	const struct mdk__tier_prep *pp;
	const struct mdk_tiers *t;
	uint64_t *cells, *S, *S2; /* a row widened, its suffix sums */
	double *topk;
	uint32_t *nk, K99;
	uint64_t sumU, sumD, footprint;
};

/* Window @w's promotions and stall for every setting. */
static void eval_window(struct mdk_mpc *m, struct tev *e, uint32_t w,
			uint32_t hi, uint64_t window_ns,
			struct mdk_tier_point *pts)
{
	const struct mdk_gen *g = &m->g;
	const struct mdk__tier_prep *pp = e->pp;
	uint32_t s = slot_of(m, w), c;
	const uint32_t *row = m->rows + (size_t)s * g->cells;
	size_t wd = g->ng + 1, i;
	uint64_t U, D;
	unsigned int grp, k;

	e->sumD += window_ns;
	if (m->slotwin[s] != w + 1)
		return; /* never added: an empty window */
	U = m->acc[s] > 0 ? (uint64_t)m->acc[s] : 0;
	D = window_ns ? window_ns : U;
	if (!window_ns)
		e->sumD += U;
	e->sumU += U;
	e->footprint += (uint64_t)m->first[s] * (uint64_t)(hi - w + 1);
	for (c = 0; c < g->cells; c++)
		e->cells[c] = row[c];
	suffix2(g, e->cells, e->S);
	for (i = 0; i < pp->nset; i++) {
		struct mdk_tier_point *p = &pts[i];
		uint64_t prom = 0, stall = 0;

		for (grp = 0; grp < 2; grp++) {
			const uint32_t *b =
				pp->bin + mdk__tier_ix(pp, i, grp, 0);
			uint64_t prev;

			if (grp && pp->ri[i] == g->nr)
				break; /* no rows above P */
			prev = grp_ge(e->S, wd, pp->ri[i], grp, b[0]);
			for (k = 0; k < pp->K; k++) {
				uint64_t next = grp_ge(e->S, wd, pp->ri[i], grp,
						       b[k + 1]);
				uint64_t nk = prev - next;

				p->tier_promotions[k] += nk;
				stall += nk * e->t->t[k].cost_ns;
				prom += nk;
				prev = next;
			}
		}
		p->pt.promotions += prom;
		p->stall_ns += stall;
		if (D && (double)stall / (double)D > p->max_stall)
			p->max_stall = (double)stall / (double)D;
		if (U) {
			double rate = (double)prom / (double)U;

			if (rate > p->pt.max_rate)
				p->pt.max_rate = rate;
			mdk__mpc_topk_add(e->topk + i * e->K99, e->K99,
					  &e->nk[i], rate);
		}
	}
}

/* sum of min(len, d) over group @grp, from suffix sums of counts @C, lengths @L. */
static uint64_t sum_min(const uint64_t *C, const uint64_t *L, size_t wd,
			uint32_t ri, unsigned int grp, uint64_t d, uint32_t b)
{
	uint64_t tot = grp_ge(L, wd, ri, grp, 0);

	if (d == MDK__TIER_INF)
		return tot;
	return tot - grp_ge(L, wd, ri, grp, b) + d * grp_ge(C, wd, ri, grp, b);
}

/* Every setting's saved ppm-page-windows into *@ppm from gaps and tails. */
static int eval_saved(struct mdk_mpc *m, struct tev *e, uint32_t lo,
		      uint32_t hi, uint64_t *ppm)
{
	const struct mdk_gen *g = &m->g;
	const struct mdk__tier_prep *pp = e->pp;
	size_t wd = g->ng + 1, i, cells = g->cells;
	uint64_t *cnt = calloc(cells, sizeof(*cnt));
	uint64_t *len = calloc(cells, sizeof(*len));
	uint64_t *gaps = calloc(cells, sizeof(*gaps));
	uint32_t w, rb, c;
	unsigned int grp, k;

	if (!cnt || !len || !gaps) {
		free(cnt);
		free(len);
		free(gaps);
		return -ENOMEM;
	}
	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w), t = hi - w, gb = m->gbin[t];
		const uint32_t *op = m->open + (size_t)s * g->nr;
		const uint32_t *row = m->rows + (size_t)s * g->cells;

		if (m->slotwin[s] != w + 1)
			continue;
		for (c = 0; c < cells; c++)
			gaps[c] += row[c];
		for (rb = 0; rb < g->nr; rb++) {
			cnt[(size_t)rb * g->ng + gb] += op[rb];
			len[(size_t)rb * g->ng + gb] += (uint64_t)op[rb] * t;
		}
	}
	/* The gaps' lengths: kept, or one length per bin. */
	for (c = 0; c < cells; c++) {
		cnt[c] += gaps[c];
		len[c] += m->gsum_derived ? gaps[c] * m->gval[c % g->ng] :
					    m->gsum[c];
	}
	suffix2(g, cnt, e->S);
	suffix2(g, len, e->S2);
	for (i = 0; i < pp->nset; i++) {
		uint64_t sv = 0;

		for (grp = 0; grp < 2; grp++) {
			const uint64_t *d = pp->d + mdk__tier_ix(pp, i, grp, 0);
			const uint32_t *b =
				pp->bin + mdk__tier_ix(pp, i, grp, 0);
			uint64_t prev;

			if (grp && pp->ri[i] == g->nr)
				break;
			prev = sum_min(e->S, e->S2, wd, pp->ri[i], grp, d[0],
				       b[0]);
			for (k = 0; k < pp->K; k++) {
				uint64_t next = sum_min(e->S, e->S2, wd,
							pp->ri[i], grp,
							d[k + 1], b[k + 1]);

				sv += e->t->t[k].save_ppm * (next - prev);
				prev = next;
			}
		}
		ppm[i] = sv;
	}
	free(cnt);
	free(len);
	free(gaps);
	return 0;
}

static void tev_free(struct tev *e)
{
	free(e->cells);
	free(e->S);
	free(e->S2);
	free(e->topk);
	free(e->nk);
}

long mdk__tier_eval(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		    const struct mdk__tier_spec *ts, const struct mdk_tiers *t,
		    uint64_t window_ns, struct mdk_tier_point **pts, char *err,
		    size_t errlen)
{
	const struct mdk_gen *g = &m->g;
	size_t sz = (size_t)(g->nr + 1) * (g->ng + 1), n = ts->nset, i;
	struct mdk__tier_prep pp;
	struct mdk_tier_point *p;
	struct tev e = { 0 };
	uint64_t *ppm;
	uint32_t w;
	int ret;

	if (m->failed || !m->started || lo > hi || hi > m->hi_seen ||
	    m->hi_seen - lo >= g->cap)
		return mdk_err(err, errlen, m->failed ? m->failed : -ERANGE,
			       "%s: windows %u..%u are not in the generator",
			       ts->name, lo, hi);
	ret = mdk__tier_prep(ts, g, &pp, err, errlen);
	if (ret)
		return ret;
	e.pp = &pp;
	e.t = t;
	e.K99 = mdk__mpc_eval_k(m, lo, hi);
	p = calloc(n, sizeof(*p));
	ppm = calloc(n, sizeof(*ppm));
	e.cells = calloc(g->cells, sizeof(*e.cells));
	e.S = calloc(sz, sizeof(*e.S));
	e.S2 = calloc(sz, sizeof(*e.S2));
	e.topk = calloc(n * (e.K99 ? e.K99 : 1), sizeof(*e.topk));
	e.nk = calloc(n, sizeof(*e.nk));
	ret = -ENOMEM;
	if (p && ppm && e.cells && e.S && e.S2 && e.topk && e.nk) {
		for (w = lo; w <= hi; w++)
			eval_window(m, &e, w, hi, window_ns, p);
		ret = eval_saved(m, &e, lo, hi, ppm);
	}
	if (!ret) {
		mdk__tier_fill_settings(ts, p);
		for (i = 0; i < n; i++) {
			struct mdk_point *q = &p[i].pt;

			q->saved = ppm[i] / MDK_PPM;
			q->footprint = e.footprint;
			q->mean_rate = e.sumU ? (double)q->promotions /
							(double)e.sumU :
						0;
			q->p99_rate = e.K99 ? e.topk[i * e.K99] : 0;
			q->savings =
				e.footprint ?
					(double)ppm[i] / ((double)e.footprint *
							  MDK_PPM) :
					0;
			p[i].mean_stall = e.sumD ? (double)p[i].stall_ns /
							   (double)e.sumD :
						   0;
			p[i].feasible = true;
		}
	}
	free(ppm);
	tev_free(&e);
	mdk__tier_prep_free(&pp);
	if (ret) {
		free(p);
		return mdk_err(err, errlen, ret, "%s: out of memory", ts->name);
	}
	*pts = p;
	return (long)n;
}
