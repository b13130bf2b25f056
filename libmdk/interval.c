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

struct page_state {
	uint32_t last1; /* window of the last access + 1; 0: never accessed */
	uint32_t reuse; /* prior reuse distance of that access (0: first) */
};

struct mdk_stream {
	struct page_state *st;
	size_t cap;	/* entries allocated (zeroed) */
	uint32_t pages; /* 1 + largest index fed */
	uint32_t window;
	bool started;
};

int mdk_stream_new(struct mdk_stream **out)
{
	struct mdk_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*out = s;
	return 0;
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
	size_t ncap = s->cap ? s->cap : 1024;
	struct page_state *n;

	while (ncap <= page)
		ncap *= 2;
	n = realloc(s->st, ncap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	memset(n + s->cap, 0, (ncap - s->cap) * sizeof(*n));
	s->st = n;
	s->cap = ncap;
	return 0;
}

int mdk_stream_feed(struct mdk_stream *s, uint32_t window,
		    const uint32_t *pages, size_t n, uint32_t *start,
		    uint32_t *reuse, uint64_t *first, char *err,
		    size_t errlen)
{
	uint32_t w1 = window + 1, maxp = 0;
	uint64_t nfirst = 0;
	size_t i;

	if (s->started && window < s->window)
		return mdk__err(err, errlen, -EINVAL,
				"interval stream: window %u after window %u",
				window, s->window);
	if (window == MDK_NONE)
		return mdk__err(err, errlen, -EINVAL,
				"interval stream: window %u is out of range",
				window);
	s->started = true;
	s->window = window;
	for (i = 0; i < n; i++)
		maxp = MDK_MAX(maxp, pages[i]);
	if (n && maxp >= s->cap && stream_grow(s, maxp))
		return mdk__err(err, errlen, -ENOMEM,
				"interval stream: out of memory for %u pages",
				maxp + 1);
	if (n && maxp >= s->pages)
		s->pages = maxp + 1;
	for (i = 0; i < n; i++) {
		struct page_state *p = &s->st[pages[i]];
		uint32_t l1 = p->last1;

		if (!l1) {
			start[i] = MDK_NONE;
			reuse[i] = 0;
			nfirst++;
			p->reuse = 0;
		} else {
			if (mdk_unlikely(l1 == w1))
				return mdk__err(err, errlen, -EINVAL,
						"interval stream: page %u accessed twice in window %u",
						pages[i], window);
			start[i] = l1 - 1;
			reuse[i] = p->reuse;
			p->reuse = w1 - l1;
		}
		p->last1 = w1;
	}
	*first += nfirst;
	return 0;
}

int mdk_stream_open(const struct mdk_stream *s, uint32_t page,
		    uint32_t *start, uint32_t *reuse)
{
	if (page >= s->pages || !s->st[page].last1)
		return -ENOENT;
	*start = s->st[page].last1 - 1;
	*reuse = s->st[page].reuse;
	return 0;
}
