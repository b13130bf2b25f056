// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace report's heatmap (report_int.h): access counts on a grid of
 * fine bins that coarsens by doubling as pages and windows come, then
 * grouped into the asked number of page ranges and window columns.
 */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

int mdk__heat_init(struct mdk__heat *h, uint32_t rows, uint32_t cols)
{
	*h = (struct mdk__heat){ .rmax = rows, .cmax = cols };
	h->rcap = 4 * rows;
	h->ccap = 4 * cols;
	h->pages = calloc(h->rcap, sizeof(*h->pages));
	h->idmin = calloc(h->rcap, sizeof(*h->idmin));
	h->idmax = calloc(h->rcap, sizeof(*h->idmax));
	if (!h->pages || !h->idmin || !h->idmax) {
		mdk__heat_free(h);
		return -ENOMEM;
	}
	return 0;
}

void mdk__heat_free(struct mdk__heat *h)
{
	free(h->cells);
	free(h->pages);
	free(h->idmin);
	free(h->idmax);
	*h = (struct mdk__heat){ 0 };
}

/* Rows 2i and 2i + 1 become row i, in every column: twice as wide. */
static void fold_rows(struct mdk__heat *h)
{
	uint32_t i, c, half = h->rcap / 2;

	for (c = 0; c < h->cols; c++) {
		uint64_t *col = h->cells + (size_t)c * h->rcap;

		for (i = 0; i < half; i++)
			col[i] = col[2 * i] + col[2 * i + 1];
		memset(col + half, 0, (h->rcap - half) * sizeof(*col));
	}
	for (i = 0; i < half; i++) {
		uint64_t a = h->pages[2 * i], b = h->pages[2 * i + 1];

		if (!a) {
			h->idmin[i] = h->idmin[2 * i + 1];
			h->idmax[i] = h->idmax[2 * i + 1];
		} else {
			h->idmin[i] = h->idmin[2 * i];
			h->idmax[i] = h->idmax[2 * i];
			if (b && h->idmin[2 * i + 1] < h->idmin[i])
				h->idmin[i] = h->idmin[2 * i + 1];
			if (b && h->idmax[2 * i + 1] > h->idmax[i])
				h->idmax[i] = h->idmax[2 * i + 1];
		}
		h->pages[i] = a + b;
	}
	memset(h->pages + half, 0, (h->rcap - half) * sizeof(*h->pages));
	h->rshift++;
}

/* Columns 2j and 2j + 1 become column j. */
static void fold_cols(struct mdk__heat *h)
{
	uint32_t j, i, n = (h->cols + 1) / 2;

	for (j = 0; j < n; j++) {
		uint64_t *dst = h->cells + (size_t)j * h->rcap,
			 *a = h->cells + (size_t)2 * j * h->rcap;

		for (i = 0; i < h->rcap; i++)
			dst[i] = a[i] +
				 (2 * j + 1 < h->cols ? a[h->rcap + i] : 0);
	}
	memset(h->cells + (size_t)n * h->rcap, 0,
	       (size_t)(h->cols - n) * h->rcap * sizeof(*h->cells));
	h->cols = n;
	h->cshift++;
}

void mdk__heat_page(struct mdk__heat *h, uint32_t idx, uint64_t id)
{
	uint32_t r;

	while ((idx >> h->rshift) >= h->rcap)
		fold_rows(h);
	r = idx >> h->rshift;
	if (!h->pages[r] || id < h->idmin[r])
		h->idmin[r] = id;
	if (!h->pages[r] || id > h->idmax[r])
		h->idmax[r] = id;
	h->pages[r]++;
}

uint64_t *mdk__heat_column(struct mdk__heat *h, uint32_t w)
{
	uint32_t c;

	while ((w >> h->cshift) >= h->ccap)
		fold_cols(h);
	c = w >> h->cshift;
	if (c >= h->cols) {
		if (mdk__grow_zeroed((void **)&h->cells, &h->cellcap,
				     (size_t)(c + 1) * h->rcap,
				     sizeof(*h->cells)))
			return NULL;
		h->cols = c + 1;
	}
	return h->cells + (size_t)c * h->rcap;
}

/* Fine bins of width 2^@shift over @n values, grouped into <= @max. */
static uint32_t group_of(uint64_t n, unsigned int shift, uint32_t max,
			 uint32_t *groups)
{
	uint64_t fine = (n + (1ull << shift) - 1) >> shift;
	uint64_t g = fine ? (fine + max - 1) / max : 1;

	*groups = (uint32_t)((fine + g - 1) / g);
	return (uint32_t)g;
}

/* The fine rows of range @r (grouped @gr at a time), into @rep. */
static void range_sums(const struct mdk__heat *h, uint32_t r, uint32_t gr,
		       struct mdk_report *rep)
{
	uint32_t i;

	rep->range_pages[r] = 0;
	for (i = r * gr; i < (r + 1) * gr && i < h->rcap; i++) {
		uint64_t n = h->pages[i];

		if (!n)
			continue;
		if (!rep->range_pages[r] || h->idmin[i] < rep->range_id_min[r])
			rep->range_id_min[r] = h->idmin[i];
		if (!rep->range_pages[r] || h->idmax[i] > rep->range_id_max[r])
			rep->range_id_max[r] = h->idmax[i];
		rep->range_pages[r] += n;
	}
}

/* The accesses of range @r in column @c, over the fine cells. */
static uint64_t cell_sum(const struct mdk__heat *h, uint32_t r, uint32_t gr,
			 uint32_t c, uint32_t gc)
{
	uint64_t s = 0;
	uint32_t i, j;

	for (j = c * gc; j < (c + 1) * gc && j < h->cols; j++)
		for (i = r * gr; i < (r + 1) * gr && i < h->rcap; i++)
			s += h->cells[(size_t)j * h->rcap + i];
	return s;
}

int mdk__heat_finish(struct mdk__heat *h, uint64_t slots, struct mdk_report *r)
{
	uint32_t gr, gc, rows, cols, i, j;
	uint64_t W = r->windows;

	gr = group_of(slots, h->rshift, h->rmax, &rows);
	gc = group_of(W, h->cshift, h->cmax, &cols);
	r->range_first = calloc((size_t)rows + 1, sizeof(*r->range_first));
	r->range_pages = calloc(rows ? rows : 1, sizeof(*r->range_pages));
	r->range_id_min = calloc(rows ? rows : 1, sizeof(*r->range_id_min));
	r->range_id_max = calloc(rows ? rows : 1, sizeof(*r->range_id_max));
	r->col_first = calloc((size_t)cols + 1, sizeof(*r->col_first));
	r->heat = calloc(MDK_MAX((size_t)rows * cols, 1), sizeof(*r->heat));
	if (!r->range_first || !r->range_pages || !r->range_id_min ||
	    !r->range_id_max || !r->col_first || !r->heat)
		return -ENOMEM;
	r->heat_rows = rows;
	r->heat_cols = cols;
	for (i = 0; i <= rows; i++)
		r->range_first[i] =
			MDK_MIN((uint64_t)i * gr << h->rshift, slots);
	for (j = 0; j <= cols; j++)
		r->col_first[j] =
			(uint32_t)MDK_MIN((uint64_t)j * gc << h->cshift, W);
	for (i = 0; i < rows; i++) {
		range_sums(h, i, gr, r);
		for (j = 0; j < cols && r->range_pages[i]; j++) {
			uint64_t pw = r->range_pages[i] *
				      (r->col_first[j + 1] - r->col_first[j]);

			r->heat[(size_t)i * cols + j] =
				(double)cell_sum(h, i, gr, j, gc) / (double)pw;
		}
	}
	return 0;
}
