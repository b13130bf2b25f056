/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_SYNTH_H
#define MDK_SYNTH_H

/*
 * Seeded synthetic access-bit traces.  The page space is split among
 * generators, each owning a contiguous range of page ids (a "mapping"),
 * in the order they were added; a window is the union of what each
 * generator accesses in it, sorted.  Generators (Documentation/mdk.rst
 * lists every key and default):
 *
 *   zipf:s=0.8,frac=0.3         page of popularity rank i accessed in a
 *                               window with probability min(1, c (i+1)^-s),
 *                               c set so a window holds frac of the pages
 *   periodic:period=8,skip=0.1  each page every period windows (random
 *                               phase), missing a beat with probability skip
 *   scan:rate=N                 a cyclic sweep of N pages a window
 *   phase:len=L,frac=0.25,p=0.7,idle=0.01
 *                               a working set of frac of the pages, redrawn
 *                               every L windows, its pages accessed with
 *                               probability p, the others with idle
 *
 * and every generator takes share=F, its fraction of the pages (the
 * shares left out split what the given ones leave).  The same options,
 * specs and seed give the same trace on every machine.
 */
#include <stddef.h>
#include <stdint.h>

#include <mdk/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mdk_synth_opts {
	uint64_t pages; /* total pages (>= 1) */
	uint32_t windows; /* W (>= 1) */
	uint64_t seed;
	uint64_t base; /* first page id (0: the default 0x7f0000000) */
};

struct mdk_synth;

/* mdk_synth_new() - a generator set; 0 or -EINVAL / -ENOMEM. */
int mdk_synth_new(const struct mdk_synth_opts *opts, struct mdk_synth **out,
		  char *err, size_t errlen);

/*
 * mdk_synth_add() - add the generator @spec (see above) before the first
 * window.  Returns 0 or -EINVAL with a message naming the bad key/value.
 */
int mdk_synth_add(struct mdk_synth *s, const char *spec, char *err,
		  size_t errlen);

/*
 * mdk_synth_next() - generate the next window (0, 1, ...): returns 1 with
 * its number and sorted page ids (valid until the next call), 0 after
 * window W - 1, or -errno.  Without any mdk_synth_add(), the default mix
 * "zipf:share=0.5,s=0.9,frac=0.25 periodic:share=0.15,period=6
 * scan:share=0.15 phase:share=0.2" is used.
 */
int mdk_synth_next(struct mdk_synth *s, uint32_t *window, const uint64_t **ids,
		   size_t *n, char *err, size_t errlen);

/* mdk_synth_free() - free; NULL is a no-op. */
void mdk_synth_free(struct mdk_synth *s);

/*
 * mdk_synth_write() - generate every window of @s into a new trace @path
 * (header from @wopts).  Returns 0 or -errno; on failure @path is removed.
 */
int mdk_synth_write(struct mdk_synth *s, const char *path,
		    const struct mdk_trace_writer_opts *wopts, char *err,
		    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MDK_SYNTH_H */
