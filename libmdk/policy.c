// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy registry, a policy's settings and decisions, and the keys of
 * keyed policies.  A policy is one file, libmdk/policy/<name>.c,
 * exporting only its struct mdk_policy_ops; adding one is one line in the
 * table below (see Documentation/mdk.rst).  Specs are parsed and printed
 * in policy_spec.c, grids built in policy_grid.c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mdk/policy.h>

#include "policy_int.h"

static const struct mdk_policy_ops *const mdk_policies[] = {
	&mdk_policy_age, &mdk_policy_vmin, &mdk_policy_paw, &mdk_policy_pace,
	&mdk_policy_opp, &mdk_policy_lopp, &mdk_policy_lru, &mdk_policy_opt,
};

size_t mdk_policy_count(void)
{
	return MDK_ARRAY_SIZE(mdk_policies);
}

const char *mdk_policy_name_at(size_t i)
{
	return i < MDK_ARRAY_SIZE(mdk_policies) ? mdk_policies[i]->name : NULL;
}

const char *mdk_policy_help_at(size_t i)
{
	return i < MDK_ARRAY_SIZE(mdk_policies) ? mdk_policies[i]->help : NULL;
}

const struct mdk_policy_ops *mdk__policy_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < MDK_ARRAY_SIZE(mdk_policies); i++)
		if (strlen(mdk_policies[i]->name) == len &&
		    !strncasecmp(mdk_policies[i]->name, name, len))
			return mdk_policies[i];
	return NULL;
}

void mdk_policy_free(struct mdk_policy *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < MDK_MAX_PARAMS; i++)
		mdk__grid_free(&p->grid[i]);
	if (p->ops->priv_free)
		p->ops->priv_free(p->priv);
	free(p);
}

const char *mdk_policy_name(const struct mdk_policy *p)
{
	return p->ops->name;
}

enum mdk_policy_kind mdk_policy_kind(const struct mdk_policy *p)
{
	return p->ops->kind;
}

int mdk_policy_resolve(struct mdk_policy *p, uint64_t n, char *err,
		       size_t errlen)
{
	const struct mdk_policy_ops *ops = p->ops;
	size_t total = 1;
	unsigned int i;
	int ret;

	for (i = 0; i < ops->nparams; i++) {
		const struct mdk_param_desc *d = &ops->params[i];

		if (p->given[i])
			goto check;
		mdk__grid_free(&p->grid[i]);
		if (!d->dflt && !d->dflt_p)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: parameter %s is required",
				       ops->name, d->key);
		ret = d->dflt_p ? d->dflt_p(p, n, &p->grid[i]) :
				  d->dflt(n, &p->grid[i]);
		if (ret)
			return mdk_err(err, errlen, ret,
				       "%s: %s: out of memory", ops->name,
				       d->key);
check:
		if (!p->grid[i].n)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: %s has no values", ops->name,
				       d->key);
		total *= p->grid[i].n;
		if (total > MDK_MAX_GRID)
			return mdk_err(err, errlen, -E2BIG,
				       "%s: more than %u settings", ops->name,
				       MDK_MAX_GRID);
	}
	p->resolved = true;
	return 0;
}

size_t mdk_policy_settings(const struct mdk_policy *p)
{
	size_t total = 1;
	unsigned int i;

	if (!p->resolved)
		return 0;
	for (i = 0; i < p->ops->nparams; i++)
		total *= p->grid[i].n;
	return total;
}

int mdk_policy_setting(const struct mdk_policy *p, size_t i,
		       struct mdk_setting *s)
{
	const struct mdk_policy_ops *ops = p->ops;
	size_t n1 = ops->nparams > 1 ? p->grid[1].n : 1;
	unsigned int k;

	if (i >= mdk_policy_settings(p))
		return -ERANGE;
	memset(s, 0, sizeof(*s));
	s->v[0] = p->grid[0].v[i / n1];
	if (ops->nparams > 1) {
		s->v[1] = p->grid[1].v[i % n1];
		s->has_p2 = true;
	}
	for (k = 0; k < ops->nparams; k++) {
		double x = (double)s->v[k];

		if (ops->params[k].type == MDK_PARAM_FRACTION)
			x /= 1e6;
		if (k)
			s->p2 = x;
		else
			s->p1 = x;
	}
	return 0;
}

/* Append to @buf at *@pos (snprintf semantics: *@pos may pass @len). */

bool mdk_policy_online(const struct mdk_policy *p)
{
	return p->ops->online && p->ops->wait;
}

int mdk_policy_decide(const struct mdk_policy *p, size_t i, uint32_t reuse,
		      uint32_t *wait)
{
	struct mdk_setting s;
	int64_t d;

	if (!mdk_policy_online(p))
		return -EOPNOTSUPP;
	if (mdk_policy_setting(p, i, &s))
		return -ERANGE;
	/* Online policies look at neither the length nor the tail flag. */
	d = mdk__policy_wait(p, s.v, reuse, 0, false);
	if (d == MDK_KEEP)
		return 0;
	*wait = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Keys */

struct mdk_keyer {
	const struct mdk_policy_ops *ops;
	void *state;
};

bool mdk_policy_keyed(const struct mdk_policy *p)
{
	return p->ops->keys_new && p->ops->keys;
}

uint32_t mdk_policy_key_max(const struct mdk_policy *p)
{
	return mdk_policy_keyed(p) ? p->ops->key_max : 0;
}

int mdk_keyer_new(const struct mdk_policy *p, struct mdk_keyer **out, char *err,
		  size_t errlen)
{
	struct mdk_keyer *k;
	int ret;

	if (!mdk_policy_keyed(p))
		return mdk_err(err, errlen, -EOPNOTSUPP,
			       "%s decides by prior reuse distance, not by key",
			       p->ops->name);
	k = calloc(1, sizeof(*k));
	if (!k)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	k->ops = p->ops;
	ret = p->ops->keys_new(p, &k->state, err, errlen);
	if (ret) {
		free(k);
		return ret;
	}
	*out = k;
	return 0;
}

int mdk_keyer_keys(struct mdk_keyer *k, uint32_t window, const uint64_t *ids,
		   const uint32_t *pages, size_t n, uint32_t *keys, char *err,
		   size_t errlen)
{
	return k->ops->keys(k->state, window, ids, pages, n, keys, err, errlen);
}

void mdk_keyer_forget(struct mdk_keyer *k, uint32_t page)
{
	if (k->ops->keys_forget)
		k->ops->keys_forget(k->state, page);
}

void mdk_keyer_free(struct mdk_keyer *k)
{
	if (!k)
		return;
	if (k->ops->keys_free)
		k->ops->keys_free(k->state);
	free(k);
}
