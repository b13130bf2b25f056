/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmdk internals shared between its sources: never installed, never
 * exported (everything declared here has hidden visibility, so the
 * version script's mdk_* pattern does not reach it).
 *
 * libmdk's layers, lowest first; a source includes and calls its own
 * layer and those below it, never one above:
 *
 *   1. helpers: util.c (errors, mdk_grow(), mdk_hash64()), pagemap.c
 *   2. traces: trace_*.c (with the reports, trace_report.c and
 *      trace_heat.c), csv.c, synth.c; the interval stream, interval.c
 *   3. policies: policy*.c, policy/<name>.c, and L-OPP's model and
 *      features (lopp/), which policy/lopp.c scores with
 *   4. runs of policies: the simulator (sim.c), curves (mpc*.c), MRCs
 *      (mrc.c)
 *   5. L-OPP's learning (learn/: training, and the live learner, which
 *      fills curves)
 *   6. the live evaluator (evaluator*.c)
 *
 * This header serves them all; what layer 3 and above share is in
 * policy_int.h, and an area's own internals in its header (trace_int.h,
 * report_int.h, mpc_int.h, learn/learn_int.h, evaluator_int.h).
 */
#ifndef MDK_INTERNAL_H
#define MDK_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/err.h>
#include <mdk/util.h>

#pragma GCC visibility push(hidden)

#define MDK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MDK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MDK_MAX(a, b) ((a) > (b) ? (a) : (b))

#define mdk_likely(x) __builtin_expect(!!(x), 1)
#define mdk_unlikely(x) __builtin_expect(!!(x), 0)

/* mdk_grow(), the new elements zero-filled. */
int mdk__grow_zeroed(void **arr, size_t *cap, size_t need, size_t elem_size);

/*
 * The page map: 64-bit page ids to compact indices.  Ids are grouped in
 * leaves of 64 consecutive ids; a leaf seen for the first time gets the
 * next 64 indices, so the index of a page is stable, below 64 x the
 * leaves seen, and for clustered ids about as dense as the pages and in
 * id order (see pagemap.c).
 */
struct mdk_pagemap;

struct mdk_pagemap *mdk__pagemap_new(void);
void mdk__pagemap_free(struct mdk_pagemap *pm);
/* Map @n ids to @out; returns 0 or -E2BIG (over 2^26 leaves), -ENOMEM. */
int mdk__pagemap_map(struct mdk_pagemap *pm, const uint64_t *ids, size_t n,
		     uint32_t *out);
/* Distinct pages seen; indices handed out (64 per leaf). */
uint32_t mdk__pagemap_pages(const struct mdk_pagemap *pm);
uint64_t mdk__pagemap_slots(const struct mdk_pagemap *pm);

/*
 * Window @w of an indexed, seekable trace decoded straight into @ids
 * (room for @cap): 0 with its *@n ids, 1 with *@n the room it needs
 * (nothing read), or -errno.  No copy: the threads' curves read this way.
 */
struct mdk_trace_reader;
int mdk__rd_window_into(struct mdk_trace_reader *r, uint32_t w, uint64_t *ids,
			size_t cap, size_t *n, char *err, size_t errlen);

/* Unsigned LEB128: at most 10 bytes for 64 bits. */
static inline size_t mdk__uleb_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Little-endian loads and stores (the trace format is little-endian). */
static inline void mdk__put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void mdk__put32(uint8_t *p, uint32_t v)
{
	mdk__put16(p, (uint16_t)v);
	mdk__put16(p + 2, (uint16_t)(v >> 16));
}

static inline void mdk__put64(uint8_t *p, uint64_t v)
{
	mdk__put32(p, (uint32_t)v);
	mdk__put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t mdk__get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t mdk__get32(const uint8_t *p)
{
	return mdk__get16(p) | ((uint32_t)mdk__get16(p + 2) << 16);
}

static inline uint64_t mdk__get64(const uint8_t *p)
{
	return mdk__get32(p) | ((uint64_t)mdk__get32(p + 4) << 32);
}

/* Strict unsigned parsing: decimal or 0x hex, the whole string. */
int mdk__parse_u64(const char *s, uint64_t *out);

#pragma GCC visibility pop

#endif /* MDK_INTERNAL_H */
