// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Evaluating an MPC generator over windows lo..hi (mpc.c has the event
 * model): one walk of the rows gives every setting's promotions per
 * window (2-D suffix sums of the row, policy hook gen_row) and from them
 * the maximum, mean and 99th-percentile rates; the savings come from the
 * suffix sums of the gaps and of the tails at hi (gen_saved).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpc_int.h"

/* 2-D suffix sums of @in (nr x ng) into @S ((nr + 1) x (ng + 1)). */
#define DEFINE_SUFFIX2(name, type)                                             \
	static void name(const struct mdk_gen *g, const type *in, uint64_t *S) \
	{                                                                      \
		uint32_t nr = g->nr, ng = g->ng, i, j;                         \
		size_t w = ng + 1;                                             \
                                                                               \
		memset(S + (size_t)nr * w, 0, w * sizeof(*S));                 \
		for (i = nr; i-- > 0;) {                                       \
			uint64_t run = 0;                                      \
                                                                               \
			S[(size_t)i * w + ng] = 0;                             \
			for (j = ng; j-- > 0;) {                               \
				run += in[(size_t)i * ng + j];                 \
				S[(size_t)i * w + j] =                         \
					run + S[(size_t)(i + 1) * w + j];      \
			}                                                      \
		}                                                              \
	}
/* One per input type: a window's row (u32), the horizon's sums (u64). */
DEFINE_SUFFIX2(suffix2_u32, uint32_t)
DEFINE_SUFFIX2(suffix2_u64, uint64_t)

/* Insert @x into the ascending top-@k list @t holding *@n values. */
void mdk__mpc_topk_add(double *t, uint32_t k, uint32_t *n, double x)
{
	uint32_t i;

	if (*n < k) {
		for (i = (*n)++; i > 0 && t[i - 1] > x; i--)
			t[i] = t[i - 1];
		t[i] = x;
		return;
	}
	if (!k || x <= t[0])
		return;
	for (i = 0; i + 1 < k && t[i + 1] < x; i++)
		t[i] = t[i + 1];
	t[i] = x;
}

/* What one evaluation accumulates, per setting and per cell. */
struct eval {
	size_t nset, sz; /* settings; cells of a suffix-sum table */
	uint32_t K; /* the top-K promotion rates give the 99th percentile */
	uint64_t *prom, *saved, *sump, *S;
	uint64_t *Gc, *Tc, *Ts, *SGc, *SGs, *STc, *STs;
	uint64_t footprint, sumU;
	uint32_t *nk;
	double *maxr, *topk;
	const uint64_t *extra; /* added to every setting, by window - lo */
};

static void eval_free(struct eval *e)
{
	free(e->prom);
	free(e->saved);
	free(e->sump);
	free(e->maxr);
	free(e->nk);
	free(e->topk);
	free(e->S);
	free(e->Gc);
	free(e->Tc);
	free(e->Ts);
	free(e->SGc);
	free(e->SGs);
	free(e->STc);
	free(e->STs);
}

/* Zeroed arrays for @m's settings and cells; 0 or -ENOMEM. */
static int eval_alloc(struct eval *e, const struct mdk_gen *g, uint32_t K)
{
	size_t nset = g->nset, sz = (size_t)(g->nr + 1) * (g->ng + 1);

	memset(e, 0, sizeof(*e));
	e->nset = nset;
	e->sz = sz;
	e->K = K;
	e->prom = calloc(nset, sizeof(*e->prom));
	e->saved = calloc(nset, sizeof(*e->saved));
	e->sump = calloc(nset, sizeof(*e->sump));
	e->maxr = calloc(nset, sizeof(*e->maxr));
	e->nk = calloc(nset, sizeof(*e->nk));
	e->topk = calloc(nset * (K ? K : 1), sizeof(*e->topk));
	e->S = calloc(sz, sizeof(*e->S));
	e->Gc = calloc(g->cells, sizeof(*e->Gc));
	e->Tc = calloc(g->cells, sizeof(*e->Tc));
	e->Ts = calloc(g->cells, sizeof(*e->Ts));
	e->SGc = calloc(sz, sizeof(*e->SGc));
	e->SGs = calloc(sz, sizeof(*e->SGs));
	e->STc = calloc(sz, sizeof(*e->STc));
	e->STs = calloc(sz, sizeof(*e->STs));
	if (!e->prom || !e->saved || !e->sump || !e->maxr || !e->nk ||
	    !e->topk || !e->S || !e->Gc || !e->Tc || !e->Ts || !e->SGc ||
	    !e->SGs || !e->STc || !e->STs) {
		eval_free(e);
		return -ENOMEM;
	}
	return 0;
}

/*
 * K for the 99th percentile of the rates of the windows with accesses in
 * lo..hi: nearest rank, element ceil(0.99 n) - 1 ascending, is the K-th
 * largest.
 */
uint32_t mdk__mpc_eval_k(const struct mdk_mpc *m, uint32_t lo, uint32_t hi)
{
	uint32_t nactive = 0, w;

	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w);

		if (m->slotwin[s] == w + 1 && m->acc[s] > 0)
			nactive++;
	}
	return nactive ?
		       nactive - (uint32_t)((99ull * nactive + 99) / 100) + 1 :
		       0;
}

/* Every window's promotions (gen_row) and rates; the gaps' counts. */
static void eval_rows(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		      struct eval *e)
{
	const struct mdk_gen *g = &m->g;
	uint32_t w, K = e->K;
	size_t i;

	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w);
		const uint32_t *row = m->rows + (size_t)s * g->cells;
		uint64_t x = e->extra ? e->extra[w - lo] : 0;
		int64_t U;
		uint32_t c;

		if (m->slotwin[s] != w + 1)
			continue; /* never added: an empty window */
		U = m->acc[s];
		for (c = 0; c < g->cells; c++)
			e->Gc[c] += row[c];
		suffix2_u32(g, row, e->S);
		m->ops->gen_row(g, e->S, row, U > 0 ? (uint64_t)U : 0, e->prom,
				e->saved);
		e->sumU += U > 0 ? (uint64_t)U : 0;
		e->footprint += (uint64_t)m->first[s] * (uint64_t)(hi - w + 1);
		for (i = 0; i < e->nset; i++) {
			uint64_t prom = e->prom[i] + x;
			double rate;

			e->sump[i] += prom;
			if (U <= 0)
				continue;
			rate = (double)prom / (double)U;
			if (rate > e->maxr[i])
				e->maxr[i] = rate;
			mdk__mpc_topk_add(e->topk + i * K, K, &e->nk[i], rate);
		}
	}
}

/*
 * Savings: the tails (open intervals starting in lo..hi end at hi) and
 * the gaps, through their suffix sums (gen_saved).
 */
static void eval_saved(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		       struct eval *e)
{
	const struct mdk_gen *g = &m->g;
	uint32_t w, rb;

	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w), t = hi - w, gb = m->gbin[t];
		const uint32_t *op = m->open + (size_t)s * g->nr;

		if (m->slotwin[s] != w + 1)
			continue;
		for (rb = 0; rb < g->nr; rb++) {
			e->Tc[(size_t)rb * g->ng + gb] += op[rb];
			e->Ts[(size_t)rb * g->ng + gb] += (uint64_t)op[rb] * t;
		}
	}
	if (m->gsum_derived) {
		uint32_t c;

		for (c = 0; c < g->cells; c++)
			m->gsum[c] = e->Gc[c] * m->gval[c % g->ng];
	}
	suffix2_u64(g, e->Gc, e->SGc);
	suffix2_u64(g, m->gsum, e->SGs);
	suffix2_u64(g, e->Tc, e->STc);
	suffix2_u64(g, e->Ts, e->STs);
	m->ops->gen_saved(g, e->SGc, e->SGs, e->STc, e->STs, e->saved);
}

/* The points of every setting into @p. */
static void eval_points(const struct mdk_mpc *m, const struct eval *e,
			unsigned int flags, struct mdk_point *p)
{
	size_t i;

	for (i = 0; i < e->nset; i++) {
		struct mdk_setting st;

		mdk_policy_setting(m->pol, i, &st);
		p[i].policy = m->ops->name;
		p[i].p1 = st.p1;
		p[i].p2 = st.p2;
		p[i].has_p2 = st.has_p2;
		p[i].promotions = e->sump[i];
		p[i].saved = e->saved[i] +
			     ((flags & MDK_SAVINGS_PAPER) ? e->sump[i] : 0);
		p[i].footprint = e->footprint;
		p[i].max_rate = e->maxr[i];
		p[i].mean_rate =
			e->sumU ? (double)e->sump[i] / (double)e->sumU : 0;
		p[i].p99_rate = e->K ? e->topk[i * e->K] : 0;
		p[i].savings = e->footprint ? (double)p[i].saved /
						      (double)e->footprint :
					      0;
	}
}

long mdk_mpc_eval(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		  unsigned int flags, struct mdk_point **pts, char *err,
		  size_t errlen)
{
	return mdk__mpc_eval_extra(m, lo, hi, flags, NULL, pts, err, errlen);
}

long mdk__mpc_eval_extra(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
			 unsigned int flags, const uint64_t *extra,
			 struct mdk_point **pts, char *err, size_t errlen)
{
	const struct mdk_gen *g = &m->g;
	struct mdk_point *p;
	struct eval e;

	if (m->failed)
		return mdk_err(err, errlen, m->failed,
			       "%s: generator failed earlier", m->ops->name);
	if (!m->started || lo > hi || hi > m->hi_seen ||
	    m->hi_seen - lo >= g->cap)
		return mdk_err(
			err, errlen, -ERANGE,
			"%s: windows %u..%u are not in the ring (%u windows up to %u)",
			m->ops->name, lo, hi, g->cap, m->hi_seen);
	p = calloc(g->nset ? g->nset : 1, sizeof(*p));
	if (!p || eval_alloc(&e, g, mdk__mpc_eval_k(m, lo, hi))) {
		free(p);
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
			       m->ops->name);
	}
	e.extra = extra;
	eval_rows(m, lo, hi, &e);
	eval_saved(m, lo, hi, &e);
	eval_points(m, &e, flags, p);
	eval_free(&e);
	*pts = p;
	return (long)g->nset;
}

long mdk_mpc_best(const struct mdk_point *pts, size_t n, double target)
{
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mdk_point *p = &pts[i], *b;

		if (p->max_rate > target)
			continue;
		if (best < 0) {
			best = (long)i;
			continue;
		}
		b = &pts[best];
		if (p->saved > b->saved ||
		    (p->saved == b->saved && (p->max_rate < b->max_rate ||
					      (p->max_rate == b->max_rate &&
					       p->promotions < b->promotions))))
			best = (long)i;
	}
	return best;
}
