// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's gradient-boosted trees (mdk_lopp_fit_with(), mdk/lopp.h),
 * fitted by XGBoost's C API: binary:logistic on the raw features (trees
 * need no standardisation), tree_method hist, one thread (the curves
 * already use the machine's cores), base_score 0.5 so that the margin is
 * the sum of the leaves alone (lopp/trees.c walks them), the rare
 * positive class weighted by scale_pos_weight.  The model is kept as
 * XGBoost's UBJSON, the payload of its version 2 file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xgboost/c_api.h>

#include <mdk/lopp.h>

#include "learn_int.h"

#define NF MDK_LOPP_FEATURES

static int xerr(char *err, size_t errlen, const char *what)
{
	return mdk_err(err, errlen, -EINVAL, "lopp: fit: XGBoost: %s: %s", what,
		       XGBGetLastError());
}

/* @s's rows and labels, dense, for XGBoost.  0 or -ENOMEM. */
static int dense(const struct mdk_lopp_set *s, size_t n, float **x, float **y)
{
	size_t i;

	*x = malloc(n * NF * sizeof(**x));
	*y = malloc(n * sizeof(**y));
	if (!*x || !*y)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		bool lab;
		const float *r = mdk__lopp_set_row(s, i, &lab);

		memcpy(*x + i * NF, r, NF * sizeof(*r));
		(*y)[i] = lab ? 1.0f : 0.0f;
	}
	return 0;
}

static int params(BoosterHandle h, const struct mdk_lopp_fit_opts *o,
		  double pos_weight, char *err, size_t errlen)
{
	char depth[32], eta[32], spw[32];
	const char *kv[][2] = {
		{ "objective", "binary:logistic" },
		{ "tree_method", "hist" },
		{ "nthread", "1" },
		{ "base_score", "0.5" },
		{ "verbosity", "0" },
		{ "seed", "0" },
		{ "max_depth", depth },
		{ "eta", eta },
		{ "scale_pos_weight", spw },
	};
	size_t i;

	snprintf(depth, sizeof(depth), "%u", o->depth ? o->depth : 6);
	snprintf(eta, sizeof(eta), "%.17g", o->eta > 0 ? o->eta : 0.3);
	snprintf(spw, sizeof(spw), "%.17g", pos_weight);
	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (XGBoosterSetParam(h, kv[i][0], kv[i][1]))
			return xerr(err, errlen, kv[i][0]);
	return 0;
}

int mdk__lopp_fit_trees(const struct mdk_lopp_set *s, double rho,
			const struct mdk_lopp_fit_opts *o, double pos_weight,
			struct mdk_lopp_model **out, char *err, size_t errlen)
{
	size_t n = mdk_lopp_set_size(s), pos = mdk_lopp_set_positives(s);
	unsigned int rounds = o->trees ? o->trees : 100, it;
	DMatrixHandle d = NULL;
	BoosterHandle h = NULL;
	float *x = NULL, *y = NULL;
	const char *buf;
	bst_ulong len;
	int ret;

	if (rounds > 10000 || o->depth > 20 || !(o->eta >= 0 && o->eta <= 1))
		return mdk_err(
			err, errlen, -EINVAL,
			"lopp: fit: %u trees of depth %u, eta %g: expected at most 10000 trees, depth at most 20, eta in [0, 1]",
			rounds, o->depth, o->eta);
	if (dense(s, n, &x, &y)) {
		ret = mdk_err(err, errlen, -ENOMEM,
			      "lopp: fit: out of memory for %zu rows", n);
		goto out;
	}
	if (XGDMatrixCreateFromMat(x, n, NF, NAN, &d)) {
		ret = xerr(err, errlen, "rows");
		goto out;
	}
	if (XGDMatrixSetFloatInfo(d, "label", y, n) ||
	    XGBoosterCreate(&d, 1, &h)) {
		ret = xerr(err, errlen, "labels");
		goto out;
	}
	ret = params(h, o, pos_weight, err, errlen);
	for (it = 0; !ret && it < rounds; it++)
		if (XGBoosterUpdateOneIter(h, (int)it, d))
			ret = xerr(err, errlen, "training");
	if (ret)
		goto out;
	if (XGBoosterSaveModelToBuffer(h, "{\"format\": \"ubj\"}", &len,
				       &buf)) {
		ret = xerr(err, errlen, "saving the model");
		goto out;
	}
	ret = mdk__lopp_model_new_trees(rho, n, pos, o->trace, buf, len, out,
					err, errlen);
out:
	if (h)
		XGBoosterFree(h);
	if (d)
		XGDMatrixFree(d);
	free(x);
	free(y);
	return ret;
}
