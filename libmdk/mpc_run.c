// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The whole-trace driver, mdk_mpc_run(): one pass over a closed trace
 * feeds one interval stream to the generators of every policy.  A
 * generator whose bins nest in a finer one's is not fed at all: its
 * histograms are derived from the finer one's at the end.  A keyed
 * policy (lopp) has its own stream, fed its keys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/trace.h>

#include "mpc_int.h"

#define BATCH MDK_RUN_BATCH

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

struct mdk__derive {
	uint32_t *rmap, *gmap;
};

/* Can coarse generator @c be computed from fine generator @f? */
static bool can_derive(const struct mdk_mpc *c, const struct mdk_mpc *f,
		       struct mdk__derive *d)
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

/*
 * @c's rows and tails of ring slots @lo..@hi-1 from @f's through the bin
 * maps of @d: slots are independent, so threads may split them.
 */
static void derive_slots(struct mdk_mpc *c, const struct mdk_mpc *f,
			 const struct mdk__derive *d, uint32_t lo, uint32_t hi)
{
	uint32_t s, rb, gb;

	memset(c->rows + (size_t)lo * c->g.cells, 0,
	       (size_t)(hi - lo) * c->g.cells * sizeof(*c->rows));
	memset(c->open + (size_t)lo * c->g.nr, 0,
	       (size_t)(hi - lo) * c->g.nr * sizeof(*c->open));
	for (s = lo; s < hi; s++) {
		const uint32_t *fr = f->rows + (size_t)s * f->g.cells;
		uint32_t *cr = c->rows + (size_t)s * c->g.cells;

		for (rb = 0; rb < f->g.nr; rb++) {
			const uint32_t *frr = fr + (size_t)rb * f->g.ng;
			uint32_t *crr = cr + (size_t)d->rmap[rb] * c->g.ng;

			for (gb = 0; gb < f->g.ng; gb++)
				crr[d->gmap[gb]] += frr[gb];
			c->open[(size_t)s * c->g.nr + d->rmap[rb]] +=
				f->open[(size_t)s * f->g.nr + rb];
		}
	}
}

/* The rest of @c from @f: window counts and the gaps' sums. */
static void derive_finish(struct mdk_mpc *c, const struct mdk_mpc *f,
			  const struct mdk__derive *d)
{
	uint32_t cap = f->g.cap, s, rb, gb;
	uint64_t *fcnt = NULL;

	memcpy(c->slotwin, f->slotwin, cap * sizeof(*c->slotwin));
	memcpy(c->acc, f->acc, cap * sizeof(*c->acc));
	memcpy(c->first, f->first, cap * sizeof(*c->first));
	c->started = f->started;
	c->hi_seen = f->hi_seen;
	memset(c->gsum, 0, c->g.cells * sizeof(*c->gsum));
	if (c->gsum_derived)
		return; /* computed at evaluation */
	if (f->gsum_derived) {
		/* f keeps no sums: its counts x their one length each. */
		fcnt = calloc(f->g.cells, sizeof(*fcnt));
		for (s = 0; fcnt && s < cap; s++)
			for (rb = 0; rb < f->g.cells; rb++)
				fcnt[rb] +=
					f->rows[(size_t)s * f->g.cells + rb];
	}
	for (rb = 0; rb < f->g.nr; rb++)
		for (gb = 0; gb < f->g.ng; gb++) {
			size_t fc = (size_t)rb * f->g.ng + gb;
			uint64_t sum = fcnt ? fcnt[fc] * f->gval[gb] :
					      f->gsum[fc];

			c->gsum[(size_t)d->rmap[rb] * c->g.ng + d->gmap[gb]] +=
				sum;
		}
	free(fcnt);
}

static int keyed_new(struct mdk__keyed *kd, const struct mdk_policy *p,
		     uint32_t W, char *err, size_t errlen)
{
	int ret = mdk_keyer_new(p, &kd->k, err, errlen);

	if (!ret && mdk_stream_new_keyed(W, &kd->st))
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	return ret;
}

static void keyed_free(struct mdk__keyed *kd)
{
	if (!kd)
		return;
	mdk_stream_free(kd->st);
	mdk_keyer_free(kd->k);
}

/* Accesses @off..@off+@n-1 of chunk @c into @g through @kd's keys. */
static int keyed_add(struct mdk__keyed *kd, struct mdk_mpc *g,
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

/* Open @trace: closed (indexed) and with windows.  0 or -errno. */
int mdk__run_open(struct mdk__run *rn, const char *trace, unsigned int flags,
		  char *err, size_t errlen)
{
	int ret = mdk_trace_reader_open(trace, flags, &rn->r, err, errlen);

	if (ret)
		return ret;
	rn->W = mdk_trace_reader_info(rn->r)->windows;
	if (!mdk_trace_reader_info(rn->r)->indexed)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: curves need a closed trace in a regular file (its index gives the window count)",
			trace);
	if (!rn->W)
		return mdk_err(err, errlen, -EINVAL, "%s: trace has no windows",
			       trace);
	return 0;
}

/* The generators of @pols, and which derive from which. */
int mdk__run_gens(struct mdk__run *rn, struct mdk_policy *const *pols,
		  char *err, size_t errlen)
{
	size_t np = rn->np, i, j;
	int ret;

	rn->gens = calloc(np, sizeof(*rn->gens));
	rn->from = calloc(np, sizeof(*rn->from));
	rn->order = calloc(np, sizeof(*rn->order));
	rn->dv = calloc(np, sizeof(*rn->dv));
	rn->kd = calloc(np, sizeof(*rn->kd));
	ret = mdk_stream_new(rn->W, &rn->st);
	if (!rn->gens || !rn->from || !rn->order || !rn->dv || !rn->kd || ret)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < np; i++) {
		ret = mdk_mpc_new(pols[i], rn->W, &rn->gens[i], err, errlen);
		if (!ret && mdk_policy_keyed(pols[i]))
			ret = keyed_new(&rn->kd[i], pols[i], rn->W, err,
					errlen);
		if (ret)
			return ret;
		rn->order[i] = i;
	}
	/* Largest histograms first; each later one derives if it nests. */
	for (i = 1; i < np; i++)
		for (j = i;
		     j > 0 && rn->gens[rn->order[j]]->g.cells >
				      rn->gens[rn->order[j - 1]]->g.cells;
		     j--) {
			size_t t = rn->order[j];

			rn->order[j] = rn->order[j - 1];
			rn->order[j - 1] = t;
		}
	for (i = 0; i < np; i++) {
		size_t gi = rn->order[i];

		rn->from[gi] = SIZE_MAX;
		for (j = 0; j < i; j++) {
			size_t gj = rn->order[j];

			if (rn->from[gj] == SIZE_MAX &&
			    can_derive(rn->gens[gi], rn->gens[gj],
				       &rn->dv[gi])) {
				rn->from[gi] = gj;
				break;
			}
		}
	}
	return 0;
}

/* One chunk, in batches, into the generators fed. */
int mdk__run_chunk(struct mdk__run *rn, const struct mdk_trace_chunk *c,
		   char *err, size_t errlen)
{
	uint64_t nfirst = 0;
	size_t off = 0, i;
	int ret;

	do {
		size_t n = MDK_MIN(c->n - off, (size_t)BATCH);

		ret = mdk_stream_feed(rn->st, c->window, c->pages + off, n,
				      rn->start, rn->reuse, &nfirst, err,
				      errlen);
		for (i = 0; !ret && i < rn->np; i++)
			if (rn->kd[i].st)
				ret = keyed_add(&rn->kd[i], rn->gens[i], c, off,
						n, err, errlen);
			else if (rn->from[i] == SIZE_MAX)
				ret = mdk_mpc_add_closed(rn->gens[i], c->window,
							 rn->start, rn->reuse,
							 n, err, errlen);
		if (ret)
			return ret;
		off += n;
	} while (off < c->n);
	return 0;
}

/* Every chunk of the trace into the generators fed. */
static int run_feed(struct mdk__run *rn, char *err, size_t errlen)
{
	struct mdk_trace_chunk c;
	int ret;

	while ((ret = mdk_trace_reader_next(rn->r, &c, err, errlen)) > 0) {
		ret = mdk__run_chunk(rn, &c, err, errlen);
		if (ret)
			return ret;
	}
	return ret;
}

/* Tails: every page's last access. */
int mdk__run_tails(struct mdk__run *rn, char *err, size_t errlen)
{
	uint32_t cursor = 0;
	size_t i, k;
	int ret;

	while ((k = mdk_stream_tails(rn->st, &cursor, rn->start, rn->reuse,
				     BATCH)))
		for (i = 0; i < rn->np; i++)
			if (rn->from[i] == SIZE_MAX && !rn->kd[i].st) {
				ret = mdk_mpc_add_tails(rn->gens[i], rn->start,
							rn->reuse, k, 1, err,
							errlen);
				if (ret)
					return ret;
			}
	for (i = 0; i < rn->np; i++)
		if (rn->kd[i].st) {
			for (cursor = 0;
			     (k = mdk_stream_tails(rn->kd[i].st, &cursor,
						   rn->start, rn->reuse,
						   BATCH));)
				if ((ret = mdk_mpc_add_tails(
					     rn->gens[i], rn->start, rn->reuse,
					     k, 1, err, errlen)))
					return ret;
		}
	return 0;
}

void mdk__run_derive_part(struct mdk__run *rn, unsigned int part,
			  unsigned int nparts)
{
	size_t i;

	for (i = 0; i < rn->np; i++)
		if (rn->from[i] != SIZE_MAX) {
			uint32_t cap = rn->gens[i]->g.cap;

			derive_slots(rn->gens[i], rn->gens[rn->from[i]],
				     &rn->dv[i],
				     (uint32_t)((uint64_t)cap * part / nparts),
				     (uint32_t)((uint64_t)cap * (part + 1) /
						nparts));
		}
}

void mdk__run_derive_finish(struct mdk__run *rn, unsigned int part,
			    unsigned int nparts)
{
	size_t i;

	for (i = part; i < rn->np; i += nparts)
		if (rn->from[i] != SIZE_MAX)
			derive_finish(rn->gens[i], rn->gens[rn->from[i]],
				      &rn->dv[i]);
}

void mdk__run_derive(struct mdk__run *rn)
{
	mdk__run_derive_part(rn, 0, 1);
	mdk__run_derive_finish(rn, 0, 1);
}

void mdk__run_free(struct mdk__run *rn)
{
	size_t i;

	for (i = 0; rn->gens && rn->dv && rn->kd && i < rn->np; i++) {
		mdk_mpc_free(rn->gens[i]);
		free(rn->dv[i].rmap);
		free(rn->dv[i].gmap);
		keyed_free(&rn->kd[i]);
	}
	free(rn->kd);
	free(rn->gens);
	free(rn->from);
	free(rn->order);
	free(rn->dv);
	mdk_stream_free(rn->st);
	mdk_trace_reader_close(rn->r);
	free(rn);
}

int mdk__run_eval(struct mdk__run *rn, unsigned int flags,
		  struct mdk_point **pts, size_t *npts, char *err,
		  size_t errlen)
{
	size_t i;

	for (i = 0; i < rn->np; i++) {
		long n = mdk_mpc_eval(rn->gens[i], 0, rn->W - 1, flags, &pts[i],
				      err, errlen);

		if (n < 0)
			return (int)n;
		npts[i] = (size_t)n;
	}
	return 0;
}

int mdk_mpc_run(const char *trace, struct mdk_policy *const *pols, size_t np,
		unsigned int flags, struct mdk_point **pts, size_t *npts,
		char *err, size_t errlen)
{
	struct mdk__run *rn = calloc(1, sizeof(*rn));
	size_t i;
	int ret;

	for (i = 0; i < np; i++) {
		pts[i] = NULL;
		npts[i] = 0;
	}
	if (!rn)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	rn->np = np;
	ret = mdk__run_open(rn, trace, MDK_TRACE_DENSE, err, errlen);
	if (!ret)
		ret = mdk__run_gens(rn, pols, err, errlen);
	if (!ret)
		ret = run_feed(rn, err, errlen);
	if (!ret)
		ret = mdk__run_tails(rn, err, errlen);
	if (!ret) {
		mdk__run_derive(rn);
		ret = mdk__run_eval(rn, flags, pts, npts, err, errlen);
	}
	if (ret) {
		for (i = 0; i < np; i++) {
			free(pts[i]);
			pts[i] = NULL;
			npts[i] = 0;
		}
	}
	mdk__run_free(rn);
	return ret;
}
