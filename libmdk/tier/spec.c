// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tiered specs (mdk/tier.h): "tage:T1=..,T2=..", "tpace:P=..,A=..,
 * T2=.." and "topp:sigma=..", each grid in the syntax of mdk/policy.h (parsed by the same
 * code, mdk__grid_parse()), "none" allowed for the T's.  Parameters left
 * out get a default grid for a trace of W windows:
 *
 *   tage   each Tk: 16 log-spaced values of 1..W-1, and none
 *   tpace  P and A: 0 and 11 log-spaced values of 1..W-1; each Tk: 8
 *          log-spaced values of 1..W-1, and none
 *   topp   sigma: OPP's rho grid, 0, 0.1% .. 5% by 0.1%, 6% .. 100% by 1%
 *
 * A setting whose finite T's do not strictly increase is left out: its
 * waits (d_k = the smallest T at or below tier k) are those of the
 * setting with the smaller T's alone.  So the defaults give at most
 * 1 + 3 x 16 + 3 x 120 + 560 = 969 tage settings for three tiers and
 * 144 x 45 = 6,480 tpace settings.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mdk/trace.h>

#include "tier_int.h"

static const struct mdk_param_desc desc_T = {
	.type = MDK_PARAM_WINDOWS,
	.min = 1,
	.max = MDK_TRACE_MAX_WINDOW,
	.none = MDK__TIER_INF,
};

/* A stall share, in ppm: at most 10^9 (ns per accessed page, per access). */
static const struct mdk_param_desc desc_sigma = {
	.type = MDK_PARAM_FRACTION,
	.min = 0,
	.max = 1000000000ull * 1000000ull,
};

static const struct mdk_param_desc desc_PA = {
	.type = MDK_PARAM_WINDOWS,
	.min = 0,
	.max = MDK_TRACE_MAX_WINDOW,
};

void mdk__tier_spec_free(struct mdk__tier_spec *ts)
{
	unsigned int i;

	for (i = 0; i < MDK_TIERS_MAX + 1; i++)
		mdk__grid_free(&ts->grid[i]);
	free(ts->set);
	memset(ts, 0, sizeof(*ts));
}

/* Is parameter @i of @ts a tier's T? */
static bool is_T(const struct mdk__tier_spec *ts, unsigned int i)
{
	return ts->kind == MDK__TAGE || i >= 2;
}

/* The parameter index of key [@s, @e), or -1 with the message in @err. */
static int key_index(const struct mdk__tier_spec *ts, const char *s,
		     const char *e, char *err, size_t errlen)
{
	size_t len = (size_t)(e - s);
	unsigned int k;

	if (ts->kind == MDK__TOPP) {
		if (len == 5 && !strncasecmp(s, "sigma", 5))
			return 0;
		mdk_err(err, errlen, -EINVAL,
			"topp: unknown parameter '%.*s' (expected sigma)",
			(int)len, s);
		return -1;
	}

	if (ts->kind == MDK__TPACE && len == 1 && (*s == 'P' || *s == 'p'))
		return 0;
	if (ts->kind == MDK__TPACE && len == 1 && (*s == 'A' || *s == 'a'))
		return 1;
	if (len == 2 && (*s == 'T' || *s == 't') && s[1] >= '1' &&
	    s[1] <= '9') {
		k = (unsigned int)(s[1] - '0');
		if (k > ts->K) {
			mdk_err(err, errlen, -EINVAL,
				"%s: T%u given, but the tier list has %u tier%s",
				ts->name, k, ts->K, ts->K > 1 ? "s" : "");
			return -1;
		}
		if (ts->kind == MDK__TPACE && k == 1) {
			mdk_err(err, errlen, -EINVAL,
				"tpace: no T1 (tier 1's wait is PACE's: P and A)");
			return -1;
		}
		return ts->kind == MDK__TAGE ? (int)k - 1 : (int)k;
	}
	if (ts->kind == MDK__TAGE)
		mdk_err(err, errlen, -EINVAL,
			"tage: unknown parameter '%.*s' (expected T1..T%u)",
			(int)len, s, ts->K);
	else if (ts->K > 1)
		mdk_err(err, errlen, -EINVAL,
			"tpace: unknown parameter '%.*s' (expected P, A, T2..T%u)",
			(int)len, s, ts->K);
	else
		mdk_err(err, errlen, -EINVAL,
			"tpace: unknown parameter '%.*s' (expected P or A: one tier has no T)",
			(int)len, s);
	return -1;
}

/* The default grid of parameter @i for @W windows. */
static int default_grid(const struct mdk__tier_spec *ts, unsigned int i,
			uint32_t W, struct mdk_grid *g)
{
	uint64_t hi = W > 2 ? W - 1 : 1;
	int ret;

	if (ts->kind == MDK__TOPP) {
		ret = mdk__grid_range(g, 0, 50000, 1000);
		return ret ? ret : mdk__grid_range(g, 60000, 1000000, 10000);
	}
	if (!is_T(ts, i)) {
		ret = mdk__grid_logspace(g, 1, hi, 11);
		return ret ? ret : mdk__grid_one(g, 0);
	}
	ret = mdk__grid_logspace(g, 1, hi, ts->kind == MDK__TAGE ? 16 : 8);
	return ret ? ret : mdk__grid_one(g, MDK__TIER_INF);
}

/* The grids' product, without settings of non-increasing finite T's. */
static int settings(struct mdk__tier_spec *ts, char *err, size_t errlen)
{
	size_t total = 1, i, k;
	unsigned int j;

	for (j = 0; j < ts->np; j++) {
		total *= ts->grid[j].n;
		if (total > MDK_MAX_GRID)
			return mdk_err(err, errlen, -E2BIG,
				       "%s: more than %u settings", ts->name,
				       MDK_MAX_GRID);
	}
	ts->set = calloc(total * ts->np, sizeof(*ts->set));
	if (!ts->set)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < total; i++) {
		uint64_t *v = ts->set + ts->nset * ts->np, last = 0;
		bool keep = true;

		for (k = i, j = ts->np; j-- > 0;) {
			v[j] = ts->grid[j].v[k % ts->grid[j].n];
			k /= ts->grid[j].n;
		}
		for (j = 0; j < ts->np && keep; j++) {
			if (!is_T(ts, j) || v[j] == MDK__TIER_INF)
				continue;
			keep = v[j] > last;
			last = v[j];
		}
		if (keep)
			ts->nset++;
	}
	if (!ts->nset)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: no setting has increasing T's (T1 < T2 < ...)",
			ts->name);
	return 0;
}

/* The parameters after "NAME:", comma-separated, into @ts's grids. */
static int parse_params(struct mdk__tier_spec *ts, const char *s, char *err,
			size_t errlen)
{
	bool given[MDK_TIERS_MAX + 1] = { false };
	const char *e, *eq;
	int i, ret;

	for (; s && *s; s = *e ? e + 1 : e) {
		struct mdk_param_desc d;
		char key[8];

		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		eq = memchr(s, '=', (size_t)(e - s));
		if (!eq)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: expected KEY=VALUES, got '%.*s'",
				       ts->name, (int)(e - s), s);
		i = key_index(ts, s, eq, err, errlen);
		if (i < 0)
			return -EINVAL;
		if (given[i])
			return mdk_err(err, errlen, -EINVAL,
				       "%s: parameter %.*s given twice",
				       ts->name, (int)(eq - s), s);
		d = ts->kind == MDK__TOPP     ? desc_sigma :
		    is_T(ts, (unsigned int)i) ? desc_T :
						desc_PA;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - s), s);
		d.key = key;
		ret = mdk__grid_parse(ts->name, &d, eq + 1, e, &ts->grid[i],
				      err, errlen);
		if (ret)
			return ret;
		given[i] = true;
	}
	return 0;
}

int mdk__tier_spec_parse(const char *spec, unsigned int K, uint32_t W,
			 struct mdk__tier_spec *ts, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	unsigned int i;
	int ret;

	memset(ts, 0, sizeof(*ts));
	if (K < 1 || K > MDK_TIERS_MAX)
		return mdk_err(err, errlen, -EINVAL,
			       "%u tiers (expected 1 to %u)", K, MDK_TIERS_MAX);
	if (nlen == 4 && !strncasecmp(spec, "topp", 4)) {
		ts->kind = MDK__TOPP;
		ts->name = "topp";
		ts->np = 1;
	} else if (nlen == 4 && !strncasecmp(spec, "tage", 4)) {
		ts->kind = MDK__TAGE;
		ts->name = "tage";
		ts->np = K;
	} else if (nlen == 5 && !strncasecmp(spec, "tpace", 5)) {
		ts->kind = MDK__TPACE;
		ts->name = "tpace";
		ts->np = K + 1;
	} else {
		return mdk_err(
			err, errlen, -EINVAL,
			"unknown tiered policy '%.*s' (expected tage, tpace or topp)",
			(int)nlen, spec);
	}
	ts->K = K;
	ret = parse_params(ts, colon ? colon + 1 : NULL, err, errlen);
	for (i = 0; !ret && i < ts->np; i++)
		if (!ts->grid[i].n && default_grid(ts, i, W, &ts->grid[i]))
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	if (!ret)
		ret = settings(ts, err, errlen);
	if (ret)
		mdk__tier_spec_free(ts);
	return ret;
}

void mdk__tier_waits(const struct mdk__tier_spec *ts, const uint64_t *v,
		     bool above, uint64_t *d)
{
	uint64_t run = MDK__TIER_INF;
	unsigned int k;

	d[ts->K] = MDK__TIER_INF;
	if (ts->kind == MDK__TAGE) {
		for (k = ts->K; k-- > 0;)
			d[k] = run = MDK_MIN(run, v[k]);
		return;
	}
	/* tpace: v = P, A, T2..TK; tier k >= 2 (d[k - 1]) waits T_k. */
	d[0] = above ? 0 : v[1];
	for (k = ts->K; k-- > 1;) {
		run = MDK_MIN(run, v[k + 1]);
		d[k] = MDK_MAX(d[0], run);
	}
}

/* Push the values of @src, but none, into @g. */
static int push_finite(struct mdk_grid *g, size_t *cap,
		       const struct mdk_grid *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->n; i++)
		if (src->v[i] != MDK__TIER_INF) {
			ret = mdk__grid_push(g, cap, src->v[i]);
			if (ret)
				return ret;
		}
	return 0;
}

int mdk__tier_gen_policy(const struct mdk__tier_spec *ts,
			 struct mdk_policy **out, char *err, size_t errlen)
{
	struct mdk_grid gg = { 0 }, rg = { 0 };
	size_t gcap = 0, rcap = 0;
	struct mdk_policy *p;
	unsigned int i;
	int ret;

	ret = mdk_policy_new(ts->kind == MDK__TAGE ? "age" : "pace", &p, err,
			     errlen);
	if (ret)
		return ret;
	for (i = 0; !ret && i < ts->np; i++)
		if (ts->kind == MDK__TPACE && i == 0)
			ret = push_finite(&rg, &rcap, &ts->grid[0]);
		else
			ret = push_finite(&gg, &gcap, &ts->grid[i]);
	/* Every T none: the generator still needs a threshold. */
	if (!ret && !gg.n)
		ret = mdk__grid_push(&gg, &gcap, 1);
	if (ret) {
		mdk__grid_free(&gg);
		mdk__grid_free(&rg);
		mdk_policy_free(p);
		return mdk_err(err, errlen, ret, "%s: out of memory", ts->name);
	}
	mdk__grid_finish(&gg);
	if (rg.n)
		mdk__grid_finish(&rg);
	i = ts->kind == MDK__TAGE ? 0 : 1;
	mdk__grid_free(&p->grid[i]);
	p->grid[i] = gg;
	p->given[i] = true;
	if (ts->kind == MDK__TPACE) {
		mdk__grid_free(&p->grid[0]);
		p->grid[0] = rg;
		p->given[0] = true;
	} else {
		mdk__grid_free(&rg);
	}
	*out = p;
	return 0;
}

void mdk__tier_fill_settings(const struct mdk__tier_spec *ts,
			     struct mdk_tier_point *pts)
{
	size_t i;
	unsigned int j;

	for (i = 0; i < ts->nset; i++) {
		const uint64_t *v = ts->set + i * ts->np;

		pts[i].pt.policy = ts->name;
		pts[i].np = ts->np;
		for (j = 0; j < ts->np; j++)
			pts[i].p[j] = v[j] == MDK__TIER_INF ? INFINITY :
							      (double)v[j];
	}
}

int mdk_tier_point_format(const struct mdk_tier_point *p, char *buf, size_t len)
{
	static const char *const pace_keys[] = { "P", "A", "T2", "T3" };
	bool pace = !strcmp(p->pt.policy, "tpace");
	size_t pos;
	unsigned int j;
	int n;

	/* topp-bound is topp's bound at that sigma: its spec is topp's */
	if (!strncmp(p->pt.policy, "topp", 4))
		return snprintf(buf, len, "topp:sigma=%g", p->p[0]);
	n = snprintf(buf, len, "%s:", p->pt.policy);
	for (pos = (size_t)n, j = 0; n >= 0 && j < p->np;
	     j++, pos += (size_t)n) {
		char key[12];

		if (pace)
			snprintf(key, sizeof(key), "%s", pace_keys[j]);
		else
			snprintf(key, sizeof(key), "T%u", j + 1);
		if (isinf(p->p[j]))
			n = snprintf(buf + MDK_MIN(pos, len),
				     pos < len ? len - pos : 0, "%s%s=none",
				     j ? "," : "", key);
		else
			n = snprintf(buf + MDK_MIN(pos, len),
				     pos < len ? len - pos : 0, "%s%s=%.0f",
				     j ? "," : "", key, p->p[j]);
	}
	return n < 0 ? n : (int)pos;
}
