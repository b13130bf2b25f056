// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The exact simulator (see mdk/sim.h).  Deliberately plain: it shares no
 * histogram, binning or suffix-sum code with mpc*.c, so that a test which
 * finds both agreeing on every point checks two independent computations.
 *
 * Occupancy: a page reclaimed at the end of window a + d and promoted in
 * window n is absent in windows a + d + 1 .. n - 1 (a tail: up to W - 1).
 * Each such run is one +1/-1 pair in a difference array over windows;
 * its prefix sums are the pages absent in each window.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/sim.h>
#include <mdk/trace.h>

#include "policy_int.h"

struct sim_page {
	uint32_t last1; /* last access window + 1, 0: never */
	uint32_t reuse; /* that access's prior reuse distance (or key) */
};

struct mdk_sim {
	const struct mdk_policy *p;
	const struct mdk_policy_ops *ops;
	uint64_t v[MDK_MAX_PARAMS];
	unsigned int flags;
	struct sim_page *st;
	size_t stcap;
	uint64_t *acc, *first, *prom;
	int64_t *diff; /* wcap + 1 entries */
	size_t wcap;
	uint32_t cur;
	bool started;
	uint64_t *ghist; /* OPP: gaps of intervals ending in window cur */
	size_t ghcap;
	uint32_t gmax;
	bool finished;
	uint32_t W;
	uint64_t *reclaimed, *foot;
	uint32_t from; /* the first window scored (mdk_sim_score_from()) */
};

int mdk_sim_new(const struct mdk_policy *p, size_t setting, unsigned int flags,
		struct mdk_sim **out, char *err, size_t errlen)
{
	const struct mdk_policy_ops *ops = p->ops;
	struct mdk_setting set;
	struct mdk_sim *s;

	if (!(ops->kind == MDK_POLICY_INTERVAL && ops->wait) &&
	    !(ops->kind == MDK_POLICY_BUDGET && ops->budget))
		return mdk_err(
			err, errlen, -EOPNOTSUPP,
			"%s cannot be simulated over windows%s", ops->name,
			ops->kind == MDK_POLICY_CACHE ?
				" (a fixed-size policy: see mdkctl mrc)" :
				"");
	if (mdk_policy_setting(p, setting, &set))
		return mdk_err(
			err, errlen, -ERANGE,
			"%s: no setting %zu (policy has %zu; resolve it first)",
			ops->name, setting, mdk_policy_settings(p));
	s = calloc(1, sizeof(*s));
	if (!s)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	s->p = p;
	s->ops = ops;
	s->v[0] = set.v[0];
	s->v[1] = set.v[1];
	s->flags = flags;
	*out = s;
	return 0;
}

void mdk_sim_free(struct mdk_sim *s)
{
	if (!s)
		return;
	free(s->st);
	free(s->acc);
	free(s->first);
	free(s->prom);
	free(s->diff);
	free(s->ghist);
	free(s->reclaimed);
	free(s->foot);
	free(s);
}

/* Per-window arrays for windows 0..@w (diff: 0..@w+1). */
static int sim_windows(struct mdk_sim *s, uint32_t w)
{
	size_t need = (size_t)w + 2;
	/* The four grow alike from wcap; it moves once all have. */
	size_t c1 = s->wcap, c2 = s->wcap, c3 = s->wcap, c4 = s->wcap;

	if (need <= s->wcap)
		return 0;
	if (mdk__grow_zeroed((void **)&s->acc, &c1, need, sizeof(*s->acc)) ||
	    mdk__grow_zeroed((void **)&s->first, &c2, need,
			     sizeof(*s->first)) ||
	    mdk__grow_zeroed((void **)&s->prom, &c3, need, sizeof(*s->prom)) ||
	    mdk__grow_zeroed((void **)&s->diff, &c4, need, sizeof(*s->diff)))
		return -ENOMEM;
	s->wcap = c1;
	return 0;
}

/* Absent in windows @from .. @to - 1. */
static void sim_absent(struct mdk_sim *s, uint32_t from, uint32_t to)
{
	s->diff[from]++;
	s->diff[to]--;
}

/* OPP: window @n is complete; promote its largest gaps within budget. */
static void sim_close_window(struct mdk_sim *s, uint32_t n)
{
	uint64_t b;
	uint32_t g;

	if (s->ops->kind != MDK_POLICY_BUDGET || !s->ghist)
		return;
	b = s->ops->budget(s->v, s->acc[n]);
	for (g = s->gmax; g >= 1 && g < s->ghcap; g--) {
		uint64_t take = MDK_MIN(s->ghist[g], b);

		s->prom[n] += take;
		/* accessed in n - g - 1: absent from n - g on */
		s->diff[n - g] += (int64_t)take;
		s->diff[n] -= (int64_t)take;
		b -= take;
		s->ghist[g] = 0;
	}
	s->ghist[0] = 0;
	s->gmax = 0;
}

static int sim_add(struct mdk_sim *s, uint32_t window, const uint32_t *pages,
		   const uint32_t *keys, size_t n, char *err, size_t errlen)
{
	uint32_t w1 = window + 1;
	size_t i;

	if (s->finished || (s->started && window < s->cur) ||
	    window >= MDK_TRACE_MAX_WINDOW)
		return mdk_err(err, errlen, -EINVAL,
			       "simulator: window %u after window %u%s", window,
			       s->cur,
			       s->finished ? " (already finished)" : "");
	if (s->started && window > s->cur)
		sim_close_window(s, s->cur);
	s->started = true;
	s->cur = window;
	if (sim_windows(s, window))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	s->acc[window] += n;
	for (i = 0; i < n; i++) {
		uint32_t pg = pages[i];
		struct sim_page *st;

		if (pg >= s->stcap &&
		    mdk__grow_zeroed((void **)&s->st, &s->stcap, (size_t)pg + 1,
				     sizeof(*s->st)))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		st = &s->st[pg];
		if (st->last1 == w1)
			return mdk_err(
				err, errlen, -EINVAL,
				"simulator: page %u accessed twice in window %u",
				pg, window);
		if (!st->last1) {
			/* First access: compulsory, never counted. */
			s->first[window]++;
			st->reuse = keys ? keys[i] : 0;
		} else {
			uint32_t a = st->last1 - 1, g = window - a - 1;

			if (s->ops->kind == MDK_POLICY_INTERVAL) {
				int64_t d = mdk__policy_wait(
					s->p, s->v, st->reuse, g, false);

				if (d != MDK_KEEP && d <= (int64_t)g) {
					s->prom[window]++;
					sim_absent(s, a + (uint32_t)d + 1,
						   window);
				}
			} else if (g >= 1) {
				if (g >= s->ghcap &&
				    mdk__grow_zeroed((void **)&s->ghist,
						     &s->ghcap, (size_t)g + 1,
						     sizeof(*s->ghist)))
					return mdk_err(err, errlen, -ENOMEM,
						       "out of memory");
				s->ghist[g]++;
				s->gmax = MDK_MAX(s->gmax, g);
			}
			st->reuse = keys ? keys[i] : window - a;
		}
		st->last1 = w1;
	}
	return 0;
}

int mdk_sim_add(struct mdk_sim *s, uint32_t window, const uint32_t *pages,
		size_t n, char *err, size_t errlen)
{
	if (mdk_policy_keyed(s->p))
		return mdk_err(err, errlen, -EINVAL,
			       "simulator: %s needs keys (mdk_sim_add_keys())",
			       s->ops->name);
	return sim_add(s, window, pages, NULL, n, err, errlen);
}

int mdk_sim_add_keys(struct mdk_sim *s, uint32_t window, const uint32_t *pages,
		     const uint32_t *keys, size_t n, char *err, size_t errlen)
{
	if (!mdk_policy_keyed(s->p))
		return mdk_err(err, errlen, -EINVAL,
			       "simulator: %s takes no keys", s->ops->name);
	return sim_add(s, window, pages, keys, n, err, errlen);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int mdk_sim_finish(struct mdk_sim *s, uint32_t windows, struct mdk_point *pt,
		   char *err, size_t errlen)
{
	uint64_t saved = 0, footprint = 0, prom = 0, sumU = 0, F = 0;
	int64_t absent = 0;
	double *rates;
	size_t nrates = 0, p;
	uint32_t w;

	if (s->finished)
		return mdk_err(err, errlen, -EINVAL,
			       "simulator: already finished");
	if (!windows)
		return mdk_err(err, errlen, -EINVAL,
			       "simulator: the trace has no windows");
	if (s->from >= windows)
		return mdk_err(
			err, errlen, -EINVAL,
			"simulator: scoring from window %u, beyond the trace's %u windows (expected 0 to %u)",
			s->from, windows, windows - 1);
	if (s->started && windows <= s->cur)
		return mdk_err(err, errlen, -EINVAL,
			       "simulator: %u windows, but window %u was fed",
			       windows, s->cur);
	if (sim_windows(s, windows - 1))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	if (s->started)
		sim_close_window(s, s->cur);
	s->finished = true;
	s->W = windows;

	/* Tails: the last access of each page up to window W - 1. */
	for (p = 0; p < s->stcap; p++) {
		uint32_t a, t;
		int64_t d;

		if (!s->st[p].last1)
			continue;
		a = s->st[p].last1 - 1;
		t = windows - 1 - a;
		d = s->ops->kind == MDK_POLICY_INTERVAL ?
			    mdk__policy_wait(s->p, s->v, s->st[p].reuse, t,
					     true) :
			    0;
		if (d != MDK_KEEP && d <= (int64_t)t)
			sim_absent(s, a + (uint32_t)d + 1, windows);
	}

	rates = malloc(windows * sizeof(*rates));
	s->reclaimed = calloc(windows, sizeof(*s->reclaimed));
	s->foot = calloc(windows, sizeof(*s->foot));
	if (!rates || !s->reclaimed || !s->foot) {
		free(rates);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	memset(pt, 0, sizeof(*pt));
	for (w = 0; w < windows; w++) {
		absent += s->diff[w];
		F += s->first[w];
		s->reclaimed[w] = (uint64_t)absent;
		s->foot[w] = F;
		if (w < s->from)
			continue; /* state only: not scored */
		saved += (uint64_t)absent;
		footprint += F;
		prom += s->prom[w];
		sumU += s->acc[w];
		if (s->acc[w]) {
			double r = (double)s->prom[w] / (double)s->acc[w];

			rates[nrates++] = r;
			if (r > pt->max_rate)
				pt->max_rate = r;
		}
	}
	qsort(rates, nrates, sizeof(*rates), cmp_double);
	pt->policy = s->ops->name;
	pt->p1 = (double)s->v[0];
	pt->p2 = (double)s->v[1];
	if (s->ops->params[0].type == MDK_PARAM_FRACTION)
		pt->p1 /= 1e6;
	pt->has_p2 = s->ops->nparams > 1;
	if (!pt->has_p2)
		pt->p2 = 0;
	pt->promotions = prom;
	pt->saved = saved + ((s->flags & MDK_SAVINGS_PAPER) ? prom : 0);
	pt->footprint = footprint;
	pt->mean_rate = sumU ? (double)prom / (double)sumU : 0;
	pt->p99_rate = nrates ? rates[(99 * nrates + 99) / 100 - 1] : 0;
	pt->savings = footprint ? (double)pt->saved / (double)footprint : 0;
	free(rates);
	return 0;
}

int mdk_sim_window(const struct mdk_sim *s, uint32_t w,
		   struct mdk_sim_window *out)
{
	if (!s->finished || w >= s->W)
		return -ERANGE;
	out->accessed = s->acc[w];
	out->footprint = s->foot[w];
	out->promotions = s->prom[w];
	out->reclaimed = s->reclaimed[w];
	out->rate = s->acc[w] ? (double)s->prom[w] / (double)s->acc[w] : 0;
	return 0;
}

int mdk_sim_score_from(struct mdk_sim *s, uint32_t from)
{
	if (s->finished)
		return -EINVAL;
	s->from = from;
	return 0;
}

int mdk_simulate(const char *trace, struct mdk_policy *p, size_t setting,
		 unsigned int flags, struct mdk_point *pt, char *err,
		 size_t errlen)
{
	struct mdk_run_opts o = { .flags = flags };

	return mdk_simulate_opts(trace, p, setting, &o, pt, err, errlen);
}

int mdk_simulate_opts(const char *trace, struct mdk_policy *p, size_t setting,
		      const struct mdk_run_opts *o, struct mdk_point *pt,
		      char *err, size_t errlen)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	struct mdk_keyer *k = NULL;
	struct mdk_sim *s = NULL;
	uint32_t W, *keys = NULL;
	size_t kcap = 0;
	int ret;

	ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err, errlen);
	if (ret)
		return ret;
	W = mdk_trace_reader_info(r)->windows;
	ret = mdk_policy_resolve(p, W, err, errlen);
	if (!ret)
		ret = mdk__run_opts_check(o, W, err, errlen);
	if (!ret)
		ret = mdk_sim_new(p, setting, o->flags, &s, err, errlen);
	if (!ret)
		mdk_sim_score_from(s, o->score_from);
	if (!ret && mdk_policy_keyed(p))
		ret = mdk_keyer_new(p, &k, err, errlen);
	while (!ret && (ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		if (!k) {
			ret = mdk_sim_add(s, c.window, c.pages, c.n, err,
					  errlen);
			continue;
		}
		if (mdk_grow((void **)&keys, &kcap, c.n, sizeof(*keys))) {
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		ret = mdk_keyer_keys(k, c.window, c.ids, c.pages, c.n, keys,
				     err, errlen);
		if (!ret)
			ret = mdk_sim_add_keys(s, c.window, c.pages, keys, c.n,
					       err, errlen);
	}
	if (!ret)
		ret = mdk_sim_finish(s, W, pt, err, errlen);
	free(keys);
	mdk_keyer_free(k);
	mdk_sim_free(s);
	mdk_trace_reader_close(r);
	return ret;
}
