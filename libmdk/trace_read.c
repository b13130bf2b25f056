// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace reader's chunks: blocks handed out window by window, with
 * the empty windows between stored ones, and seeking by the index.
 */
#include <errno.h>
#include <string.h>

#include "trace_int.h"

/* Does the block after the current one continue its window? */
static bool rd_next_is_cont(struct mdk_trace_reader *r, uint32_t window)
{
	const uint8_t *h;
	ssize_t n;

	if (r->blocks_done ||
	    (r->info.indexed && r->seekable && r->pos == r->idx_off))
		return false;
	n = mdk__rd_get(r, BLK_BYTES, &h);
	if (n <= 0)
		return false;
	/* Step back: mdk__rd_get() left the bytes in place. */
	if (!r->mem)
		r->bufoff -= (size_t)n;
	r->pos -= (uint64_t)n;
	return n == BLK_BYTES && mdk__get32(h) == BLK_MAGIC &&
	       (mdk__get32(h + 16) & BLK_F_CONT) && mdk__get32(h + 4) == window;
}

int mdk_trace_reader_next(struct mdk_trace_reader *r, struct mdk_trace_chunk *c,
			  char *err, size_t errlen)
{
	int ret;

	if (r->failed)
		return mdk_err(err, errlen, r->failed,
			       "%s: reader failed earlier", r->name);
	if (!r->pending && !r->blocks_done) {
		ret = mdk__rd_block(r, err, errlen);
		if (ret < 0)
			return ret;
	}
	if (r->pending) {
		if (r->pend.window > r->next_window) {
			/* A gap: hand out the empty window first. */
			memset(c, 0, sizeof(*c));
			c->window = r->next_window++;
			c->window_end = true;
			return 1;
		}
		*c = r->pend;
		r->pending = false;
		c->window_end = !rd_next_is_cont(r, c->window);
		if (c->window_end)
			r->next_window = c->window + 1;
		return 1;
	}
	if (r->next_window < r->total_windows) {
		memset(c, 0, sizeof(*c));
		c->window = r->next_window++;
		c->window_end = true;
		return 1;
	}
	return 0;
}

int mdk_trace_reader_seek(struct mdk_trace_reader *r, uint32_t window,
			  char *err, size_t errlen)
{
	uint32_t lo = 0, hi, i;
	int ret;

	if (!r->info.indexed || !r->seekable)
		return mdk_err(err, errlen, -ENOTSUP,
			       "%s: seeking needs a seekable, indexed trace",
			       r->name);
	if (window >= r->info.windows)
		return mdk_err(err, errlen, -ERANGE,
			       "%s: window %u is past the end (%u windows)",
			       r->name, window, r->info.windows);
	/* The first stored window at or after @window. */
	hi = r->nidx;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->idx[mid].window < window)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	ret = mdk__rd_seek(r, i < r->nidx ? r->idx[i].offset : r->idx_off);
	if (ret)
		return mdk__rd_fail(r, err, errlen, ret, "seek: %s",
				    strerror(-ret));
	r->failed = 0;
	r->pending = false;
	r->blocks_done = false;
	r->started = i > 0;
	r->window = i > 0 ? r->idx[i - 1].window : 0;
	r->win_count = i > 0 ? r->idx[i - 1].count : 0;
	r->have_last = false;
	r->next_idx = i;
	r->next_window = window;
	r->records = 0;
	for (uint32_t k = 0; k < i; k++)
		r->records += r->idx[k].count;
	return 0;
}

uint32_t mdk_trace_reader_windows(const struct mdk_trace_reader *r)
{
	return r->next_window;
}

uint64_t mdk_trace_reader_pages(const struct mdk_trace_reader *r)
{
	return r->pm ? mdk__pagemap_pages(r->pm) : 0;
}

uint64_t mdk_trace_reader_records(const struct mdk_trace_reader *r)
{
	return r->records;
}

uint64_t mdk_trace_reader_slots(const struct mdk_trace_reader *r)
{
	return r->pm ? mdk__pagemap_slots(r->pm) : 0;
}

/* The index's count of window @w (0: not stored), @r sought to it. */
static size_t rd_stored_count(const struct mdk_trace_reader *r, uint32_t w)
{
	uint32_t i = r->next_idx;

	return i < r->nidx && r->idx[i].window == w ? r->idx[i].count : 0;
}

int mdk__rd_window_into(struct mdk_trace_reader *r, uint32_t w, uint64_t *ids,
			size_t cap, size_t *n, char *err, size_t errlen)
{
	uint64_t *own = r->ids;
	size_t owncap = r->idcap, need;
	struct mdk_trace_chunk c;
	int ret = mdk_trace_reader_seek(r, w, err, errlen);

	*n = 0;
	if (ret)
		return ret;
	need = rd_stored_count(r, w);
	if (need > cap) {
		*n = need;
		return 1;
	}
	/* Each block decodes into the rest of @ids; more is corruption. */
	r->lent = true;
	for (;;) {
		r->ids = ids ? ids + *n : NULL;
		r->idcap = need - *n;
		ret = mdk_trace_reader_next(r, &c, err, errlen);
		if (ret <= 0 || c.window != w)
			break;
		*n += c.n;
		if (c.window_end)
			break;
	}
	r->lent = false;
	r->ids = own;
	r->idcap = owncap;
	return ret < 0 ? ret : 0;
}
