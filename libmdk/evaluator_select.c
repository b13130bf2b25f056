// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Choosing with the live evaluator: a setting by spec (its generator
 * widened to hold it if need be), the best setting under a target rate,
 * a setting's point, and the pages a setting would reclaim now.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "evaluator_int.h"

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
 * A wait= that @one (a spec's lopp) gives must be the evaluated policy
 * @cur's: the live curve has one wait, which is not tuned.
 */
static int same_wait(const struct mdk_policy *one, const struct mdk_policy *cur,
		     const char *spec, char *err, size_t errlen)
{
	uint64_t w, c = 0;

	if (!mdk__lopp_wait_given(one, &w))
		return 0;
	mdk__lopp_wait_given(cur, &c);
	if (w == c)
		return 0;
	return mdk_err(
		err, errlen, -EINVAL,
		"%s: the live lopp curve is at wait=%llu (wait is not tuned: give lopp:wait=%llu in the evaluate list)",
		spec, (unsigned long long)c, (unsigned long long)w);
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
	gi = mdk__eval_gen_index(e, mdk_policy_name(one));
	if (gi >= 0 &&
	    (ret = same_wait(one, e->gens[gi].pol, spec, err, errlen)))
		goto out;
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
	ret = mdk__eval_gen_make(e, wide, &ng, err, errlen);
	if (ret)
		goto out;
	if (gi < 0) {
		if (mdk_grow((void **)&e->gens, &e->gencap, e->ngens + 1,
			     sizeof(*e->gens))) {
			mdk__eval_gen_free(&ng);
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		gi = (int)e->ngens++;
	} else {
		mdk__eval_gen_free(&e->gens[gi]);
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
	gi = mdk__eval_gen_index(e, name);
	if (gi < 0)
		return mdk_err(err, errlen, -ENOENT, "%s is not evaluated",
			       name);
	pol = e->gens[gi].pol;
	{
		struct mdk_policy *one = NULL;
		int ret = mdk_policy_new(spec, &one, err, errlen);

		if (!ret)
			ret = same_wait(one, pol, spec, err, errlen);
		mdk_policy_free(one);
		if (ret)
			return ret;
	}
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
	if (!mdk__eval_horizon(e, &lo, &hi))
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
