// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's labelled rows (mdk/lopp.h): a ring keeping the newest @cap
 * feature rows with their labels, what mdk_lopp_fit() learns from, and
 * mdk_lopp_assess(), how a model's decisions match such a set.
 *
 * The ring's arrays are allocated at mdk_lopp_set_new() (so that adding
 * cannot fail) but only written as rows come: untouched pages of a large
 * capacity cost address space, not memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "learn_int.h"

struct mdk_lopp_set {
	size_t cap, n, next; /* next: where the next row goes */
	size_t positives;
	float *x; /* cap rows of MDK_LOPP_FEATURES */
	bool *y;
};

int mdk_lopp_set_new(size_t cap, struct mdk_lopp_set **out)
{
	struct mdk_lopp_set *s;

	if (!cap || cap > SIZE_MAX / sizeof(float) / MDK_LOPP_FEATURES)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cap = cap;
	s->x = malloc(cap * MDK_LOPP_FEATURES * sizeof(*s->x));
	s->y = malloc(cap * sizeof(*s->y));
	if (!s->x || !s->y) {
		mdk_lopp_set_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void mdk_lopp_set_free(struct mdk_lopp_set *s)
{
	if (!s)
		return;
	free(s->x);
	free(s->y);
	free(s);
}

void mdk_lopp_set_add(struct mdk_lopp_set *s, const float *x, bool label)
{
	size_t i = s->next;

	if (s->n == s->cap)
		s->positives -= s->y[i];
	else
		s->n++;
	memcpy(s->x + i * MDK_LOPP_FEATURES, x, MDK_LOPP_FEATURES * sizeof(*x));
	s->y[i] = label;
	s->positives += label;
	s->next = i + 1 == s->cap ? 0 : i + 1;
}

size_t mdk_lopp_set_size(const struct mdk_lopp_set *s)
{
	return s->n;
}

size_t mdk_lopp_set_positives(const struct mdk_lopp_set *s)
{
	return s->positives;
}

void mdk_lopp_set_clear(struct mdk_lopp_set *s)
{
	s->n = s->next = s->positives = 0;
}

/* For the fit (fit.c): row @i (0 .. size - 1, in no particular order). */
const float *mdk__lopp_set_row(const struct mdk_lopp_set *s, size_t i,
			       bool *label)
{
	*label = s->y[i];
	return s->x + i * MDK_LOPP_FEATURES;
}

struct scored {
	double score;
	bool label;
};

static int cmp_scored(const void *a, const void *b)
{
	double x = ((const struct scored *)a)->score,
	       y = ((const struct scored *)b)->score;

	return x < y ? -1 : x > y;
}

/*
 * The area under the ROC curve: the chance that a random positive scores
 * above a random negative, ties counting half -- the Mann-Whitney U over
 * the scores sorted ascending, a tie group sharing its mean rank.
 */
static double auc(struct scored *r, size_t n, uint64_t pos)
{
	uint64_t neg = n - pos;
	double ranks = 0; /* sum of the positives' ranks, 1-based */
	size_t i = 0, j;

	if (!pos || !neg)
		return 0;
	qsort(r, n, sizeof(*r), cmp_scored);
	while (i < n) {
		uint64_t p = 0;

		for (j = i; j < n && r[j].score == r[i].score; j++)
			p += r[j].label;
		/* ranks i + 1 .. j, mean (i + 1 + j) / 2 */
		ranks += (double)p * ((double)i + 1 + (double)j) / 2;
		i = j;
	}
	return (ranks - (double)pos * ((double)pos + 1) / 2) /
	       ((double)pos * (double)neg);
}

int mdk_lopp_assess(const struct mdk_lopp_model *m,
		    const struct mdk_lopp_set *s, double theta,
		    struct mdk_lopp_quality *q)
{
	struct scored *r = NULL;
	size_t i;

	memset(q, 0, sizeof(*q));
	if (s->n && !(r = malloc(s->n * sizeof(*r))))
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		double sc = mdk_lopp_score(m, s->x + i * MDK_LOPP_FEATURES);
		bool y = s->y[i], d = sc >= theta;

		r[i].score = sc;
		r[i].label = y;
		q->tp += d && y;
		q->fp += d && !y;
		q->fn += !d && y;
	}
	q->rows = s->n;
	q->positives = s->positives;
	if (q->tp + q->fp)
		q->precision = (double)q->tp / (double)(q->tp + q->fp);
	if (q->tp + q->fn)
		q->recall = (double)q->tp / (double)(q->tp + q->fn);
	q->auc = auc(r, s->n, q->positives);
	free(r);
	return 0;
}
