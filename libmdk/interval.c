// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The interval stream (see mdk/interval.h): one pass, two words a page.
 * The state of dense page p sits at st[p]; pages of a sorted window get
 * mostly increasing dense indices, so the pass reads st[] nearly in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/interval.h>

#include "internal.h"

/*
 * Per-page state, in one of two layouts: two 32-bit words (last access
 * window + 1, 0 for never; that access's prior reuse distance), or, when
 * the stream is bounded to at most 65535 windows, both packed in 16-bit
 * halves of one word (last + 1 in the high half).  A pass over a trace
 * streams this array once a window, so halving it halves the pass's
 * memory traffic.
 */
struct page_state {
	uint32_t last1;
	uint32_t reuse;
};

struct mdk_stream {
	void *st; /* struct page_state[] or uint32_t[] (packed) */
	size_t cap; /* entries allocated (zeroed) */
	bool packed;
	bool keyed; /* the second word is the caller's key */
	uint32_t limit; /* windows allowed: 0..limit-1 */
	uint32_t pages; /* 1 + largest index fed */
	uint32_t window;
	bool started;
};

#define PACKED_WINDOWS 65535u

int mdk_stream_new(uint32_t max_windows, struct mdk_stream **out)
{
	struct mdk_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->packed = max_windows && max_windows <= PACKED_WINDOWS;
	s->limit = max_windows ? max_windows : MDK_NONE;
	*out = s;
	return 0;
}

int mdk_stream_new_keyed(uint32_t max_windows, struct mdk_stream **out)
{
	int ret = mdk_stream_new(max_windows, out);

	if (!ret) {
		/* Keys need the full second word. */
		(*out)->packed = false;
		(*out)->keyed = true;
	}
	return ret;
}

void mdk_stream_free(struct mdk_stream *s)
{
	if (!s)
		return;
	free(s->st);
	free(s);
}

uint32_t mdk_stream_pages(const struct mdk_stream *s)
{
	return s->pages;
}

static int stream_grow(struct mdk_stream *s, uint32_t page)
{
	size_t esz = s->packed ? sizeof(uint32_t) : sizeof(struct page_state);

	return mdk__grow_zeroed(&s->st, &s->cap, (size_t)page + 1, esz);
}

static int stream_dup(uint32_t page, uint32_t window, char *err, size_t errlen)
{
	return mdk_err(err, errlen, -EINVAL,
		       "interval stream: page %u accessed twice in window %u",
		       page, window);
}

static int stream_feed(struct mdk_stream *s, uint32_t window,
		       const uint32_t *pages, const uint32_t *keys, size_t n,
		       uint32_t *start, uint32_t *reuse, uint64_t *first,
		       char *err, size_t errlen)
{
	uint32_t w1 = window + 1, maxp = 0;
	uint64_t nfirst = 0;
	size_t i;

	if (s->started && window < s->window)
		return mdk_err(err, errlen, -EINVAL,
			       "interval stream: window %u after window %u",
			       window, s->window);
	if (window >= s->limit)
		return mdk_err(
			err, errlen, -ERANGE,
			"interval stream: window %u is beyond the stream's %u windows",
			window, s->limit);
	s->started = true;
	s->window = window;
	for (i = 0; i < n; i++)
		maxp = MDK_MAX(maxp, pages[i]);
	if (n && maxp >= s->cap && stream_grow(s, maxp))
		return mdk_err(err, errlen, -ENOMEM,
			       "interval stream: out of memory for %u pages",
			       maxp + 1);
	if (n && maxp >= s->pages)
		s->pages = maxp + 1;
	if (s->packed) {
		uint32_t *st = s->st;

		for (i = 0; i < n; i++) {
			uint32_t v = st[pages[i]], l1 = v >> 16;

			if (!l1) {
				start[i] = MDK_NONE;
				reuse[i] = 0;
				nfirst++;
				st[pages[i]] = w1 << 16;
				continue;
			}
			if (mdk_unlikely(l1 == w1))
				return stream_dup(pages[i], window, err,
						  errlen);
			start[i] = l1 - 1;
			reuse[i] = v & 0xffff;
			st[pages[i]] = (w1 << 16) | (w1 - l1);
		}
	} else {
		struct page_state *st = s->st;

		for (i = 0; i < n; i++) {
			struct page_state *p = &st[pages[i]];
			uint32_t l1 = p->last1;

			if (!l1) {
				start[i] = MDK_NONE;
				reuse[i] = 0;
				nfirst++;
				p->reuse = keys ? keys[i] : 0;
			} else {
				if (mdk_unlikely(l1 == w1))
					return stream_dup(pages[i], window, err,
							  errlen);
				start[i] = l1 - 1;
				reuse[i] = p->reuse;
				p->reuse = keys ? keys[i] : w1 - l1;
			}
			p->last1 = w1;
		}
	}
	*first += nfirst;
	return 0;
}

int mdk_stream_feed(struct mdk_stream *s, uint32_t window,
		    const uint32_t *pages, size_t n, uint32_t *start,
		    uint32_t *reuse, uint64_t *first, char *err, size_t errlen)
{
	if (s->keyed)
		return mdk_err(err, errlen, -EINVAL,
			       "interval stream: a keyed stream needs keys");
	return stream_feed(s, window, pages, NULL, n, start, reuse, first, err,
			   errlen);
}

int mdk_stream_feed_keys(struct mdk_stream *s, uint32_t window,
			 const uint32_t *pages, const uint32_t *keys, size_t n,
			 uint32_t *start, uint32_t *reuse, uint64_t *first,
			 char *err, size_t errlen)
{
	if (!s->keyed)
		return mdk_err(
			err, errlen, -EINVAL,
			"interval stream: keys for a stream not made by mdk_stream_new_keyed()");
	return stream_feed(s, window, pages, keys, n, start, reuse, first, err,
			   errlen);
}

/* Page @p's state, unpacked; false if never fed. */
static bool stream_get(const struct mdk_stream *s, uint32_t p, uint32_t *l1,
		       uint32_t *reuse)
{
	if (p >= s->pages)
		return false;
	if (s->packed) {
		uint32_t v = ((const uint32_t *)s->st)[p];

		*l1 = v >> 16;
		*reuse = v & 0xffff;
	} else {
		const struct page_state *ps = s->st;

		*l1 = ps[p].last1;
		*reuse = ps[p].reuse;
	}
	return *l1 != 0;
}

int mdk_stream_open(const struct mdk_stream *s, uint32_t page, uint32_t *start,
		    uint32_t *reuse)
{
	uint32_t l1, r;

	if (!stream_get(s, page, &l1, &r))
		return -ENOENT;
	*start = l1 - 1;
	*reuse = r;
	return 0;
}

size_t mdk_stream_tails(const struct mdk_stream *s, uint32_t *cursor,
			uint32_t *start, uint32_t *reuse, size_t max)
{
	size_t k = 0;
	uint32_t p;

	for (p = *cursor; p < s->pages && k < max; p++) {
		uint32_t l1, r;

		if (!stream_get(s, p, &l1, &r))
			continue;
		start[k] = l1 - 1;
		reuse[k] = r;
		k++;
	}
	*cursor = p;
	return k;
}

int mdk_stream_forget(struct mdk_stream *s, uint32_t page)
{
	uint32_t l1, r;

	if (!stream_get(s, page, &l1, &r))
		return -ENOENT;
	if (s->packed) {
		((uint32_t *)s->st)[page] = 0;
	} else {
		struct page_state *ps = s->st;

		ps[page].last1 = 0;
		ps[page].reuse = 0;
	}
	return 0;
}
