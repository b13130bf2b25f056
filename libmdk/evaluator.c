// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The live evaluator: see evaluator.h.
 *
 * What it keeps, and why:
 *
 *  - a hash of page ids to dense indices, and per index the id, a
 *    "reclaimed" mark and where the page's last access sits in the ring;
 *    indices of pages that can never be accessed again (their process is
 *    gone) are forgotten in the stream and reused;
 *  - libmdk's interval stream over those indices: per access, the window
 *    of the page's previous access and that access's prior reuse distance,
 *    which is what mdk_mpc_add_accesses() takes and what a policy decides
 *    on (mdk_policy_decide());
 *  - a ring of the last H windows, each the list of its accesses with two
 *    numbers: the access's own prior reuse distance r and the distance dn
 *    to the page's next access (0 while there is none).  That is exactly
 *    what the sliding-horizon protocol of mdk/mpc.h needs to subtract a
 *    window that leaves: its intervals (v, v + dn or open, r) and the move
 *    of each page's first access in the horizon to v + dn.  A third
 *    number, ra (the prior reuse distance of the page's previous access),
 *    lets a generator be rebuilt from the ring alone when a grid changes.
 *    12 bytes an access: 100,000 accessed pages a window over 240 windows
 *    are 275 MiB, so the horizon is a key (Documentation/mdkd.rst);
 *  - one libmdk generator (struct mdk_mpc) per evaluated policy, of
 *    capacity H.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "evaluator_int.h"
#include "mpc_int.h"

/* ---- life cycle ---- */

struct mdk_eval *mdk_eval_new(const struct mdk_eval_opts *o, char *err,
			      size_t errlen)
{
	struct mdk_policy **pols = NULL;
	struct mdk_eval *e;
	size_t np = 0, i;

	if (o->horizon < 2 || o->horizon > MDK_EVAL_MAX_HORIZON) {
		mdk_err(err, errlen, -EINVAL,
			"horizon of %u windows: expected 2 to %u", o->horizon,
			MDK_EVAL_MAX_HORIZON);
		return NULL;
	}
	if (mdk_policy_parse_list(o->policies, &pols, &np, err, errlen))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		goto err_nomem;
	e->H = o->horizon;
	e->flags = o->flags;
	e->opts = *o;
	e->opts.policies = NULL; /* not kept */
	e->ring = calloc(e->H, sizeof(*e->ring));
	e->gens = calloc(np, sizeof(*e->gens));
	e->gencap = np;
	if (!e->ring || !e->gens || mdk_stream_new(0, &e->stream) ||
	    mdk__eval_hash_resize(e, 1024))
		goto err_nomem;
	for (i = 0; i < np; i++) {
		struct mdk_policy *p = pols[i];

		pols[i] = NULL;
		if (mdk__eval_gen_index(e, mdk_policy_name(p)) >= 0) {
			mdk_err(err, errlen, -EINVAL,
				"%s: listed twice (one curve per policy)",
				mdk_policy_name(p));
			mdk_policy_free(p);
			goto err_free;
		}
		if (mdk__eval_gen_make(e, p, &e->gens[e->ngens], err, errlen))
			goto err_free;
		e->ngens++;
	}
	free(pols);
	return e;

err_nomem:
	mdk_err(err, errlen, -ENOMEM, "out of memory");
err_free:
	for (i = 0; i < np; i++)
		mdk_policy_free(pols[i]);
	free(pols);
	mdk_eval_free(e);
	return NULL;
}

void mdk_eval_free(struct mdk_eval *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->ngens; i++)
		mdk__eval_gen_free(&e->gens[i]);
	free(e->gens);
	mdk__lopp_live_free(e->lopp);
	for (i = 0; e->ring && i < e->H; i++)
		free(e->ring[i].recs);
	free(e->ring);
	mdk_stream_free(e->stream);
	free(e->hash);
	free(e->ids);
	free(e->pflags);
	free(e->lastpos);
	free(e->freel);
	free(e->sidx);
	free(e->sstart);
	free(e->sreuse);
	free(e->picks);
	free(e->ret);
	free(e->idle);
	free(e->tpick);
	free(e->rettier);
	free(e);
}

/* ---- windows ---- */

/* Window v leaves the horizon: the protocol of mdk/mpc.h. */
static int window_leave(struct mdk_eval *e, uint32_t v, char *err,
			size_t errlen)
{
	struct ewin *s = &e->ring[v % e->H];
	int64_t U = (int64_t)s->n;
	size_t g, i;
	int ret;

	for (g = 0; g < e->ngens; g++) {
		struct mdk_mpc *m = e->gens[g].mpc;

		if (mdk_policy_keyed(e->gens[g].pol))
			continue; /* rebuilt every window */
		for (i = 0; i < s->n; i++) {
			const struct erec *r = &s->recs[i];
			struct mdk_interval iv = {
				.start = v,
				.end = r->dn ? v + r->dn : MDK_NONE,
				.reuse = r->r,
			};

			ret = mdk_mpc_add_interval(m, &iv, -1, err, errlen);
			if (!ret && r->dn)
				ret = mdk_mpc_add_window(m, v + r->dn, 0, 1,
							 err, errlen);
			if (ret)
				return ret;
		}
		ret = mdk_mpc_add_window(m, v, -U, -U, err, errlen);
		if (ret)
			return ret;
	}
	s->n = 0;
	s->measured = s->acted = 0;
	s->have_measured = false;
	return 0;
}

/*
 * The ring's records of window @w's @n accesses (@ids, their indices and
 * the stream's answers in the scratch arrays), each linked from the
 * page's previous access; the pages the daemon had reclaimed come back.
 */
static void window_records(struct mdk_eval *e, struct ewin *s, uint32_t w,
			   const uint64_t *ids, size_t n)
{
	uint32_t H = e->H;
	size_t i;

	e->nret = 0;
	memset(e->retcount, 0, sizeof(e->retcount));
	for (i = 0; i < n; i++) {
		uint32_t idx = e->sidx[i], a = e->sstart[i];
		struct erec *r = &s->recs[i];

		r->idx = idx;
		r->dn = 0;
		r->pad = 0;
		if (a == MDK_NONE) {
			r->r = 0;
			r->ra = 0;
		} else {
			r->r = (uint16_t)min_u32(w - a, H);
			r->ra = (uint16_t)min_u32(e->sreuse[i], H);
			/* Link the previous access to this one while in the ring. */
			if (w - a < H)
				e->ring[a % H].recs[e->lastpos[idx]].dn =
					(uint16_t)(w - a);
		}
		e->lastpos[idx] = (uint32_t)i;
		if (e->pflags[idx] & F_RECLAIMED) {
			unsigned int k = (e->pflags[idx] & F_TIER_MASK) >>
					 F_TIER_SHIFT;

			e->pflags[idx] &= ~(F_RECLAIMED | F_TIER_MASK);
			e->retcount[k - 1]++;
			e->rettier[e->nret] = (uint8_t)k;
			e->ret[e->nret++] = ids[i];
		}
	}
}

int mdk_eval_window(struct mdk_eval *e, const uint64_t *ids, size_t n,
		    uint64_t measured, bool have_measured, char *err,
		    size_t errlen)
{
	uint32_t w = e->next, H = e->H;
	uint64_t first = 0;
	struct ewin *s;
	size_t i, g;
	int ret;

	if (e->failed)
		return mdk_err(err, errlen, -EIO,
			       "the evaluator failed earlier: restart it");
	if (w == UINT32_MAX - 1)
		return mdk_err(err, errlen, -EOVERFLOW,
			       "out of window numbers");
	for (i = 1; i < n; i++)
		if (ids[i] <= ids[i - 1])
			return mdk_err(
				err, errlen, -EINVAL,
				"window %u: page ids not sorted and distinct at %zu",
				w, i);
	if (w >= H) {
		ret = window_leave(e, w - H, err, errlen);
		if (ret)
			goto err_failed;
	}
	s = &e->ring[w % H];
	if (mdk_grow((void **)&e->sidx, &e->sidxcap, n, sizeof(*e->sidx)) ||
	    mdk_grow((void **)&e->sstart, &e->sstartcap, n,
		     sizeof(*e->sstart)) ||
	    mdk_grow((void **)&e->sreuse, &e->sreusecap, n,
		     sizeof(*e->sreuse)) ||
	    mdk_grow((void **)&s->recs, &s->cap, n, sizeof(*s->recs)) ||
	    mdk_grow((void **)&e->ret, &e->retcap, n, sizeof(*e->ret)) ||
	    mdk_grow((void **)&e->rettier, &e->rettiercap, n,
		     sizeof(*e->rettier))) {
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		goto err_failed;
	}
	/* Each index is scratch-written at most once: ids are distinct. */
	for (i = 0; i < n; i++) {
		ret = mdk__eval_page_index(e, ids[i], &e->sidx[i]);
		if (ret) {
			mdk_err(err, errlen, ret, "out of memory for %zu pages",
				mdk_eval_pages(e));
			goto err_failed;
		}
	}
	ret = mdk_stream_feed(e->stream, w, e->sidx, n, e->sstart, e->sreuse,
			      &first, err, errlen);
	if (ret)
		goto err_failed;
	for (g = 0; g < e->ngens; g++) {
		if (mdk_policy_keyed(e->gens[g].pol))
			continue;
		ret = mdk_mpc_add_accesses(e->gens[g].mpc, w, e->sstart,
					   e->sreuse, n, err, errlen);
		if (ret)
			goto err_failed;
	}
	if (e->lopp) {
		ret = mdk__lopp_live_window(e->lopp, w, ids, e->sidx, e->sstart,
					    n, err, errlen);
		if (ret < 0)
			goto err_failed;
	}
	window_records(e, s, w, ids, n);
	s->n = n;
	s->acted = e->nret;
	s->measured = measured;
	s->have_measured = have_measured;
	e->next++;
	for (g = 0; g < e->ngens; g++)
		if (mdk_policy_keyed(e->gens[g].pol)) {
			ret = mdk__eval_lopp_build(e, &e->gens[g], err, errlen);
			if (ret)
				goto err_failed;
		}
	return 0;

err_failed:
	e->failed = ret;
	return ret;
}

uint64_t mdk_eval_windows(const struct mdk_eval *e)
{
	return e->next;
}

uint32_t mdk_eval_capacity(const struct mdk_eval *e)
{
	return e->H;
}

bool mdk_eval_horizon(const struct mdk_eval *e, uint32_t *lo, uint32_t *hi)
{
	return mdk__eval_horizon(e, lo, hi);
}

size_t mdk_eval_npolicies(const struct mdk_eval *e)
{
	return e->ngens;
}

const struct mdk_policy *mdk_eval_policy(const struct mdk_eval *e, size_t i)
{
	return i < e->ngens ? e->gens[i].pol : NULL;
}

/*
 * Policy @i's points over lo..hi; with e->unacted, each window's measured
 * promotions beyond its acted ones are added to every setting.
 */
static long curve_of(struct mdk_eval *e, size_t i, uint32_t lo, uint32_t hi,
		     struct mdk_point **pts, char *err, size_t errlen)
{
	uint64_t *extra;
	uint32_t w;
	long n;

	if (!e->unacted)
		return mdk_mpc_eval(e->gens[i].mpc, lo, hi, e->flags, pts, err,
				    errlen);
	extra = calloc((size_t)(hi - lo) + 1, sizeof(*extra));
	if (!extra)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (w = lo; w <= hi; w++) {
		const struct ewin *s = &e->ring[w % e->H];

		if (s->have_measured && s->measured > s->acted)
			extra[w - lo] = s->measured - s->acted;
	}
	n = mdk__mpc_eval_extra(e->gens[i].mpc, lo, hi, e->flags, extra, pts,
				err, errlen);
	free(extra);
	return n;
}

long mdk_eval_curve(struct mdk_eval *e, size_t i, struct mdk_point **pts,
		    char *err, size_t errlen)
{
	uint32_t lo, hi;

	*pts = NULL;
	if (i >= e->ngens)
		return mdk_err(err, errlen, -EINVAL, "no policy %zu", i);
	if (e->failed)
		return mdk_err(err, errlen, -EIO,
			       "the evaluator failed earlier");
	if (!mdk__eval_horizon(e, &lo, &hi))
		return mdk_err(err, errlen, -ENODATA, "no window yet");
	if (!e->gens[i].mpc)
		return mdk_err(err, errlen, -ENOENT,
			       "%s: no model learnt yet (both labels needed)",
			       mdk_policy_name(e->gens[i].pol));
	return curve_of(e, i, lo, hi, pts, err, errlen);
}

void mdk_eval_count_unacted(struct mdk_eval *e, bool on)
{
	e->unacted = on;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void rates_of(const struct mdk_eval *e, bool acted,
		     struct mdk_eval_rates *out)
{
	double *r = NULL;
	uint32_t lo, hi, w, nr = 0;

	memset(out, 0, sizeof(*out));
	if (!mdk__eval_horizon(e, &lo, &hi))
		return;
	r = malloc((size_t)(hi - lo + 1) * sizeof(*r));
	for (w = lo;; w++) {
		const struct ewin *s = &e->ring[w % e->H];
		uint64_t p = acted ? s->acted : s->measured;

		if (acted || s->have_measured) {
			double rate = s->n ? (double)p / (double)s->n : 0;

			out->windows++;
			out->promotions += p;
			out->accessed += s->n;
			if (rate > out->max_rate)
				out->max_rate = rate;
			if (s->n && r)
				r[nr++] = rate;
		}
		if (w == hi)
			break;
	}
	out->mean_rate = out->accessed ? (double)out->promotions /
						 (double)out->accessed :
					 0;
	if (nr) {
		qsort(r, nr, sizeof(*r), cmp_double);
		out->p99_rate = r[(99ull * nr + 99) / 100 - 1];
	}
	free(r);
}

void mdk_eval_rates(const struct mdk_eval *e, struct mdk_eval_rates *measured,
		    struct mdk_eval_rates *acted)
{
	if (measured)
		rates_of(e, false, measured);
	if (acted)
		rates_of(e, true, acted);
}

size_t mdk_eval_pages(const struct mdk_eval *e)
{
	return e->hused;
}

size_t mdk_eval_memory(const struct mdk_eval *e)
{
	size_t b = sizeof(*e) + (e->hmask + 1) * sizeof(*e->hash) +
		   e->pcap * (sizeof(*e->ids) + 1 + sizeof(*e->lastpos)) +
		   e->freecap * sizeof(*e->freel) +
		   (size_t)e->nidx * 8 /* the stream's state */;
	size_t i;

	for (i = 0; i < e->H; i++)
		b += e->ring[i].cap * sizeof(struct erec);
	for (i = 0; i < e->ngens; i++)
		if (e->gens[i].mpc)
			b += mdk_mpc_memory(e->gens[i].mpc);
	if (e->lopp)
		b += mdk__lopp_live_memory(e->lopp);
	return b;
}

bool mdk_eval_lopp(const struct mdk_eval *e, struct mdk_eval_lopp *out)
{
	struct mdk_lopp_quality q;
	const char *why;

	memset(out, 0, sizeof(*out));
	if (!e->lopp)
		return false;
	mdk__lopp_live_stats(e->lopp, &out->trainings, &q, &out->rows);
	out->precision = q.precision;
	out->recall = q.recall;
	out->auc = q.auc;
	mdk__lopp_live_fits(e->lopp, &out->fitting, &out->failures, &why);
	snprintf(out->error, sizeof(out->error), "%s", why);
	return true;
}

void mdk_eval_lopp_wait(struct mdk_eval *e)
{
	if (e->lopp)
		mdk__lopp_live_wait(e->lopp);
}
