/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace report's internals: the heatmap grid (trace_heat.c), filled
 * by the report's pass (trace_report.c).
 */
#ifndef MDK_REPORT_INT_H
#define MDK_REPORT_INT_H

#include <mdk/report.h>

#include "internal.h"

#pragma GCC visibility push(hidden)

/*
 * A grid of access counts over page indices x windows, neither of whose
 * extent is known before the end of a streamed trace.  Each axis has a
 * fixed number of fine bins (4 x the asked side), each 2^shift indices or
 * windows wide; when a value falls past the last bin, the width doubles
 * and neighbouring bins merge.  At the end the fine bins are grouped into
 * at most the asked side (mdk__heat_finish()), so that every side ends
 * between 2/3 of the asked size and the asked size once it is that long.
 */
struct mdk__heat {
	uint32_t rmax, cmax; /* asked rows (page ranges) and columns */
	uint32_t rcap, ccap; /* fine bins: 4 x asked */
	unsigned int rshift, cshift; /* fine bin widths, log2 */
	uint32_t cols; /* fine columns allocated */
	uint64_t *cells; /* cells[c * rcap + r] */
	size_t cellcap;
	uint64_t *pages, *idmin, *idmax; /* per fine row */
};

int mdk__heat_init(struct mdk__heat *h, uint32_t rows, uint32_t cols);
void mdk__heat_free(struct mdk__heat *h);
/* A page seen for the first time: compact index @idx, page id @id. */
void mdk__heat_page(struct mdk__heat *h, uint32_t idx, uint64_t id);
/*
 * The column of window @w, created (and the grid folded) as needed;
 * NULL when out of memory.  Row i of the column counts index @idx at
 * [@idx >> h->rshift].
 */
uint64_t *mdk__heat_column(struct mdk__heat *h, uint32_t w);
/* Fill @r's heatmap from @h over @slots indices and @r->windows. */
int mdk__heat_finish(struct mdk__heat *h, uint64_t slots, struct mdk_report *r);

#pragma GCC visibility pop

#endif /* MDK_REPORT_INT_H */
