/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_INTERVAL_H
#define MDK_INTERVAL_H

/*
 * The interval stream: the shared core of libmdk.
 *
 * Every decision of a page policy in the access-bit model concerns an
 * interval: page p accessed in window a and next in window n (a gap of
 * g = n - a - 1 idle windows) or never again (a tail).  One forward pass
 * over a trace with two words of state per page -- the window of its last
 * access and that access's own prior reuse distance -- turns each access
 * into the interval it closes.  MPC generators (mpc.h) and the daemon's
 * live evaluator consume that stream.
 *
 * struct mdk_stream is that pass: feed it the dense page indices of each
 * window (mdk_trace_reader with MDK_TRACE_DENSE gives them), and for every
 * access it reports the window of the page's previous access (the start
 * of the interval that access closes, MDK_NONE for a first access) and the
 * prior reuse distance of that previous access (0 if it was itself a first
 * access): exactly what mdk_mpc_add_accesses() takes.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "No window": a first access has no previous one, a tail no end. */
#define MDK_NONE UINT32_MAX

/*
 * One interval: the access in window @start of a page, the page's next
 * access in window @end (MDK_NONE while open, i.e. a tail), and the prior
 * reuse distance of the access at @start (start minus the page's access
 * before that, 0 when @start was its first access).
 */
struct mdk_interval {
	uint32_t start;
	uint32_t end;
	uint32_t reuse;
};

struct mdk_stream;

/*
 * mdk_stream_new() - an empty stream for windows 0..@max_windows-1 (0: no
 * bound).  A bound of at most 65535 windows halves the per-page state (4
 * bytes a page instead of 8).  Returns 0 or -ENOMEM.
 */
int mdk_stream_new(uint32_t max_windows, struct mdk_stream **out);

/*
 * mdk_stream_feed() - @n accesses of window @window (dense page indices
 * @pages, distinct within the window).  Windows must not decrease across
 * calls and stay below the stream's bound; a window may be fed in several
 * calls.  Fills @start[i] and
 * @reuse[i] as described above and counts first accesses into *@first
 * (added to).  Returns 0, -EINVAL (window went back, or a page twice in a
 * window: the message says which), -ERANGE (window beyond the bound) or
 * -ENOMEM.
 */
int mdk_stream_feed(struct mdk_stream *s, uint32_t window,
		    const uint32_t *pages, size_t n, uint32_t *start,
		    uint32_t *reuse, uint64_t *first, char *err, size_t errlen);

/*
 * mdk_stream_new_keyed() - an empty stream for a keyed policy
 * (mdk_policy_keyed()): the interval each access opens carries the key
 * the caller gives it (mdk_stream_feed_keys()) instead of the access's
 * prior reuse distance, and everything that reports "reuse" reports that
 * key.  Returns 0 or -ENOMEM.
 */
int mdk_stream_new_keyed(uint32_t max_windows, struct mdk_stream **out);

/*
 * mdk_stream_feed_keys() - mdk_stream_feed() on a keyed stream: @keys[i]
 * is the key of access i (of the interval it opens, a first access's
 * too); @reuse[i] receives the key of the interval it closes (0 for a
 * first access).  -EINVAL on a stream that is not keyed.
 */
int mdk_stream_feed_keys(struct mdk_stream *s, uint32_t window,
			 const uint32_t *pages, const uint32_t *keys, size_t n,
			 uint32_t *start, uint32_t *reuse, uint64_t *first,
			 char *err, size_t errlen);

/*
 * mdk_stream_open() - the open interval of dense page @page: its last
 * access window in *@start and that access's prior reuse distance in
 * *@reuse.  Returns 0, or -ENOENT for a page never fed.
 */
int mdk_stream_open(const struct mdk_stream *s, uint32_t page, uint32_t *start,
		    uint32_t *reuse);

/*
 * mdk_stream_tails() - the open interval of every page, in page order, in
 * batches: from page *@cursor (start at 0) fills at most @max entries of
 * @start and @reuse as mdk_stream_open() would and advances *@cursor.
 * Returns the entries filled; 0 when every page was visited.
 */
size_t mdk_stream_tails(const struct mdk_stream *s, uint32_t *cursor,
			uint32_t *start, uint32_t *reuse, size_t max);

/*
 * mdk_stream_forget() - forget dense page @page, as if never fed: its next
 * access is a first access.  A live consumer frees the index of a page
 * that cannot be accessed again (its process exited) and hands it to
 * another page.  Returns 0, or -ENOENT for a page never fed.
 */
int mdk_stream_forget(struct mdk_stream *s, uint32_t page);

/* mdk_stream_pages() - 1 + the largest page index fed. */
uint32_t mdk_stream_pages(const struct mdk_stream *s);

/* mdk_stream_free() - free; NULL is a no-op. */
void mdk_stream_free(struct mdk_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* MDK_INTERVAL_H */
