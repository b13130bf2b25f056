// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mdk_lopp_fit() (mdk/lopp.h): L-OPP's logistic regression, fitted by
 * liblinear (L2R_LR: L2-regularised logistic regression, primal trust
 * region Newton).
 *
 * Features are standardised first ((x - mean) / scale, scale the standard
 * deviation, or 1 for a constant feature), so that one cost C suits every
 * feature whatever its range; the mean and scale go into the model, whose
 * score applies the same transform.  liblinear's bias is an extra feature
 * of value 1 (it is regularised like the weights, which standardisation
 * makes harmless).
 *
 * liblinear prints its progress on stdout unless told otherwise, and the
 * print function is process-wide: fit sets a silent one before every
 * train() (libmdk never prints).
 */
#include <linear.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "learn_int.h"

#define NF MDK_LOPP_FEATURES

static void quiet(const char *s)
{
}

/* Mean and standard deviation of each feature over @s's rows. */
static void standardise(const struct mdk_lopp_set *s, size_t n, double *mean,
			double *scale)
{
	double sum[NF] = { 0 }, sq[NF] = { 0 };
	unsigned int k;
	size_t i;
	bool y;

	for (i = 0; i < n; i++) {
		const float *x = mdk__lopp_set_row(s, i, &y);

		for (k = 0; k < NF; k++)
			sum[k] += x[k];
	}
	for (k = 0; k < NF; k++)
		mean[k] = sum[k] / (double)n;
	/* Two passes: no cancellation in the variance. */
	for (i = 0; i < n; i++) {
		const float *x = mdk__lopp_set_row(s, i, &y);

		for (k = 0; k < NF; k++)
			sq[k] += (x[k] - mean[k]) * (x[k] - mean[k]);
	}
	for (k = 0; k < NF; k++) {
		double sd = sqrt(sq[k] / (double)n);

		/* Finite and not tiny, else the feature is as good as constant. */
		scale[k] = isfinite(sd) && sd > 1e-9 ? sd : 1;
		if (!isfinite(mean[k]))
			mean[k] = 0;
	}
}

/* Are @C (0 takes 1), @rho and @s's rows fit to learn from?  0 or -EINVAL. */
static int fit_check(const struct mdk_lopp_set *s, double rho, double *C,
		     char *err, size_t errlen)
{
	size_t n = mdk_lopp_set_size(s), pos = mdk_lopp_set_positives(s);

	if (*C == 0)
		*C = 1;
	if (!(*C > 0) || !isfinite(*C) || !(rho >= 0 && rho <= 1))
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: fit: cost %g and rho %g: expected a cost > 0 and rho in [0, 1]",
			*C, rho);
	if (!n)
		return mdk_err(err, errlen, -EINVAL,
			       "lopp: fit: no labelled rows to learn from");
	if (!pos || pos == n)
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: fit: all %zu rows are labelled %s: a model needs both classes (a rho of %g %s)",
			n, pos ? "reclaim" : "keep", rho,
			pos ? "reclaims every interval" :
			      "reclaims no interval of these rows");
	if (n > INT_MAX / 2)
		return mdk_err(err, errlen, -EINVAL,
			       "lopp: fit: %zu rows: at most %d", n,
			       INT_MAX / 2);
	return 0;
}

/*
 * liblinear's problem: the @n rows of @s standardised by @mean and
 * @scale, the bias feature last, in *@nodes.  0 or -ENOMEM.
 */
static int fit_problem(const struct mdk_lopp_set *s, size_t n,
		       const double *mean, const double *scale,
		       struct problem *prob, struct feature_node **nodes)
{
	size_t i;
	unsigned int k;

	prob->l = (int)n;
	prob->n = NF + 1; /* the bias feature included */
	prob->bias = 1;
	prob->y = malloc(n * sizeof(*prob->y));
	prob->x = malloc(n * sizeof(*prob->x));
	*nodes = malloc(n * (NF + 2) * sizeof(**nodes));
	if (!prob->y || !prob->x || !*nodes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct feature_node *row = *nodes + i * (NF + 2);
		bool y;
		const float *x = mdk__lopp_set_row(s, i, &y);

		for (k = 0; k < NF; k++) {
			row[k].index = (int)k + 1;
			row[k].value = (x[k] - mean[k]) / scale[k];
			if (!isfinite(row[k].value))
				row[k].value = 0;
		}
		row[NF].index = NF + 1;
		row[NF].value = prob->bias;
		row[NF + 1].index = -1;
		prob->x[i] = row;
		prob->y[i] = y ? 1 : -1;
	}
	return 0;
}

/* The logistic fit, positives weighted @pos_weight. */
static int fit_logistic(const struct mdk_lopp_set *s, double rho, double C,
			double pos_weight, struct mdk_lopp_model **out,
			char *err, size_t errlen)
{
	size_t n = mdk_lopp_set_size(s);
	double mean[NF], scale[NF], w[NF], bias;
	struct parameter param = { 0 };
	struct problem prob = { 0 };
	struct feature_node *nodes = NULL;
	struct model *lm = NULL;
	int labels[2], li, ret;
	const char *why;
	unsigned int k;

	*out = NULL;
	ret = fit_check(s, rho, &C, err, errlen);
	if (ret)
		return ret;
	standardise(s, n, mean, scale);
	if (fit_problem(s, n, mean, scale, &prob, &nodes)) {
		ret = mdk_err(err, errlen, -ENOMEM,
			      "lopp: fit: out of memory for %zu rows", n);
		goto out;
	}
	param.solver_type = L2R_LR;
	param.eps = 0.01; /* liblinear's default for L2R_LR */
	param.C = C;
	if (pos_weight != 1) {
		static int label_pos = 1;

		param.nr_weight = 1;
		param.weight_label = &label_pos;
		param.weight = &pos_weight;
	}
	why = check_parameter(&prob, &param);
	if (why) {
		ret = mdk_err(err, errlen, -EINVAL, "lopp: fit: liblinear: %s",
			      why);
		goto out;
	}
	set_print_string_function(quiet);
	lm = train(&prob, &param);
	if (!lm || get_nr_class(lm) != 2 || get_nr_feature(lm) != NF) {
		ret = mdk_err(err, errlen, -ENOMEM,
			      "lopp: fit: liblinear failed to train");
		goto out;
	}
	/* The decision function of the class labelled +1 (reclaim). */
	get_labels(lm, labels);
	li = labels[0] == 1 ? 0 : 1;
	for (k = 0; k < NF; k++)
		w[k] = get_decfun_coef(lm, (int)k + 1, li);
	bias = get_decfun_bias(lm, li);
	for (k = 0; k < NF; k++)
		if (!isfinite(w[k]))
			break;
	if (k < NF || !isfinite(bias)) {
		ret = mdk_err(
			err, errlen, -EINVAL,
			"lopp: fit: liblinear gave a weight that is not finite");
		goto out;
	}
	*out = mdk__lopp_model_new(rho, mean, scale, w, bias);
	ret = *out ? 0 : mdk_err(err, errlen, -ENOMEM, "out of memory");
out:
	if (lm)
		free_and_destroy_model(&lm);
	free(nodes);
	free(prob.x);
	free(prob.y);
	return ret;
}

int mdk_lopp_fit(const struct mdk_lopp_set *s, double rho, double C,
		 struct mdk_lopp_model **out, char *err, size_t errlen)
{
	return fit_logistic(s, rho, C, 1, out, err, errlen);
}

int mdk_lopp_fit_with(const struct mdk_lopp_set *s, double rho,
		      const struct mdk_lopp_fit_opts *o,
		      struct mdk_lopp_model **out, char *err, size_t errlen)
{
	size_t n = mdk_lopp_set_size(s), pos = mdk_lopp_set_positives(s);
	double pw = o->pos_weight, C = o->C;
	int ret;

	*out = NULL;
	ret = fit_check(s, rho, &C, err, errlen);
	if (ret)
		return ret;
	if (isnan(pw) || isinf(pw))
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: fit: positive weight %g: expected a finite number",
			pw);
	if (pw == 0)
		pw = 1;
	else if (pw < 0)
		pw = (double)(n - pos) / (double)pos;
	switch (o->kind) {
	case MDK_LOPP_LOGISTIC:
		return fit_logistic(s, rho, C, pw, out, err, errlen);
	case MDK_LOPP_TREES:
		return mdk__lopp_fit_trees(s, rho, o, pw, out, err, errlen);
	}
	return mdk_err(
		err, errlen, -EINVAL,
		"lopp: fit: model kind %d: expected logistic (0) or trees (1)",
		(int)o->kind);
}
