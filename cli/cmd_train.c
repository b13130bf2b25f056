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

#include "mdkctl.h"
#include "parse.h"
#include "report.h"

static int train_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl train TRACE --rho R -o MODEL [--holdout F] [--samples N]\n"
		"                    [--cost C] [--theta T] [-j]\n"
		"R, F, T: fractions such as 0.01 or 1%%; defaults: --holdout 20%%,\n"
		"--samples 512K rows, --cost 1, --theta 0.5.\n");
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

int mdkctl_cmd_train(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rho", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "holdout", required_argument, NULL, 'H' },
		{ "samples", required_argument, NULL, 'n' },
		{ "cost", required_argument, NULL, 'C' },
		{ "theta", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mdk_lopp_train_opts o = { .holdout = 0.2, .theta = 0.5 };
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m = NULL;
	const char *out = NULL, *trace;
	bool json = false, has_rho = false;
	unsigned long long v;
	char err[512], *e;
	int opt, rc = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			/* OPP keeps rho in parts per million (mdk-policy(7)) */
			if (mdkctl_parse_fraction(optarg, &o.rho) ||
			    fabs(o.rho * 1e6 - round(o.rho * 1e6)) > 1e-6) {
				fprintf(stderr,
					"mdkctl: --rho '%s': expected a rate such as 0.01 or 1%% (whole parts per million)\n",
					optarg);
				return 2;
			}
			has_rho = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'H':
			if (mdkctl_parse_fraction(optarg, &o.holdout) ||
			    o.holdout > 0.9) {
				fprintf(stderr,
					"mdkctl: --holdout '%s': expected a fraction of the windows from 0 to 0.9 (or 90%%)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (mdkctl_parse_count(optarg, &v) || !v ||
			    v > (1ull << 30)) {
				fprintf(stderr,
					"mdkctl: --samples '%s': expected a row count from 1 to 1G (e.g. 512K)\n",
					optarg);
				return 2;
			}
			o.max_samples = (size_t)v;
			break;
		case 'C':
			o.C = strtod(optarg, &e);
			if (*e || e == optarg || !(o.C > 0) || !isfinite(o.C)) {
				fprintf(stderr,
					"mdkctl: --cost '%s': expected a positive number (liblinear's C)\n",
					optarg);
				return 2;
			}
			break;
		case 't':
			if (mdkctl_parse_fraction(optarg, &o.theta) ||
			    !(o.theta > 0)) {
				fprintf(stderr,
					"mdkctl: --theta '%s': expected a score threshold above 0 and at most 1\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		default:
			return train_usage();
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mdkctl: train: expected one TRACE\n");
		return train_usage();
	}
	if (!has_rho || !out) {
		fprintf(stderr, "mdkctl: train: expected %s\n",
			!has_rho ? "--rho R (the labels' OPP rate limit)" :
				   "-o MODEL (the model file to write)");
		return train_usage();
	}
	trace = argv[optind];
	if (mdk_lopp_train(trace, &o, &m, &rep, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: train: %s\n", err);
		return 1;
	}
	if (mdk_lopp_model_write(m, out, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: train: %s\n", err);
		goto out;
	}
	if (json) {
		struct json_object *j = json_object_new_object();

		mdkd_json_add_str(j, "trace", trace);
		mdkd_json_add_str(j, "model", out);
		mdkd_json_add_double(j, "rho", o.rho);
		mdkd_json_add_double(j, "theta", o.theta);
		mdkd_json_add_double(j, "holdout", o.holdout);
		mdkd_json_add_u64(j, "windows", rep.windows);
		mdkd_json_add_u64(j, "split", rep.split);
		mdkd_json_add_u64(j, "intervals", rep.intervals);
		mdkd_json_add_double(j, "sample", rep.sample);
		mdkd_json_add(j, "train", quality_json(&rep.train));
		mdkd_json_add(j, "test", quality_json(&rep.test));
		if (mdkd_json_emit(j))
			goto out;
	} else {
		printf("%s: %u windows, %" PRIu64
		       " intervals, %.1f%% of pages sampled; windows %u.. held out\n",
		       trace, rep.windows, rep.intervals, 100 * rep.sample,
		       rep.split);
		printf("%-8s %10s %10s %10s %10s %10s %9s %9s %9s\n", "set",
		       "rows", "reclaim", "tp", "fp", "fn", "precision",
		       "recall", "auc");
		quality_text("train", &rep.train);
		quality_text("held-out", &rep.test);
		printf("model: %s (OPP rho %g, decisions at theta %g)\n", out,
		       o.rho, o.theta);
	}
	rc = 0;
out:
	mdk_lopp_model_free(m);
	return rc;
}
