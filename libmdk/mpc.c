// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Single-pass MPC generators (see mdk/mpc.h for the event model).
 *
 * A generator bins intervals by prior reuse distance r (r-bins, from the
 * policy's gen_r grid) and by gap g (g-bins, from gen_g), and keeps:
 *
 *   rows[w][rb][gb]  closed intervals ending in window w (the promotions
 *                    of window w, for every setting, derive from this row)
 *   gsum[rb][gb]     sum of their gaps over the ring (savings)
 *   open[a][rb]      open intervals starting in window a (tails: at
 *                    evaluation t = hi - a and they are binned like gaps)
 *   acc[w], first[w] U(w) and the first accesses of window w
 *
 * With thresholds x_0 < ... < x_{m-1}, g-bin(g) = #{j: x_j <= g}, so the
 * intervals with g >= x_j are the bins > j and a suffix sum answers every
 * setting at once; r-bins likewise with "r > x_i".  Binning by the grid
 * rather than by value keeps rows small for coarse grids and is exact
 * because gsum keeps the true lengths.  Evaluation walks the rows once:
 * per window, 2-D suffix sums of its row give each setting's promotions
 * (policy hook gen_row), and the savings come from the suffix sums of
 * gsum and of the tails (gen_saved).
 *
 * Memory is capacity x cells x 4 bytes for the rows: W^2 for AGE, VMIN,
 * PAW (one wait) and OPP, W x |P| x |A| for PACE.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/mpc.h>

#include "internal.h"

struct mdk_mpc {
	struct mdk_gen g; /* what the policy hooks see */
	struct mdk_policy *pol;
	const struct mdk_policy_ops *ops;
	uint32_t rmax; /* largest r-value binned: cap, or a keyed policy's key_max */
	uint32_t *rbin; /* r-value 0..rmax -> r-bin */
	uint32_t *gbin; /* length 0..cap-1 -> g-bin */
	/*
	 * When every g-bin holds one gap length (full threshold grids, OPP),
	 * gsum is count x length and is not kept: gval[] has the lengths.
	 */
	bool gsum_derived;
	uint32_t *gval;
	uint32_t *rows; /* cap x cells */
	uint64_t *gsum; /* cells */
	uint32_t *open; /* cap x nr */
	int64_t *acc; /* per slot */
	int64_t *first; /* per slot */
	uint32_t *slotwin; /* window + 1 a slot holds (0: none yet) */
	bool started;
	uint32_t hi_seen; /* newest window added */
	int failed;
	size_t bytes;
	uint64_t *scratch;
};

static uint32_t slot_of(const struct mdk_mpc *m, uint32_t w)
{
	return w % m->g.cap;
}

size_t mdk_mpc_memory(const struct mdk_mpc *m)
{
	return m->bytes;
}

void mdk_mpc_free(struct mdk_mpc *m)
{
	if (!m)
		return;
	free(m->rbin);
	free(m->gbin);
	free(m->gval);
	free(m->rows);
	free(m->gsum);
	free(m->open);
	free(m->acc);
	free(m->first);
	free(m->slotwin);
	free(m->scratch);
	free(m);
}

/* Bins of a dimension: grid thresholds, exact values, or none. */
static int setup_dim(struct mdk_mpc *m, int param, bool reuse, uint32_t *nb,
		     const struct mdk_grid **grid, uint32_t **bins)
{
	uint32_t cap = m->g.cap, size = reuse ? m->rmax + 1 : cap, x;
	uint32_t *b = calloc(size, sizeof(*b));
	size_t k = 0;

	if (!b)
		return -ENOMEM;
	*grid = NULL;
	if (param == MDK_GEN_NONE) {
		*nb = 1;
	} else if (param == MDK_GEN_EXACT) {
		*nb = cap;
		for (x = 0; x < size; x++)
			b[x] = MDK_MIN(x, cap - 1);
	} else {
		const struct mdk_grid *gr = &m->pol->grid[param];

		*grid = gr;
		*nb = (uint32_t)MDK_MIN(gr->n, (size_t)UINT32_MAX - 1) + 1;
		for (x = 0; x < size; x++) {
			/* reuse: #{x_i < x}; length: #{x_j <= x} */
			while (k < gr->n &&
			       (reuse ? gr->v[k] < x : gr->v[k] <= x))
				k++;
			b[x] = (uint32_t)k;
		}
	}
	*bins = b;
	return 0;
}

int mdk_mpc_new(struct mdk_policy *p, uint32_t capacity, struct mdk_mpc **out,
		char *err, size_t errlen)
{
	const struct mdk_policy_ops *ops = p->ops;
	struct mdk_mpc *m;
	uint64_t rows_bytes;
	int ret;

	if (!ops->gen_row || !ops->gen_saved)
		return mdk_err(err, errlen, -EOPNOTSUPP,
			       "%s has no single-pass curve (%s)", ops->name,
			       ops->kind == MDK_POLICY_CACHE ?
				       "a fixed-size policy: see mdkctl mrc" :
				       "simulate it instead");
	if (!capacity || capacity == UINT32_MAX)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: capacity of %u windows is out of range",
			       ops->name, capacity);
	ret = mdk_policy_resolve(p, capacity, err, errlen);
	if (ret)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	m->pol = p;
	m->ops = ops;
	m->g.pol = p;
	m->g.cap = capacity;
	m->g.n1 = ops->nparams > 1 ? p->grid[1].n : 1;
	m->g.nset = mdk_policy_settings(p);
	m->rmax = mdk_policy_keyed(p) ? mdk_policy_key_max(p) : capacity;
	ret = setup_dim(m, ops->gen_r, true, &m->g.nr, &m->g.rgrid, &m->rbin);
	if (!ret)
		ret = setup_dim(m, ops->gen_g, false, &m->g.ng, &m->g.ggrid,
				&m->gbin);
	if (ret)
		goto err_nomem;
	rows_bytes = (uint64_t)capacity * m->g.nr * m->g.ng * sizeof(uint32_t);
	if ((uint64_t)m->g.nr * m->g.ng > UINT32_MAX ||
	    rows_bytes > (4ull << 30)) {
		ret = mdk_err(
			err, errlen, -E2BIG,
			"%s: histograms for %u windows x %u x %u bins need %llu MiB (over 4 GiB): evaluate a shorter horizon or a coarser grid",
			ops->name, capacity, m->g.nr, m->g.ng,
			(unsigned long long)(rows_bytes >> 20));
		mdk_mpc_free(m);
		return ret;
	}
	m->g.cells = m->g.nr * m->g.ng;
	/* Gaps are 0..cap-2: does each g-bin hold at most one of them? */
	m->gsum_derived = true;
	m->gval = calloc(m->g.ng, sizeof(*m->gval));
	if (!m->gval)
		goto err_nomem;
	{
		uint32_t x;

		for (x = 0; x + 1 < capacity; x++) {
			if (x && m->gbin[x] == m->gbin[x - 1])
				m->gsum_derived = false;
			m->gval[m->gbin[x]] = x;
		}
	}
	m->rows = calloc((size_t)capacity * m->g.cells, sizeof(*m->rows));
	m->gsum = calloc(m->g.cells, sizeof(*m->gsum));
	m->open = calloc((size_t)capacity * m->g.nr, sizeof(*m->open));
	m->acc = calloc(capacity, sizeof(*m->acc));
	m->first = calloc(capacity, sizeof(*m->first));
	m->slotwin = calloc(capacity, sizeof(*m->slotwin));
	m->scratch = calloc((size_t)capacity + 2, sizeof(*m->scratch));
	if (!m->rows || !m->gsum || !m->open || !m->acc || !m->first ||
	    !m->slotwin || !m->scratch)
		goto err_nomem;
	m->g.scratch = m->scratch;
	m->bytes = (size_t)rows_bytes + m->g.cells * sizeof(*m->gsum) +
		   (size_t)capacity * m->g.nr * sizeof(*m->open) +
		   (size_t)capacity * (2 * sizeof(int64_t) + 4 + 8);
	*out = m;
	return 0;

err_nomem:
	mdk_mpc_free(m);
	return mdk_err(err, errlen, -ENOMEM, "%s: out of memory", ops->name);
}

static bool slot_empty(const struct mdk_mpc *m, uint32_t s)
{
	const uint32_t *row = m->rows + (size_t)s * m->g.cells;
	const uint32_t *op = m->open + (size_t)s * m->g.nr;
	uint32_t i;

	if (m->acc[s] || m->first[s])
		return false;
	for (i = 0; i < m->g.cells; i++)
		if (row[i])
			return false;
	for (i = 0; i < m->g.nr; i++)
		if (op[i])
			return false;
	return true;
}

/* Make window @w part of the ring; 0, -ERANGE (too old) or -EBUSY. */
static int ensure_window(struct mdk_mpc *m, uint32_t w, char *err,
			 size_t errlen)
{
	uint32_t cap = m->g.cap, v, from, s;

	if (m->failed)
		return mdk_err(err, errlen, m->failed,
			       "%s: generator failed earlier", m->ops->name);
	if (m->started && w <= m->hi_seen) {
		if (m->hi_seen - w >= cap)
			return mdk_err(
				err, errlen, -ERANGE,
				"%s: window %u is older than the ring (%u..%u)",
				m->ops->name, w, m->hi_seen - cap + 1,
				m->hi_seen);
		return 0;
	}
	from = m->started ? m->hi_seen + 1 : w;
	if (w - from >= cap)
		from = w - cap + 1;
	for (v = from;; v++) {
		s = slot_of(m, v);
		if (m->slotwin[s] && !slot_empty(m, s))
			return mdk_err(
				err, errlen, -EBUSY,
				"%s: window %u still holds events: subtract them before adding window %u",
				m->ops->name, m->slotwin[s] - 1, v);
		m->slotwin[s] = v + 1;
		if (v == w)
			break;
	}
	m->started = true;
	m->hi_seen = w;
	return 0;
}

int mdk_mpc_add_window(struct mdk_mpc *m, uint32_t window, int64_t accessed,
		       int64_t first, char *err, size_t errlen)
{
	int ret = ensure_window(m, window, err, errlen);
	uint32_t s;

	if (ret)
		return ret;
	s = slot_of(m, window);
	m->acc[s] += accessed;
	m->first[s] += first;
	return 0;
}

static int err_range(struct mdk_mpc *m, uint32_t window, uint32_t a, char *err,
		     size_t errlen)
{
	m->failed = -ERANGE;
	return mdk_err(
		err, errlen, -ERANGE,
		"%s: access in window %u after one in window %u: the previous access must be earlier",
		m->ops->name, window, a);
}

/*
 * The per-record loops, one per shape so that the compiler keeps every
 * table in a register: with or without a reuse dimension, with or
 * without gsum, with or without open-interval tracking.  A record is an
 * access in window @window whose page was last accessed in start[i].
 */
#define ADD_LOOP(WITH_R, WITH_GSUM, WITH_OPEN)                                  \
	for (i = 0; i < n; i++) {                                               \
		uint32_t a = start[i], d, c, rb = 0;                            \
                                                                                \
		d = window - a;                                                 \
		if (mdk_unlikely(a == MDK_NONE || d >= cap)) {                  \
			/* First access, or first in the horizon. */            \
			if (a != MDK_NONE && a >= window)                       \
				return err_range(m, window, a, err, errlen);    \
			nfirst++;                                               \
			if ((WITH_R) && (WITH_OPEN))                            \
				openn[rbin[MDK_MIN(                             \
					a == MDK_NONE ? reuse[i] : d, cap)]]++; \
			continue;                                               \
		}                                                               \
		if (mdk_unlikely(d == 0))                                       \
			return err_range(m, window, a, err, errlen);            \
		if (WITH_R)                                                     \
			rb = rbin[MDK_MIN(reuse[i], rmax)];                     \
		c = rb * ng + gbin[d - 1];                                      \
		row[c]++;                                                       \
		if (WITH_GSUM)                                                  \
			gsum[c] += d - 1;                                       \
		if (WITH_OPEN) {                                                \
			uint32_t sa = sn >= d ? sn - d : sn + cap - d;          \
                                                                                \
			open[(size_t)sa * nr + rb]--;                           \
			if (WITH_R)                                             \
				openn[rbin[d]]++;                               \
		}                                                               \
	}

static int add_batch(struct mdk_mpc *m, uint32_t window, const uint32_t *start,
		     const uint32_t *reuse, size_t n, bool track_open,
		     char *err, size_t errlen)
{
	const uint32_t cap = m->g.cap, nr = m->g.nr, ng = m->g.ng;
	const uint32_t rmax = m->rmax;
	const uint32_t *rbin = m->rbin, *gbin = m->gbin;
	uint32_t sn, *row, *open = m->open, *openn;
	uint64_t *gsum = m->gsum, nfirst = 0;
	bool with_r = nr > 1, with_gsum = !m->gsum_derived;
	size_t i;
	int ret;

	ret = ensure_window(m, window, err, errlen);
	if (ret)
		return ret;
	sn = slot_of(m, window);
	row = m->rows + (size_t)sn * m->g.cells;
	openn = open + (size_t)sn * nr;
	m->acc[sn] += (int64_t)n;
	if (track_open) {
		if (!with_r && !with_gsum)
			ADD_LOOP(0, 0, 1)
		else if (!with_r)
			ADD_LOOP(0, 1, 1)
		else if (!with_gsum)
			ADD_LOOP(1, 0, 1)
		else
			ADD_LOOP(1, 1, 1)
		/* Without a reuse dimension every access opens bin 0. */
		if (!with_r)
			openn[0] += (uint32_t)n;
	} else {
		if (!with_r && !with_gsum)
			ADD_LOOP(0, 0, 0)
		else if (!with_r)
			ADD_LOOP(0, 1, 0)
		else if (!with_gsum)
			ADD_LOOP(1, 0, 0)
		else
			ADD_LOOP(1, 1, 0)
	}
	m->first[sn] += (int64_t)nfirst;
	return 0;
}

int mdk_mpc_add_accesses(struct mdk_mpc *m, uint32_t window,
			 const uint32_t *start, const uint32_t *reuse, size_t n,
			 char *err, size_t errlen)
{
	/* An open interval's r-value would be its access's key. */
	if (mdk_policy_keyed(m->pol))
		return mdk_err(
			err, errlen, -EOPNOTSUPP,
			"%s: a keyed policy's generator takes closed intervals, tails and windows",
			m->ops->name);
	return add_batch(m, window, start, reuse, n, true, err, errlen);
}

int mdk_mpc_add_closed(struct mdk_mpc *m, uint32_t window,
		       const uint32_t *start, const uint32_t *reuse, size_t n,
		       char *err, size_t errlen)
{
	return add_batch(m, window, start, reuse, n, false, err, errlen);
}

int mdk_mpc_add_tails(struct mdk_mpc *m, const uint32_t *start,
		      const uint32_t *reuse, size_t n, int weight, char *err,
		      size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		struct mdk_interval iv = { start[i], MDK_NONE, reuse[i] };

		ret = mdk_mpc_add_interval(m, &iv, weight, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int mdk_mpc_add_interval(struct mdk_mpc *m, const struct mdk_interval *iv,
			 int weight, char *err, size_t errlen)
{
	uint32_t cap = m->g.cap, rb, s;
	int ret;

	if (weight != 1 && weight != -1)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: interval weight %d (expected +1 or -1)",
			       m->ops->name, weight);
	if (iv->start == MDK_NONE ||
	    (iv->end != MDK_NONE &&
	     (iv->end <= iv->start || iv->end - iv->start >= cap)))
		return mdk_err(
			err, errlen, -ERANGE,
			"%s: interval (%u, %u) is empty or longer than the ring",
			m->ops->name, iv->start, iv->end);
	ret = ensure_window(m, iv->end == MDK_NONE ? iv->start : iv->end, err,
			    errlen);
	if (!ret)
		ret = ensure_window(m, iv->start, err, errlen);
	if (ret)
		return ret;
	rb = m->rbin[MDK_MIN(iv->reuse, m->rmax)];
	if (iv->end == MDK_NONE) {
		s = slot_of(m, iv->start);
		m->open[(size_t)s * m->g.nr + rb] += (uint32_t)weight;
	} else {
		uint32_t g = iv->end - iv->start - 1;
		uint32_t c = rb * m->g.ng + m->gbin[g];

		s = slot_of(m, iv->end);
		m->rows[(size_t)s * m->g.cells + c] += (uint32_t)weight;
		if (!m->gsum_derived)
			m->gsum[c] += (uint64_t)((int64_t)weight * g);
	}
	return 0;
}

/* 2-D suffix sums of @in (nr x ng) into @S ((nr + 1) x (ng + 1)). */
static void suffix2_u32(const struct mdk_gen *g, const uint32_t *in,
			uint64_t *S)
{
	uint32_t nr = g->nr, ng = g->ng, i, j;
	size_t w = ng + 1;

	memset(S + (size_t)nr * w, 0, w * sizeof(*S));
	for (i = nr; i-- > 0;) {
		uint64_t run = 0;

		S[(size_t)i * w + ng] = 0;
		for (j = ng; j-- > 0;) {
			run += in[(size_t)i * ng + j];
			S[(size_t)i * w + j] = run + S[(size_t)(i + 1) * w + j];
		}
	}
}

static void suffix2_u64(const struct mdk_gen *g, const uint64_t *in,
			uint64_t *S)
{
	uint32_t nr = g->nr, ng = g->ng, i, j;
	size_t w = ng + 1;

	memset(S + (size_t)nr * w, 0, w * sizeof(*S));
	for (i = nr; i-- > 0;) {
		uint64_t run = 0;

		S[(size_t)i * w + ng] = 0;
		for (j = ng; j-- > 0;) {
			run += in[(size_t)i * ng + j];
			S[(size_t)i * w + j] = run + S[(size_t)(i + 1) * w + j];
		}
	}
}

/* Insert @x into the ascending top-@k list @t holding *@n values. */
static void topk_add(double *t, uint32_t k, uint32_t *n, double x)
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

long mdk_mpc_eval(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
		  unsigned int flags, struct mdk_point **pts, char *err,
		  size_t errlen)
{
	const struct mdk_gen *g = &m->g;
	size_t nset = g->nset, sz = (size_t)(g->nr + 1) * (g->ng + 1), i;
	uint64_t *prom = NULL, *saved = NULL, *sump = NULL, *S = NULL;
	uint64_t *Gc = NULL, *Tc = NULL, *Ts = NULL, *SGc = NULL, *SGs = NULL;
	uint64_t *STc = NULL, *STs = NULL, footprint = 0, sumU = 0;
	uint32_t nactive = 0, K, *nk = NULL, w, rb;
	double *maxr = NULL, *topk = NULL;
	struct mdk_point *p = NULL;
	long ret;

	if (m->failed)
		return mdk_err(err, errlen, m->failed,
			       "%s: generator failed earlier", m->ops->name);
	if (!m->started || lo > hi || hi > m->hi_seen ||
	    m->hi_seen - lo >= g->cap)
		return mdk_err(
			err, errlen, -ERANGE,
			"%s: windows %u..%u are not in the ring (%u windows up to %u)",
			m->ops->name, lo, hi, g->cap, m->hi_seen);
	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w);

		if (m->slotwin[s] == w + 1 && m->acc[s] > 0)
			nactive++;
	}
	/* Nearest rank: element ceil(0.99 n) - 1 ascending = the K-th largest. */
	K = nactive ? nactive - (uint32_t)((99ull * nactive + 99) / 100) + 1 :
		      0;

	prom = calloc(nset, sizeof(*prom));
	saved = calloc(nset, sizeof(*saved));
	sump = calloc(nset, sizeof(*sump));
	maxr = calloc(nset, sizeof(*maxr));
	nk = calloc(nset, sizeof(*nk));
	topk = calloc(nset * (K ? K : 1), sizeof(*topk));
	S = calloc(sz, sizeof(*S));
	Gc = calloc(g->cells, sizeof(*Gc));
	Tc = calloc(g->cells, sizeof(*Tc));
	Ts = calloc(g->cells, sizeof(*Ts));
	SGc = calloc(sz, sizeof(*SGc));
	SGs = calloc(sz, sizeof(*SGs));
	STc = calloc(sz, sizeof(*STc));
	STs = calloc(sz, sizeof(*STs));
	p = calloc(nset ? nset : 1, sizeof(*p));
	if (!prom || !saved || !sump || !maxr || !nk || !topk || !S || !Gc ||
	    !Tc || !Ts || !SGc || !SGs || !STc || !STs || !p) {
		ret = mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
			      m->ops->name);
		goto out;
	}

	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w);
		const uint32_t *row = m->rows + (size_t)s * g->cells;
		int64_t U;
		uint32_t c;

		if (m->slotwin[s] != w + 1)
			continue; /* never added: an empty window */
		U = m->acc[s];
		for (c = 0; c < g->cells; c++)
			Gc[c] += row[c];
		suffix2_u32(g, row, S);
		m->ops->gen_row(g, S, row, U > 0 ? (uint64_t)U : 0, prom,
				saved);
		sumU += U > 0 ? (uint64_t)U : 0;
		footprint += (uint64_t)m->first[s] * (uint64_t)(hi - w + 1);
		for (i = 0; i < nset; i++) {
			double rate;

			sump[i] += prom[i];
			if (U <= 0)
				continue;
			rate = (double)prom[i] / (double)U;
			if (rate > maxr[i])
				maxr[i] = rate;
			topk_add(topk + i * K, K, &nk[i], rate);
		}
	}
	/* Tails: open intervals starting in lo..hi end at hi. */
	for (w = lo; w <= hi; w++) {
		uint32_t s = slot_of(m, w), t = hi - w, gb = m->gbin[t];
		const uint32_t *op = m->open + (size_t)s * g->nr;

		if (m->slotwin[s] != w + 1)
			continue;
		for (rb = 0; rb < g->nr; rb++) {
			Tc[(size_t)rb * g->ng + gb] += op[rb];
			Ts[(size_t)rb * g->ng + gb] += (uint64_t)op[rb] * t;
		}
	}
	if (m->gsum_derived) {
		uint32_t c;

		for (c = 0; c < g->cells; c++)
			m->gsum[c] = Gc[c] * m->gval[c % g->ng];
	}
	suffix2_u64(g, Gc, SGc);
	suffix2_u64(g, m->gsum, SGs);
	suffix2_u64(g, Tc, STc);
	suffix2_u64(g, Ts, STs);
	m->ops->gen_saved(g, SGc, SGs, STc, STs, saved);

	for (i = 0; i < nset; i++) {
		struct mdk_setting st;

		mdk_policy_setting(m->pol, i, &st);
		p[i].policy = m->ops->name;
		p[i].p1 = st.p1;
		p[i].p2 = st.p2;
		p[i].has_p2 = st.has_p2;
		p[i].promotions = sump[i];
		p[i].saved =
			saved[i] + ((flags & MDK_SAVINGS_PAPER) ? sump[i] : 0);
		p[i].footprint = footprint;
		p[i].max_rate = maxr[i];
		p[i].mean_rate = sumU ? (double)sump[i] / (double)sumU : 0;
		p[i].p99_rate = K ? topk[i * K] : 0;
		p[i].savings =
			footprint ? (double)p[i].saved / (double)footprint : 0;
	}
	*pts = p;
	p = NULL;
	ret = (long)nset;
out:
	free(p);
	free(prom);
	free(saved);
	free(sump);
	free(maxr);
	free(nk);
	free(topk);
	free(S);
	free(Gc);
	free(Tc);
	free(Ts);
	free(SGc);
	free(SGs);
	free(STc);
	free(STs);
	return ret;
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

/* ------------------------------------------------------------------ */
/* The whole-trace driver */

#define BATCH 4096

/*
 * Map the bins of @fbin (@nf bins) onto those of @cbin over the values
 * 0..@nvals-1; false when a fine bin would straddle two coarse bins.
 */
static bool bin_map(const uint32_t *fbin, const uint32_t *cbin, size_t nvals,
		    uint32_t nf, uint32_t *map)
{
	size_t x;
	uint32_t b;

	for (b = 0; b < nf; b++)
		map[b] = UINT32_MAX;
	for (x = 0; x < nvals; x++) {
		uint32_t fb = fbin[x];

		if (map[fb] == UINT32_MAX)
			map[fb] = cbin[x];
		else if (map[fb] != cbin[x])
			return false;
	}
	for (b = 0; b < nf; b++)
		if (map[b] == UINT32_MAX)
			map[b] = 0; /* holds no value: always empty */
	return true;
}

struct derive {
	uint32_t *rmap, *gmap;
};

/* Can coarse generator @c be computed from fine generator @f? */
static bool can_derive(const struct mdk_mpc *c, const struct mdk_mpc *f,
		       struct derive *d)
{
	/* Keys are a model's: two keyed policies' may differ. */
	if (c->g.cap != f->g.cap || mdk_policy_keyed(c->pol) ||
	    mdk_policy_keyed(f->pol))
		return false;
	d->rmap = malloc(f->g.nr * sizeof(*d->rmap));
	d->gmap = malloc(f->g.ng * sizeof(*d->gmap));
	if (d->rmap && d->gmap &&
	    bin_map(f->rbin, c->rbin, (size_t)f->rmax + 1, f->g.nr, d->rmap) &&
	    bin_map(f->gbin, c->gbin, f->g.cap - 1, f->g.ng, d->gmap))
		return true;
	free(d->rmap);
	free(d->gmap);
	d->rmap = d->gmap = NULL;
	return false;
}

/* Fill @c's histograms from @f's through the bin maps of @d. */
static void derive(struct mdk_mpc *c, const struct mdk_mpc *f,
		   const struct derive *d)
{
	uint32_t cap = f->g.cap, s, rb, gb;
	uint64_t *fcnt = NULL;

	memcpy(c->slotwin, f->slotwin, cap * sizeof(*c->slotwin));
	memcpy(c->acc, f->acc, cap * sizeof(*c->acc));
	memcpy(c->first, f->first, cap * sizeof(*c->first));
	c->started = f->started;
	c->hi_seen = f->hi_seen;
	memset(c->rows, 0, (size_t)cap * c->g.cells * sizeof(*c->rows));
	memset(c->open, 0, (size_t)cap * c->g.nr * sizeof(*c->open));
	memset(c->gsum, 0, c->g.cells * sizeof(*c->gsum));
	if (f->gsum_derived)
		fcnt = calloc(f->g.cells, sizeof(*fcnt));
	for (s = 0; s < cap; s++) {
		const uint32_t *fr = f->rows + (size_t)s * f->g.cells;
		uint32_t *cr = c->rows + (size_t)s * c->g.cells;

		for (rb = 0; rb < f->g.nr; rb++) {
			const uint32_t *frr = fr + (size_t)rb * f->g.ng;
			uint32_t *crr = cr + (size_t)d->rmap[rb] * c->g.ng;

			for (gb = 0; gb < f->g.ng; gb++)
				crr[d->gmap[gb]] += frr[gb];
			if (fcnt)
				for (gb = 0; gb < f->g.ng; gb++)
					fcnt[(size_t)rb * f->g.ng + gb] +=
						frr[gb];
			c->open[(size_t)s * c->g.nr + d->rmap[rb]] +=
				f->open[(size_t)s * f->g.nr + rb];
		}
	}
	if (!c->gsum_derived)
		for (rb = 0; rb < f->g.nr; rb++)
			for (gb = 0; gb < f->g.ng; gb++) {
				size_t fc = (size_t)rb * f->g.ng + gb;
				uint64_t sum = fcnt ? fcnt[fc] * f->gval[gb] :
						      f->gsum[fc];

				c->gsum[(size_t)d->rmap[rb] * c->g.ng +
					d->gmap[gb]] += sum;
			}
	free(fcnt);
}

/* A keyed policy's own stream, fed its keys (mdk_policy_keyed()). */
struct keyed {
	struct mdk_stream *st;
	struct mdk_keyer *k;
	uint32_t keys[BATCH], start[BATCH], reuse[BATCH];
	uint64_t first;
};

static int keyed_new(struct keyed *kd, const struct mdk_policy *p, uint32_t W,
		     char *err, size_t errlen)
{
	int ret = mdk_keyer_new(p, &kd->k, err, errlen);

	if (!ret && mdk_stream_new_keyed(W, &kd->st))
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	return ret;
}

static void keyed_free(struct keyed *kd)
{
	if (!kd)
		return;
	mdk_stream_free(kd->st);
	mdk_keyer_free(kd->k);
}

/* Accesses @off..@off+@n-1 of chunk @c into @g through @kd's keys. */
static int keyed_add(struct keyed *kd, struct mdk_mpc *g,
		     const struct mdk_trace_chunk *c, size_t off, size_t n,
		     char *err, size_t errlen)
{
	int ret = mdk_keyer_keys(kd->k, c->window, c->ids + off, c->pages + off,
				 n, kd->keys, err, errlen);

	if (!ret)
		ret = mdk_stream_feed_keys(kd->st, c->window, c->pages + off,
					   kd->keys, n, kd->start, kd->reuse,
					   &kd->first, err, errlen);
	return ret ? ret :
		     mdk_mpc_add_closed(g, c->window, kd->start, kd->reuse, n,
					err, errlen);
}

int mdk_mpc_run(const char *trace, struct mdk_policy *const *pols, size_t np,
		unsigned int flags, struct mdk_point **pts, size_t *npts,
		char *err, size_t errlen)
{
	struct mdk_trace_reader *r = NULL;
	struct mdk_mpc **gens = NULL;
	struct mdk_stream *st = NULL;
	struct keyed *kd = NULL;
	struct derive *dv = NULL;
	struct mdk_trace_chunk c;
	uint32_t W, start[BATCH], reuse[BATCH], cursor = 0;
	size_t i, j, k, *from = NULL, *order = NULL;
	uint64_t nfirst = 0;
	int ret;

	for (i = 0; i < np; i++) {
		pts[i] = NULL;
		npts[i] = 0;
	}
	ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err, errlen);
	if (ret)
		return ret;
	W = mdk_trace_reader_info(r)->windows;
	if (!mdk_trace_reader_info(r)->indexed) {
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: curves need a closed trace in a regular file (its index gives the window count)",
			trace);
		goto out;
	}
	if (!W) {
		ret = mdk_err(err, errlen, -EINVAL, "%s: trace has no windows",
			      trace);
		goto out;
	}
	gens = calloc(np, sizeof(*gens));
	from = calloc(np, sizeof(*from));
	order = calloc(np, sizeof(*order));
	dv = calloc(np, sizeof(*dv));
	kd = calloc(np, sizeof(*kd));
	ret = mdk_stream_new(W, &st);
	if (!gens || !from || !order || !dv || !kd || ret) {
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < np; i++) {
		ret = mdk_mpc_new(pols[i], W, &gens[i], err, errlen);
		if (!ret && mdk_policy_keyed(pols[i]))
			ret = keyed_new(&kd[i], pols[i], W, err, errlen);
		if (ret)
			goto out;
		order[i] = i;
	}
	/* Largest histograms first; each later one derives if it nests. */
	for (i = 1; i < np; i++)
		for (j = i; j > 0 && gens[order[j]]->g.cells >
					     gens[order[j - 1]]->g.cells;
		     j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < np; i++) {
		size_t gi = order[i];

		from[gi] = SIZE_MAX;
		for (j = 0; j < i; j++) {
			size_t gj = order[j];

			if (from[gj] == SIZE_MAX &&
			    can_derive(gens[gi], gens[gj], &dv[gi])) {
				from[gi] = gj;
				break;
			}
		}
	}
	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		size_t off = 0;

		do {
			size_t n = MDK_MIN(c.n - off, (size_t)BATCH);

			ret = mdk_stream_feed(st, c.window, c.pages + off, n,
					      start, reuse, &nfirst, err,
					      errlen);
			for (i = 0; !ret && i < np; i++)
				if (kd[i].st)
					ret = keyed_add(&kd[i], gens[i], &c,
							off, n, err, errlen);
				else if (from[i] == SIZE_MAX)
					ret = mdk_mpc_add_closed(
						gens[i], c.window, start, reuse,
						n, err, errlen);
			if (ret)
				goto out;
			off += n;
		} while (off < c.n);
	}
	if (ret)
		goto out;
	/* Tails: every page's last access, then the derived histograms. */
	while ((k = mdk_stream_tails(st, &cursor, start, reuse, BATCH)))
		for (i = 0; i < np; i++)
			if (from[i] == SIZE_MAX && !kd[i].st) {
				ret = mdk_mpc_add_tails(gens[i], start, reuse,
							k, 1, err, errlen);
				if (ret)
					goto out;
			}
	for (i = 0; i < np; i++)
		if (kd[i].st) {
			for (cursor = 0;
			     (k = mdk_stream_tails(kd[i].st, &cursor, start,
						   reuse, BATCH));)
				if ((ret = mdk_mpc_add_tails(gens[i], start,
							     reuse, k, 1, err,
							     errlen)))
					goto out;
		}
	for (i = 0; i < np; i++)
		if (from[i] != SIZE_MAX)
			derive(gens[i], gens[from[i]], &dv[i]);
	for (i = 0; i < np; i++) {
		long n = mdk_mpc_eval(gens[i], 0, W - 1, flags, &pts[i], err,
				      errlen);

		if (n < 0) {
			ret = (int)n;
			goto out;
		}
		npts[i] = (size_t)n;
	}
out:
	if (ret) {
		for (k = 0; k < np; k++) {
			free(pts[k]);
			pts[k] = NULL;
			npts[k] = 0;
		}
	}
	for (i = 0; gens && i < np; i++) {
		mdk_mpc_free(gens[i]);
		free(dv[i].rmap);
		free(dv[i].gmap);
		keyed_free(&kd[i]);
	}
	free(kd);
	free(gens);
	free(from);
	free(order);
	free(dv);
	mdk_stream_free(st);
	mdk_trace_reader_close(r);
	return ret;
}
