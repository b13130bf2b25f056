// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl train: fit an L-OPP model (mdk/lopp.h) to OPP(rho)'s decisions
 * over a trace, write it as a model file and report how its decisions
 * match OPP's on the held-out last windows.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

#include "analysis.h"
#include "mdkctl.h"
#include "parse.h"
#include "report.h"

static int train_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl train TRACE --rho R -o MODEL [--holdout F] [--samples N]\n"
		"                    [--cost C] [--theta T] [--train-until W | --train-frac F] [-j]\n"
		"                    [--model trees|logistic] [--trees N] [--depth D] [--eta E]\n"
		"                    [--pos-weight W|auto]\n"
		"R, F, T: fractions such as 0.01 or 1%%; defaults: --holdout 20%%,\n"
		"--samples 512K rows, --cost 1, --theta 0.5, every window, --model logistic,\n"
		"--trees 100, --depth 6, --eta 0.3, --pos-weight 1.\n");
	return 2;
}

static struct json_object *quality_json(const struct mdk_lopp_quality *q)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "rows", q->rows);
	mdkd_json_add_u64(o, "positives", q->positives);
	mdkd_json_add_u64(o, "tp", q->tp);
	mdkd_json_add_u64(o, "fp", q->fp);
	mdkd_json_add_u64(o, "fn", q->fn);
	mdkd_json_add_double(o, "precision", q->precision);
	mdkd_json_add_double(o, "recall", q->recall);
	mdkd_json_add_double(o, "auc", q->auc);
	return o;
}

static void quality_text(const char *name, const struct mdk_lopp_quality *q)
{
	printf("%-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
	       " %10" PRIu64 " %9.4f %9.4f %9.4f\n",
	       name, q->rows, q->positives, q->tp, q->fp, q->fn, q->precision,
	       q->recall, q->auc);
}

struct train_opts {
	struct mdk_lopp_train_opts lo;
	const char *out, *trace;
	bool json, has_rho;
	uint32_t until; /* --train-until: windows 0..until-1 (0: all) */
	double frac; /* --train-frac: that fraction of the windows (0: all) */
};

/* --train-until W or --train-frac F into @o; 0, or 2 after a message. */
static int train_range(int opt, const char *arg, struct train_opts *o)
{
	if (o->until || o->frac) {
		fprintf(stderr,
			"mdkctl: train: --train-until and --train-frac given twice or together\n");
		return 2;
	}
	if (opt == 'U') {
		if (mdkctl_parse_window_index(arg, "--train-until", &o->until))
			return 2;
		if (!o->until) {
			fprintf(stderr,
				"mdkctl: --train-until 0: the training windows 0..W-1 would be empty (expected W >= 1)\n");
			return 2;
		}
		return 0;
	}
	if (mdkctl_parse_fraction(arg, &o->frac) || !(o->frac > 0)) {
		fprintf(stderr,
			"mdkctl: --train-frac '%s': expected a fraction of the windows above 0 and at most 1 (e.g. 50%%)\n",
			arg);
		o->frac = 0;
		return 2;
	}
	return 0;
}

/* --model, --trees, --depth, --eta, --pos-weight; 0 or 2. */
static int model_opt(int opt, const char *arg, struct mdk_lopp_fit_opts *f)
{
	unsigned long long v;
	char *e;

	switch (opt) {
	case 'M':
		if (!strcmp(arg, "trees") || !strcmp(arg, "logistic")) {
			f->kind = arg[0] == 't' ? MDK_LOPP_TREES :
						  MDK_LOPP_LOGISTIC;
			return 0;
		}
		fprintf(stderr,
			"mdkctl: --model '%s': expected trees or logistic\n",
			arg);
		return 2;
	case 'N':
	case 'D':
		if (mdkctl_parse_count(arg, &v) || !v ||
		    v > (opt == 'N' ? 10000u : 20u)) {
			fprintf(stderr,
				"mdkctl: --%s '%s': expected a count from 1 to %u\n",
				opt == 'N' ? "trees" : "depth", arg,
				opt == 'N' ? 10000u : 20u);
			return 2;
		}
		*(opt == 'N' ? &f->trees : &f->depth) = (unsigned int)v;
		return 0;
	case 'E':
		f->eta = strtod(arg, &e);
		if (*e || e == arg || !(f->eta > 0 && f->eta <= 1)) {
			fprintf(stderr,
				"mdkctl: --eta '%s': expected a learning rate above 0 and at most 1\n",
				arg);
			return 2;
		}
		return 0;
	}
	if (!strcmp(arg, "auto")) {
		f->pos_weight = -1;
		return 0;
	}
	f->pos_weight = strtod(arg, &e);
	if (*e || e == arg || !(f->pos_weight > 0) ||
	    !isfinite(f->pos_weight)) {
		fprintf(stderr,
			"mdkctl: --pos-weight '%s': expected a positive number or auto (negatives / positives)\n",
			arg);
		return 2;
	}
	return 0;
}

/* One option into @o; 0, or 2 after a message (or the usage). */
static int train_opt(int opt, const char *arg, struct train_opts *o)
{
	unsigned long long v;
	char *e;

	switch (opt) {
	case 'r':
		/* OPP keeps rho in parts per million (Documentation/mdk.rst) */
		if (mdkctl_parse_fraction(arg, &o->lo.rho) ||
		    fabs(o->lo.rho * 1e6 - round(o->lo.rho * 1e6)) > 1e-6) {
			fprintf(stderr,
				"mdkctl: --rho '%s': expected a rate such as 0.01 or 1%% (whole parts per million)\n",
				arg);
			return 2;
		}
		o->has_rho = true;
		return 0;
	case 'o':
		o->out = arg;
		return 0;
	case 'H':
		if (mdkctl_parse_fraction(arg, &o->lo.holdout) ||
		    o->lo.holdout > 0.9) {
			fprintf(stderr,
				"mdkctl: --holdout '%s': expected a fraction of the windows from 0 to 0.9 (or 90%%)\n",
				arg);
			return 2;
		}
		return 0;
	case 'n':
		if (mdkctl_parse_count(arg, &v) || !v || v > (1ull << 30)) {
			fprintf(stderr,
				"mdkctl: --samples '%s': expected a row count from 1 to 1G (e.g. 512K)\n",
				arg);
			return 2;
		}
		o->lo.max_samples = (size_t)v;
		return 0;
	case 'C':
		o->lo.C = strtod(arg, &e);
		if (*e || e == arg || !(o->lo.C > 0) || !isfinite(o->lo.C)) {
			fprintf(stderr,
				"mdkctl: --cost '%s': expected a positive number (liblinear's C)\n",
				arg);
			return 2;
		}
		return 0;
	case 't':
		if (mdkctl_parse_fraction(arg, &o->lo.theta) ||
		    !(o->lo.theta > 0)) {
			fprintf(stderr,
				"mdkctl: --theta '%s': expected a score threshold above 0 and at most 1\n",
				arg);
			return 2;
		}
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'M':
	case 'N':
	case 'D':
	case 'E':
	case 'W':
		return model_opt(opt, arg, &o->lo.fit);
	case 'U':
	case 'f':
		return train_range(opt, arg, o);
	}
	return train_usage();
}

/* 0, or 2 after a message or the usage. */
static int parse_train(int argc, char **argv, struct train_opts *o)
{
	static const struct option opts[] = {
		{ "rho", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "holdout", required_argument, NULL, 'H' },
		{ "samples", required_argument, NULL, 'n' },
		{ "cost", required_argument, NULL, 'C' },
		{ "theta", required_argument, NULL, 't' },
		{ "train-until", required_argument, NULL, 'U' },
		{ "train-frac", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "model", required_argument, NULL, 'M' },
		{ "trees", required_argument, NULL, 'N' },
		{ "depth", required_argument, NULL, 'D' },
		{ "eta", required_argument, NULL, 'E' },
		{ "pos-weight", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt, ret;

	*o = (struct train_opts){ .lo = { .holdout = 0.2, .theta = 0.5 } };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:jh", opts, NULL)) != -1) {
		ret = train_opt(opt, optarg, o);
		if (ret)
			return ret;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mdkctl: train: expected one TRACE\n");
		return train_usage();
	}
	if (!o->has_rho || !o->out) {
		fprintf(stderr, "mdkctl: train: expected %s\n",
			!o->has_rho ? "--rho R (the labels' OPP rate limit)" :
				      "-o MODEL (the model file to write)");
		return train_usage();
	}
	o->trace = argv[optind];
	return 0;
}

/* The fit and its quality as JSON or text; 0, or 1 if not written. */
static int train_report(const struct train_opts *o,
			const struct mdk_lopp_train_report *rep)
{
	if (o->json) {
		struct json_object *j = json_object_new_object();

		mdkd_json_add_str(j, "trace", o->trace);
		mdkd_json_add_str(j, "model", o->out);
		mdkd_json_add_double(j, "rho", o->lo.rho);
		mdkd_json_add_double(j, "theta", o->lo.theta);
		mdkd_json_add_double(j, "holdout", o->lo.holdout);
		mdkd_json_add_str(j, "kind",
				  o->lo.fit.kind == MDK_LOPP_TREES ?
					  "trees" :
					  "logistic");
		mdkd_json_add_u64(j, "windows", rep->windows);
		mdkd_json_add_u64(j, "train_until", rep->windows);
		mdkd_json_add_u64(j, "split", rep->split);
		mdkd_json_add_u64(j, "intervals", rep->intervals);
		mdkd_json_add_double(j, "sample", rep->sample);
		mdkd_json_add(j, "train", quality_json(&rep->train));
		mdkd_json_add(j, "test", quality_json(&rep->test));
		return mdkd_json_emit(j) ? 1 : 0;
	}
	printf("%s: %u windows%s, %" PRIu64
	       " intervals, %.1f%% of pages sampled; windows %u.. held out\n",
	       o->trace, rep->windows,
	       o->until ? " (the leading part: the trace cut there)" : "",
	       rep->intervals, 100 * rep->sample, rep->split);
	printf("%-8s %10s %10s %10s %10s %10s %9s %9s %9s\n", "set", "rows",
	       "reclaim", "tp", "fp", "fn", "precision", "recall", "auc");
	quality_text("train", &rep->train);
	quality_text("held-out", &rep->test);
	printf("model: %s (%sOPP rho %g, decisions at theta %g)\n", o->out,
	       o->lo.fit.kind == MDK_LOPP_TREES ? "trees, " : "", o->lo.rho,
	       o->lo.theta);
	return 0;
}

int mdkctl_cmd_train(int argc, char **argv)
{
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m = NULL;
	struct train_opts o;
	char err[512];
	int rc;

	rc = parse_train(argc, argv, &o);
	if (rc)
		return rc;
	if (o.frac) {
		struct mdkctl_trace_meta meta;

		if (mdkctl_trace_meta(o.trace, &meta))
			return 1;
		/* ceil(frac W): at least one window */
		o.until = (uint32_t)ceil(o.frac * meta.windows - 1e-9);
		if (!o.until)
			o.until = 1;
	}
	if (mdk_lopp_train_until(o.trace, &o.lo, o.until, &m, &rep, err,
				 sizeof(err))) {
		fprintf(stderr, "mdkctl: train: %s\n", err);
		return 1;
	}
	rc = 1;
	if (mdk_lopp_model_write(m, o.out, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: train: %s\n", err);
		goto out;
	}
	rc = train_report(&o, &rep);
out:
	mdk_lopp_model_free(m);
	return rc;
}
