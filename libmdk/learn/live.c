// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP live: what the evaluator (evaluator.h) keeps to run L-OPP on a
 * stream of windows.  It learns online from OPP's decisions over the
 * horizon and keys every access with the newest model:
 *
 *  - per access of the last H windows: the features at that access
 *    (mdk/lopp.h), its key under the current model, the distance r to the
 *    page's previous access and dn to its next one (0: none yet);
 *  - labels: OPP(rho)'s decisions over the horizon taken as a trace.
 *    When a page is accessed again in window w, the interval its previous
 *    access opened closes with gap g; OPP reclaims the floor(rho x U(w))
 *    largest gaps of the intervals closing in w (mdk_lopp_labels()).  An
 *    interval still open is a tail of the horizon, which OPP reclaims,
 *    but it is labelled so only once idle for G windows, where G is the
 *    smallest gap from which on OPP reclaimed most closed intervals of
 *    the horizon (or, if none, one more than the longest): its end cannot
 *    change that label.  A younger one is not known yet, and labelling it
 *    would teach the model that an access which is a page's newest is one
 *    to reclaim -- its age and count are the largest;
 *  - every @retrain windows a new model is fitted to the rows of the
 *    horizon (the newest @rows of them: every access's features with its
 *    label), and every access in the horizon is keyed again with it, so
 *    that the curve over theta (mdk__lopp_live_fill()) is the current
 *    model's.  Asynchronous, the fit runs in a worker thread on a copy of
 *    the rows (live_fit.c) and the first window after it is done takes
 *    the model and keys the horizon then; a retrain window finding a fit
 *    still in flight starts none.
 *
 * Per page, the key of its last access (what mdk_eval_pick() decides on):
 * an access older than the horizon keeps the key it had when it left.
 */
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>
#include <mdk/mpc.h>

#include "learn_int.h"

struct lrec {
	uint32_t idx; /* dense index of the page */
	uint32_t r; /* windows since the page's previous access; 0: first */
	uint32_t dn; /* windows to its next access; 0: none yet */
	uint32_t key; /* under the current model; 0 without one */
	bool label; /* OPP's decision, once the interval closed (dn > 0) */
};

struct lwin {
	struct lrec *recs;
	float *x; /* n rows of MDK_LOPP_FEATURES */
	size_t n, rcap, xcap; /* xcap in features */
};

/* A page: its last access and that access's key. */
struct lpage {
	uint32_t last1; /* window + 1; 0: none */
	uint32_t pos; /* its place in that window's recs */
	uint32_t key;
};

struct mdk__lopp_live {
	uint32_t H, rho_ppm, retrain;
	unsigned int kind; /* enum mdk_lopp_kind */
	size_t rows; /* the training set's capacity */
	struct lwin *ring; /* window w in slot w % H */
	struct mdk_lopp_feat *feat;
	struct mdk__lopp_fit *fit; /* its set holds the rows of a fit */
	bool async;
	struct mdk_lopp_model *model;
	struct mdk_lopp_quality quality; /* of the model on its rows */
	uint64_t trainings, failures;
	size_t nrows; /* rows of the last training set */
	char error[MDK__LOPP_FIT_ERR]; /* of the last failed fit */
	struct lpage *page;
	size_t pcap;
	/* scratch */
	uint64_t *gcnt, *gpos; /* closed intervals of each gap, reclaimed */
	uint32_t *gaps, *hist, *rpos;
	bool *label;
	size_t gcap, rcap, lcap;
};

int mdk__lopp_live_new(uint32_t H, uint32_t rho_ppm, uint32_t retrain,
		       size_t rows, struct mdk__lopp_live **out)
{
	struct mdk__lopp_live *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->H = H;
	l->rho_ppm = rho_ppm;
	l->retrain = retrain ? retrain : 1;
	l->rows = rows;
	l->ring = calloc(H, sizeof(*l->ring));
	l->hist = calloc((size_t)H + 1, sizeof(*l->hist));
	l->gcnt = calloc((size_t)H + 1, sizeof(*l->gcnt));
	l->gpos = calloc((size_t)H + 1, sizeof(*l->gpos));
	if (!l->ring || !l->hist || !l->gcnt || !l->gpos ||
	    mdk_lopp_feat_new(&l->feat) || mdk__lopp_fit_new(rows, &l->fit)) {
		mdk__lopp_live_free(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

void mdk__lopp_live_set_kind(struct mdk__lopp_live *l, unsigned int kind)
{
	l->kind = kind;
}

void mdk__lopp_live_set_async(struct mdk__lopp_live *l, bool async)
{
	l->async = async;
}

void mdk__lopp_live_wait(struct mdk__lopp_live *l)
{
	mdk__lopp_fit_wait(l->fit);
}

void mdk__lopp_live_hold(struct mdk__lopp_live *l, bool hold)
{
	mdk__lopp_fit_hold(l->fit, hold);
}

void mdk__lopp_live_fits(const struct mdk__lopp_live *l, bool *fitting,
			 uint64_t *failures, const char **error)
{
	*fitting = mdk__lopp_fit_busy(l->fit);
	*failures = l->failures;
	*error = l->error;
}

void mdk__lopp_live_free(struct mdk__lopp_live *l)
{
	uint32_t i;

	if (!l)
		return;
	/* Join a fit in flight first: it reads its own set only. */
	mdk__lopp_fit_free(l->fit);
	for (i = 0; l->ring && i < l->H; i++) {
		free(l->ring[i].recs);
		free(l->ring[i].x);
	}
	free(l->ring);
	mdk_lopp_feat_free(l->feat);
	mdk_lopp_model_free(l->model);
	free(l->page);
	free(l->gaps);
	free(l->hist);
	free(l->gcnt);
	free(l->gpos);
	free(l->rpos);
	free(l->label);
	free(l);
}

/* Room for @n accesses in slot @s and the scratch, and page @maxidx. */
static int live_grow(struct mdk__lopp_live *l, struct lwin *s, size_t n,
		     uint32_t maxidx)
{
	size_t old = l->pcap;

	if (mdk_grow((void **)&s->recs, &s->rcap, n, sizeof(*s->recs)) ||
	    mdk_grow((void **)&s->x, &s->xcap, n * MDK_LOPP_FEATURES,
		     sizeof(*s->x)) ||
	    mdk_grow((void **)&l->gaps, &l->gcap, n, sizeof(*l->gaps)) ||
	    mdk_grow((void **)&l->rpos, &l->rcap, n, sizeof(*l->rpos)) ||
	    mdk_grow((void **)&l->label, &l->lcap, n, sizeof(*l->label)) ||
	    mdk_grow((void **)&l->page, &l->pcap, (size_t)maxidx + 1,
		     sizeof(*l->page)))
		return -ENOMEM;
	memset(l->page + old, 0, (l->pcap - old) * sizeof(*l->page));
	return 0;
}

static uint32_t live_key(const struct mdk__lopp_live *l, const float *x)
{
	return l->model ? mdk_lopp_key(mdk_lopp_score(l->model, x)) : 0;
}

/* A new model: key every access of the horizon again. */
static void live_rekey(struct mdk__lopp_live *l, uint32_t lo, uint32_t hi)
{
	uint32_t v;

	for (v = lo;; v++) {
		struct lwin *s = &l->ring[v % l->H];
		size_t i;

		for (i = 0; i < s->n; i++) {
			struct lrec *r = &s->recs[i];

			r->key = live_key(l, s->x + i * MDK_LOPP_FEATURES);
			if (!r->dn)
				l->page[r->idx].key = r->key;
		}
		if (v == hi)
			break;
	}
}

/* G of the horizon @lo..@hi (see the top and mdk__lopp_tail_gap()). */
static uint32_t live_tail_gap(struct mdk__lopp_live *l, uint32_t lo,
			      uint32_t hi)
{
	uint32_t v, longest = 0;

	memset(l->gcnt, 0, ((size_t)l->H + 1) * sizeof(*l->gcnt));
	memset(l->gpos, 0, ((size_t)l->H + 1) * sizeof(*l->gpos));
	for (v = lo; v <= hi; v++) {
		const struct lwin *s = &l->ring[v % l->H];
		size_t i;

		for (i = 0; i < s->n; i++) {
			const struct lrec *r = &s->recs[i];

			if (!r->dn)
				continue;
			l->gcnt[r->dn - 1]++;
			l->gpos[r->dn - 1] += r->label;
			longest = MDK_MAX(longest, r->dn - 1);
		}
	}
	return mdk__lopp_tail_gap(l->gcnt, l->gpos, longest);
}

/*
 * A finished fit: the window @w takes its model and keys the horizon.
 * 1 with a new model, 0 without; a failed fit's error is returned on
 * the window's path, counted and kept (the old model stays) off it.
 */
static int live_collect(struct mdk__lopp_live *l, uint32_t w, char *err,
			size_t errlen)
{
	uint32_t lo = w >= l->H ? w - l->H + 1 : 0;
	struct mdk_lopp_quality q;
	struct mdk_lopp_model *m;
	int ret;

	ret = mdk__lopp_fit_collect(l->fit, &m, &q, l->error, sizeof(l->error));
	if (ret < 0 && !l->async)
		return mdk_err(err, errlen, ret, "%s", l->error);
	if (ret < 0) {
		l->failures++;
		return 0;
	}
	if (!ret)
		return 0;
	mdk_lopp_model_free(l->model);
	l->model = m;
	l->quality = q;
	l->trainings++;
	live_rekey(l, lo, w);
	return 1;
}

/* Start a fit to the horizon's rows at window @w. */
static void live_train(struct mdk__lopp_live *l, uint32_t w)
{
	uint32_t lo = w >= l->H ? w - l->H + 1 : 0, G, v;
	struct mdk_lopp_set *set = mdk__lopp_fit_set(l->fit);

	if (!set)
		return; /* one in flight */
	G = live_tail_gap(l, lo, w);
	/* The horizon's rows, oldest first: the set keeps the newest. */
	mdk_lopp_set_clear(set);
	for (v = lo; v <= w; v++) {
		const struct lwin *s = &l->ring[v % l->H];
		size_t i;

		for (i = 0; i < s->n; i++) {
			const struct lrec *r = &s->recs[i];

			if (!r->dn && w - v < G)
				continue; /* open, and too young to tell */
			mdk_lopp_set_add(set, s->x + i * MDK_LOPP_FEATURES,
					 r->dn ? r->label : true);
		}
	}
	l->nrows = mdk_lopp_set_size(set);
	if (!mdk_lopp_set_positives(set) ||
	    mdk_lopp_set_positives(set) == mdk_lopp_set_size(set))
		return; /* one class only: nothing to learn yet */
	mdk__lopp_fit_start(l->fit, l->rho_ppm / 1e6, l->kind, l->async);
}

int mdk__lopp_live_window(struct mdk__lopp_live *l, uint32_t w,
			  const uint64_t *ids, const uint32_t *idx,
			  const uint32_t *start, size_t n, char *err,
			  size_t errlen)
{
	struct lwin *s = &l->ring[w % l->H];
	uint32_t maxidx = 0;
	size_t i, m = 0;
	int ret;

	for (i = 0; i < n; i++)
		maxidx = MDK_MAX(maxidx, idx[i]);
	if (live_grow(l, s, n, maxidx))
		return mdk_err(err, errlen, -ENOMEM, "L-OPP: out of memory");
	/* The slot held window w - H, which left the horizon. */
	s->n = 0;
	ret = mdk_lopp_feat_add(l->feat, w, ids, idx, n, s->x, err, errlen);
	if (ret)
		return ret;
	/* The intervals closing in w, with their opening access. */
	for (i = 0; i < n; i++) {
		uint32_t a = start[i], p = idx[i];

		if (a == MDK_NONE || w - a >= l->H || l->page[p].last1 != a + 1)
			continue;
		l->gaps[m] = w - a - 1;
		l->rpos[m++] = (uint32_t)i;
	}
	mdk_lopp_labels(l->gaps, m, n, l->rho_ppm, l->hist, l->label);
	for (i = 0; i < m; i++) {
		const struct lpage *pg = &l->page[idx[l->rpos[i]]];
		uint32_t a = pg->last1 - 1;
		struct lrec *ra = &l->ring[a % l->H].recs[pg->pos];

		ra->dn = w - a;
		ra->label = l->label[i];
	}
	for (i = 0; i < n; i++) {
		struct lrec *r = &s->recs[i];
		uint32_t p = idx[i];

		r->idx = p;
		r->r = start[i] == MDK_NONE ? 0 : w - start[i];
		r->dn = 0;
		r->label = false;
		r->key = live_key(l, s->x + i * MDK_LOPP_FEATURES);
		l->page[p].last1 = w + 1;
		l->page[p].pos = (uint32_t)i;
		l->page[p].key = r->key;
	}
	s->n = n;
	/* A fit done since the last window (async), then maybe a new one. */
	ret = live_collect(l, w, err, errlen);
	if (ret < 0 || (w + 1) % l->retrain)
		return ret;
	live_train(l, w);
	return l->async ? ret : live_collect(l, w, err, errlen);
}

const struct mdk_lopp_model *
mdk__lopp_live_model(const struct mdk__lopp_live *l)
{
	return l->model;
}

void mdk__lopp_live_stats(const struct mdk__lopp_live *l, uint64_t *trainings,
			  struct mdk_lopp_quality *q, size_t *rows)
{
	*trainings = l->trainings;
	*q = l->quality;
	*rows = l->nrows;
}

size_t mdk__lopp_live_memory(const struct mdk__lopp_live *l)
{
	size_t b = sizeof(*l) + l->pcap * sizeof(*l->page) +
		   2 * ((size_t)l->H + 1) * sizeof(*l->gcnt) +
		   (l->gcap + l->rcap + ((size_t)l->H + 1)) * sizeof(uint32_t) +
		   l->lcap + mdk_lopp_feat_memory(l->feat) +
		   l->rows * (MDK_LOPP_FEATURES * sizeof(float) + sizeof(bool));
	uint32_t i;

	for (i = 0; i < l->H; i++)
		b += l->ring[i].rcap * sizeof(struct lrec) +
		     l->ring[i].xcap * sizeof(float);
	return b;
}

uint32_t mdk__lopp_live_key(const struct mdk__lopp_live *l, uint32_t idx)
{
	return idx < l->pcap ? l->page[idx].key : 0;
}

void mdk__lopp_live_forget(struct mdk__lopp_live *l, uint32_t idx)
{
	if (idx >= l->pcap)
		return;
	/* Its accesses in the ring stay, as the evaluator's do. */
	memset(&l->page[idx], 0, sizeof(l->page[idx]));
	mdk_lopp_feat_forget(l->feat, idx);
}

int mdk__lopp_live_fill(const struct mdk__lopp_live *l, struct mdk_mpc *m,
			uint32_t lo, uint32_t hi, char *err, size_t errlen)
{
	uint32_t v;
	int ret;

	/* Make lo..hi the generator's ring before any interval. */
	ret = mdk_mpc_add_window(m, lo, 0, 0, err, errlen);
	if (!ret)
		ret = mdk_mpc_add_window(m, hi, 0, 0, err, errlen);
	for (v = lo; !ret; v++) {
		const struct lwin *s = &l->ring[v % l->H];
		int64_t first = 0;
		size_t i;

		for (i = 0; i < s->n && !ret; i++) {
			const struct lrec *r = &s->recs[i];
			struct mdk_interval iv = {
				.start = v,
				.end = r->dn ? v + r->dn : MDK_NONE,
				.reuse = r->key,
			};

			/* A previous access before lo: first in the horizon. */
			if (!r->r || v - lo < r->r)
				first++;
			ret = mdk_mpc_add_interval(m, &iv, 1, err, errlen);
		}
		if (!ret)
			ret = mdk_mpc_add_window(m, v, (int64_t)s->n, first,
						 err, errlen);
		if (v == hi)
			break;
	}
	return ret;
}
