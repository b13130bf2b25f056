// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Version 2 of L-OPP's model file, for gradient-boosted trees: a small
 * binary mdk header around XGBoost's own model (Documentation/mdk.rst,
 * "L-OPP model files").  Integers are little-endian:
 *
 *   0   17  "mdk-lopp-model 2\n" (version 1, logistic, is text)
 *   17  4   model kind: 1, trees
 *   21  8   rho, an IEEE double in [0, 1]
 *   29  8   training rows
 *   37  8   of which positive (reclaim): never 0
 *   45  2   F, then F bytes: the feature names, space-separated
 *   .   2   T, then T bytes: the training trace's name (may be empty)
 *   .   8   P, the payload's length
 *   .   4   CRC-32 (zlib's) of the payload
 *   .   P   the payload: XGBoost's model, UBJSON
 *
 * and nothing after.  UBJSON rather than JSON: XGBoost's recommended
 * format since 1.6, every float exact, about half the size of JSON.  The
 * reader names the file and the byte offset of every malformation.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lopp_int.h"

#define V2_LINE MDK__LOPP_MAGIC " 2\n"
#define V2_MAX_PAYLOAD (64u << 20)

static void put(FILE *f, uint64_t v, unsigned int bytes)
{
	while (bytes--) {
		fputc((int)(v & 0xff), f);
		v >>= 8;
	}
}

static void feature_list(char *buf, size_t len)
{
	size_t o = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < MDK_LOPP_FEATURES; i++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s",
				      i ? " " : "", mdk_lopp_feature_name(i));
}

int mdk__lopp_file2_print(const struct mdk_lopp_model *m, FILE *f)
{
	char names[1024];
	size_t tl = strlen(m->trace);
	uint64_t rho;

	feature_list(names, sizeof(names));
	if (tl > 65535)
		tl = 65535;
	memcpy(&rho, &m->rho, sizeof(rho));
	fputs(V2_LINE, f);
	put(f, MDK_LOPP_TREES, 4);
	put(f, rho, 8);
	put(f, m->rows, 8);
	put(f, m->positives, 8);
	put(f, strlen(names), 2);
	fputs(names, f);
	put(f, tl, 2);
	fwrite(m->trace, 1, tl, f);
	put(f, m->payload_len, 8);
	put(f, crc32(0, m->payload, (uInt)m->payload_len), 4);
	fwrite(m->payload, 1, m->payload_len, f);
	return ferror(f) ? -EIO : 0;
}

struct cur {
	const unsigned char *buf;
	size_t len, off;
	const char *name;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int cerr(struct cur *c, size_t off,
						      const char *fmt, ...)
{
	char m[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	return mdk_err(c->err, c->errlen, -EINVAL, "%s: (offset %zu) %s",
		       c->name, off, m);
}

/* @bytes little-endian bytes of field @what; -EINVAL at the end. */
static int get(struct cur *c, unsigned int bytes, const char *what, uint64_t *v)
{
	unsigned int i;

	if (c->len - c->off < bytes)
		return cerr(c, c->off,
			    "expected %s (%u bytes), got end of file after %zu",
			    what, bytes, c->len - c->off);
	*v = 0;
	for (i = 0; i < bytes; i++)
		*v |= (uint64_t)c->buf[c->off + i] << (8 * i);
	c->off += bytes;
	return 0;
}

/* A 2-byte length and its bytes: @s points into the buffer. */
static int get_str(struct cur *c, const char *what, const char **s, size_t *n)
{
	uint64_t l = 0;
	int ret = get(c, 2, what, &l);

	if (ret)
		return ret;
	if (c->len - c->off < l)
		return cerr(
			c, c->off,
			"expected %s of %llu bytes, got end of file after %zu",
			what, (unsigned long long)l, c->len - c->off);
	*s = (const char *)c->buf + c->off;
	*n = (size_t)l;
	c->off += l;
	return 0;
}

static int head(struct cur *c, double *rho, uint64_t *rows, uint64_t *pos)
{
	uint64_t v = 0;
	size_t at;
	int ret;

	at = c->off;
	ret = get(c, 4, "the model kind", &v);
	if (!ret && v != MDK_LOPP_TREES)
		return cerr(c, at, "expected model kind 1 (trees), got %llu",
			    (unsigned long long)v);
	at = c->off;
	if (!ret)
		ret = get(c, 8, "rho", &v);
	if (ret)
		return ret;
	memcpy(rho, &v, sizeof(*rho));
	if (!(*rho >= 0 && *rho <= 1))
		return cerr(c, at, "expected rho in [0, 1], got %g", *rho);
	ret = get(c, 8, "the training rows", rows);
	at = c->off;
	if (!ret)
		ret = get(c, 8, "the positive rows", pos);
	if (ret)
		return ret;
	if (!*pos || *pos > *rows)
		return cerr(
			c, at,
			"expected a model trained with positive (reclaim) labels, got %llu of %llu rows: retrain with a larger rho or more windows",
			(unsigned long long)*pos, (unsigned long long)*rows);
	return 0;
}

int mdk__lopp_file2_parse(const unsigned char *buf, size_t len,
			  const char *name, struct mdk_lopp_model **out,
			  char *err, size_t errlen)
{
	struct cur c = { buf, len, strlen(V2_LINE), name, err, errlen };
	char names[1024], trace[65536];
	const char *s;
	uint64_t rows = 0, pos = 0, plen = 0, crc = 0;
	double rho;
	size_t n, at;
	int ret;

	*out = NULL;
	ret = head(&c, &rho, &rows, &pos);
	at = c.off;
	if (!ret)
		ret = get_str(&c, "the feature names", &s, &n);
	if (ret)
		return ret;
	feature_list(names, sizeof(names));
	if (n != strlen(names) || memcmp(s, names, n))
		return cerr(
			&c, at,
			"model was trained with features '%.*s', this libmdk has '%s': retrain it",
			(int)(n > 400 ? 400 : n), s, names);
	ret = get_str(&c, "the training trace's name", &s, &n);
	if (ret)
		return ret;
	memcpy(trace, s, n);
	trace[n] = '\0';
	if (strlen(trace) != n)
		return cerr(&c, c.off - n,
			    "expected a trace name, got a NUL byte");
	at = c.off;
	ret = get(&c, 8, "the payload length", &plen);
	if (!ret && plen > V2_MAX_PAYLOAD)
		return cerr(&c, at,
			    "expected a payload of at most %u bytes, got %llu",
			    V2_MAX_PAYLOAD, (unsigned long long)plen);
	if (!ret)
		ret = get(&c, 4, "the payload's CRC-32", &crc);
	if (ret)
		return ret;
	if (c.len - c.off < plen)
		return cerr(
			&c, c.len,
			"expected a payload of %llu bytes, got %zu (truncated)",
			(unsigned long long)plen, c.len - c.off);
	if (c.len - c.off > plen)
		return cerr(
			&c, c.off + plen,
			"expected end of file after the payload, got %zu more bytes",
			c.len - c.off - (size_t)plen);
	if (crc32(0, buf + c.off, (uInt)plen) != crc)
		return cerr(&c, at + 8,
			    "payload CRC-32 mismatch: the file is damaged");
	ret = mdk__lopp_model_new_trees(rho, rows, pos, trace, buf + c.off,
					(size_t)plen, out, err, errlen);
	if (ret == -EINVAL) {
		char why[400];

		snprintf(why, sizeof(why), "%s", err ? err : "");
		return cerr(&c, c.off, "%s", why);
	}
	return ret;
}
