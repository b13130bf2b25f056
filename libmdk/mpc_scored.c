// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whole-trace curves scored from a window F on (mdk_mpc_run_opts(), see
 * mdk/mpc.h): only windows F..W-1 count, the pages' state comes from all.
 *
 * For a policy that decides an interval when it opens (mdk_policy_online():
 * age, paw, pace, lopp) the wait of an interval open across F is the same
 * whether it closes later or is cut at F-1 as a tail.  So its page-windows
 * saved before F are those of the trace cut after window F-1, and one
 * pass gives every setting:
 *
 *   at F-1   the generator's curve over 0..F-1 with every open interval
 *            added as a tail (then taken out again): savings and
 *            footprint before F;
 *   at the end  the curve over 0..W-1 (savings and footprint of all) and
 *            over F..W-1 (the rows of F.. alone: promotions, U(w), rates).
 *
 * Scored savings and footprint are the differences.  vmin and opp look at
 * the gap an interval will have, so cutting it changes their decision:
 * they are simulated setting by setting (mdk_simulate_opts()).
 */
#include <stdlib.h>
#include <string.h>

#include <mdk/interval.h>
#include <mdk/sim.h>
#include <mdk/trace.h>

#include "mpc_int.h"

#define BATCH 4096

int mdk__run_opts_check(const struct mdk_run_opts *o, uint32_t windows,
			char *err, size_t errlen)
{
	if (o->score_from && o->score_from >= windows)
		return mdk_err(
			err, errlen, -EINVAL,
			"score from window %u: beyond the trace's %u windows (expected 0 to %u)",
			o->score_from, windows, windows ? windows - 1 : 0);
	return 0;
}

/* One online policy's generator, its stream when keyed, its prefix. */
struct sgen {
	struct mdk_mpc *m;
	struct mdk_keyer *k; /* keyed: its keys and stream */
	struct mdk_stream *st;
	struct mdk_point *pre; /* windows 0..F-1, cut there */
};

struct scored {
	uint32_t W, F;
	struct mdk_stream *st; /* the shared stream of the unkeyed */
	struct sgen *g;
	size_t ng;
	bool cut; /* the prefix is taken */
	uint32_t start[BATCH], reuse[BATCH], keys[BATCH];
};

/* Every open interval of @st into @m as a tail, with @weight. */
static int add_tails(struct mdk_mpc *m, struct mdk_stream *st, int weight,
		     struct scored *sc, char *err, size_t errlen)
{
	uint32_t cursor = 0;
	size_t k;
	int ret;

	while ((k = mdk_stream_tails(st, &cursor, sc->start, sc->reuse, BATCH)))
		if ((ret = mdk_mpc_add_tails(m, sc->start, sc->reuse, k, weight,
					     err, errlen)))
			return ret;
	return 0;
}

/* Windows 0..F-1 are in: each generator's curve of the trace cut there. */
static int take_prefix(struct scored *sc, char *err, size_t errlen)
{
	size_t i;
	long n;
	int ret;

	sc->cut = true;
	for (i = 0; i < sc->ng; i++) {
		struct sgen *g = &sc->g[i];
		struct mdk_stream *st = g->st ? g->st : sc->st;

		ret = mdk_mpc_add_window(g->m, sc->F - 1, 0, 0, err, errlen);
		if (!ret)
			ret = add_tails(g->m, st, 1, sc, err, errlen);
		if (ret)
			return ret;
		n = mdk_mpc_eval(g->m, 0, sc->F - 1, 0, &g->pre, err, errlen);
		if (n < 0)
			return (int)n;
		ret = add_tails(g->m, st, -1, sc, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* @n accesses of chunk @c from @off into every generator. */
static int feed(struct scored *sc, const struct mdk_trace_chunk *c, size_t off,
		size_t n, char *err, size_t errlen)
{
	uint64_t nfirst = 0;
	size_t i;
	int ret = mdk_stream_feed(sc->st, c->window, c->pages + off, n,
				  sc->start, sc->reuse, &nfirst, err, errlen);

	/* The unkeyed first: the keyed streams reuse start[] and reuse[]. */
	for (i = 0; !ret && i < sc->ng; i++)
		if (!sc->g[i].k)
			ret = mdk_mpc_add_closed(sc->g[i].m, c->window,
						 sc->start, sc->reuse, n, err,
						 errlen);
	for (i = 0; !ret && i < sc->ng; i++) {
		struct sgen *g = &sc->g[i];

		if (!g->k)
			continue;
		ret = mdk_keyer_keys(g->k, c->window, c->ids + off,
				     c->pages + off, n, sc->keys, err, errlen);
		if (!ret)
			ret = mdk_stream_feed_keys(g->st, c->window,
						   c->pages + off, sc->keys, n,
						   sc->start, sc->reuse,
						   &nfirst, err, errlen);
		if (!ret)
			ret = mdk_mpc_add_closed(g->m, c->window, sc->start,
						 sc->reuse, n, err, errlen);
	}
	return ret;
}

/* The pass: every chunk, the prefix at F, the tails at the end. */
static int pass(struct scored *sc, struct mdk_trace_reader *r, char *err,
		size_t errlen)
{
	struct mdk_trace_chunk c;
	size_t i, off;
	int ret;

	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		if (!sc->cut && c.window >= sc->F &&
		    (ret = take_prefix(sc, err, errlen)))
			return ret;
		for (off = 0; off < c.n; off += BATCH)
			if ((ret = feed(sc, &c, off, MDK_MIN(c.n - off, BATCH),
					err, errlen)))
				return ret;
	}
	if (ret < 0 || (!sc->cut && (ret = take_prefix(sc, err, errlen))))
		return ret;
	for (i = 0; i < sc->ng; i++) {
		struct sgen *g = &sc->g[i];

		ret = mdk_mpc_add_window(g->m, sc->W - 1, 0, 0, err, errlen);
		if (!ret)
			ret = add_tails(g->m, g->st ? g->st : sc->st, 1, sc,
					err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* Generator @g's scored points: rates of F.., savings all minus before. */
static long scored_points(struct scored *sc, struct sgen *g, unsigned int flags,
			  struct mdk_point **out, char *err, size_t errlen)
{
	struct mdk_point *all = NULL, *tail = NULL;
	long n = mdk_mpc_eval(g->m, 0, sc->W - 1, 0, &all, err, errlen), i;

	if (n >= 0 &&
	    mdk_mpc_eval(g->m, sc->F, sc->W - 1, 0, &tail, err, errlen) != n)
		n = -EIO;
	for (i = 0; i < n; i++) {
		struct mdk_point *p = &tail[i];

		p->saved = all[i].saved - g->pre[i].saved +
			   ((flags & MDK_SAVINGS_PAPER) ? p->promotions : 0);
		p->footprint = all[i].footprint - g->pre[i].footprint;
		p->savings = p->footprint ?
				     (double)p->saved / (double)p->footprint :
				     0;
	}
	free(all);
	if (n < 0) {
		free(tail);
		return n;
	}
	*out = tail;
	return n;
}

static void scored_free(struct scored *sc)
{
	size_t i;

	for (i = 0; sc->g && i < sc->ng; i++) {
		mdk_mpc_free(sc->g[i].m);
		mdk_keyer_free(sc->g[i].k);
		mdk_stream_free(sc->g[i].st);
		free(sc->g[i].pre);
	}
	free(sc->g);
	mdk_stream_free(sc->st);
	free(sc);
}

/* The online policies of @pols (@idx[i]: their places) in one pass. */
static int run_online(const char *trace, struct mdk_policy *const *pols,
		      const size_t *idx, size_t n, const struct mdk_run_opts *o,
		      uint32_t W, struct mdk_point **pts, size_t *npts,
		      char *err, size_t errlen)
{
	struct scored *sc = calloc(1, sizeof(*sc));
	struct mdk_trace_reader *r = NULL;
	size_t i;
	int ret = 0;

	if (!sc || !(sc->g = calloc(n ? n : 1, sizeof(*sc->g))) ||
	    mdk_stream_new(W, &sc->st)) {
		if (sc)
			scored_free(sc);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	sc->W = W;
	sc->F = o->score_from;
	sc->ng = n;
	for (i = 0; !ret && i < n; i++) {
		struct sgen *g = &sc->g[i];

		ret = mdk_mpc_new(pols[idx[i]], W, &g->m, err, errlen);
		if (!ret && mdk_policy_keyed(pols[idx[i]])) {
			ret = mdk_keyer_new(pols[idx[i]], &g->k, err, errlen);
			if (!ret && mdk_stream_new_keyed(W, &g->st))
				ret = mdk_err(err, errlen, -ENOMEM,
					      "out of memory");
		}
	}
	if (!ret)
		ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err,
					    errlen);
	if (!ret)
		ret = pass(sc, r, err, errlen);
	for (i = 0; !ret && i < n; i++) {
		long k = scored_points(sc, &sc->g[i], o->flags, &pts[idx[i]],
				       err, errlen);

		if (k < 0)
			ret = (int)k;
		else
			npts[idx[i]] = (size_t)k;
	}
	mdk_trace_reader_close(r);
	scored_free(sc);
	return ret;
}

/* Policy @p setting by setting through the simulator. */
static int run_simulated(const char *trace, struct mdk_policy *p,
			 const struct mdk_run_opts *o, uint32_t W,
			 struct mdk_point **pts, size_t *npts, char *err,
			 size_t errlen)
{
	size_t n, i;
	int ret = mdk_policy_resolve(p, W, err, errlen);

	if (ret)
		return ret;
	n = mdk_policy_settings(p);
	*pts = calloc(n ? n : 1, sizeof(**pts));
	if (!*pts)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if ((ret = mdk_simulate_opts(trace, p, i, o, &(*pts)[i], err,
					     errlen)))
			return ret;
	*npts = n;
	return 0;
}

/* The windows of @trace: closed, indexed, at least one. */
static int trace_windows(const char *trace, uint32_t *W, char *err,
			 size_t errlen)
{
	struct mdk_trace_reader *r;
	int ret =
		mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err, errlen);

	if (ret)
		return ret;
	*W = mdk_trace_reader_info(r)->windows;
	if (!mdk_trace_reader_info(r)->indexed || !*W)
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: curves need a closed trace with windows in a regular file",
			trace);
	mdk_trace_reader_close(r);
	return ret;
}

int mdk_mpc_run_opts(const char *trace, struct mdk_policy *const *pols,
		     size_t np, const struct mdk_run_opts *o,
		     struct mdk_point **pts, size_t *npts, char *err,
		     size_t errlen)
{
	size_t *idx, n = 0, i;
	uint32_t W;
	int ret;

	if (!o->score_from)
		return mdk_mpc_run(trace, pols, np, o->flags, pts, npts, err,
				   errlen);
	for (i = 0; i < np; i++) {
		pts[i] = NULL;
		npts[i] = 0;
	}
	ret = trace_windows(trace, &W, err, errlen);
	if (!ret)
		ret = mdk__run_opts_check(o, W, err, errlen);
	if (ret)
		return ret;
	idx = calloc(np ? np : 1, sizeof(*idx));
	if (!idx)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < np; i++)
		if (mdk_policy_online(pols[i]) &&
		    mdk_policy_kind(pols[i]) == MDK_POLICY_INTERVAL)
			idx[n++] = i;
	ret = run_online(trace, pols, idx, n, o, W, pts, npts, err, errlen);
	for (i = 0; !ret && i < np; i++)
		if (!pts[i])
			ret = run_simulated(trace, pols[i], o, W, &pts[i],
					    &npts[i], err, errlen);
	free(idx);
	if (ret)
		for (i = 0; i < np; i++) {
			free(pts[i]);
			pts[i] = NULL;
			npts[i] = 0;
		}
	return ret;
}
