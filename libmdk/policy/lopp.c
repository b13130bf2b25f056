// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP(theta; wait): OPP learnt.  At each access a model (mdk/lopp.h,
 * trained on OPP(rho)'s decisions) scores the page from what is known at
 * that time; a score of theta or more reclaims the page after @wait idle
 * windows (0 by default: right after the access, as OPP would), a lower
 * one keeps it for the interval.  First accesses are scored too.
 *
 * The policy is keyed: the interval an access opens carries the score as
 * a key, 1 + the score in parts per million (mdk_lopp_key()), and "score
 * >= theta" is "key > theta in ppm".  Decisions are nested in theta, so
 * the curve over theta is PAW's with keys for reuse distances: intervals
 * binned by key along the theta grid and by length along the wait grid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>
#include <mdk/trace.h>

#include "../policy_int.h"

struct lopp_priv {
	char *path; /* NULL for a model set by mdk_lopp_policy_set_model() */
	struct mdk_lopp_model *model;
};

struct lopp_keys {
	const struct mdk_policy *p;
	struct mdk_lopp_feat *feat;
	float *x;
	size_t xcap; /* floats */
};

static int64_t lopp_wait(const uint64_t *v, uint32_t key, uint32_t len,
			 bool tail)
{
	return key > v[0] ? (int64_t)v[1] : MDK_KEEP;
}

/* 0, 0.1% .. 1% in 0.1% steps, then 2% .. 100% in 1% steps. */
static int lopp_default_theta(uint64_t windows, struct mdk_grid *g)
{
	int ret = mdk__grid_range(g, 0, 10000, 1000);

	return ret ? ret : mdk__grid_range(g, 20000, 1000000, 10000);
}

static int lopp_default_wait(uint64_t windows, struct mdk_grid *g)
{
	return mdk__grid_one(g, 0);
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
static int lopp_set(struct mdk_policy *p, struct mdk_lopp_model *m,
		    const char *path)
{
	struct lopp_priv *lp = calloc(1, sizeof(*lp));

	if (!lp || (path && !(lp->path = strdup(path)))) {
		free(lp);
		mdk_lopp_model_free(m);
		return -ENOMEM;
	}
	lp->model = m;
	lopp_priv_free(p->priv);
	p->priv = lp;
	return 0;
}

static int lopp_option(struct mdk_policy *p, const char *key, const char *value,
		       char *err, size_t errlen)
{
	struct mdk_lopp_model *m;
	char why[512];
	int ret;

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

	if (!lp || !lp->path)
		return 0;
	return snprintf(buf, len, "%cmodel=%s", first ? ':' : ',', lp->path);
}

static int lopp_keys_new(const struct mdk_policy *p, void **state, char *err,
			 size_t errlen)
{
	struct lopp_keys *k;

	if (!p->priv)
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
	size_t i;
	int ret;

	if (mdk_grow((void **)&k->x, &k->xcap, n * MDK_LOPP_FEATURES,
		     sizeof(*k->x)))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	ret = mdk_lopp_feat_add(k->feat, window, ids, pages, n, k->x, err,
				errlen);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		keys[i] = mdk_lopp_key(
			mdk_lopp_score(m, k->x + i * MDK_LOPP_FEATURES));
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
	.help = "L-OPP(theta; wait): reclaim after wait idle windows (0) a page whose access the model (model=FILE, from mdkctl train) scores at theta or above",
	.kind = MDK_POLICY_INTERVAL,
	.nparams = 2,
	.params = {
		{ .key = "theta", .help = "score at which a page is reclaimed (0 to 1)",
		  .type = MDK_PARAM_FRACTION, .min = 0, .max = 1000000,
		  .dflt = lopp_default_theta },
		{ .key = "wait", .help = "idle windows before reclaim (default 0)",
		  .type = MDK_PARAM_WINDOWS, .min = 0,
		  .max = MDK_TRACE_MAX_WINDOW, .dflt = lopp_default_wait },
	},
	.wait = lopp_wait,
	.online = true,
	.gen_r = 0,
	.gen_g = 1,
	.gen_row = mdk__gen_above_row,
	.gen_saved = mdk__gen_above_saved,
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
