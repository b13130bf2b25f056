// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl simulate: the exact simulation of given settings over a trace,
 * one setting at a time; the same operating points as mdkctl mpc
 * (Documentation/mdk.rst, "Reading an MPC"), or for lru and opt the
 * misses of mdkctl mrc.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/err.h>
#include <mdk/mpc.h>
#include <mdk/mrc.h>
#include <mdk/sim.h>
#include <mdk/trace.h>

#include "analysis.h"
#include "mdkctl.h"
#include "report.h"
#include "tier_curve.h"

static int simulate_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl simulate TRACE --policy SPEC[,SPEC...] [--savings occupancy|paper]\n"
		"                       [--csv | -j] [--windows] [--score-from W]\n"
		"SPEC: age:T=4, vmin:T=4, paw:P=2,wait=2, pace:P=4,A=2, opp:rho=0.01,\n"
		"      lru:k=1000, opt:k=1000 (values may be grids: T=1-10, rho=0.01/0.02)\n"
		"       mdkctl simulate TRACE --tiers LIST|FILE [--window TIME | --per-access]\n"
		"                       [--target-stall SHARE] [--csv] tage:T1=..|tpace:P=..,A=..\n");
	return 2;
}

/* Simulate every setting of @p over @trace, SIM_GROUP settings a pass. */
#define SIM_GROUP 16

/* One chunk into @n simulations, with keys from @k when keyed. */
static int simulate_chunk(struct mdk_sim **sims, size_t n, struct mdk_keyer *k,
			  const struct mdk_trace_chunk *c, uint32_t **keys,
			  char *err, size_t errlen)
{
	size_t i;
	int ret = 0;

	if (k) {
		uint32_t *nk = realloc(*keys, (c->n ? c->n : 1) * sizeof(*nk));

		if (!nk)
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		*keys = nk;
		ret = mdk_keyer_keys(k, c->window, c->ids, c->pages, c->n, nk,
				     err, errlen);
	}
	for (i = 0; i < n && !ret; i++)
		ret = k ? mdk_sim_add_keys(sims[i], c->window, c->pages, *keys,
					   c->n, err, errlen) :
			  mdk_sim_add(sims[i], c->window, c->pages, c->n, err,
				      errlen);
	return ret;
}

/* Each window of a simulation, for --windows. */
static void print_windows(const struct mdk_sim *sim)
{
	struct mdk_sim_window sw;
	char rb[16];

	printf("  %6s %10s %10s %10s %9s %10s\n", "window", "accessed",
	       "footprint", "promoted", "rate", "reclaimed");
	for (uint32_t w = 0; !mdk_sim_window(sim, w, &sw); w++)
		printf("  %6u %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %9s %10" PRIu64 "\n",
		       w, sw.accessed, sw.footprint, sw.promotions,
		       mdkctl_pct(sw.rate, rb, sizeof(rb)), sw.reclaimed);
}

static int simulate_policy(const char *trace, struct mdk_policy *p,
			   unsigned int flags, uint32_t from,
			   enum mdkctl_out_mode mode, bool per_window,
			   struct json_object *j)
{
	size_t ns, base, i;
	uint32_t W;
	char err[512];
	int ret = 0;

	{
		struct mdkctl_trace_meta m;

		if (mdkctl_trace_meta(trace, &m))
			return -1;
		W = m.windows;
	}
	if (mdk_policy_resolve(p, W, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return -1;
	}
	ns = mdk_policy_settings(p);
	for (base = 0; base < ns && !ret; base += SIM_GROUP) {
		size_t n = ns - base < SIM_GROUP ? ns - base : SIM_GROUP;
		struct mdk_sim *sims[SIM_GROUP] = { 0 };
		struct mdk_trace_reader *r = NULL;
		struct mdk_keyer *k = NULL;
		struct mdk_trace_chunk c;
		uint32_t *keys = NULL;

		for (i = 0; i < n && !ret; i++) {
			ret = mdk_sim_new(p, base + i, flags, &sims[i], err,
					  sizeof(err));
			if (!ret)
				mdk_sim_score_from(sims[i], from);
		}
		if (!ret)
			ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r,
						    err, sizeof(err));
		if (!ret && mdk_policy_keyed(p))
			ret = mdk_keyer_new(p, &k, err, sizeof(err));
		while (!ret && (ret = mdk_trace_reader_next(r, &c, err,
							    sizeof(err))) > 0)
			ret = simulate_chunk(sims, n, k, &c, &keys, err,
					     sizeof(err));
		free(keys);
		mdk_keyer_free(k);
		for (i = 0; i < n && !ret; i++) {
			struct mdk_point pt;

			ret = mdk_sim_finish(sims[i], W, &pt, err, sizeof(err));
			if (ret)
				break;
			if (mode == MDKCTL_OUT_CSV)
				mdkctl_point_csv(stdout, &pt);
			else if (mode == MDKCTL_OUT_JSON)
				mdkd_json_push(j, mdkctl_point_json(&pt));
			else
				mdkctl_point_human(&pt);
			if (per_window && mode == MDKCTL_OUT_HUMAN)
				print_windows(sims[i]);
		}
		for (i = 0; i < n; i++)
			mdk_sim_free(sims[i]);
		mdk_trace_reader_close(r);
	}
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return -1;
	}
	return 0;
}

/* Cache policies: their misses at the given sizes, as mdkctl mrc. */
static int simulate_cache(const char *trace, struct mdk_policy *p,
			  enum mdkctl_out_mode mode, struct json_object *j)
{
	struct mdk_mrc_point *pts;
	size_t n, i;
	char err[512];

	if (mdk_mrc_run(trace, &p, 1, &pts, &n, NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (mode == MDKCTL_OUT_CSV)
			mdkctl_mrc_csv(stdout, &pts[i]);
		else if (mode == MDKCTL_OUT_JSON)
			mdkd_json_push(j, mdkctl_mrc_json(&pts[i]));
		else
			printf("%s:k=%-16" PRIu64 " misses %-12" PRIu64
			       " miss ratio %.6g\n",
			       pts[i].policy, pts[i].size, pts[i].misses,
			       pts[i].miss_ratio);
	}
	free(pts);
	return 0;
}

struct simulate_opts {
	const char *list; /* --policy */
	enum mdkctl_out_mode mode;
	unsigned int flags; /* --savings */
	bool per_window;
	uint32_t score_from; /* --score-from: the first window scored */
	const char *trace;
};

static int parse_simulate(int argc, char **argv, struct simulate_opts *o)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "savings", required_argument, NULL, 's' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "windows", no_argument, NULL, 'w' },
		{ "score-from", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	*o = (struct simulate_opts){ .mode = MDKCTL_OUT_HUMAN };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			o->list = optarg;
			break;
		case 's':
			if (mdkctl_parse_savings(optarg, &o->flags))
				return 2;
			break;
		case 'c':
			o->mode = MDKCTL_OUT_CSV;
			break;
		case 'j':
			o->mode = MDKCTL_OUT_JSON;
			break;
		case 'w':
			o->per_window = true;
			break;
		case 'F':
			if (mdkctl_parse_window_index(optarg, "--score-from",
						      &o->score_from))
				return 2;
			break;
		default:
			return simulate_usage();
		}
	}
	if (optind != argc - 1 || !o->list)
		return simulate_usage();
	o->trace = argv[optind];
	return 0;
}

/* How many of @pols are cache policies: none or all; -1 after a message. */
static long count_cache(struct mdk_policy **pols, size_t np)
{
	size_t i, ncache = 0;

	for (i = 0; i < np; i++)
		ncache += mdk_policy_kind(pols[i]) == MDK_POLICY_CACHE;
	if (ncache && ncache != np) {
		fprintf(stderr,
			"mdkctl: --policy: simulate lru/opt apart from window policies (their outputs differ; see mdkctl mrc)\n");
		return -1;
	}
	return (long)ncache;
}

/* The JSON document and its array of points; 0, or 1 after a message. */
static int json_doc(const struct simulate_opts *o, struct json_object **doc,
		    struct json_object **j)
{
	*doc = json_object_new_object();
	*j = json_object_new_array();
	if (!*doc || !*j) {
		fprintf(stderr, "mdkctl: out of memory\n");
		json_object_put(*doc);
		json_object_put(*j);
		*doc = NULL;
		return 1;
	}
	mdkd_json_add_str(*doc, "trace", o->trace);
	mdkd_json_add_str(*doc, "savings",
			  o->flags & MDK_SAVINGS_PAPER ? "paper" : "occupancy");
	mdkd_json_add_u64(*doc, "score_from", o->score_from);
	mdkd_json_add(*doc, "points", *j);
	return 0;
}

int mdkctl_cmd_simulate(int argc, char **argv)
{
	struct json_object *doc = NULL, *j = NULL;
	struct mdk_policy **pols = NULL;
	struct simulate_opts o;
	size_t np = 0, i;
	char err[512];
	long ncache;
	int rc;

	/* Tiered curves in stall time: cli/tier_curve.c. */
	if (mdkctl_has_tiers(argc, argv))
		return mdkctl_tier_cmd(argc, argv, true);

	rc = parse_simulate(argc, argv, &o);
	if (rc)
		return rc;
	if (mdk_policy_parse_list(o.list, &pols, &np, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: --policy: %s\n", err);
		return 2;
	}
	rc = 2;
	ncache = count_cache(pols, np);
	if (ncache < 0)
		goto out;
	if (ncache && o.score_from) {
		fprintf(stderr,
			"mdkctl: --score-from: lru and opt have no windows to score (see mdkctl mrc)\n");
		goto out;
	}
	rc = 1;
	if (o.score_from && o.mode == MDKCTL_OUT_HUMAN)
		printf("scored from window %u (earlier windows make the state only)\n",
		       o.score_from);
	if (o.mode == MDKCTL_OUT_CSV)
		puts(ncache ? MDKCTL_MRC_CSV_HEADER : MDKCTL_MPC_CSV_HEADER);
	if (o.mode == MDKCTL_OUT_JSON && json_doc(&o, &doc, &j))
		goto out;
	for (i = 0; i < np; i++)
		if (ncache ? simulate_cache(o.trace, pols[i], o.mode, j) :
			     simulate_policy(o.trace, pols[i], o.flags,
					     o.score_from, o.mode, o.per_window,
					     j))
			goto out;
	rc = 0;
out:
	/* The points simulated so far, also after an error (as before). */
	if (doc && mdkd_json_emit(doc))
		rc = 1;
	mdkctl_policies_free(pols, np);
	return rc;
}
