// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Policy specs, "name:key=values,key=values": parsing them into a policy
 * and its grids (each value checked against its parameter's type and
 * range), and printing a policy, or one of its settings, back as one.
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

/*
 * The values [@s, @e) of parameter @d ("V/LO-HI/LO-HI:STEP", or "none"
 * when @d takes it) pushed into @g, then sorted; @name names the policy.
 */
int mdk__grid_parse(const char *name, const struct mdk_param_desc *d,
		    const char *s, const char *e, struct mdk_grid *g, char *err,
		    size_t errlen)
{
	const char *item;
	size_t cap = g->n;
	int ret;

	for (item = s; item <= e;) {
		const char *ie = memchr(item, '/', (size_t)(e - item));
		const char *dash, *colon, *hi_e;
		uint64_t lo, hi, step = 1;

		if (!ie)
			ie = e;
		colon = memchr(item, ':', (size_t)(ie - item));
		hi_e = colon ? colon : ie;
		dash = memchr(item, '-', (size_t)(hi_e - item));
		if (d->none && ie - item == 4 &&
		    !strncasecmp(item, "none", 4)) {
			ret = mdk__grid_push(g, &cap, d->none);
			if (ret)
				return mdk_err(err, errlen, ret, "%s: %s: %s",
					       name, d->key, "out of memory");
			item = ie + 1;
			continue;
		}
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
				"%s: bad value '%.*s' for %s: expected %s%s",
				name, (int)(ie - item), item, d->key,
				type_expect(d->type),
				d->none ? ", or none" : "");
		if (lo < d->min || hi > d->max) {
			char b1[32], b2[32], b3[32];

			format_value(d->type, lo < d->min ? lo : hi, b1,
				     sizeof(b1));
			format_value(d->type, d->min, b2, sizeof(b2));
			format_value(d->type, d->max, b3, sizeof(b3));
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: %s=%s is out of range (expected %s to %s)",
				name, d->key, b1, b2, b3);
		}
		if ((hi - lo) / step >= MDK_MAX_GRID)
			return mdk_err(err, errlen, -E2BIG,
				       "%s: %s has more than %u values", name,
				       d->key, MDK_MAX_GRID);
		for (;; lo += step) {
			ret = mdk__grid_push(g, &cap, lo);
			if (ret)
				return mdk_err(err, errlen, ret, "%s: %s: %s",
					       name, d->key,
					       ret == -E2BIG ?
						       "too many values" :
						       "out of memory");
			if (hi - lo < step)
				break;
		}
		item = ie + 1;
	}
	mdk__grid_finish(g);
	return 0;
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
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const struct mdk_param_desc *d = NULL;
	size_t i;
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
	ret = mdk__grid_parse(ops->name, d, eq + 1, e, &p->grid[i], err,
			      errlen);
	if (!ret)
		p->given[i] = true;
	return ret;
}

int mdk_policy_new(const char *spec, struct mdk_policy **out, char *err,
		   size_t errlen)
{
	const char *colon = strchr(spec, ':'), *s, *e;
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec), i;
	const struct mdk_policy_ops *ops = mdk__policy_find(spec, nlen);
	struct mdk_policy *p;
	int ret;

	if (!ops) {
		char names[128] = "";

		for (i = 0; i < mdk_policy_count(); i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", mdk_policy_name_at(i));
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
	mdk__grid_free(&p->grid[i]);
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
			/* Runs of consecutive counts become LO-HI ("none" alone). */
			for (j = i + 1; t != MDK_PARAM_FRACTION && j < g->n &&
					g->v[j] == g->v[j - 1] + 1 &&
					g->v[j] != ops->params[k].none;
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
			} else if (ops->params[k].none &&
				   g->v[i] == ops->params[k].none) {
				spec_put(buf, len, &pos, "%snone",
					 i ? "/" : "");
				j = i + 1;
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
		if (ops->params[k].none && s.v[k] == ops->params[k].none)
			snprintf(v[k], sizeof(v[k]), "none");
		else
			format_value(ops->params[k].type, s.v[k], v[k],
				     sizeof(v[k]));
	if (ops->nparams == 1)
		return snprintf(buf, len, "%s:%s=%s", ops->name,
				ops->params[0].key, v[0]);
	return snprintf(buf, len, "%s:%s=%s,%s=%s", ops->name,
			ops->params[0].key, v[0], ops->params[1].key, v[1]);
}
