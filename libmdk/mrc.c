// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Miss-ratio curves (see mdk/mrc.h): reads a reference string, maps page
 * ids to dense indices and feeds every cache policy's hooks
 * (libmdk/policy/lru.c, opt.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/mrc.h>
#include <mdk/trace.h>

#include "policy_int.h"

struct mdk_mrc {
	struct mdk_policy *const *pols;
	size_t np;
	void **state;
	struct mdk_pagemap *pm;
	uint32_t *dense;
	size_t densecap;
	uint64_t refs;
	bool done;
};

int mdk_mrc_new(struct mdk_policy *const *pols, size_t np, struct mdk_mrc **out,
		char *err, size_t errlen)
{
	struct mdk_mrc *m;
	size_t i;

	for (i = 0; i < np; i++) {
		const struct mdk_policy_ops *ops = pols[i]->ops;

		if (ops->kind != MDK_POLICY_CACHE || !ops->cache_new ||
		    !ops->cache_refs || !ops->cache_misses)
			return mdk_err(
				err, errlen, -EOPNOTSUPP,
				"%s is not a fixed-size policy (expected lru or opt)",
				ops->name);
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	m->pols = pols;
	m->np = np;
	m->state = calloc(np ? np : 1, sizeof(*m->state));
	m->pm = mdk__pagemap_new();
	if (!m->state || !m->pm)
		goto err_nomem;
	for (i = 0; i < np; i++)
		if (pols[i]->ops->cache_new(&m->state[i]))
			goto err_nomem;
	*out = m;
	return 0;

err_nomem:
	mdk_mrc_free(m);
	return mdk_err(err, errlen, -ENOMEM, "out of memory");
}

void mdk_mrc_free(struct mdk_mrc *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->state && i < m->np; i++)
		if (m->state[i] && m->pols[i]->ops->cache_free)
			m->pols[i]->ops->cache_free(m->state[i]);
	free(m->state);
	mdk__pagemap_free(m->pm);
	free(m->dense);
	free(m);
}

uint64_t mdk_mrc_references(const struct mdk_mrc *m)
{
	return m->refs;
}

uint64_t mdk_mrc_pages(const struct mdk_mrc *m)
{
	return mdk__pagemap_pages(m->pm);
}

int mdk_mrc_add(struct mdk_mrc *m, const uint64_t *ids, size_t n, char *err,
		size_t errlen)
{
	size_t i;
	int ret;

	if (m->done)
		return mdk_err(err, errlen, -EINVAL,
			       "mrc: references after the result");
	if (mdk_grow((void **)&m->dense, &m->densecap, n, sizeof(*m->dense)))
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	ret = mdk__pagemap_map(m->pm, ids, n, m->dense);
	if (ret)
		return mdk_err(err, errlen, ret, "mrc: too many pages");
	for (i = 0; i < m->np; i++) {
		ret = m->pols[i]->ops->cache_refs(m->state[i], m->dense, n);
		if (ret)
			return mdk_err(err, errlen, ret, "%s: %s",
				       m->pols[i]->ops->name,
				       ret == -E2BIG ? "too many references" :
						       "out of memory");
	}
	m->refs += n;
	return 0;
}

int mdk_mrc_result(struct mdk_mrc *m, struct mdk_mrc_point **pts, size_t *n,
		   char *err, size_t errlen)
{
	uint64_t pages = mdk__pagemap_pages(m->pm), *misses = NULL;
	struct mdk_mrc_point *p = NULL;
	size_t total = 0, i, j, k = 0;
	int ret;

	m->done = true;
	for (i = 0; i < m->np; i++) {
		ret = mdk_policy_resolve(m->pols[i], pages, err, errlen);
		if (ret)
			return ret;
		total += mdk_policy_settings(m->pols[i]);
	}
	p = calloc(total ? total : 1, sizeof(*p));
	if (!p)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < m->np; i++) {
		const struct mdk_policy *pol = m->pols[i];
		size_t ns = mdk_policy_settings(pol);

		misses = calloc(ns, sizeof(*misses));
		if (!misses) {
			free(p);
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		}
		ret = pol->ops->cache_misses(m->state[i], pol, misses);
		if (ret) {
			free(misses);
			free(p);
			return mdk_err(err, errlen, ret, "%s: %s",
				       pol->ops->name, strerror(-ret));
		}
		for (j = 0; j < ns; j++, k++) {
			p[k].policy = pol->ops->name;
			p[k].size = pol->grid[0].v[j];
			p[k].misses = misses[j];
			p[k].miss_ratio =
				m->refs ? (double)misses[j] / (double)m->refs :
					  0;
		}
		free(misses);
	}
	*pts = p;
	*n = total;
	return 0;
}

static int is_trace(const char *path, bool *yes, char *err, size_t errlen)
{
	static const uint8_t magic[8] = { 0x89, 'M',  'D',  'K',
					  'T',	'\r', '\n', 0x1a };
	uint8_t b[8];
	size_t n;
	FILE *f;

	*yes = false;
	if (!strcmp(path, "-"))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return mdk_err(err, errlen, -errno, "%s: %s", path,
			       strerror(errno));
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	/* A zstd stream is taken for a compressed trace (the reader's). */
	*yes = (n == sizeof(b) && !memcmp(b, magic, sizeof(b))) ||
	       (n >= 4 && !memcmp(b, "\x28\xb5\x2f\xfd", 4));
	return 0;
}

static int mrc_read_trace(struct mdk_mrc *m, const char *path, char *err,
			  size_t errlen)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	int ret;

	ret = mdk_trace_reader_open(path, 0, &r, err, errlen);
	if (ret)
		return ret;
	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		ret = mdk_mrc_add(m, c.ids, c.n, err, errlen);
		if (ret)
			break;
	}
	mdk_trace_reader_close(r);
	return ret;
}

static int mrc_read_csv(struct mdk_mrc *m, const char *path, char *err,
			size_t errlen)
{
	struct mdk_csv_reader *c;
	uint64_t buf[4096], w;
	size_t k = 0;
	int ret;

	ret = mdk_csv_reader_open(path, &c, err, errlen);
	if (ret)
		return ret;
	for (;;) {
		ret = mdk_csv_reader_next(c, &w, &buf[k], err, errlen);
		if (ret > 0 && ++k < MDK_ARRAY_SIZE(buf))
			continue;
		if (ret >= 0 && k) {
			int r2 = mdk_mrc_add(m, buf, k, err, errlen);

			k = 0;
			if (r2) {
				ret = r2;
				break;
			}
		}
		if (ret <= 0)
			break;
	}
	mdk_csv_reader_close(c);
	return ret;
}

int mdk_mrc_run(const char *path, struct mdk_policy *const *pols, size_t np,
		struct mdk_mrc_point **pts, size_t *n, uint64_t *refs,
		uint64_t *pages, char *err, size_t errlen)
{
	struct mdk_mrc *m;
	bool trace;
	int ret;

	ret = is_trace(path, &trace, err, errlen);
	if (ret)
		return ret;
	ret = mdk_mrc_new(pols, np, &m, err, errlen);
	if (ret)
		return ret;
	if (trace)
		ret = mrc_read_trace(m, path, err, errlen);
	else
		ret = mrc_read_csv(m, path, err, errlen);
	if (!ret)
		ret = mdk_mrc_result(m, pts, n, err, errlen);
	if (!ret && refs)
		*refs = mdk_mrc_references(m);
	if (!ret && pages)
		*pages = mdk_mrc_pages(m);
	mdk_mrc_free(m);
	return ret;
}
