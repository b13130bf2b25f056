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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mpc_int.h"

#define HUGE_PAGE ((size_t)2 << 20)

/*
 * Large arrays (a generator's rows, the threads' window buffers) are
 * mapped on their own, zeroed, in 2 MiB pages where the kernel allows
 * (transparent huge pages on madvise): a pass touches rows sparsely, and
 * with threads every copy is summed at the end, so 4 KiB pages would cost
 * a fault per page touched.  Below 2 MiB, calloc (*@maplen 0).
 */
void *mdk__mpc_huge_zalloc(size_t bytes, size_t *maplen)
{
	size_t keep = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	size_t len = keep + HUGE_PAGE;
	uint8_t *p, *a;

	*maplen = 0;
	if (bytes < HUGE_PAGE)
		return calloc(bytes ? bytes : 1, 1);
	if (bytes > SIZE_MAX - 2 * HUGE_PAGE)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + len > a + keep)
		munmap(a + keep, (size_t)(p + len - (a + keep)));
	madvise(a, keep, MADV_HUGEPAGE);
	*maplen = keep;
	return a;
}

void mdk__mpc_huge_free(void *p, size_t maplen)
{
	if (maplen)
		munmap(p, maplen);
	else
		free(p);
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
	if (m->rows)
		mdk__mpc_huge_free(m->rows, m->rows_map);
	free(m->gsum);
	free(m->open);
	free(m->acc);
	free(m->first);
	free(m->slotwin);
	free(m->scratch);
	mdk__grid_free(&m->gown);
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

		/* The policy's own gap thresholds (lopp: A's and its wait). */
		if (!reuse && m->ops->gen_ggrid) {
			if (m->ops->gen_ggrid(m->pol, &m->gown)) {
				free(b);
				return -ENOMEM;
			}
			gr = &m->gown;
		}
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
	m->rows = mdk__mpc_huge_zalloc((size_t)rows_bytes, &m->rows_map);
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

/* Add slice @part of @nparts of @len values of @src to @dst. */
#define DEFINE_MERGE(name, type)                                 \
	static void name(type *dst, const type *src, size_t len, \
			 unsigned int part, unsigned int nparts) \
	{                                                        \
		size_t i, hi = len * (part + 1) / nparts;        \
                                                                 \
		for (i = len * part / nparts; i < hi; i++)       \
			dst[i] += src[i];                        \
	}
DEFINE_MERGE(merge_u32, uint32_t)
DEFINE_MERGE(merge_u64, uint64_t)
DEFINE_MERGE(merge_i64, int64_t)

void mdk__mpc_merge(struct mdk_mpc *dst, struct mdk_mpc *const *src, size_t n,
		    unsigned int part, unsigned int nparts)
{
	size_t cap = dst->g.cap, k;

	/* Sums: the counts of disjoint page sets add up to the whole's. */
	for (k = 0; k < n; k++) {
		const struct mdk_mpc *s = src[k];

		merge_u32(dst->rows, s->rows, cap * dst->g.cells, part, nparts);
		merge_u32(dst->open, s->open, cap * dst->g.nr, part, nparts);
		merge_u64(dst->gsum, s->gsum, dst->g.cells, part, nparts);
		merge_i64(dst->acc, s->acc, cap, part, nparts);
		merge_i64(dst->first, s->first, cap, part, nparts);
	}
}
