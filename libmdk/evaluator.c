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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/err.h>
#include <mdk/interval.h>
#include <mdk/lopp.h>

#include <mdk/evaluator.h>

#include "internal.h"
#include "learn/learn_int.h"

#define F_USED 0x1 /* the index holds a page */
#define F_RECLAIMED 0x2 /* the daemon reclaimed it since its last access */

struct erec {
	uint32_t idx; /* dense index of the page */
	uint16_t r; /* prior reuse distance of this access, clamped at H */
	uint16_t dn; /* next access in window v + dn; 0: none yet */
	uint16_t ra; /* prior reuse distance of the previous access */
	uint16_t pad;
};

struct ewin {
	struct erec *recs;
	size_t n, cap;
	uint64_t measured, acted;
	bool have_measured;
};

struct egen {
	struct mdk_policy *pol;
	struct mdk_mpc *mpc;
};

struct hslot {
	uint64_t key; /* page id + 1; 0: empty */
	uint32_t idx;
};

struct mdk_eval {
	uint32_t H;
	unsigned int flags;
	struct mdk_eval_opts opts;
	struct mdk__lopp_live *lopp; /* with a keyed (lopp) policy */
	uint32_t next; /* windows fed */
	int failed;
	struct mdk_stream *stream;

	struct hslot *hash;
	size_t hmask, hused;
	uint64_t *ids;
	uint8_t *pflags;
	uint32_t *lastpos;
	size_t pcap; /* entries of ids, pflags, lastpos */
	uint32_t nidx; /* indices handed out (some may be free) */
	uint32_t *freel;
	size_t nfree, freecap;

	struct ewin *ring; /* H slots, window w in slot w % H */
	struct egen *gens;
	size_t ngens, gencap;

	/* scratch */
	uint32_t *sidx, *sstart, *sreuse;
	size_t sidxcap, sstartcap, sreusecap;
	uint64_t *picks, *ret;
	size_t npicks, pickcap, nret, retcap;
};

static uint32_t min_u32(uint64_t a, uint32_t b)
{
	return a < b ? (uint32_t)a : b;
}

/* ---- the page table ---- */

static struct hslot *hash_find(const struct mdk_eval *e, uint64_t id)
{
	size_t i = mdk_hash64(id) & e->hmask;

	for (;; i = (i + 1) & e->hmask) {
		if (!e->hash[i].key)
			return NULL;
		if (e->hash[i].key == id + 1)
			return &e->hash[i];
	}
}

static int hash_resize(struct mdk_eval *e, size_t slots)
{
	struct hslot *old = e->hash, *n = calloc(slots, sizeof(*n));
	size_t i, oldn = old ? e->hmask + 1 : 0;

	if (!n)
		return -ENOMEM;
	e->hash = n;
	e->hmask = slots - 1;
	for (i = 0; i < oldn; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = mdk_hash64(old[i].key - 1) & e->hmask; n[j].key;
		     j = (j + 1) & e->hmask)
			;
		n[j] = old[i];
	}
	free(old);
	return 0;
}

/* Backward-shift deletion (linear probing keeps no tombstones). */
static void hash_del(struct mdk_eval *e, struct hslot *s)
{
	size_t i = (size_t)(s - e->hash), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & e->hmask;
		if (!e->hash[j].key)
			break;
		home = mdk_hash64(e->hash[j].key - 1) & e->hmask;
		/* Move j back to i unless its home lies in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		e->hash[i] = e->hash[j];
		i = j;
	}
	e->hash[i].key = 0;
	e->hused--;
}

/* The index of @id, a new one if it has none; -ENOMEM. */
static int page_index(struct mdk_eval *e, uint64_t id, uint32_t *out)
{
	struct hslot *s = hash_find(e, id);
	uint32_t idx;
	size_t i;

	if (s) {
		*out = s->idx;
		return 0;
	}
	if ((e->hused + 1) * 2 > e->hmask + 1 &&
	    hash_resize(e, (e->hmask + 1) * 2))
		return -ENOMEM;
	if (e->nfree) {
		idx = e->freel[--e->nfree];
	} else {
		/* ids, pflags, lastpos grow alike; pcap moves once all have */
		size_t c1 = e->pcap, c2 = e->pcap, c3 = e->pcap,
		       need = (size_t)e->nidx + 1;

		if (e->nidx == UINT32_MAX ||
		    mdk_grow((void **)&e->ids, &c1, need, sizeof(*e->ids)) ||
		    mdk_grow((void **)&e->pflags, &c2, need,
			     sizeof(*e->pflags)) ||
		    mdk_grow((void **)&e->lastpos, &c3, need,
			     sizeof(*e->lastpos)))
			return -ENOMEM;
		e->pcap = c1;
		idx = e->nidx++;
	}
	e->ids[idx] = id;
	e->pflags[idx] = F_USED;
	e->lastpos[idx] = 0;
	for (i = mdk_hash64(id) & e->hmask; e->hash[i].key;
	     i = (i + 1) & e->hmask)
		;
	e->hash[i].key = id + 1;
	e->hash[i].idx = idx;
	e->hused++;
	*out = idx;
	return 0;
}

/* ---- generators ---- */

static void gen_free(struct egen *g)
{
	mdk_mpc_free(g->mpc);
	mdk_policy_free(g->pol);
	g->mpc = NULL;
	g->pol = NULL;
}

/* About @n values from 1 to @hi, log-spaced, as "1/2/3/5/...". */
static void log_values(uint32_t hi, unsigned int n, char *buf, size_t len)
{
	uint64_t last = 0;
	size_t pos = 0;
	unsigned int i;

	buf[0] = '\0';
	if (hi <= n) {
		snprintf(buf, len, hi > 1 ? "1-%u" : "1", hi);
		return;
	}
	for (i = 0; i < n && pos < len; i++) {
		uint64_t v = (uint64_t)llround(
			exp(log((double)hi) * (double)i / (double)(n - 1)));

		if (v <= last)
			v = last + 1;
		if (v > hi)
			break;
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%llu",
					pos ? "/" : "", (unsigned long long)v);
		last = v;
	}
}

/* Rebuild @g's generator for the horizon from the ring (see the top). */
static int gen_replay(struct mdk_eval *e, struct egen *g, char *err,
		      size_t errlen)
{
	uint32_t lo, hi, w;

	if (!mdk_eval_horizon(e, &lo, &hi))
		return 0;
	for (w = lo;; w++) {
		const struct ewin *s = &e->ring[w % e->H];
		size_t i;
		int ret;

		if (mdk_grow((void **)&e->sstart, &e->sstartcap, s->n,
			     sizeof(*e->sstart)) ||
		    mdk_grow((void **)&e->sreuse, &e->sreusecap, s->n,
			     sizeof(*e->sreuse)))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		for (i = 0; i < s->n; i++) {
			const struct erec *r = &s->recs[i];

			if (!r->r) {
				e->sstart[i] = MDK_NONE;
				e->sreuse[i] = 0;
			} else if (r->r >= e->H || w - r->r < lo) {
				/* The previous access is before the horizon. */
				e->sstart[i] = MDK_NONE;
				e->sreuse[i] = r->r;
			} else {
				e->sstart[i] = w - r->r;
				e->sreuse[i] = r->ra;
			}
		}
		ret = mdk_mpc_add_accesses(g->mpc, w, e->sstart, e->sreuse,
					   s->n, err, errlen);
		if (ret)
			return ret;
		if (w == hi)
			break;
	}
	return 0;
}

/*
 * A keyed (lopp) generator: the horizon keyed by the newest model, built
 * afresh; none before the first model.  The learner starts with the
 * first lopp policy.
 */
static int lopp_build(struct mdk_eval *e, struct egen *g, char *err,
		      size_t errlen)
{
	const struct mdk_lopp_model *model;
	uint32_t lo, hi;
	int ret;

	if (!e->lopp) {
		double rho = e->opts.lopp_rho > 0 ? e->opts.lopp_rho : 0.01;

		if (rho > 1)
			return mdk_err(err, errlen, -EINVAL,
				       "L-OPP: rho %g above 1", rho);
		if (mdk__lopp_live_new(
			    e->H, (uint32_t)(rho * 1e6 + 0.5),
			    e->opts.lopp_retrain ? e->opts.lopp_retrain : 4,
			    e->opts.lopp_rows ? e->opts.lopp_rows : 65536,
			    &e->lopp))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	model = mdk__lopp_live_model(e->lopp);
	mdk_mpc_free(g->mpc);
	g->mpc = NULL;
	if (!model || !mdk_eval_horizon(e, &lo, &hi))
		return 0;
	ret = mdk_lopp_policy_set_model(g->pol, model, err, errlen);
	if (!ret)
		ret = mdk_mpc_new(g->pol, e->H, &g->mpc, err, errlen);
	if (!ret)
		ret = mdk__lopp_live_fill(e->lopp, g->mpc, lo, hi, err, errlen);
	return ret;
}

/*
 * A generator for @pol (taken over, also on failure) over H windows,
 * filled from the ring.
 */
static int gen_make(struct mdk_eval *e, struct mdk_policy *pol, struct egen *g,
		    char *err, size_t errlen)
{
	char vals[512];
	int ret;

	g->pol = pol;
	g->mpc = NULL;
	if (mdk_policy_keyed(pol)) {
		ret = lopp_build(e, g, err, errlen);
		if (ret)
			gen_free(g);
		return ret;
	}
	if (!strcmp(mdk_policy_name(pol), "pace")) {
		log_values(e->H - 1, MDK_EVAL_PACE_VALUES, vals, sizeof(vals));
		if ((!mdk_policy_has(pol, "P") &&
		     mdk_policy_set(pol, "P", vals, err, errlen)) ||
		    (!mdk_policy_has(pol, "A") &&
		     mdk_policy_set(pol, "A", vals, err, errlen))) {
			gen_free(g);
			return -EINVAL;
		}
	}
	if (mdk_policy_kind(pol) == MDK_POLICY_CACHE) {
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: a fixed-size policy has no MPC (expected age, vmin, paw, pace, opp or lopp)",
			mdk_policy_name(pol));
		gen_free(g);
		return ret;
	}
	ret = mdk_mpc_new(pol, e->H, &g->mpc, err, errlen);
	if (!ret)
		ret = gen_replay(e, g, err, errlen);
	if (ret)
		gen_free(g);
	return ret;
}

static int gen_index(const struct mdk_eval *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->ngens; i++)
		if (!strcmp(mdk_policy_name(e->gens[i].pol), name))
			return (int)i;
	return -1;
}

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
	    hash_resize(e, 1024))
		goto err_nomem;
	for (i = 0; i < np; i++) {
		struct mdk_policy *p = pols[i];

		pols[i] = NULL;
		if (gen_index(e, mdk_policy_name(p)) >= 0) {
			mdk_err(err, errlen, -EINVAL,
				"%s: listed twice (one curve per policy)",
				mdk_policy_name(p));
			mdk_policy_free(p);
			goto err_free;
		}
		if (gen_make(e, p, &e->gens[e->ngens], err, errlen))
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
		gen_free(&e->gens[i]);
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
	    mdk_grow((void **)&e->ret, &e->retcap, n, sizeof(*e->ret))) {
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		goto err_failed;
	}
	/* Each index is scratch-written at most once: ids are distinct. */
	for (i = 0; i < n; i++) {
		ret = page_index(e, ids[i], &e->sidx[i]);
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
	e->nret = 0;
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
			e->pflags[idx] &= ~F_RECLAIMED;
			e->ret[e->nret++] = ids[i];
		}
	}
	s->n = n;
	s->acted = e->nret;
	s->measured = measured;
	s->have_measured = have_measured;
	e->next++;
	for (g = 0; g < e->ngens; g++)
		if (mdk_policy_keyed(e->gens[g].pol)) {
			ret = lopp_build(e, &e->gens[g], err, errlen);
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
	if (!e->next)
		return false;
	*hi = e->next - 1;
	*lo = *hi >= e->H ? *hi - e->H + 1 : 0;
	return true;
}

size_t mdk_eval_npolicies(const struct mdk_eval *e)
{
	return e->ngens;
}

const struct mdk_policy *mdk_eval_policy(const struct mdk_eval *e, size_t i)
{
	return i < e->ngens ? e->gens[i].pol : NULL;
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
	if (!mdk_eval_horizon(e, &lo, &hi))
		return mdk_err(err, errlen, -ENODATA, "no window yet");
	if (!e->gens[i].mpc)
		return mdk_err(err, errlen, -ENOENT,
			       "%s: no model learnt yet (both labels needed)",
			       mdk_policy_name(e->gens[i].pol));
	return mdk_mpc_eval(e->gens[i].mpc, lo, hi, e->flags, pts, err, errlen);
}

/* Setting of @p whose values are @v (of @np parameters), or -1. */
static long setting_of(const struct mdk_policy *p, const uint64_t *v)
{
	size_t i, n = mdk_policy_settings(p);

	for (i = 0; i < n; i++) {
		struct mdk_setting s;

		mdk_policy_setting(p, i, &s);
		if (s.v[0] == v[0] && (!s.has_p2 || s.v[1] == v[1]))
			return (long)i;
	}
	return -1;
}

/*
 * @spec ("pace:P=1-5,A=2") with value @v[k] added to each parameter k's
 * grid, into @out; the keys come from @one, a single setting's spec.
 */
static int spec_with(const char *spec, const struct mdk_policy *one,
		     const uint64_t *v, char *out, size_t len)
{
	char keys[64], *k, *save = NULL;
	const char *colon = strchr(spec, ':');
	size_t pos, kn = 0;

	if (!colon ||
	    mdk_policy_format(one, 0, keys, sizeof(keys)) >= (int)sizeof(keys))
		return -EINVAL;
	pos = (size_t)snprintf(out, len, "%.*s", (int)(colon - spec), spec);
	/* "pace:P=1,A=2": the keys in parameter order. */
	for (k = strtok_r(strchr(keys, ':') + 1, ",", &save); k;
	     k = strtok_r(NULL, ",", &save), kn++) {
		const char *p = colon, *end;
		size_t klen = strcspn(k, "=");

		/* That key's values in @spec. */
		for (;;) {
			p++;
			if (!strncmp(p, k, klen) && p[klen] == '=')
				break;
			p = strchr(p, ',');
			if (!p)
				return -EINVAL;
		}
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		pos += (size_t)snprintf(out + pos, pos < len ? len - pos : 0,
					"%c%.*s/%llu", kn ? ',' : ':',
					(int)(end - p), p,
					(unsigned long long)v[kn]);
		if (pos >= len)
			return -E2BIG;
	}
	return 0;
}

int mdk_eval_find(struct mdk_eval *e, const char *spec,
		  struct mdk_eval_sel *sel, char *err, size_t errlen)
{
	struct mdk_policy *one = NULL, *wide = NULL;
	struct mdk_setting s;
	struct egen ng;
	char *grid = NULL, *more = NULL;
	long k;
	int gi, ret;

	sel->policy = -1;
	ret = mdk_policy_new(spec, &one, err, errlen);
	if (ret)
		return -EINVAL;
	ret = mdk_policy_resolve(one, e->H, err, errlen);
	if (!ret && mdk_policy_settings(one) != 1)
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: expected one setting (as in age:T=4, paw:P=2,wait=2, pace:P=4,A=2)",
			spec);
	if (!ret && !mdk_policy_online(one))
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: not a policy mdkd can run (expected age, paw, pace or lopp)",
			spec);
	if (ret)
		goto out;
	mdk_policy_setting(one, 0, &s);
	gi = gen_index(e, mdk_policy_name(one));
	if (gi >= 0) {
		k = setting_of(e->gens[gi].pol, s.v);
		if (k >= 0) {
			sel->policy = gi;
			sel->setting = (size_t)k;
			goto out;
		}
	}
	/* Not evaluated yet: a new curve, or a wider grid, from the ring. */
	if (gi < 0) {
		wide = one;
		one = NULL;
	} else {
		int len = mdk_policy_spec(e->gens[gi].pol, NULL, 0) + 64;

		grid = malloc((size_t)len);
		more = malloc((size_t)len);
		if (!grid || !more) {
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		mdk_policy_spec(e->gens[gi].pol, grid, (size_t)len);
		ret = spec_with(grid, one, s.v, more, (size_t)len);
		if (ret) {
			mdk_err(err, errlen, ret, "%s: cannot widen %s", spec,
				grid);
			goto out;
		}
		ret = mdk_policy_new(more, &wide, err, errlen);
		if (ret)
			goto out;
	}
	ret = mdk_policy_resolve(wide, e->H, err, errlen);
	if (ret) {
		mdk_policy_free(wide);
		goto out;
	}
	ret = gen_make(e, wide, &ng, err, errlen);
	if (ret)
		goto out;
	if (gi < 0) {
		if (mdk_grow((void **)&e->gens, &e->gencap, e->ngens + 1,
			     sizeof(*e->gens))) {
			gen_free(&ng);
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		gi = (int)e->ngens++;
	} else {
		gen_free(&e->gens[gi]);
	}
	e->gens[gi] = ng;
	k = setting_of(ng.pol, s.v);
	sel->policy = gi;
	sel->setting = k >= 0 ? (size_t)k : 0;
out:
	free(grid);
	free(more);
	mdk_policy_free(one);
	return ret;
}

/*
 * Which parameters @spec gives, and their values: bit k of the result for
 * parameter k, values in @v (stored units).  -EINVAL for a bad spec.
 */
static int given_params(const char *spec, uint32_t H, uint64_t *v, char *name,
			size_t namelen, char *err, size_t errlen)
{
	struct mdk_policy *p;
	struct mdk_setting s;
	char f[96], *k, *save = NULL;
	int mask = 0, i = 0;

	if (mdk_policy_new(spec, &p, err, errlen))
		return -EINVAL;
	snprintf(name, namelen, "%s", mdk_policy_name(p));
	if (mdk_policy_resolve(p, H, err, errlen)) {
		mdk_policy_free(p);
		return -EINVAL;
	}
	mdk_policy_setting(p, 0, &s);
	v[0] = s.v[0];
	v[1] = s.v[1];
	/* "pace:P=1,A=1": the keys in parameter order. */
	mdk_policy_format(p, 0, f, sizeof(f));
	for (k = strchr(f, ':') ? strtok_r(strchr(f, ':') + 1, ",", &save) :
				  NULL;
	     k && i < 2; k = strtok_r(NULL, ",", &save), i++) {
		k[strcspn(k, "=")] = '\0';
		if (mdk_policy_has(p, k))
			mask |= 1 << i;
	}
	mdk_policy_free(p);
	return mask;
}

int mdk_eval_tune(struct mdk_eval *e, const char *spec, double target,
		  struct mdk_eval_sel *sel, struct mdk_point *pt, char *err,
		  size_t errlen)
{
	struct mdk_point *pts;
	const struct mdk_policy *pol;
	char name[32];
	uint64_t v[2];
	long n, k, m, b, *where;
	int gi, mask;

	sel->policy = -1;
	mask = given_params(spec, e->H, v, name, sizeof(name), err, errlen);
	if (mask < 0)
		return mask;
	gi = gen_index(e, name);
	if (gi < 0)
		return mdk_err(err, errlen, -ENOENT, "%s is not evaluated",
			       name);
	pol = e->gens[gi].pol;
	n = mdk_eval_curve(e, (size_t)gi, &pts, err, errlen);
	if (n < 0)
		return (int)n;
	where = malloc((size_t)(n ? n : 1) * sizeof(*where));
	if (!where) {
		free(pts);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	/* Keep the settings with the given values, then mdk_mpc_best(). */
	for (k = 0, m = 0; k < n; k++) {
		struct mdk_setting s;

		mdk_policy_setting(pol, (size_t)k, &s);
		if (((mask & 1) && s.v[0] != v[0]) ||
		    ((mask & 2) && s.v[1] != v[1]))
			continue;
		pts[m] = pts[k];
		where[m++] = k;
	}
	b = mdk_mpc_best(pts, (size_t)m, target);
	if (b < 0) {
		free(pts);
		free(where);
		return mdk_err(
			err, errlen, -ENOENT,
			"no setting of %s within a max window rate of %g", spec,
			target);
	}
	sel->policy = gi;
	sel->setting = (size_t)where[b];
	if (pt)
		*pt = pts[b];
	free(pts);
	free(where);
	return 0;
}

int mdk_eval_point(struct mdk_eval *e, const struct mdk_eval_sel *sel,
		   struct mdk_point *pt, char *err, size_t errlen)
{
	struct mdk_point *pts;
	long n;

	if (sel->policy < 0)
		return mdk_err(err, errlen, -EINVAL, "no setting");
	n = mdk_eval_curve(e, (size_t)sel->policy, &pts, err, errlen);
	if (n < 0)
		return (int)n;
	if (sel->setting >= (size_t)n) {
		free(pts);
		return mdk_err(err, errlen, -ERANGE, "no setting %zu",
			       sel->setting);
	}
	*pt = pts[sel->setting];
	free(pts);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mdk_eval_pick(struct mdk_eval *e, const struct mdk_eval_sel *sel,
		  const uint64_t **ids, size_t *n)
{
	const struct mdk_policy *p;
	uint32_t lo, hi, idx;

	*ids = e->picks;
	*n = e->npicks = 0;
	if (sel->policy < 0 || (size_t)sel->policy >= e->ngens)
		return -EINVAL;
	p = e->gens[sel->policy].pol;
	if (!mdk_policy_online(p))
		return -EOPNOTSUPP;
	if (!mdk_eval_horizon(e, &lo, &hi))
		return 0;
	for (idx = 0; idx < e->nidx; idx++) {
		uint32_t a, r, wait;
		int ret;

		if (e->pflags[idx] != F_USED ||
		    mdk_stream_open(e->stream, idx, &a, &r))
			continue;
		/* A keyed policy decides on the key of the page's last access. */
		r = e->lopp && mdk_policy_keyed(p) ?
			    mdk__lopp_live_key(e->lopp, idx) :
			    min_u32(r, e->H);
		ret = mdk_policy_decide(p, sel->setting, r, &wait);
		if (ret < 0)
			return ret;
		if (!ret || (uint64_t)a + wait > hi)
			continue;
		if (mdk_grow((void **)&e->picks, &e->pickcap, e->npicks + 1,
			     sizeof(*e->picks)))
			return -ENOMEM;
		e->picks[e->npicks++] = e->ids[idx];
	}
	if (e->npicks)
		qsort(e->picks, e->npicks, sizeof(*e->picks), cmp_u64);
	*ids = e->picks;
	*n = e->npicks;
	return 0;
}

void mdk_eval_mark(struct mdk_eval *e, const uint64_t *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct hslot *s = hash_find(e, ids[i]);

		if (s)
			e->pflags[s->idx] |= F_RECLAIMED;
	}
}

const uint64_t *mdk_eval_returned(const struct mdk_eval *e, size_t *n)
{
	*n = e->nret;
	return e->ret;
}

size_t mdk_eval_forget(struct mdk_eval *e, bool (*gone)(uint64_t id, void *arg),
		       void *arg)
{
	size_t dropped = 0;
	uint32_t idx;

	for (idx = 0; idx < e->nidx; idx++) {
		if (!(e->pflags[idx] & F_USED) || !gone(e->ids[idx], arg))
			continue;
		if (mdk_grow((void **)&e->freel, &e->freecap, e->nfree + 1,
			     sizeof(*e->freel)))
			break; /* keep it: forgetting is only an optimisation */
		hash_del(e, hash_find(e, e->ids[idx]));
		mdk_stream_forget(e->stream, idx);
		if (e->lopp)
			mdk__lopp_live_forget(e->lopp, idx);
		e->pflags[idx] = 0;
		e->freel[e->nfree++] = idx;
		dropped++;
	}
	return dropped;
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
	if (!mdk_eval_horizon(e, &lo, &hi))
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

	memset(out, 0, sizeof(*out));
	if (!e->lopp)
		return false;
	mdk__lopp_live_stats(e->lopp, &out->trainings, &q, &out->rows);
	out->precision = q.precision;
	out->recall = q.recall;
	out->auc = q.auc;
	return true;
}
