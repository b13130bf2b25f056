// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl mpc --tiers and mdkctl simulate --tiers: a tiered curve (tage,
 * tpace) over a trace, or one setting simulated exactly, in stall time
 * (Documentation/mdk.rst, "Tiers").  cmd_mpc.c and cmd_simulate.c hand
 * their arguments here when --tiers is among them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/tier.h>

#include "analysis.h"
#include "parse.h"
#include "report.h"
#include "tier_curve.h"

struct tier_args {
	const char *tiers, *trace, *spec;
	struct mdk_tiers t;
	struct mdk_tier_opts o;
	double target; /* < 0: none */
	bool csv;
	struct mdkctl_trace_meta meta;
	bool per_access; /* D(w) = U(w) x 1 ns: shares in ns per page */
};

static int tier_usage(bool sim)
{
	fprintf(stderr,
		"usage: mdkctl %s TRACE --tiers LIST|FILE [--window TIME | --per-access]\n"
		"                  [--target-stall SHARE] [--csv] %s\n",
		sim ? "simulate" : "mpc", sim ? "SPEC" : "[SPEC]");
	return 2;
}

/* --tiers: a tier file when one of that name exists, else a list. */
static int load_tiers(struct tier_args *a)
{
	char err[512];
	int ret;

	if (access(a->tiers, F_OK) == 0)
		ret = mdk_tiers_load(a->tiers, &a->t, err, sizeof(err));
	else
		ret = mdk_tiers_parse(a->tiers, &a->t, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mdkctl: --tiers: %s\n", err);
	return ret ? 2 : 0;
}

static int parse_share(const char *s, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end != s && *end == '%' && !end[1]) {
		x /= 100;
		end++;
	}
	if (errno || end == s || *end || !(x >= 0) || isinf(x))
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_args(int argc, char **argv, bool sim, struct tier_args *a)
{
	static const struct option opts[] = {
		{ "tiers", required_argument, NULL, 'T' },
		{ "window", required_argument, NULL, 'w' },
		{ "per-access", no_argument, NULL, 'a' },
		{ "target-stall", required_argument, NULL, 't' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	*a = (struct tier_args){ .target = -1, .spec = "tage" };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'T':
			a->tiers = optarg;
			break;
		case 'w':
			if (mdkctl_parse_window(optarg, &a->o.window_ns)) {
				fprintf(stderr,
					"mdkctl: --window '%s': expected a duration such as 10ms or 1s\n",
					optarg);
				return 2;
			}
			break;
		case 'a':
			a->o.per_access = true;
			break;
		case 't':
			if (parse_share(optarg, &a->target)) {
				fprintf(stderr,
					"mdkctl: --target-stall '%s': expected a stall share such as 0.02 or 2%%\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			a->csv = true;
			break;
		default:
			return tier_usage(sim);
		}
	}
	if (!a->tiers || optind >= argc || argc - optind > 2 ||
	    (sim && argc - optind != 2))
		return tier_usage(sim);
	if (a->o.per_access && a->o.window_ns) {
		fprintf(stderr,
			"mdkctl: --window and --per-access: give one D(w)\n");
		return 2;
	}
	a->trace = argv[optind];
	if (argc - optind == 2)
		a->spec = argv[optind + 1];
	a->o.tiers = &a->t;
	return load_tiers(a);
}

/* "T1=5,T2=none" (tage), "P=2,A=4,T2=9" (tpace) or "sigma=0.01" (topp). */
static void setting_str(const struct mdk_tier_point *p, char *buf, size_t len)
{
	char spec[128];
	const char *colon;

	mdk_tier_point_format(p, spec, sizeof(spec));
	colon = strchr(spec, ':');
	snprintf(buf, len, "%s", colon ? colon + 1 : spec);
}

/* A stall share: a percentage of D(w), or ns per accessed page. */
static const char *share(const struct tier_args *a, double x, char *buf,
			 size_t len)
{
	if (!a->per_access)
		return mdkctl_pct(x, buf, len);
	snprintf(buf, len, "%.4g", x);
	return buf;
}

static void print_header(const struct tier_args *a, bool csv)
{
	unsigned int k;

	if (csv) {
		printf("policy,setting,max_stall,mean_stall,max_rate,savings");
		for (k = 0; k < a->t.n; k++)
			printf(",promotions_%s", a->t.t[k].name);
		for (k = 0; k < a->t.n; k++)
			printf(",peak_%s", a->t.t[k].name);
		printf(",feasible%s\n", a->target >= 0 ? ",best" : "");
		return;
	}
	printf("%-1s %-10s %-24s %10s %10s %9s %8s", "", "policy", "setting",
	       "max_stall", "mean_stall", "max_rate", "savings");
	for (k = 0; k < a->t.n; k++)
		printf(" %10.10s", a->t.t[k].name);
	for (k = 0; k < a->t.n; k++) {
		char h[24];

		snprintf(h, sizeof(h), "peak_%s", a->t.t[k].name);
		printf(" %10.10s", h);
	}
	printf(" %8s\n", "feasible");
}

static void print_point(const struct tier_args *a,
			const struct mdk_tier_point *p, bool best)
{
	char set[96], r1[16], r2[16], r3[16], r4[16];
	unsigned int k;

	setting_str(p, set, sizeof(set));
	if (a->csv) {
		printf("%s,\"%s\",%.9g,%.9g,%.9g,%.9g", p->pt.policy, set,
		       p->max_stall, p->mean_stall, p->pt.max_rate,
		       p->pt.savings);
		for (k = 0; k < a->t.n; k++)
			printf(",%" PRIu64, p->tier_promotions[k]);
		for (k = 0; k < a->t.n; k++)
			printf(",%" PRIu64, p->peak[k]);
		printf(",%d%s\n", p->feasible,
		       a->target < 0 ? "" :
		       best	     ? ",1" :
				       ",0");
		return;
	}
	printf("%-1s %-10s %-24s %10s %10s %9s %8s", best ? "*" : "",
	       p->pt.policy, set, share(a, p->max_stall, r1, sizeof(r1)),
	       share(a, p->mean_stall, r2, sizeof(r2)),
	       mdkctl_pct(p->pt.max_rate, r3, sizeof(r3)),
	       mdkctl_pct(p->pt.savings, r4, sizeof(r4)));
	for (k = 0; k < a->t.n; k++)
		printf(" %10" PRIu64, p->tier_promotions[k]);
	for (k = 0; k < a->t.n; k++)
		printf(" %10" PRIu64, p->peak[k]);
	printf(" %8s\n", p->feasible ? "yes" : "no");
}

static void print_dw(const struct tier_args *a)
{
	char buf[256];

	mdk_tiers_format(&a->t, buf, sizeof(buf));
	printf("%s: %u windows; tiers %s\n", a->trace, a->meta.windows, buf);
	if (a->per_access)
		printf("D(w): accessed pages x 1 ns (stall shares in ns per accessed page)\n");
	else
		printf("D(w): %s of %g s (stall shares of it)\n",
		       a->o.window_ns ? "--window" : "the trace's window",
		       a->o.window_ns ? (double)a->o.window_ns / 1e9 :
					a->meta.window_s);
}

int mdkctl_tier_cmd(int argc, char **argv, bool sim)
{
	struct mdk_tier_point *pts = NULL, one;
	struct tier_args a;
	char err[512];
	size_t n = 1, i;
	long best;
	int rc = parse_args(argc, argv, sim, &a);

	if (rc)
		return rc;
	if (mdkctl_trace_meta(a.trace, &a.meta))
		return 1;
	a.per_access = a.o.per_access ||
		       (!a.o.window_ns && a.meta.window_s <= 0);
	if (sim)
		rc = mdk_tier_simulate(a.trace, a.spec, &a.o, &one, err,
				       sizeof(err));
	else
		rc = mdk_tier_run(a.trace, a.spec, &a.o, &pts, &n, err,
				  sizeof(err));
	if (rc) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return rc == -EINVAL || rc == -EOPNOTSUPP ? 2 : 1;
	}
	if (sim)
		pts = &one;
	best = a.target >= 0 ? mdk_tier_best(pts, n, a.target) : -1;
	if (!a.csv)
		print_dw(&a);
	print_header(&a, a.csv);
	for (i = 0; i < n; i++)
		print_point(&a, &pts[i], (long)i == best);
	if (!a.csv && a.target >= 0) {
		char r[16];

		printf("best feasible setting within a max stall share of %s: ",
		       share(&a, a.target, r, sizeof(r)));
		if (best >= 0) {
			char set[96];

			setting_str(&pts[best], set, sizeof(set));
			printf("%s:%s (marked *)\n", pts[best].pt.policy, set);
		} else {
			printf("none\n");
		}
	}
	if (!sim)
		free(pts);
	return 0;
}

bool mdkctl_has_tiers(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--tiers") ||
		    !strncmp(argv[i], "--tiers=", 8))
			return true;
	return false;
}
