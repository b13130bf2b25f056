// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP(theta, A; wait): OPP learnt, falling back to AGE.  At each access
 * a model (mdk/lopp.h, trained on OPP(rho)'s decisions) scores the page
 * from what is known at that time; a score of theta or more reclaims the
 * page after @wait idle windows (0 by default: right after the access, as
 * OPP would), a lower one after A idle windows, as AGE(A) would (A = none:
 * the page is kept for the interval).  First accesses are scored too.
 *
 * The policy is keyed: the interval an access opens carries the score as
 * a key, 1 + the score in parts per million capped at 10^6
 * (mdk_lopp_key()), and "score >= theta" is "key > theta in ppm", so
 * theta = 1 passes no access and L-OPP(1, A) is AGE(A).  The curve is
 * PACE's with keys for reuse distances: intervals binned by key along the
 * theta grid and by length along the thresholds of A's grid and of the
 * wait; for (theta_i, A_j) the promotions are the keys > theta_i with
 * gaps >= wait plus the keys <= theta_i with gaps >= A_j, each a block of
 * the row's 2-D suffix sums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mdk/lopp.h>
#include <mdk/trace.h>

#include "../policy_int.h"

struct lopp_priv {
	char *path; /* NULL for a model set by mdk_lopp_policy_set_model() */
	struct mdk_lopp_model *model;
	uint64_t wait; /* the wait= option: idle windows after a pass */
	bool wait_given;
};

struct lopp_keys {
	const struct mdk_policy *p;
	struct mdk_lopp_feat *feat;
	float *x;
	size_t xcap; /* floats */
};

/* A = none: gaps are below MDK_TRACE_MAX_WINDOW, so it never reclaims. */
#define LOPP_NONE ((uint64_t)MDK_TRACE_MAX_WINDOW)

static uint64_t lopp_wait_of(const struct mdk_policy *p)
{
	const struct lopp_priv *lp = p->priv;

	return lp ? lp->wait : 0;
}

static int64_t lopp_decide(uint64_t wait, const uint64_t *v, uint32_t key)
{
	if (key > v[0])
		return (int64_t)wait;
	return v[1] == LOPP_NONE ? MDK_KEEP : (int64_t)v[1];
}

/* The rule with the default wait (0); lopp_wait_opt() reads the option. */
static int64_t lopp_wait(const uint64_t *v, uint32_t key, uint32_t len,
			 bool tail)
{
	return lopp_decide(0, v, key);
}

static int64_t lopp_wait_opt(const struct mdk_policy *p, const uint64_t *v,
			     uint32_t key, uint32_t len, bool tail)
{
	return lopp_decide(lopp_wait_of(p), v, key);
}

/* 0, 0.1% .. 1% in 0.1% steps, then 2% .. 100% in 1% steps. */
static int lopp_default_theta(uint64_t windows, struct mdk_grid *g)
{
	int ret = mdk__grid_range(g, 0, 10000, 1000);

	return ret ? ret : mdk__grid_range(g, 20000, 1000000, 10000);
}

/*
 * none (the L-OPP of a model alone) and AGE's thresholds, as PACE's A
 * grid; just none when the spec gives theta or wait, so that such a spec
 * keeps the meaning it had before A (one setting per theta and wait).
 */
static int lopp_default_A(const struct mdk_policy *p, uint64_t windows,
			  struct mdk_grid *g)
{
	const struct lopp_priv *lp = p->priv;
	int ret;

	if (p->given[0] || (lp && lp->wait_given))
		return mdk__grid_one(g, LOPP_NONE);
	ret = windows <= 257 ? mdk__grid_thresholds(windows, g) :
			       mdk__grid_logspace(g, 1, windows - 1, 64);

	return ret ? ret : mdk__grid_one(g, LOPP_NONE);
}

/* The gaps' thresholds: A's grid and the wait. */
static int lopp_ggrid(const struct mdk_policy *p, struct mdk_grid *g)
{
	const struct mdk_grid *a = &p->grid[1];
	size_t cap = 0, i;
	int ret = mdk__grid_push(g, &cap, lopp_wait_of(p));

	for (i = 0; !ret && i < a->n; i++)
		ret = mdk__grid_push(g, &cap, a->v[i]);
	if (ret)
		return ret;
	mdk__grid_finish(g);
	return 0;
}

/* The g-bin index k of threshold @v ("g >= v" is bins > k). */
static uint32_t lopp_gidx(const struct mdk_gen *g, uint64_t v)
{
	size_t lo = 0, hi = g->ggrid->n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (g->ggrid->v[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

static void lopp_row(const struct mdk_gen *g, const uint64_t *S,
		     const uint32_t *row, uint64_t accessed, uint64_t *prom,
		     uint64_t *saved)
{
	const struct mdk_grid *A = &g->pol->grid[1];
	uint32_t kw = lopp_gidx(g, lopp_wait_of(g->pol)) + 1;
	size_t i, j, n0 = g->rgrid->n, n1 = A->n;

	for (j = 0; j < n1; j++) {
		uint32_t ka = lopp_gidx(g, A->v[j]) + 1;
		uint64_t all = S[mdk__S(g, 0, ka)];

		for (i = 0; i < n0; i++) {
			uint32_t ri = (uint32_t)i + 1;

			prom[i * n1 + j] = S[mdk__S(g, ri, kw)] + all -
					   S[mdk__S(g, ri, ka)];
		}
	}
}

static void lopp_saved(const struct mdk_gen *g, const uint64_t *Gc,
		       const uint64_t *Gs, const uint64_t *Tc,
		       const uint64_t *Ts, uint64_t *saved)
{
	const struct mdk_grid *A = &g->pol->grid[1];
	uint64_t wait = lopp_wait_of(g->pol);
	uint32_t kw = lopp_gidx(g, wait) + 1;
	size_t i, j, n0 = g->rgrid->n, n1 = A->n;

	for (j = 0; j < n1; j++) {
		uint32_t ka = lopp_gidx(g, A->v[j]) + 1;
		size_t k0 = mdk__S(g, 0, ka);

		for (i = 0; i < n0; i++) {
			size_t kp = mdk__S(g, (uint32_t)i + 1, kw);
			size_t ki = mdk__S(g, (uint32_t)i + 1, ka);
			/* passes: wait; the others: A (no count for none) */
			uint64_t pass =
				Gs[kp] + Ts[kp] - wait * (Gc[kp] + Tc[kp]);
			uint64_t cnt = Gc[k0] - Gc[ki] + Tc[k0] - Tc[ki];
			uint64_t len = Gs[k0] - Gs[ki] + Ts[k0] - Ts[ki];

			saved[i * n1 + j] +=
				pass + len - (cnt ? A->v[j] * cnt : 0);
		}
	}
}

static void lopp_priv_free(void *priv)
{
	struct lopp_priv *lp = priv;

	if (!lp)
		return;
	mdk_lopp_model_free(lp->model);
	free(lp->path);
	free(lp);
}

/* Make @p's model @m (taken over) read from @path (copied; may be NULL). */
/* @p's options, made on first use; NULL: out of memory. */
static struct lopp_priv *lopp_priv(struct mdk_policy *p)
{
	if (!p->priv)
		p->priv = calloc(1, sizeof(struct lopp_priv));
	return p->priv;
}

static int lopp_set(struct mdk_policy *p, struct mdk_lopp_model *m,
		    const char *path)
{
	struct lopp_priv *lp = lopp_priv(p);
	char *copy = NULL;

	if (!lp || (path && !(copy = strdup(path)))) {
		mdk_lopp_model_free(m);
		return -ENOMEM;
	}
	mdk_lopp_model_free(lp->model);
	free(lp->path);
	lp->model = m;
	lp->path = copy;
	return 0;
}

/* wait=N: one count of windows (the curve's grid is theta x A). */
static int lopp_option_wait(struct mdk_policy *p, const char *value, char *err,
			    size_t errlen)
{
	struct lopp_priv *lp;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (!*value || *end || errno || *value == '-' ||
	    v >= MDK_TRACE_MAX_WINDOW)
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: bad value '%s' for wait: expected one number of windows from 0 to %u (the curve's grid is theta x A; give one wait per policy)",
			value, MDK_TRACE_MAX_WINDOW - 1);
	lp = lopp_priv(p);
	if (!lp)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	if (lp->wait_given)
		return mdk_err(err, errlen, -EINVAL,
			       "lopp: parameter wait given twice");
	lp->wait = v;
	lp->wait_given = true;
	return 0;
}

static int lopp_option(struct mdk_policy *p, const char *key, const char *value,
		       char *err, size_t errlen)
{
	struct mdk_lopp_model *m;
	char why[512];
	int ret;

	if (!strcasecmp(key, "wait"))
		return lopp_option_wait(p, value, err, errlen);
	if (strcmp(key, "model"))
		return -ENOENT;
	/* -EINVAL, whatever the reason: -ENOENT would mean "no such key". */
	if (mdk_lopp_model_read(value, &m, why, sizeof(why)))
		return mdk_err(err, errlen, -EINVAL, "lopp: model: %s", why);
	ret = lopp_set(p, m, value);
	return ret ? mdk_err(err, errlen, ret, "out of memory") : 0;
}

static int lopp_option_spec(const struct mdk_policy *p, bool first, char *buf,
			    size_t len)
{
	const struct lopp_priv *lp = p->priv;
	int n = 0, k;

	if (lp && lp->path) {
		n = snprintf(buf, len, "%cmodel=%s", first ? ':' : ',',
			     lp->path);
		first = false;
	}
	if (n < 0 || !lp || !lp->wait_given)
		return n;
	k = snprintf((size_t)n < len ? buf + n : NULL,
		     (size_t)n < len ? len - (size_t)n : 0, "%cwait=%llu",
		     first ? ':' : ',', (unsigned long long)lp->wait);
	return k < 0 ? k : n + k;
}

static int lopp_keys_new(const struct mdk_policy *p, void **state, char *err,
			 size_t errlen)
{
	struct lopp_keys *k;

	if (!p->priv || !((const struct lopp_priv *)p->priv)->model)
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: parameter model is required (model=FILE, from mdkctl train)");
	k = calloc(1, sizeof(*k));
	if (!k || mdk_lopp_feat_new(&k->feat)) {
		free(k);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	k->p = p;
	*state = k;
	return 0;
}

static int lopp_keys(void *state, uint32_t window, const uint64_t *ids,
		     const uint32_t *pages, size_t n, uint32_t *keys, char *err,
		     size_t errlen)
{
	struct lopp_keys *k = state;
	/* The policy's model now: a daemon may have replaced it. */
	const struct mdk_lopp_model *m =
		((const struct lopp_priv *)k->p->priv)->model;
	int ret;

	if (mdk_grow((void **)&k->x, &k->xcap, n * MDK_LOPP_FEATURES,
		     sizeof(*k->x)))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	ret = mdk_lopp_feat_add(k->feat, window, ids, pages, n, k->x, err,
				errlen);
	if (ret)
		return ret;
	mdk__lopp_keys(m, k->x, n, keys);
	return 0;
}

static void lopp_keys_forget(void *state, uint32_t page)
{
	mdk_lopp_feat_forget(((struct lopp_keys *)state)->feat, page);
}

static void lopp_keys_free(void *state)
{
	struct lopp_keys *k = state;

	if (!k)
		return;
	mdk_lopp_feat_free(k->feat);
	free(k->x);
	free(k);
}

const struct mdk_policy_ops mdk_policy_lopp = {
	.name = "lopp",
	.help = "L-OPP(theta, A; wait): reclaim after wait idle windows (0) a page whose access the model (model=FILE, from mdkctl train) scores at theta or above, the others after A idle windows (none: never)",
	.kind = MDK_POLICY_INTERVAL,
	.nparams = 2,
	.params = {
		{ .key = "theta", .help = "score at which a page is reclaimed after wait (0 to 1; 1: none is)",
		  .type = MDK_PARAM_FRACTION, .min = 0, .max = 1000000,
		  .dflt = lopp_default_theta },
		{ .key = "A", .help = "idle windows before reclaiming the pages scored below theta (>= 0, or none)",
		  .type = MDK_PARAM_WINDOWS, .min = 0, .max = LOPP_NONE,
		  .dflt_p = lopp_default_A, .none = LOPP_NONE },
	},
	.wait = lopp_wait,
	.wait_opt = lopp_wait_opt,
	.online = true,
	.gen_r = 0,
	.gen_g = 1,
	.gen_row = lopp_row,
	.gen_saved = lopp_saved,
	.gen_ggrid = lopp_ggrid,
	.key_max = MDK_LOPP_KEY_MAX,
	.keys_new = lopp_keys_new,
	.keys = lopp_keys,
	.keys_forget = lopp_keys_forget,
	.keys_free = lopp_keys_free,
	.option = lopp_option,
	.option_spec = lopp_option_spec,
	.priv_free = lopp_priv_free,
};

/*
 * mdk_lopp_policy_set_model(), mdk_lopp_policy_model() - the entry points
 * besides the ops: a learner hands its newest model to the policy, and
 * callers read it back (mdk/lopp.h).
 */
bool mdk__lopp_wait_given(const struct mdk_policy *p, uint64_t *wait)
{
	const struct lopp_priv *lp = p->priv;

	if (p->ops != &mdk_policy_lopp || !lp || !lp->wait_given)
		return false;
	*wait = lp->wait;
	return true;
}

const struct mdk_lopp_model *mdk_lopp_policy_model(const struct mdk_policy *p)
{
	const struct lopp_priv *lp = p->priv;

	return p->ops == &mdk_policy_lopp && lp ? lp->model : NULL;
}

int mdk_lopp_policy_set_model(struct mdk_policy *p,
			      const struct mdk_lopp_model *m, char *err,
			      size_t errlen)
{
	struct mdk_lopp_model *c;

	if (p->ops != &mdk_policy_lopp)
		return mdk_err(err, errlen, -EINVAL,
			       "%s is not lopp: it takes no model",
			       mdk_policy_name(p));
	c = mdk_lopp_model_dup(m);
	if (!c || lopp_set(p, c, NULL))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	return 0;
}
