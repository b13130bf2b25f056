/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmdk internals of L-OPP's model (libmdk/lopp/): the model of either
 * kind, the trees as scored (trees.c) and the version 2 file (file2.c).
 */
#ifndef MDK_LOPP_INT_H
#define MDK_LOPP_INT_H

#include <math.h>

#include <mdk/lopp.h>

#include "../policy_int.h"

#pragma GCC visibility push(hidden)

#define MDK__LOPP_MAGIC "mdk-lopp-model"

struct mdk_lopp_model {
	enum mdk_lopp_kind kind;
	double rho;
	/* MDK_LOPP_LOGISTIC */
	double mean[MDK_LOPP_FEATURES];
	double scale[MDK_LOPP_FEATURES]; /* > 0 */
	double w[MDK_LOPP_FEATURES];
	double bias;
	/* MDK_LOPP_TREES */
	uint64_t rows, positives; /* at training time; positives > 0 */
	char *trace; /* the training trace's name, "" if unknown */
	unsigned char *payload; /* XGBoost's UBJSON model */
	size_t payload_len;
	struct mdk__lopp_trees *trees;
};

/*
 * A logistic model's standardised feature is clamped to +-2^20 (no real
 * feature is 10^6 standard deviations out) and NaN counts as the mean, so
 * that the sum z stays finite whatever the row holds.
 */
#define MDK__LOPP_CLAMP 1048576.0

/* The score of a logistic model's sum @z, in [0, 1]. */
static inline double mdk__lopp_logistic(double z)
{
	if (isnan(z))
		return 0.5;
	/* Both branches stay in [0, 1] without overflow. */
	if (z >= 0)
		return 1.0 / (1.0 + exp(-z));
	return exp(z) / (1.0 + exp(z));
}

/* trees.c */
struct mdk__lopp_trees;
int mdk__lopp_trees_load(const void *payload, size_t len,
			 struct mdk__lopp_trees **out, char *err,
			 size_t errlen);
void mdk__lopp_trees_free(struct mdk__lopp_trees *t);
double mdk__lopp_trees_score(const struct mdk__lopp_trees *t, const float *x);
float mdk__lopp_trees_margin(const struct mdk__lopp_trees *t, const float *x);

/* file2.c: the version 2 file of a trees model. */
int mdk__lopp_file2_print(const struct mdk_lopp_model *m, FILE *f);
int mdk__lopp_file2_parse(const unsigned char *buf, size_t len,
			  const char *name, struct mdk_lopp_model **out,
			  char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* MDK_LOPP_INT_H */
