// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy registry and parameter grids.  A policy is one file,
 * libmdk/policy/<name>.c, exporting only its struct mdk_policy_ops; adding
 * one is one line in the table below (see Documentation/mdk.rst).
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

#include "internal.h"

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

/* ------------------------------------------------------------------ */
/* Grids */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void grid_free(struct mdk_grid *g)
{
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

/* Append @v; the grid is sorted and deduplicated by grid_finish(). */
static int grid_push(struct mdk_grid *g, size_t *cap, uint64_t v)
{
	if (g->n >= MDK_MAX_GRID)
		return -E2BIG;
	if (mdk_grow((void **)&g->v, cap, g->n + 1, sizeof(*g->v)))
		return -ENOMEM;
	g->v[g->n++] = v;
	return 0;
}

static void grid_finish(struct mdk_grid *g)
{
	size_t i, k = 0;

	qsort(g->v, g->n, sizeof(*g->v), cmp_u64);
	for (i = 0; i < g->n; i++)
		if (!k || g->v[i] != g->v[k - 1])
			g->v[k++] = g->v[i];
	g->n = k;
}

int mdk__grid_range(struct mdk_grid *g, uint64_t lo, uint64_t hi, uint64_t step)
{
	size_t cap = g->n;
	uint64_t v;
	int ret;

	for (v = lo; v <= hi; v += step) {
		ret = grid_push(g, &cap, v);
		if (ret)
			return ret;
		if (hi - v < step)
			break;
	}
	grid_finish(g);
	return 0;
}

int mdk__grid_one(struct mdk_grid *g, uint64_t v)
{
	size_t cap = g->n;
	int ret = grid_push(g, &cap, v);

	if (!ret)
		grid_finish(g);
	return ret;
}

/* About @n values from @lo to @hi, spaced evenly on a log scale. */
int mdk__grid_logspace(struct mdk_grid *g, uint64_t lo, uint64_t hi, size_t n)
{
	size_t cap = g->n, i;
	int ret;

	if (hi <= lo || n < 2)
		return mdk__grid_one(g, lo);
	for (i = 0; i < n; i++) {
		double x = exp(log((double)lo) +
			       (log((double)hi) - log((double)lo)) * (double)i /
				       (double)(n - 1));
		uint64_t v = (uint64_t)llround(x);

		ret = grid_push(g, &cap, MDK_MIN(MDK_MAX(v, lo), hi));
		if (ret)
			return ret;
	}
	grid_finish(g);
	return 0;
}

/*
 * Every threshold 1..W-1 (just 1 for a trace too short to have gaps); for
 * traces over 4097 windows, 512 log-spaced thresholds, which keeps a
 * curve's histograms at W x 513 counters instead of W^2.
 */
int mdk__grid_thresholds(uint64_t windows, struct mdk_grid *g)
{
	if (windows > 4097)
		return mdk__grid_logspace(g, 1, windows - 1, 512);
	return mdk__grid_range(g, 1, windows > 2 ? windows - 1 : 1, 1);
}

/* ------------------------------------------------------------------ */
/* Parsing */

static const struct mdk_policy_ops *policy_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < MDK_ARRAY_SIZE(mdk_policies); i++)
		if (strlen(mdk_policies[i]->name) == len &&
		    !strncasecmp(mdk_policies[i]->name, name, len))
			return mdk_policies[i];
	return NULL;
}

/* Parse one value of type @t from [@s, @e); 0 or -EINVAL. */
static int parse_value(enum mdk_param_type t, const char *s, const char *e,
		       uint64_t *out)
{
	uint64_t ip = 0, fp = 0, scale = 1000000;
	unsigned int nfrac = 0;
	bool digits = false;

	if (s == e)
		return -EINVAL;
	if (t != MDK_PARAM_FRACTION) {
		uint64_t v = 0, mul = 1;

		if (t == MDK_PARAM_PAGES && e - s > 1) {
			switch (e[-1]) {
			case 'K':
			case 'k':
				mul = 1ull << 10;
				e--;
				break;
			case 'M':
			case 'm':
				mul = 1ull << 20;
				e--;
				break;
			case 'G':
			case 'g':
				mul = 1ull << 30;
				e--;
				break;
			}
		}
		for (; s < e; s++) {
			if (!isdigit((unsigned char)*s) ||
			    v > (UINT64_MAX - 9) / 10)
				return -EINVAL;
			v = v * 10 + (uint64_t)(*s - '0');
			digits = true;
		}
		if (!digits || v > UINT64_MAX / mul)
			return -EINVAL;
		*out = v * mul;
		return 0;
	}
	/* A fraction: D[.DDDDDD] or D[.DDDD]% in exact integer arithmetic. */
	if (e[-1] == '%') {
		scale = 10000;
		e--;
	}
	for (; s < e && isdigit((unsigned char)*s); s++) {
		if (ip > 1000000)
			return -EINVAL;
		ip = ip * 10 + (uint64_t)(*s - '0');
		digits = true;
	}
	if (s < e && *s == '.') {
		for (s++; s < e && isdigit((unsigned char)*s); s++) {
			fp = fp * 10 + (uint64_t)(*s - '0');
			digits = true;
			if (++nfrac > 12)
				return -EINVAL;
		}
	}
	if (s != e || !digits)
		return -EINVAL;
	{
		/* ppm = (ip + fp / 10^nfrac) * scale, which must be whole. */
		uint64_t den = 1, num;
		unsigned int i;

		for (i = 0; i < nfrac; i++)
			den *= 10;
		num = ip * den + fp;
		if (num > UINT64_MAX / scale || (num * scale) % den)
			return -ERANGE;
		*out = num * scale / den;
	}
	return 0;
}

static const char *type_expect(enum mdk_param_type t)
{
	switch (t) {
	case MDK_PARAM_WINDOWS:
		return "a number of windows (V, LO-HI, LO-HI:STEP, joined by '/')";
	case MDK_PARAM_FRACTION:
		return "a fraction such as 0.01 or 1% (at most 1 ppm resolution; V, LO-HI, LO-HI:STEP, joined by '/')";
	case MDK_PARAM_PAGES:
		return "a number of pages, with K, M or G (V, LO-HI, LO-HI:STEP, joined by '/')";
	}
	return "";
}

static void format_value(enum mdk_param_type t, uint64_t v, char *buf,
			 size_t len)
{
	if (t == MDK_PARAM_FRACTION)
		snprintf(buf, len, "%g", (double)v / 1e6);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* An option KEY=VALUE of @p (key [@s, @eq)); -ENOENT: not an option. */
static int parse_option(struct mdk_policy *p, const char *s, const char *eq,
			const char *e, char *err, size_t errlen)
{
	char *key = strndup(s, (size_t)(eq - s));
	char *val = strndup(eq + 1, (size_t)(e - eq - 1));
	int ret;

	if (!key || !val)
		ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
	else
		ret = p->ops->option(p, key, val, err, errlen);
	free(key);
	free(val);
	return ret;
}

/* KEY=VALUES for policy @p, the text [@s, @e). */
static int parse_param(struct mdk_policy *p, const char *s, const char *e,
		       char *err, size_t errlen)
{
	const struct mdk_policy_ops *ops = p->ops;
	const char *eq = memchr(s, '=', (size_t)(e - s)), *item;
	const struct mdk_param_desc *d = NULL;
	struct mdk_grid *g;
	size_t cap, i;
	int ret;

	if (!eq)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: expected KEY=VALUES, got '%.*s'", ops->name,
			       (int)(e - s), s);
	if (ops->option) {
		ret = parse_option(p, s, eq, e, err, errlen);
		if (ret != -ENOENT)
			return ret;
	}
	for (i = 0; i < ops->nparams; i++)
		if (strlen(ops->params[i].key) == (size_t)(eq - s) &&
		    !strncasecmp(ops->params[i].key, s, (size_t)(eq - s))) {
			d = &ops->params[i];
			break;
		}
	if (!d) {
		char keys[64] = "";

		for (i = 0; i < ops->nparams; i++)
			snprintf(keys + strlen(keys),
				 sizeof(keys) - strlen(keys), "%s%s",
				 i ? ", " : "", ops->params[i].key);
		return mdk_err(err, errlen, -EINVAL,
			       "%s: unknown parameter '%.*s' (expected %s)",
			       ops->name, (int)(eq - s), s,
			       ops->nparams ? keys : "none");
	}
	if (p->given[i])
		return mdk_err(err, errlen, -EINVAL,
			       "%s: parameter %s given twice", ops->name,
			       d->key);
	g = &p->grid[i];
	cap = 0;
	for (item = eq + 1; item <= e;) {
		const char *ie = memchr(item, '/', (size_t)(e - item));
		const char *dash, *colon, *hi_e;
		uint64_t lo, hi, step = 1;

		if (!ie)
			ie = e;
		colon = memchr(item, ':', (size_t)(ie - item));
		hi_e = colon ? colon : ie;
		dash = memchr(item, '-', (size_t)(hi_e - item));
		ret = parse_value(d->type, item, dash ? dash : hi_e, &lo);
		if (!ret)
			ret = dash ? parse_value(d->type, dash + 1, hi_e, &hi) :
				     (hi = lo, 0);
		if (!ret && colon)
			ret = parse_value(d->type, colon + 1, ie, &step);
		if (!ret && (hi < lo || !step || (colon && !dash)))
			ret = -EINVAL;
		if (ret)
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: bad value '%.*s' for %s: expected %s",
				ops->name, (int)(ie - item), item, d->key,
				type_expect(d->type));
		if (lo < d->min || hi > d->max) {
			char b1[32], b2[32], b3[32];

			format_value(d->type, lo < d->min ? lo : hi, b1,
				     sizeof(b1));
			format_value(d->type, d->min, b2, sizeof(b2));
			format_value(d->type, d->max, b3, sizeof(b3));
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: %s=%s is out of range (expected %s to %s)",
				ops->name, d->key, b1, b2, b3);
		}
		if ((hi - lo) / step >= MDK_MAX_GRID)
			return mdk_err(err, errlen, -E2BIG,
				       "%s: %s has more than %u values",
				       ops->name, d->key, MDK_MAX_GRID);
		for (;; lo += step) {
			ret = grid_push(g, &cap, lo);
			if (ret)
				return mdk_err(err, errlen, ret, "%s: %s: %s",
					       ops->name, d->key,
					       ret == -E2BIG ?
						       "too many values" :
						       "out of memory");
			if (hi - lo < step)
				break;
		}
		item = ie + 1;
	}
	grid_finish(g);
	p->given[i] = true;
	return 0;
}

int mdk_policy_new(const char *spec, struct mdk_policy **out, char *err,
		   size_t errlen)
{
	const char *colon = strchr(spec, ':'), *s, *e;
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec), i;
	const struct mdk_policy_ops *ops = policy_find(spec, nlen);
	struct mdk_policy *p;
	int ret;

	if (!ops) {
		char names[128] = "";

		for (i = 0; i < MDK_ARRAY_SIZE(mdk_policies); i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", mdk_policies[i]->name);
		return mdk_err(err, errlen, -ENOENT,
			       "unknown policy '%.*s' (expected one of %s)",
			       (int)nlen, spec, names);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	p->ops = ops;
	for (s = colon ? colon + 1 : NULL; s && *s; s = *e ? e + 1 : e) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		ret = parse_param(p, s, e, err, errlen);
		if (ret) {
			mdk_policy_free(p);
			return ret;
		}
	}
	*out = p;
	return 0;
}

int mdk_policy_parse_list(const char *list, struct mdk_policy ***out, size_t *n,
			  char *err, size_t errlen)
{
	struct mdk_policy **v = NULL;
	size_t nv = 0, cap = 0, i;
	char *copy = strdup(list), *tok, *spec = NULL;
	int ret = 0;

	if (!copy)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	/*
	 * Re-join each policy's tokens: "paw:wait=3" starts a policy,
	 * "P=2" (a '=' before any ':') continues it.
	 */
	for (tok = copy;; tok = NULL) {
		char *t = strtok(tok, ",");
		char *eq = t ? strchr(t, '=') : NULL;
		char *col = t ? strchr(t, ':') : NULL;
		bool cont = t && eq && (!col || col > eq);

		if (t && cont) {
			char *ns;

			if (!spec) {
				ret = mdk_err(
					err, errlen, -EINVAL,
					"'%s' must follow a policy name (as in age:T=4)",
					t);
				break;
			}
			ns = malloc(strlen(spec) + strlen(t) + 2);
			if (!ns) {
				ret = mdk_err(err, errlen, -ENOMEM,
					      "out of memory");
				break;
			}
			sprintf(ns, "%s%c%s", spec,
				strchr(spec, ':') ? ',' : ':', t);
			free(spec);
			spec = ns;
			continue;
		}
		if (spec) {
			struct mdk_policy *p;

			ret = mdk_policy_new(spec, &p, err, errlen);
			free(spec);
			spec = NULL;
			if (ret)
				break;
			if (mdk_grow((void **)&v, &cap, nv + 1, sizeof(*v))) {
				mdk_policy_free(p);
				ret = mdk_err(err, errlen, -ENOMEM,
					      "out of memory");
				break;
			}
			v[nv++] = p;
		}
		if (!t)
			break;
		spec = strdup(t);
		if (!spec) {
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
			break;
		}
	}
	free(spec);
	free(copy);
	if (!ret && !nv)
		ret = mdk_err(err, errlen, -EINVAL,
			      "no policy given (expected e.g. age,vmin,opp)");
	if (ret) {
		for (i = 0; i < nv; i++)
			mdk_policy_free(v[i]);
		free(v);
		return ret;
	}
	*out = v;
	*n = nv;
	return 0;
}

static int param_index(const struct mdk_policy *p, const char *key)
{
	unsigned int i;

	for (i = 0; i < p->ops->nparams; i++)
		if (!strcasecmp(p->ops->params[i].key, key))
			return (int)i;
	return -1;
}

int mdk_policy_set(struct mdk_policy *p, const char *key, const char *values,
		   char *err, size_t errlen)
{
	int i = param_index(p, key), ret;
	char *kv;

	if (i < 0 && p->ops->option) {
		ret = p->ops->option(p, key, values, err, errlen);
		if (ret != -ENOENT)
			return ret;
	}
	if (i < 0)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: unknown parameter '%s'", p->ops->name, key);
	kv = malloc(strlen(key) + strlen(values) + 2);
	if (!kv)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	sprintf(kv, "%s=%s", key, values);
	grid_free(&p->grid[i]);
	p->given[i] = false;
	p->resolved = false;
	ret = parse_param(p, kv, kv + strlen(kv), err, errlen);
	free(kv);
	return ret;
}

bool mdk_policy_has(const struct mdk_policy *p, const char *key)
{
	int i = param_index(p, key);

	return i >= 0 && p->given[i];
}

void mdk_policy_free(struct mdk_policy *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < MDK_MAX_PARAMS; i++)
		grid_free(&p->grid[i]);
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
		grid_free(&p->grid[i]);
		if (!d->dflt)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: parameter %s is required",
				       ops->name, d->key);
		ret = d->dflt(n, &p->grid[i]);
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
static void spec_put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void spec_put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*pos < len ? buf + *pos : NULL,
		      *pos < len ? len - *pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

int mdk_policy_spec(const struct mdk_policy *p, char *buf, size_t len)
{
	const struct mdk_policy_ops *ops = p->ops;
	size_t pos = 0, i, j, k;
	bool first = true;

	if (len)
		buf[0] = '\0';
	spec_put(buf, len, &pos, "%s", ops->name);
	for (k = 0; k < ops->nparams; k++) {
		const struct mdk_grid *g = &p->grid[k];
		enum mdk_param_type t = ops->params[k].type;

		if (!g->n || (!p->given[k] && !p->resolved))
			continue;
		spec_put(buf, len, &pos, "%c%s=", first ? ':' : ',',
			 ops->params[k].key);
		first = false;
		for (i = 0; i < g->n; i = j) {
			/* Runs of consecutive counts become LO-HI. */
			for (j = i + 1; t != MDK_PARAM_FRACTION && j < g->n &&
					g->v[j] == g->v[j - 1] + 1;
			     j++)
				;
			if (t == MDK_PARAM_FRACTION) {
				/* ppm as a fraction with six decimals at most */
				char v[32], *e;

				snprintf(
					v, sizeof(v), "%llu.%06llu",
					(unsigned long long)(g->v[i] / 1000000),
					(unsigned long long)(g->v[i] %
							     1000000));
				for (e = v + strlen(v); e[-1] == '0';)
					*--e = '\0';
				if (e[-1] == '.')
					e[-1] = '\0';
				spec_put(buf, len, &pos, "%s%s", i ? "/" : "",
					 v);
			} else if (j - i > 2) {
				spec_put(buf, len, &pos, "%s%llu-%llu",
					 i ? "/" : "",
					 (unsigned long long)g->v[i],
					 (unsigned long long)g->v[j - 1]);
			} else {
				for (; i < j; i++)
					spec_put(buf, len, &pos, "%s%llu",
						 i ? "/" : "",
						 (unsigned long long)g->v[i]);
			}
		}
	}
	if (ops->option_spec) {
		int n = ops->option_spec(p, first, pos < len ? buf + pos : NULL,
					 pos < len ? len - pos : 0);

		if (n > 0)
			pos += (size_t)n;
	}
	return (int)pos;
}

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
	d = p->ops->wait(s.v, reuse, 0, false);
	if (d == MDK_KEEP)
		return 0;
	*wait = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	return 1;
}

int mdk_policy_format(const struct mdk_policy *p, size_t i, char *buf,
		      size_t len)
{
	const struct mdk_policy_ops *ops = p->ops;
	struct mdk_setting s;
	char v[2][32];
	unsigned int k;

	if (mdk_policy_setting(p, i, &s))
		return snprintf(buf, len, "%s", ops->name);
	for (k = 0; k < ops->nparams; k++)
		format_value(ops->params[k].type, s.v[k], v[k], sizeof(v[k]));
	if (ops->nparams == 1)
		return snprintf(buf, len, "%s:%s=%s", ops->name,
				ops->params[0].key, v[0]);
	return snprintf(buf, len, "%s:%s=%s,%s=%s", ops->name,
			ops->params[0].key, v[0], ops->params[1].key, v[1]);
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
