// SPDX-License-Identifier: LGPL-2.1-or-later
/* Tier lists (mdk/tier.h): parse, load from a file, format back. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/tier.h>

#include "../internal.h"

/* Units of a DURATION, longest suffix first so "ms" is not read as "s". */
static const struct {
	const char *suffix;
	double ns;
} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

/*
 * The number @v starts with, digits first (no sign, space, "inf" or
 * "nan"), and in *@unit the rest of @v after it.
 */
static int parse_number(const char *v, double *x, const char **unit)
{
	char *end;

	errno = 0;
	*x = strtod(v, &end);
	if (errno || end == v || !isdigit((unsigned char)v[0]))
		return -EINVAL;
	*unit = end;
	return 0;
}

static int parse_cost(const char *v, uint64_t *out)
{
	const char *unit;
	double ns = 1;
	double x;

	if (parse_number(v, &x, &unit))
		return -EINVAL;
	if (*unit) {
		size_t i;

		for (i = 0; i < MDK_ARRAY_SIZE(units); i++)
			if (!strcmp(unit, units[i].suffix))
				break;
		if (i == MDK_ARRAY_SIZE(units))
			return -EINVAL;
		ns = units[i].ns;
	}
	x = round(x * ns);
	/* at least 1 ns, at most an hour: anything else is a typo */
	if (!(x >= 1 && x <= 3600e9))
		return -EINVAL;
	*out = (uint64_t)x;
	return 0;
}

static int parse_fraction(const char *v, double *out)
{
	const char *unit;
	double x;

	if (parse_number(v, &x, &unit))
		return -EINVAL;
	if (!strcmp(unit, "%"))
		x /= 100;
	else if (*unit)
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_pages(const char *v, uint64_t *out)
{
	static const char sfx[] = "KMG";
	char num[32];
	size_t len = strlen(v);
	const char *s;
	uint64_t x;
	int shift = 0;

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, v, len + 1);
	s = strchr(sfx, num[len - 1]);
	if (s && *s) {
		shift = 10 * (int)(s - sfx + 1);
		num[len - 1] = '\0';
	}
	if (mdk__parse_u64(num, &x) || !x || x > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = x << shift;
	return 0;
}

uint32_t mdk_tier_save_ppm(double ratio)
{
	if (!(ratio > 1))
		return 0;
	return (uint32_t)llround((1 - 1 / ratio) * MDK_PPM);
}

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= MDK_TIER_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* One "KEY=VALUE" of tier @t; @where names it in messages. */
static int parse_key(struct mdk_tier *t, char *kv, bool *have_cost,
		     bool *have_save, const char *where, char *err,
		     size_t errlen)
{
	char *v = strchr(kv, '=');
	double x;

	if (!v)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: '%s' is not KEY=VALUE", where, kv);
	*v++ = '\0';
	if (!strcmp(kv, "cost")) {
		if (parse_cost(v, &t->cost_ns))
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: cost '%s': expected a duration from 1ns to 3600s (ns, us, ms or s)",
				where, v);
		*have_cost = true;
	} else if (!strcmp(kv, "ratio") || !strcmp(kv, "save")) {
		bool ratio = kv[0] == 'r';

		if (*have_save)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: give ratio or save once", where);
		if (parse_fraction(v, &x) ||
		    (ratio && !(x >= 1 && x <= 1000)) ||
		    (!ratio && !(x >= 0 && x <= 1)))
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: %s '%s': expected %s", where, kv, v,
				ratio ? "a compression ratio from 1 to 1000" :
					"a fraction of a page from 0 to 1");
		t->save_ppm = ratio ? mdk_tier_save_ppm(x) :
				      (uint32_t)llround(x * MDK_PPM);
		*have_save = true;
	} else if (!strcmp(kv, "cap")) {
		if (parse_pages(v, &t->capacity))
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: cap '%s': expected a page count >= 1 (K, M, G suffixes)",
				where, v);
	} else {
		return mdk_err(err, errlen, -EINVAL,
			       "%s: unknown key '%s' (cost, ratio, save, cap)",
			       where, kv);
	}
	return 0;
}

/* One tier "NAME:KEY=VALUE,..." (@s is modified). */
static int parse_tier(char *s, struct mdk_tier *t, const char *where, char *err,
		      size_t errlen)
{
	char *colon = strchr(s, ':');
	bool have_cost = false, have_save = false;
	char *kv, *save = NULL;
	char at[96];
	int ret;

	memset(t, 0, sizeof(*t));
	t->save_ppm = MDK_PPM;
	if (!colon || !valid_name(s, (size_t)(colon - s)))
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: '%s': expected NAME:cost=DURATION[,...] with NAME 1-15 of [a-z0-9_-]",
			where, s);
	memcpy(t->name, s, (size_t)(colon - s));
	snprintf(at, sizeof(at), "%s (tier %s)", where, t->name);
	for (kv = strtok_r(colon + 1, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		ret = parse_key(t, kv, &have_cost, &have_save, at, err, errlen);
		if (ret)
			return ret;
	}
	if (!have_cost)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: no cost=DURATION: a tier's cost is measured (mdkctl tier calibrate), never assumed",
			at);
	return 0;
}

static void trim(char **s)
{
	char *e;

	while (isspace((unsigned char)**s))
		(*s)++;
	e = *s + strlen(*s);
	while (e > *s && isspace((unsigned char)e[-1]))
		*--e = '\0';
}

/* Add tier text @s (may be blank) to @out; @where names it. */
static int add_tier(struct mdk_tiers *out, char *s, const char *where,
		    char *err, size_t errlen)
{
	struct mdk_tier *t;
	int ret;

	trim(&s);
	if (!*s)
		return 0;
	if (out->n == MDK_TIERS_MAX)
		return mdk_err(err, errlen, -EINVAL, "%s: more than %d tiers",
			       where, MDK_TIERS_MAX);
	t = &out->t[out->n];
	ret = parse_tier(s, t, where, err, errlen);
	if (ret)
		return ret;
	if (mdk_tiers_find(out, t->name) >= 0)
		return mdk_err(err, errlen, -EINVAL, "%s: tier %s given twice",
			       where, t->name);
	if (out->n && t->cost_ns < out->t[out->n - 1].cost_ns)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: tier %s costs less than %s above it: list tiers down the hierarchy, costs non-decreasing",
			where, t->name, out->t[out->n - 1].name);
	out->n++;
	return 0;
}

int mdk_tiers_parse(const char *spec, struct mdk_tiers *out, char *err,
		    size_t errlen)
{
	char *copy, *tok, *save = NULL;
	char where[32];
	int i = 0, ret = 0;

	memset(out, 0, sizeof(*out));
	if (!spec)
		return mdk_err(err, errlen, -EINVAL, "no tier list");
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ";", &save); tok && !ret;
	     tok = strtok_r(NULL, ";", &save)) {
		snprintf(where, sizeof(where), "tier list, part %d", ++i);
		ret = add_tier(out, tok, where, err, errlen);
	}
	free(copy);
	if (!ret && !out->n)
		ret = mdk_err(
			err, errlen, -EINVAL,
			"empty tier list: expected NAME:cost=DURATION[;...]");
	return ret;
}

int mdk_tiers_load(const char *path, struct mdk_tiers *out, char *err,
		   size_t errlen)
{
	char *line = NULL, *hash;
	char where[256];
	size_t cap = 0;
	unsigned int lineno = 0;
	int ret = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	f = fopen(path, "re");
	if (!f)
		return mdk_err(err, errlen, -errno, "%s: %s", path,
			       strerror(errno));
	while (!ret && getline(&line, &cap, f) >= 0) {
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		ret = add_tier(out, line, where, err, errlen);
	}
	if (!ret && ferror(f))
		ret = mdk_err(err, errlen, -EIO, "%s: read error", path);
	if (!ret && !out->n)
		ret = mdk_err(
			err, errlen, -EINVAL,
			"%s: no tiers (expected NAME:cost=DURATION lines)",
			path);
	free(line);
	fclose(f);
	return ret;
}

int mdk_tiers_format(const struct mdk_tiers *t, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < t->n; i++) {
		const struct mdk_tier *x = &t->t[i];

		n = snprintf(buf + MDK_MIN(off, len), off < len ? len - off : 0,
			     "%s%s:cost=%lluns,save=%u.%06u", i ? ";" : "",
			     x->name, (unsigned long long)x->cost_ns,
			     x->save_ppm / MDK_PPM, x->save_ppm % MDK_PPM);
		if (n < 0)
			return n;
		off += (size_t)n;
		if (x->capacity) {
			n = snprintf(buf + MDK_MIN(off, len),
				     off < len ? len - off : 0, ",cap=%llu",
				     (unsigned long long)x->capacity);
			if (n < 0)
				return n;
			off += (size_t)n;
		}
	}
	return (int)off;
}

int mdk_tiers_find(const struct mdk_tiers *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->t[i].name, name))
			return (int)i;
	return -1;
}
