// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's gradient-boosted trees, as scored: an XGBoost model (its own
 * UBJSON format, the payload of a version 2 model file) is loaded once
 * into a booster, dumped as text, and the dump's trees are flattened into
 * one node array that mdk__lopp_trees_score() walks.  Walking is what
 * makes the lopp curve affordable: one prediction call per access costs
 * XGBoost's per-call overhead (a JSON config parse and a proxy matrix),
 * while a walk of 100 trees of depth 6 is at most 600 comparisons.
 *
 * The dump prints every split and leaf with max_digits10 digits, so the
 * floats are XGBoost's own; a split sends x < split to "yes", a missing
 * (NaN) feature to "missing", as XGBoost does.  Leaves add up in float
 * and the margin goes through the logistic function, base_score being
 * 0.5 (margin 0) for every model mdk trains.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xgboost/c_api.h>

#include "lopp_int.h"

struct node {
	int32_t feat; /* -1: a leaf */
	float v; /* split, or leaf value */
	uint32_t yes, no, missing; /* indices into the node array */
};

struct mdk__lopp_trees {
	size_t ntrees, nnodes;
	uint32_t *root;
	uint32_t *size; /* nodes of each tree: a bound on any walk */
	struct node *n;
};

void mdk__lopp_trees_free(struct mdk__lopp_trees *t)
{
	if (!t)
		return;
	free(t->root);
	free(t->size);
	free(t->n);
	free(t);
}

float mdk__lopp_trees_margin(const struct mdk__lopp_trees *t, const float *x)
{
	float sum = 0;
	size_t i;

	for (i = 0; i < t->ntrees; i++) {
		const struct node *n = &t->n[t->root[i]];
		uint32_t steps = t->size[i];

		while (n->feat >= 0 && steps--) {
			float v = x[n->feat];

			n = &t->n[isnan(v) ? n->missing :
				  v < n->v ? n->yes :
					     n->no];
		}
		sum += n->v;
	}
	return sum;
}

double mdk__lopp_trees_score(const struct mdk__lopp_trees *t, const float *x)
{
	double z = mdk__lopp_trees_margin(t, x);

	if (isnan(z))
		return 0.5;
	if (z >= 0)
		return 1.0 / (1.0 + exp(-z));
	return exp(z) / (1.0 + exp(z));
}

/* One "ID:[fK<V] yes=A,no=B,missing=C" or "ID:leaf=V" line; 0 or -1. */
static int parse_line(const char *s, uint32_t *id, struct node *n)
{
	char *end;
	unsigned long u;
	unsigned int a, b, c;
	int used = 0;

	while (*s == '\t')
		s++;
	u = strtoul(s, &end, 10);
	if (end == s || *end != ':' || u > 65535)
		return -1;
	*id = (uint32_t)u;
	s = end + 1;
	if (!strncmp(s, "leaf=", 5)) {
		n->feat = -1;
		n->v = strtof(s + 5, &end);
		return end == s + 5 || *end || !isfinite(n->v) ? -1 : 0;
	}
	if (strncmp(s, "[f", 2))
		return -1;
	u = strtoul(s + 2, &end, 10);
	if (end == s + 2 || *end != '<' || u >= MDK_LOPP_FEATURES)
		return -1;
	n->feat = (int32_t)u;
	s = end + 1;
	n->v = strtof(s, &end);
	if (end == s || isnan(n->v))
		return -1;
	if (sscanf(end, "] yes=%u,no=%u,missing=%u%n", &a, &b, &c, &used) !=
		    3 ||
	    end[used])
		return -1;
	n->yes = a, n->no = b, n->missing = c;
	return 0;
}

/* 1 + the largest node id of the dump @s, 0 if none or beyond 2^16. */
static size_t id_span(const char *s)
{
	size_t span = 0;

	while (*s) {
		unsigned long id;
		char *end;

		while (*s == '\t')
			s++;
		id = strtoul(s, &end, 10);
		if (end == s || id >= 65536)
			return 0;
		if (id + 1 > span)
			span = id + 1;
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	return span;
}

/*
 * Tree @i's dump @s appended to @t's nodes, indexed by node id (a pruned
 * tree may leave ids unused: no split may lead to one).  0, -EINVAL or
 * -ENOMEM.
 */
static int add_tree(struct mdk__lopp_trees *t, size_t i, const char *s)
{
	size_t base = t->nnodes, cnt = id_span(s), k;
	char line[256];
	struct node *nn;

	if (!cnt)
		return -EINVAL;
	nn = realloc(t->n, (base + cnt) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	t->n = nn;
	for (k = 0; k < cnt; k++)
		nn[base + k].feat = -2; /* not seen yet */
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		struct node n = { 0 };
		uint32_t id;

		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, s, len);
		line[len] = '\0';
		if (parse_line(line, &id, &n) || id >= cnt ||
		    nn[base + id].feat != -2)
			return -EINVAL;
		if (n.feat >= 0) {
			if (n.yes >= cnt || n.no >= cnt || n.missing >= cnt)
				return -EINVAL;
			n.yes += base, n.no += base, n.missing += base;
		}
		nn[base + id] = n;
		s += len + (eol ? 1 : 0);
	}
	/* The root is a node, and every split leads to nodes. */
	if (nn[base].feat == -2)
		return -EINVAL;
	for (k = 0; k < cnt; k++)
		if (nn[base + k].feat >= 0 &&
		    (nn[nn[base + k].yes].feat == -2 ||
		     nn[nn[base + k].no].feat == -2 ||
		     nn[nn[base + k].missing].feat == -2))
			return -EINVAL;
	t->root[i] = (uint32_t)base;
	t->size[i] = (uint32_t)cnt;
	t->nnodes = base + cnt;
	return 0;
}

/* The booster's trees.  0, -EINVAL (a dump we cannot read) or -ENOMEM. */
static int flatten(BoosterHandle h, struct mdk__lopp_trees **out, char *err,
		   size_t errlen)
{
	struct mdk__lopp_trees *t;
	const char **dump;
	bst_ulong n, i;
	int ret = 0;

	if (XGBoosterDumpModelEx(h, "", 0, "text", &n, &dump))
		return mdk_err(err, errlen, -EINVAL, "XGBoost: %s",
			       XGBGetLastError());
	t = calloc(1, sizeof(*t));
	if (!t)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	t->ntrees = n;
	t->root = calloc(n ? n : 1, sizeof(*t->root));
	t->size = calloc(n ? n : 1, sizeof(*t->size));
	if (!t->root || !t->size)
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i++)
		ret = add_tree(t, i, dump[i]);
	if (ret) {
		mdk__lopp_trees_free(t);
		if (ret == -ENOMEM)
			return mdk_err(err, errlen, ret, "out of memory");
		return mdk_err(
			err, errlen, ret,
			"XGBoost's dump of tree %llu: not a tree of the %d features",
			(unsigned long long)i - 1, MDK_LOPP_FEATURES);
	}
	*out = t;
	return 0;
}

int mdk__lopp_trees_load(const void *payload, size_t len,
			 struct mdk__lopp_trees **out, char *err, size_t errlen)
{
	BoosterHandle h;
	bst_ulong nf = 0;
	int ret;

	*out = NULL;
	if (XGBoosterCreate(NULL, 0, &h))
		return mdk_err(err, errlen, -ENOMEM, "XGBoost: %s",
			       XGBGetLastError());
	if (XGBoosterLoadModelFromBuffer(h, payload, len)) {
		ret = mdk_err(err, errlen, -EINVAL,
			      "XGBoost refused the model: %s",
			      XGBGetLastError());
		goto out;
	}
	if (XGBoosterGetNumFeature(h, &nf) || nf > MDK_LOPP_FEATURES) {
		ret = mdk_err(err, errlen, -EINVAL,
			      "XGBoost's model has %llu features, expected %d",
			      (unsigned long long)nf, MDK_LOPP_FEATURES);
		goto out;
	}
	ret = flatten(h, out, err, errlen);
out:
	XGBoosterFree(h);
	return ret;
}
