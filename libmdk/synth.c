// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Synthetic access-bit traces (see mdk/synth.h).  Each generator draws its
 * pages' accesses independently per window from a per-page probability
 * (Zipf, phases) or a schedule (periodic, scan), walking its pages in id
 * order so that a window comes out sorted with no sort.  Probabilities
 * are 32-bit thresholds against xoshiro256** output, so generation is a
 * compare per page and a window of the 4M-page benchmark trace takes a
 * few milliseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <mdk/synth.h>

#include "internal.h"

enum gen_type { GEN_ZIPF, GEN_PERIODIC, GEN_SCAN, GEN_PHASE };

static const char *const gen_names[] = { "zipf", "periodic", "scan", "phase" };

struct gen {
	enum gen_type type;
	double share;
	bool share_given;
	double s, frac, p, idle, skip;
	uint64_t period, len, rate;
	uint64_t n, base;
	uint32_t *thr; /* zipf, phase: per-page threshold */
	uint32_t *phase; /* periodic: per-page phase */
	uint32_t **bucket; /* periodic: pages by phase, ascending */
	size_t *bucketn;
	uint64_t rng[4];
	uint64_t cur_phase;
};

struct mdk_synth {
	struct mdk_synth_opts o;
	struct gen *g;
	size_t ng, gcap;
	bool started;
	uint32_t next;
	uint64_t *out;
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna). */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static void rng_seed(uint64_t *s, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		seed += 0x9e3779b97f4a7c15ull;
		s[i] = mdk_hash64(seed);
	}
}

/* A probability as a threshold for 32-bit draws (UINT32_MAX: always). */
static uint32_t prob_thr(double p)
{
	if (p >= 1)
		return UINT32_MAX;
	if (p <= 0)
		return 0;
	return (uint32_t)(p * 4294967296.0);
}

int mdk_synth_new(const struct mdk_synth_opts *opts, struct mdk_synth **out,
		  char *err, size_t errlen)
{
	struct mdk_synth *s;

	if (!opts->pages || opts->pages > (1ull << 32) - 2)
		return mdk_err(err, errlen, -EINVAL,
			       "synth: %llu pages (expected 1 to %llu)",
			       (unsigned long long)opts->pages,
			       (1ull << 32) - 2);
	if (!opts->windows || opts->windows > MDK_TRACE_MAX_WINDOW)
		return mdk_err(err, errlen, -EINVAL,
			       "synth: %u windows (expected 1 to %u)",
			       opts->windows, MDK_TRACE_MAX_WINDOW);
	s = calloc(1, sizeof(*s));
	if (!s)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	s->o = *opts;
	if (!s->o.base)
		s->o.base = 0x7f0000000ull;
	*out = s;
	return 0;
}

static void gen_free(struct gen *g)
{
	uint64_t i;

	free(g->thr);
	free(g->phase);
	for (i = 0; g->bucket && i < g->period; i++)
		free(g->bucket[i]);
	free(g->bucket);
	free(g->bucketn);
}

void mdk_synth_free(struct mdk_synth *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ng; i++)
		gen_free(&s->g[i]);
	free(s->g);
	free(s->out);
	free(s);
}

static int parse_num(const char *v, double *out)
{
	char *e;

	errno = 0;
	*out = strtod(v, &e);
	return (errno || e == v || *e || *out != *out) ? -EINVAL : 0;
}

static int parse_key(struct gen *g, const char *key, const char *val, char *err,
		     size_t errlen)
{
	const char *name = gen_names[g->type];
	double x;
	uint64_t u;

	if (!strcasecmp(key, "share")) {
		if (parse_num(val, &x) || x <= 0 || x > 1)
			goto bad_fraction;
		g->share = x;
		g->share_given = true;
		return 0;
	}
	switch (g->type) {
	case GEN_ZIPF:
		if (!strcasecmp(key, "s")) {
			if (parse_num(val, &x) || x < 0 || x > 10)
				return mdk_err(
					err, errlen, -EINVAL,
					"synth: %s: s=%s: expected an exponent from 0 to 10",
					name, val);
			g->s = x;
			return 0;
		}
		if (!strcasecmp(key, "frac"))
			goto frac;
		break;
	case GEN_PERIODIC:
		if (!strcasecmp(key, "period")) {
			if (mdk__parse_u64(val, &u) || !u || u > 1000000)
				return mdk_err(
					err, errlen, -EINVAL,
					"synth: %s: period=%s: expected 1 to 1000000 windows",
					name, val);
			g->period = u;
			return 0;
		}
		if (!strcasecmp(key, "skip")) {
			if (parse_num(val, &x) || x < 0 || x > 1)
				goto bad_fraction;
			g->skip = x;
			return 0;
		}
		break;
	case GEN_SCAN:
		if (!strcasecmp(key, "rate")) {
			if (mdk__parse_u64(val, &u) || !u)
				return mdk_err(
					err, errlen, -EINVAL,
					"synth: %s: rate=%s: expected pages a window (>= 1)",
					name, val);
			g->rate = u;
			return 0;
		}
		break;
	case GEN_PHASE:
		if (!strcasecmp(key, "len")) {
			if (mdk__parse_u64(val, &u) || !u)
				return mdk_err(
					err, errlen, -EINVAL,
					"synth: %s: len=%s: expected windows a phase (>= 1)",
					name, val);
			g->len = u;
			return 0;
		}
		if (!strcasecmp(key, "frac"))
			goto frac;
		if (!strcasecmp(key, "p") || !strcasecmp(key, "idle")) {
			if (parse_num(val, &x) || x < 0 || x > 1)
				goto bad_fraction;
			if (!strcasecmp(key, "p"))
				g->p = x;
			else
				g->idle = x;
			return 0;
		}
		break;
	}
	return mdk_err(err, errlen, -EINVAL,
		       "synth: %s: unknown key '%s' (see mdkctl(8), synth)",
		       name, key);
frac:
	if (parse_num(val, &x) || x <= 0 || x > 1)
		goto bad_fraction;
	g->frac = x;
	return 0;
bad_fraction:
	return mdk_err(err, errlen, -EINVAL,
		       "synth: %s: %s=%s: expected a fraction%s", name, key,
		       val,
		       strcasecmp(key, "share") && strcasecmp(key, "frac") ?
			       " from 0 to 1" :
			       " above 0, at most 1");
}

int mdk_synth_add(struct mdk_synth *s, const char *spec, char *err,
		  size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec), i;
	char *copy, *tok, *save;
	struct gen g = { 0 };
	int ret = 0;

	if (s->started)
		return mdk_err(
			err, errlen, -EINVAL,
			"synth: generators must be added before the first window");
	for (i = 0; i < MDK_ARRAY_SIZE(gen_names); i++)
		if (strlen(gen_names[i]) == nlen &&
		    !strncasecmp(gen_names[i], spec, nlen))
			break;
	if (i == MDK_ARRAY_SIZE(gen_names))
		return mdk_err(
			err, errlen, -EINVAL,
			"synth: unknown generator '%.*s' (expected zipf, periodic, scan or phase)",
			(int)nlen, spec);
	g.type = (enum gen_type)i;
	g.s = 0.8;
	g.frac = g.type == GEN_PHASE ? 0.25 : 0.3;
	g.period = 8;
	g.skip = 0.1;
	g.p = 0.7;
	g.idle = 0.01;
	copy = strdup(colon ? colon + 1 : "");
	if (!copy)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			ret = mdk_err(err, errlen, -EINVAL,
				      "synth: %s: expected KEY=VALUE, got '%s'",
				      gen_names[g.type], tok);
			break;
		}
		*eq = 0;
		ret = parse_key(&g, tok, eq + 1, err, errlen);
	}
	free(copy);
	if (ret)
		return ret;
	if (mdk_grow((void **)&s->g, &s->gcap, s->ng + 1, sizeof(*s->g)))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	s->g[s->ng++] = g;
	return 0;
}

/* Zipf thresholds: c with sum min(1, c x_i) = frac n, ranks shuffled. */
static int zipf_setup(struct gen *g)
{
	double *x, lo = 0, hi = 1, target = g->frac * (double)g->n;
	uint64_t i, *rank;
	int it;

	x = malloc(g->n * sizeof(*x));
	rank = malloc(g->n * sizeof(*rank));
	g->thr = malloc(g->n * sizeof(*g->thr));
	if (!x || !rank || !g->thr) {
		free(x);
		free(rank);
		return -ENOMEM;
	}
	for (i = 0; i < g->n; i++)
		x[i] = pow((double)(i + 1), -g->s);
	/* Grow hi until it is enough, then bisect. */
	for (;;) {
		double sum = 0;

		for (i = 0; i < g->n; i++)
			sum += MDK_MIN(1.0, hi * x[i]);
		if (sum >= target || hi > 1e300)
			break;
		lo = hi;
		hi *= 4;
	}
	for (it = 0; it < 60; it++) {
		double mid = (lo + hi) / 2, sum = 0;

		for (i = 0; i < g->n; i++)
			sum += MDK_MIN(1.0, mid * x[i]);
		if (sum < target)
			lo = mid;
		else
			hi = mid;
	}
	for (i = 0; i < g->n; i++)
		rank[i] = i;
	for (i = g->n; i > 1; i--) {
		uint64_t j = rng_next(g->rng) % i, t = rank[i - 1];

		rank[i - 1] = rank[j];
		rank[j] = t;
	}
	for (i = 0; i < g->n; i++)
		g->thr[i] = prob_thr(hi * x[rank[i]]);
	free(x);
	free(rank);
	return 0;
}

static int periodic_setup(struct gen *g)
{
	uint64_t i, ph;

	g->phase = malloc((g->n ? g->n : 1) * sizeof(*g->phase));
	g->bucket = calloc(g->period, sizeof(*g->bucket));
	g->bucketn = calloc(g->period, sizeof(*g->bucketn));
	if (!g->phase || !g->bucket || !g->bucketn)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		g->phase[i] = (uint32_t)(rng_next(g->rng) % g->period);
		g->bucketn[g->phase[i]]++;
	}
	for (ph = 0; ph < g->period; ph++) {
		g->bucket[ph] = malloc((g->bucketn[ph] + 1) * sizeof(uint32_t));
		if (!g->bucket[ph])
			return -ENOMEM;
		g->bucketn[ph] = 0;
	}
	for (i = 0; i < g->n; i++)
		g->bucket[g->phase[i]][g->bucketn[g->phase[i]]++] = (uint32_t)i;
	return 0;
}

/* Phase @k's working set: a fresh hash of (seed, k, page) per phase. */
static void phase_draw(struct gen *g, uint64_t k)
{
	uint32_t tin = prob_thr(g->p), tout = prob_thr(g->idle);
	uint64_t salt = mdk_hash64(g->rng[0] ^ (k * 0x9e3779b97f4a7c15ull));
	uint64_t i, cut = (uint64_t)(g->frac * 18446744073709551615.0);

	for (i = 0; i < g->n; i++)
		g->thr[i] = mdk_hash64(salt + i) < cut ? tin : tout;
	g->cur_phase = k;
}

static int synth_start(struct mdk_synth *s, char *err, size_t errlen)
{
	double given = 0;
	size_t nfree = 0, i;
	uint64_t left = s->o.pages, off = 0;
	int ret;

	if (!s->ng) {
		static const char *const mix[] = {
			"zipf:share=0.5,s=0.9,frac=0.25",
			"periodic:share=0.15,period=6", "scan:share=0.15",
			"phase:share=0.2"
		};

		for (i = 0; i < MDK_ARRAY_SIZE(mix); i++) {
			ret = mdk_synth_add(s, mix[i], err, errlen);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < s->ng; i++) {
		if (s->g[i].share_given)
			given += s->g[i].share;
		else
			nfree++;
	}
	if (given > 1 + 1e-9)
		return mdk_err(
			err, errlen, -EINVAL,
			"synth: shares add up to %g (expected at most 1)",
			given);
	s->started = true;
	for (i = 0; i < s->ng; i++) {
		struct gen *g = &s->g[i];

		if (!g->share_given)
			g->share = nfree ? (1 - given) / (double)nfree : 0;
		g->n = i + 1 == s->ng ?
			       left :
			       MDK_MIN(left,
				       (uint64_t)llround(g->share *
							 (double)s->o.pages));
		left -= g->n;
		/* Each generator is a mapping of its own, 4 GiB apart. */
		g->base = s->o.base + off;
		off += ((g->n + (1u << 20) - 1) & ~((uint64_t)(1u << 20) - 1)) +
		       (1u << 20);
		rng_seed(g->rng, s->o.seed * 1000003u + i);
		if (g->type == GEN_SCAN && !g->rate)
			g->rate = MDK_MAX(g->n / 8, (uint64_t)1);
		if (g->type == GEN_PHASE && !g->len)
			g->len = MDK_MAX(s->o.windows / 4, 1u);
		ret = 0;
		if (g->type == GEN_ZIPF && g->n)
			ret = zipf_setup(g);
		else if (g->type == GEN_PERIODIC)
			ret = periodic_setup(g);
		else if (g->type == GEN_PHASE && g->n) {
			g->thr = malloc(g->n * sizeof(*g->thr));
			if (!g->thr)
				ret = -ENOMEM;
			else
				phase_draw(g, 0);
		}
		if (ret)
			return mdk_err(err, errlen, ret,
				       "synth: out of memory for %llu pages",
				       (unsigned long long)g->n);
	}
	s->out = malloc(s->o.pages * sizeof(*s->out));
	if (!s->out)
		return mdk_err(err, errlen, -ENOMEM,
			       "synth: out of memory for %llu pages",
			       (unsigned long long)s->o.pages);
	return 0;
}

/* Bernoulli draw per page against thr[]: two draws per 64-bit output. */
static size_t draw_pages(struct gen *g, uint64_t *out)
{
	const uint32_t *thr = g->thr;
	uint64_t i, base = g->base;
	size_t k = 0;

	for (i = 0; i + 1 < g->n; i += 2) {
		uint64_t r = rng_next(g->rng);
		uint32_t r0 = (uint32_t)r, r1 = (uint32_t)(r >> 32);

		out[k] = base + i;
		k += (r0 < thr[i]) | (thr[i] == UINT32_MAX);
		out[k] = base + i + 1;
		k += (r1 < thr[i + 1]) | (thr[i + 1] == UINT32_MAX);
	}
	if (i < g->n) {
		uint32_t r0 = (uint32_t)rng_next(g->rng);

		out[k] = base + i;
		k += (r0 < thr[i]) | (thr[i] == UINT32_MAX);
	}
	return k;
}

static size_t gen_window(struct gen *g, uint32_t w, uint64_t *out)
{
	size_t k = 0, i;

	switch (g->type) {
	case GEN_ZIPF:
		return g->n ? draw_pages(g, out) : 0;
	case GEN_PHASE:
		if (!g->n)
			return 0;
		if (w / g->len != g->cur_phase)
			phase_draw(g, w / g->len);
		return draw_pages(g, out);
	case GEN_PERIODIC: {
		uint64_t ph = (g->period - w % g->period) % g->period;
		uint32_t tskip = prob_thr(g->skip);

		for (i = 0; i < g->bucketn[ph]; i++) {
			uint32_t r = (uint32_t)rng_next(g->rng);

			out[k] = g->base + g->bucket[ph][i];
			k += r >= tskip;
		}
		return k;
	}
	case GEN_SCAN: {
		uint64_t n = g->n, rate = MDK_MIN(g->rate, n), start, end, x;

		if (!n)
			return 0;
		start = (uint64_t)w * rate % n;
		end = start + rate;
		if (end > n)
			for (x = 0; x < end - n; x++)
				out[k++] = g->base + x;
		for (x = start; x < MDK_MIN(end, n); x++)
			out[k++] = g->base + x;
		return k;
	}
	}
	return 0;
}

int mdk_synth_next(struct mdk_synth *s, uint32_t *window, const uint64_t **ids,
		   size_t *n, char *err, size_t errlen)
{
	size_t k = 0, i;
	int ret;

	if (!s->started) {
		ret = synth_start(s, err, errlen);
		if (ret)
			return ret;
	}
	if (s->next >= s->o.windows)
		return 0;
	for (i = 0; i < s->ng; i++)
		k += gen_window(&s->g[i], s->next, s->out + k);
	*window = s->next++;
	*ids = s->out;
	*n = k;
	return 1;
}

int mdk_synth_write(struct mdk_synth *s, const char *path,
		    const struct mdk_trace_writer_opts *wopts, char *err,
		    size_t errlen)
{
	struct mdk_trace_writer *w;
	const uint64_t *ids;
	uint32_t win;
	size_t n;
	int ret;

	ret = mdk_trace_writer_open(path, wopts, &w, err, errlen);
	if (ret)
		return ret;
	while ((ret = mdk_synth_next(s, &win, &ids, &n, err, errlen)) > 0) {
		ret = mdk_trace_writer_put(w, win, ids, n, 0, err, errlen);
		if (ret)
			break;
	}
	if (ret) {
		mdk_trace_writer_abort(w);
		unlink(path);
		return ret;
	}
	ret = mdk_trace_writer_close(w, err, errlen);
	if (ret)
		unlink(path);
	return ret;
}
