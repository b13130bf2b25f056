// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's training (mdk/lopp.h): OPP(rho)'s decision for every interval
 * of a trace, as labels of the features its opening access had.
 *
 * One pass over the trace.  Each access of page p in window w closes p's
 * open interval, if any (gap g = w - a - 1), and opens a new one whose
 * features are those of this access.  When window w is complete, OPP's
 * decisions for the intervals ending in w are known: the floor(rho U(w))
 * largest gaps >= 1 (mdk_lopp_labels(), as policy/opp.c and sim.c have
 * it).  The intervals still open at the end (of the trace, or of the
 * windows trained on) are tails, whose gap is only known to be at least
 * their idle windows: labelled 1 once idle long enough, left out while
 * younger (mdk__lopp_tail_gap()).
 *
 * Trained on windows 0..until-1 of a longer trace, the pass goes on to
 * the end for the held-out rows, the intervals opening from until on:
 * the training rows are labelled as if the trace ended at until (its
 * tails there), the held-out ones with the whole trace.
 *
 * Only a sample of the pages keep their rows: a page is in when
 * mdk_hash64(id) falls below a threshold (so all of a page's intervals or
 * none), chosen from the trace's record count for about max_samples rows.
 * The labels need every interval of a window all the same, so the gaps of
 * all pages are kept per window, the rows of sampled pages only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>
#include <mdk/trace.h>

#include "learn_int.h"

#define NF MDK_LOPP_FEATURES
#define DEFAULT_SAMPLES (1u << 19)

void mdk_lopp_labels(const uint32_t *gaps, size_t n, uint64_t accessed,
		     uint32_t rho_ppm, uint32_t *hist, bool *label)
{
	/* floor(rho_ppm x accessed / 10^6), exact without 128 bits */
	uint64_t b = accessed / 1000000u * rho_ppm +
		     accessed % 1000000u * rho_ppm / 1000000u;
	uint32_t gmax = 0, cut = 0, g;
	uint64_t rest = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		label[i] = false;
		if (gaps[i] >= 1) {
			hist[gaps[i]]++;
			gmax = MDK_MAX(gmax, gaps[i]);
		}
	}
	/*
	 * From the largest gap down, take whole gap values while the budget
	 * lasts; the first value it cannot take whole is the cut, of which
	 * the first @rest intervals in index order are taken.
	 */
	for (g = gmax; g >= 1; g--) {
		if (hist[g] > b) {
			cut = g;
			rest = b;
			break;
		}
		b -= hist[g];
	}
	for (i = 0; i < n; i++) {
		g = gaps[i];
		if (g >= 1 && g > cut)
			label[i] = true;
		else if (g >= 1 && g == cut && rest) {
			label[i] = true;
			rest--;
		}
	}
	for (i = 0; i < n; i++)
		hist[gaps[i]] = 0;
}

/* The pass's state; see the comment at the top. */
struct train {
	const struct mdk_lopp_train_opts *o;
	uint32_t rho_ppm;
	uint32_t split; /* intervals opening from here on are held out */
	uint32_t until; /* training labels see windows below it only */
	uint64_t threshold; /* a page is sampled iff hash(id) <= threshold */
	struct mdk_lopp_feat *feat;
	struct mdk_lopp_set *train, *test;
	/* per dense page */
	uint32_t *last1; /* window of the last access + 1; 0: none yet */
	uint32_t *row1; /* its row in rows + 1; 0: not sampled */
	size_t npages;
	/* the open interval of each sampled page: its features */
	float *rows;
	size_t nrows, rowcap;
	/* the window being read */
	uint64_t accessed;
	uint32_t *gaps; /* every interval ending in it */
	size_t ngaps, gapcap;
	bool *label;
	size_t labelcap;
	uint32_t *cgap, *cwin; /* the sampled ones: index in gaps, opening */
	float *cx; /* and features */
	size_t nclose, cgapcap, cwincap, cxcap;
	uint32_t *hist; /* mdk_lopp_labels()' scratch */
	size_t histcap;
	/* closed intervals of each gap 0..windows - 1, and reclaimed */
	uint64_t *gcnt, *gpos;
	uint32_t longest;
	float *x; /* features of a chunk */
	size_t xcap;
	uint64_t intervals;
};

/* Page slots up to @need, both per-page arrays zero-filled. */
static int pages_grow(struct train *t, size_t need)
{
	size_t c1 = t->npages, c2 = t->npages;

	if (need <= t->npages)
		return 0;
	if (mdk__grow_zeroed((void **)&t->last1, &c1, need,
			     sizeof(*t->last1)) ||
	    mdk__grow_zeroed((void **)&t->row1, &c2, need, sizeof(*t->row1)))
		return -ENOMEM;
	/* Both grew from the same capacity by the same rule. */
	t->npages = MDK_MIN(c1, c2);
	return 0;
}

/* Window @w is complete: label its intervals, file the sampled ones. */
static int close_window(struct train *t, uint32_t w)
{
	size_t k;

	if (mdk_grow((void **)&t->label, &t->labelcap, t->ngaps ? t->ngaps : 1,
		     sizeof(*t->label)))
		return -ENOMEM;
	mdk_lopp_labels(t->gaps, t->ngaps, t->accessed, t->rho_ppm, t->hist,
			t->label);
	for (k = 0; k < t->ngaps; k++) {
		t->gcnt[t->gaps[k]]++;
		t->gpos[t->gaps[k]] += t->label[k];
		t->longest = MDK_MAX(t->longest, t->gaps[k]);
	}
	for (k = 0; k < t->nclose; k++)
		mdk_lopp_set_add(t->cwin[k] < t->split ? t->train : t->test,
				 t->cx + k * NF, t->label[t->cgap[k]]);
	t->ngaps = t->nclose = 0;
	t->accessed = 0;
	return 0;
}

static int chunk(struct train *t, const struct mdk_trace_chunk *c, char *err,
		 size_t errlen)
{
	uint32_t w = c->window;
	size_t i;
	int ret;

	if (c->n) {
		if (mdk_grow((void **)&t->x, &t->xcap, c->n * NF,
			     sizeof(*t->x)) ||
		    mdk_grow((void **)&t->gaps, &t->gapcap, t->ngaps + c->n,
			     sizeof(*t->gaps)))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		ret = mdk_lopp_feat_add(t->feat, w, c->ids, c->pages, c->n,
					t->x, err, errlen);
		if (ret)
			return ret;
	}
	/* A gap is below w: the hist needs w entries at most. */
	if (mdk__grow_zeroed((void **)&t->hist, &t->histcap, (size_t)w + 1,
			     sizeof(*t->hist)))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	t->accessed += c->n;
	t->intervals += c->n;
	for (i = 0; i < c->n; i++) {
		uint32_t p = c->pages[i];

		if (pages_grow(t, (size_t)p + 1))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		if (t->last1[p]) {
			uint32_t a = t->last1[p] - 1;

			t->gaps[t->ngaps] = w - a - 1;
			/* a training row after the cut was a tail there */
			if (t->row1[p] && (a >= t->split || w < t->until)) {
				size_t k = t->nclose;

				if (mdk_grow((void **)&t->cgap, &t->cgapcap,
					     k + 1, sizeof(*t->cgap)) ||
				    mdk_grow((void **)&t->cwin, &t->cwincap,
					     k + 1, sizeof(*t->cwin)) ||
				    mdk_grow((void **)&t->cx, &t->cxcap,
					     (k + 1) * NF, sizeof(*t->cx)))
					return mdk_err(err, errlen, -ENOMEM,
						       "out of memory");
				t->cgap[k] = (uint32_t)t->ngaps;
				t->cwin[k] = a;
				memcpy(t->cx + k * NF,
				       t->rows + (size_t)(t->row1[p] - 1) * NF,
				       NF * sizeof(*t->cx));
				t->nclose++;
			}
			t->ngaps++;
		} else if (mdk_hash64(c->ids[i]) <= t->threshold) {
			/* First access: the page is in the sample or not. */
			if (t->nrows >= UINT32_MAX - 1 ||
			    mdk_grow((void **)&t->rows, &t->rowcap,
				     (t->nrows + 1) * NF, sizeof(*t->rows)))
				return mdk_err(err, errlen, -ENOMEM,
					       "out of memory");
			t->row1[p] = (uint32_t)++t->nrows;
		}
		if (t->row1[p])
			memcpy(t->rows + (size_t)(t->row1[p] - 1) * NF,
			       t->x + i * NF, NF * sizeof(*t->x));
		t->last1[p] = w + 1;
	}
	if (c->window_end && close_window(t, w))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

/*
 * The tails of a trace cut after window @last whose interval opened in
 * window @from or later (see the top).
 */
static void tails(struct train *t, uint32_t last, uint32_t from)
{
	uint32_t G = mdk__lopp_tail_gap(t->gcnt, t->gpos, t->longest);
	size_t p;

	for (p = 0; p < t->npages; p++) {
		uint32_t a = t->last1[p] - 1;

		if (t->row1[p] && t->last1[p] && a >= from && last - a >= G)
			mdk_lopp_set_add(
				a < t->split ? t->train : t->test,
				t->rows + (size_t)(t->row1[p] - 1) * NF, true);
	}
}

uint32_t mdk__lopp_tail_gap(const uint64_t *cnt, const uint64_t *pos,
			    uint32_t longest)
{
	uint64_t all = 0, reclaimed = 0;
	uint32_t g, G = longest + 1;

	for (g = longest; g >= 1; g--) {
		all += cnt[g];
		reclaimed += pos[g];
		if (2 * reclaimed > all)
			G = g;
	}
	return G;
}

static void train_free(struct train *t)
{
	mdk_lopp_feat_free(t->feat);
	mdk_lopp_set_free(t->train);
	mdk_lopp_set_free(t->test);
	free(t->last1);
	free(t->row1);
	free(t->rows);
	free(t->gaps);
	free(t->label);
	free(t->cgap);
	free(t->cwin);
	free(t->cx);
	free(t->hist);
	free(t->gcnt);
	free(t->gpos);
	free(t->x);
}

int mdk_lopp_train(const char *trace, const struct mdk_lopp_train_opts *o,
		   struct mdk_lopp_model **out,
		   struct mdk_lopp_train_report *rep, char *err, size_t errlen)
{
	return mdk_lopp_train_until(trace, o, 0, out, rep, err, errlen);
}

/*
 * The windows trained on and held out, the sampling threshold for about
 * @max rows, and what the pass keeps (freed by train_free()).
 */
static int train_setup(struct train *t, const char *trace,
		       const struct mdk_trace_info *info, uint32_t until,
		       size_t max, struct mdk_lopp_train_report *rep, char *err,
		       size_t errlen)
{
	int ret;

	if (!info->indexed)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: expected a closed trace with its index (tails need the window count)",
			trace);
	if (until > info->windows)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: training on windows 0..%u: beyond the trace's %u windows",
			trace, until - 1, info->windows);
	rep->windows = until ? until : info->windows;
	/* ceil((1 - holdout) W), with room for the error of 1 - holdout */
	rep->split = rep->windows < info->windows ?
			     rep->windows :
			     (uint32_t)MDK_MIN(
				     (double)info->windows,
				     ceil((1 - t->o->holdout) * rep->windows -
					  1e-9));
	t->split = rep->split;
	t->until = rep->windows;
	if (!info->records || info->records <= max) {
		rep->sample = 1;
		t->threshold = UINT64_MAX;
	} else {
		double th;

		rep->sample = (double)max / (double)info->records;
		/* 2^64 x sample, which rounding may bring to 2^64 itself */
		th = rep->sample * 18446744073709551616.0;
		t->threshold = th >= 18446744073709551616.0 ? UINT64_MAX :
							      (uint64_t)th;
	}
	if ((ret = mdk_lopp_feat_new(&t->feat)) ||
	    (ret = mdk_lopp_set_new(max, &t->train)) ||
	    (ret = mdk_lopp_set_new(max, &t->test)))
		return mdk_err(err, errlen, ret, "cannot keep %zu rows: %s",
			       max, strerror(-ret));
	t->gcnt = calloc((size_t)info->windows + 1, sizeof(*t->gcnt));
	t->gpos = calloc((size_t)info->windows + 1, sizeof(*t->gpos));
	if (!t->gcnt || !t->gpos)
		return mdk_err(
			err, errlen, -ENOMEM,
			"cannot count the intervals of %u gap lengths: out of memory",
			info->windows + 1);
	return 0;
}

/*
 * The pass over the trace's @windows windows: every interval filed with
 * its label, the tails at the cut (if any) and at the end included.
 */
static int train_pass(struct train *t, struct mdk_trace_reader *r,
		      uint32_t windows, char *err, size_t errlen)
{
	struct mdk_trace_chunk c;
	bool cut = false;
	int ret;

	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		if (c.window >= t->until && !cut) {
			/* the training rows' tails, as if the trace ended */
			tails(t, t->until - 1, 0);
			cut = true;
		}
		ret = chunk(t, &c, err, errlen);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (!cut && t->until < windows) {
		tails(t, t->until - 1, 0); /* no record after the cut */
		cut = true;
	}
	if (windows)
		tails(t, windows - 1, cut ? t->until : 0);
	return 0;
}

int mdk_lopp_train_until(const char *trace, const struct mdk_lopp_train_opts *o,
			 uint32_t until, struct mdk_lopp_model **out,
			 struct mdk_lopp_train_report *rep, char *err,
			 size_t errlen)
{
	size_t max = o->max_samples ? o->max_samples : DEFAULT_SAMPLES;
	double theta = o->theta ? o->theta : 0.5;
	const struct mdk_trace_info *info;
	struct mdk_trace_reader *r = NULL;
	struct train t = { .o = o };
	struct mdk_lopp_model *m = NULL;
	struct mdk_lopp_fit_opts fo;
	int ret;

	*out = NULL;
	memset(rep, 0, sizeof(*rep));
	if (!(o->rho >= 0 && o->rho <= 1) ||
	    !(o->holdout >= 0 && o->holdout <= 0.9) ||
	    !(theta >= 0 && theta <= 1) || !(o->C >= 0) || !isfinite(o->C))
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: train: rho %g, holdout %g, theta %g, cost %g: expected rho and theta in [0, 1], holdout in [0, 0.9], a cost >= 0",
			o->rho, o->holdout, theta, o->C);
	t.rho_ppm = (uint32_t)llround(o->rho * 1e6);
	ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err, errlen);
	if (ret)
		return ret;
	info = mdk_trace_reader_info(r);
	ret = train_setup(&t, trace, info, until, max, rep, err, errlen);
	if (ret)
		goto out;
	ret = train_pass(&t, r, info->windows, err, errlen);
	if (ret)
		goto out;
	rep->intervals = t.intervals;
	fo = o->fit;
	fo.C = o->C;
	fo.trace = trace;
	ret = mdk_lopp_fit_with(t.train, t.rho_ppm / 1e6, &fo, &m, err, errlen);
	if (ret)
		goto out;
	if ((ret = mdk_lopp_assess(m, t.train, theta, &rep->train)) ||
	    (ret = mdk_lopp_assess(m, t.test, theta, &rep->test))) {
		mdk_err(err, errlen, ret, "out of memory");
		goto out;
	}
	*out = m;
	m = NULL;
out:
	mdk_lopp_model_free(m);
	train_free(&t);
	mdk_trace_reader_close(r);
	return ret;
}
