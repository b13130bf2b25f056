// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's model (mdk/lopp.h): a logistic regression over standardised
 * features, its score and key, and its file format, a short text file
 * (Documentation/mdk.rst, "L-OPP model files"):
 *
 *   mdk-lopp-model 1
 *   rho 0.01
 *   features 12 page_reuse1 ... region_recent
 *   mean M0 .. M11
 *   scale S0 .. S11
 *   weights W0 .. W11
 *   bias B
 *
 * Every key exactly once, in any order, after the magic line; blank lines
 * and lines starting with '#' are ignored.  The reader is strict, since a
 * model file may come from anywhere: every number is a plain finite
 * decimal, every line at most MODEL_MAX_LINE bytes of printable text, and
 * each rejection names the line, the byte offset, what was expected and
 * what was found.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lopp_int.h"

#define MODEL_MAGIC MDK__LOPP_MAGIC
#define MODEL_VERSION 1
#define MODEL_MAX_BYTES 65536 /* a real file is about 1 KiB */
#define MODEL_MAX_LINE 1024
#define MODEL_MAX_TOKENS (2 + MDK_LOPP_FEATURES)

/* ---- score and key ---- */

double mdk_lopp_model_rho(const struct mdk_lopp_model *m)
{
	return m->rho;
}

enum mdk_lopp_kind mdk_lopp_model_kind(const struct mdk_lopp_model *m)
{
	return m->kind;
}

double mdk_lopp_score(const struct mdk_lopp_model *m, const float *x)
{
	double z = m->bias;
	unsigned int i;

	if (m->kind == MDK_LOPP_TREES)
		return mdk__lopp_trees_score(m->trees, x);
	for (i = 0; i < MDK_LOPP_FEATURES; i++) {
		double v = ((double)x[i] - m->mean[i]) / m->scale[i];

		if (isnan(v))
			continue;
		if (v > MDK__LOPP_CLAMP)
			v = MDK__LOPP_CLAMP;
		else if (v < -MDK__LOPP_CLAMP)
			v = -MDK__LOPP_CLAMP;
		z += m->w[i] * v;
	}
	return mdk__lopp_logistic(z);
}

uint32_t mdk_lopp_key(double score)
{
	double k;

	if (!(score > 0)) /* also NaN */
		return 1;
	k = 1.0 + floor(score * 1e6);
	return k >= MDK_LOPP_KEY_MAX ? MDK_LOPP_KEY_MAX : (uint32_t)k;
}

/* ---- lifetime ---- */

struct mdk_lopp_model *mdk_lopp_model_dup(const struct mdk_lopp_model *m)
{
	struct mdk_lopp_model *d;

	if (m->kind == MDK_LOPP_TREES) {
		if (mdk__lopp_model_new_trees(m->rho, m->rows, m->positives,
					      m->trace, m->payload,
					      m->payload_len, &d, NULL, 0))
			return NULL;
		return d;
	}
	d = malloc(sizeof(*d));
	if (d)
		*d = *m;
	return d;
}

void mdk_lopp_model_free(struct mdk_lopp_model *m)
{
	if (!m)
		return;
	if (m->kind == MDK_LOPP_TREES) {
		mdk__lopp_trees_free(m->trees);
		free(m->payload);
		free(m->trace);
	}
	free(m);
}

int mdk__lopp_model_new_trees(double rho, uint64_t rows, uint64_t positives,
			      const char *trace, const void *payload,
			      size_t len, struct mdk_lopp_model **out,
			      char *err, size_t errlen)
{
	struct mdk_lopp_model *m = calloc(1, sizeof(*m));
	int ret;

	*out = NULL;
	if (!m)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	m->kind = MDK_LOPP_TREES;
	m->rho = rho;
	m->rows = rows;
	m->positives = positives;
	m->trace = strdup(trace ? trace : "");
	m->payload = malloc(len ? len : 1);
	m->payload_len = len;
	if (!m->trace || !m->payload) {
		mdk_lopp_model_free(m);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	memcpy(m->payload, payload, len);
	ret = mdk__lopp_trees_load(payload, len, &m->trees, err, errlen);
	if (ret) {
		mdk_lopp_model_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

/* For the fit (learn/fit.c): a model from its parts, or NULL. */
struct mdk_lopp_model *mdk__lopp_model_new(double rho, const double *mean,
					   const double *scale, const double *w,
					   double bias)
{
	struct mdk_lopp_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->rho = rho;
	memcpy(m->mean, mean, sizeof(m->mean));
	memcpy(m->scale, scale, sizeof(m->scale));
	memcpy(m->w, w, sizeof(m->w));
	m->bias = bias;
	return m;
}

/* ---- writing ---- */

static void print_row(FILE *f, const char *key, const double *v)
{
	unsigned int i;

	fputs(key, f);
	for (i = 0; i < MDK_LOPP_FEATURES; i++)
		fprintf(f, " %.17g", v[i]);
	fputc('\n', f);
}

int mdk_lopp_model_print(const struct mdk_lopp_model *m, FILE *f)
{
	unsigned int i;

	if (m->kind == MDK_LOPP_TREES)
		return mdk__lopp_file2_print(m, f);
	/* %.17g: every double reads back exactly. */
	fprintf(f, "%s %d\n", MODEL_MAGIC, MODEL_VERSION);
	fprintf(f, "rho %.17g\n", m->rho);
	fprintf(f, "features %d", MDK_LOPP_FEATURES);
	for (i = 0; i < MDK_LOPP_FEATURES; i++)
		fprintf(f, " %s", mdk_lopp_feature_name(i));
	fputc('\n', f);
	print_row(f, "mean", m->mean);
	print_row(f, "scale", m->scale);
	print_row(f, "weights", m->w);
	fprintf(f, "bias %.17g\n", m->bias);
	return ferror(f) ? -EIO : 0;
}

int mdk_lopp_model_write(const struct mdk_lopp_model *m, const char *path,
			 char *err, size_t errlen)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	FILE *f = NULL;
	int fd, ret;

	if (!tmp)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", 8);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = mdk_err(
			err, errlen, -errno,
			"%s: cannot create a temporary file beside it: %s",
			path, strerror(errno));
		free(tmp);
		return ret;
	}
	/* mkostemp() makes it 0600; a model is no secret. */
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		ret = mdk_err(err, errlen, -errno, "%s: %s", tmp,
			      strerror(errno));
		close(fd);
		goto out_unlink;
	}
	ret = mdk_lopp_model_print(m, f);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret) {
		mdk_err(err, errlen, ret, "%s: write error: %s", tmp,
			strerror(-ret));
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		ret = mdk_err(err, errlen, -errno, "%s: %s", path,
			      strerror(errno));
		goto out_unlink;
	}
	free(tmp);
	return 0;
out_unlink:
	unlink(tmp);
	free(tmp);
	return ret;
}

/* ---- reading ---- */

struct parser {
	const char *buf, *name;
	size_t len;
	unsigned int line; /* 1-based */
	char *err;
	size_t errlen;
};

/* @tok (@n bytes) for a message: quoted, escaped, cut at 40 bytes. */
static void show(char *out, size_t outlen, const char *tok, size_t n)
{
	size_t o = 0, i;

	o += (size_t)snprintf(out, outlen, "'");
	for (i = 0; i < n && i < 40 && o + 8 < outlen; i++) {
		unsigned char c = (unsigned char)tok[i];

		if (isprint(c) && c != '\\' && c != '\'')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x",
					      c);
	}
	snprintf(out + o, outlen - o, "%s'", i < n ? "..." : "");
}

/*
 * The one message of a rejection: "NAME:LINE: (offset N) expected
 * @expected, got @got" -- @got printf-formatted.
 */
__attribute__((format(printf, 4, 5))) static int
perr(struct parser *p, size_t off, const char *expected, const char *got, ...)
{
	char g[256];
	va_list ap;

	va_start(ap, got);
	vsnprintf(g, sizeof(g), got, ap);
	va_end(ap);
	return mdk_err(p->err, p->errlen, -EINVAL,
		       "%s:%u: (offset %zu) expected %s, got %s", p->name,
		       p->line, off, expected, g);
}

static int perr_tok(struct parser *p, size_t off, const char *expected,
		    size_t n)
{
	char g[200];

	show(g, sizeof(g), p->buf + off, n);
	return perr(p, off, expected, "%s", g);
}

struct tok {
	size_t off, n;
};

/* A plain decimal: [+-]digits[.digits][(e|E)[+-]digits], or .digits. */
static bool plain_number(const char *s, size_t n)
{
	size_t i = 0, d = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < n && isdigit((unsigned char)s[i]))
		i++, d++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && isdigit((unsigned char)s[i]))
			i++, d++;
	}
	if (!d)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		while (i < n && isdigit((unsigned char)s[i]))
			i++, e++;
		if (!e)
			return false;
	}
	return i == n;
}

/* Token @t as a finite number (in @lo..@hi; @lo excluded if @open). */
static int number(struct parser *p, const struct tok *t, double lo, double hi,
		  bool open, const char *what, double *out)
{
	char s[MODEL_MAX_LINE + 1], *end;
	double v;

	if (t->n > MODEL_MAX_LINE || !plain_number(p->buf + t->off, t->n))
		return perr_tok(p, t->off, what, t->n);
	memcpy(s, p->buf + t->off, t->n);
	s[t->n] = '\0';
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v < lo || v > hi || (open && v == lo))
		return perr_tok(p, t->off, what, t->n);
	*out = v;
	return 0;
}

static bool tok_is(const struct parser *p, const struct tok *t, const char *s)
{
	return t->n == strlen(s) && !memcmp(p->buf + t->off, s, t->n);
}

/*
 * Split the line at @off (ending at @end, its newline excluded) into at
 * most MODEL_MAX_TOKENS tokens: one more is "trailing garbage" for the
 * caller to reject, so the count is capped at MODEL_MAX_TOKENS + 1.
 */
static size_t tokens(const struct parser *p, size_t off, size_t end,
		     struct tok *t)
{
	size_t n = 0;

	while (off < end && n <= MODEL_MAX_TOKENS) {
		size_t s;

		while (off < end && (p->buf[off] == ' ' || p->buf[off] == '\t'))
			off++;
		if (off == end)
			break;
		s = off;
		while (off < end && p->buf[off] != ' ' && p->buf[off] != '\t')
			off++;
		t[n].off = s;
		t[n].n = off - s;
		n++;
	}
	return n;
}

enum key { K_RHO, K_FEATURES, K_MEAN, K_SCALE, K_WEIGHTS, K_BIAS, K_N };

static const char *const keys[K_N] = { "rho",	"features", "mean",
				       "scale", "weights",  "bias" };

/* Values each key takes, its name excluded. */
static const size_t key_values[K_N] = { 1,
					1 + MDK_LOPP_FEATURES,
					MDK_LOPP_FEATURES,
					MDK_LOPP_FEATURES,
					MDK_LOPP_FEATURES,
					1 };

/* One "key values..." line (@n tokens, @n >= 1). */
static int key_line(struct parser *p, struct mdk_lopp_model *m,
		    const struct tok *t, size_t n, size_t eol,
		    unsigned int *seen)
{
	char what[128];
	unsigned int k, i;
	size_t want;
	int ret;

	for (k = 0; k < K_N; k++)
		if (tok_is(p, &t[0], keys[k]))
			break;
	if (k == K_N)
		return perr_tok(
			p, t[0].off,
			"a key (rho, features, mean, scale, weights or bias)",
			t[0].n);
	if (seen[k]) {
		snprintf(what, sizeof(what),
			 "each key once ('%s' was on line %u)", keys[k],
			 seen[k]);
		return perr_tok(p, t[0].off, what, t[0].n);
	}
	seen[k] = p->line;
	want = key_values[k];
	if (n - 1 < want) {
		snprintf(what, sizeof(what), "%zu value%s after '%s'", want,
			 want > 1 ? "s" : "", keys[k]);
		return perr(p, eol, what, "end of line after %zu", n - 1);
	}
	if (n - 1 > want)
		return perr_tok(p, t[want + 1].off, "end of line",
				t[want + 1].n);
	switch (k) {
	case K_RHO:
		return number(p, &t[1], 0, 1, false, "rho, a number in [0, 1]",
			      &m->rho);
	case K_BIAS:
		return number(p, &t[1], -HUGE_VAL, HUGE_VAL, false,
			      "the bias, a finite number", &m->bias);
	case K_FEATURES:
		snprintf(what, sizeof(what), "%d", MDK_LOPP_FEATURES);
		if (!tok_is(p, &t[1], what)) {
			snprintf(what, sizeof(what), "the feature count %d",
				 MDK_LOPP_FEATURES);
			return perr_tok(p, t[1].off, what, t[1].n);
		}
		for (i = 0; i < MDK_LOPP_FEATURES; i++) {
			const char *name = mdk_lopp_feature_name(i);

			if (!tok_is(p, &t[2 + i], name)) {
				snprintf(what, sizeof(what),
					 "feature %u named '%s'", i, name);
				return perr_tok(p, t[2 + i].off, what,
						t[2 + i].n);
			}
		}
		return 0;
	default:
		break;
	}
	for (i = 0; i < MDK_LOPP_FEATURES; i++) {
		double *dst = k == K_MEAN  ? &m->mean[i] :
			      k == K_SCALE ? &m->scale[i] :
					     &m->w[i];

		snprintf(what, sizeof(what), "%s %u, a %s number", keys[k], i,
			 k == K_SCALE ? "finite positive" : "finite");
		ret = number(p, &t[1 + i], k == K_SCALE ? 0 : -HUGE_VAL,
			     HUGE_VAL, k == K_SCALE, what, dst);
		if (ret)
			return ret;
	}
	return 0;
}

int mdk_lopp_model_parse(const char *buf, size_t len, const char *name,
			 struct mdk_lopp_model **out, char *err, size_t errlen)
{
	struct parser p = { .buf = buf,
			    .len = len,
			    .name = name ? name : "model",
			    .line = 1,
			    .err = err,
			    .errlen = errlen };
	struct tok t[MODEL_MAX_TOKENS + 1];
	unsigned int seen[K_N] = { 0 }, k;
	struct mdk_lopp_model *m;
	size_t off = 0;
	int ret = 0;

	*out = NULL;
	if (len > sizeof(MODEL_MAGIC " 2\n") - 1 &&
	    !memcmp(buf, MODEL_MAGIC " 2\n", sizeof(MODEL_MAGIC " 2\n") - 1))
		return mdk__lopp_file2_parse((const unsigned char *)buf, len,
					     p.name, out, err, errlen);
	m = calloc(1, sizeof(*m));
	if (!m)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	while (off < len) {
		size_t eol = off, n;

		/* The line: printable bytes and tabs, at most MAX_LINE. */
		while (eol < len) {
			unsigned char c = (unsigned char)buf[eol];

			if (eol >= MODEL_MAX_BYTES) {
				ret = perr(
					&p, eol,
					"a model file of at most 65536 bytes",
					"more");
				goto out;
			}
			if (c == '\n')
				break;
			if (eol - off >= MODEL_MAX_LINE) {
				ret = perr(&p, eol,
					   "a line of at most 1024 bytes",
					   "a longer one");
				goto out;
			}
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				ret = perr(&p, eol, "text", "byte 0x%02x", c);
				goto out;
			}
			eol++;
		}
		n = tokens(&p, off, eol, t);
		if (p.line == 1) {
			if (n < 2 || !tok_is(&p, &t[0], MODEL_MAGIC) ||
			    !tok_is(&p, &t[1], "1")) {
				ret = perr_tok(
					&p, off,
					"'" MODEL_MAGIC
					" 1' (an L-OPP model file, version 1; version 2 is binary)",
					eol - off);
				goto out;
			}
			if (n > 2) {
				ret = perr_tok(&p, t[2].off, "end of line",
					       t[2].n);
				goto out;
			}
		} else if (n && buf[t[0].off] != '#') {
			ret = key_line(&p, m, t, n, eol, seen);
			if (ret)
				goto out;
		}
		off = eol + 1;
		if (eol < len)
			p.line++;
	}
	if (!len) {
		ret = perr(
			&p, 0,
			"'" MODEL_MAGIC
			" 1' (an L-OPP model file, version 1; version 2 is binary)",
			"end of file");
		goto out;
	}
	for (k = 0; k < K_N; k++)
		if (!seen[k]) {
			char what[64];

			snprintf(what, sizeof(what), "key '%s'", keys[k]);
			ret = perr(&p, len, what, "end of file");
			goto out;
		}
	*out = m;
	return 0;
out:
	free(m);
	return ret;
}

int mdk_lopp_model_read(const char *path, struct mdk_lopp_model **out,
			char *err, size_t errlen)
{
	/* A version 2 file holds XGBoost's trees: up to 64 MiB and a header. */
	size_t max = (64u << 20) + 131072, cap = 0, len = 0;
	char *buf = NULL;
	FILE *f;
	int ret;

	*out = NULL;
	f = fopen(path, "re");
	if (!f)
		return mdk_err(err, errlen, -errno, "%s: %s", path,
			       strerror(errno));
	/* One byte past the limit is enough for the parser to refuse. */
	do {
		char *nb;

		cap = cap ? cap * 2 : 65536;
		nb = realloc(buf, cap + 1);
		if (!nb) {
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		buf = nb;
		errno = 0;
		len += fread(buf + len, 1, cap + 1 - len, f);
		if (ferror(f)) {
			ret = mdk_err(err, errlen, errno ? -errno : -EIO,
				      "%s: %s", path,
				      strerror(errno ? errno : EIO));
			goto out;
		}
	} while (!feof(f) && len <= max);
	ret = mdk_lopp_model_parse(buf, len, path, out, err, errlen);
out:
	fclose(f);
	free(buf);
	return ret;
}
