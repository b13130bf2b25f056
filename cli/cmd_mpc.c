// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl mpc: memory performance curves of policies over a trace, in one
 * pass (libmdk's single-pass generators), or with --live those mdkd keeps
 * of a cgroup.  mdkctl simulate (cmd_simulate.c) prints the same
 * operating points (Documentation/mdk.rst, "Reading an MPC").
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/mpc.h>

#include "analysis.h"
#include "client.h"
#include "mdkctl.h"
#include "mpc_live.h"
#include "report.h"
#include "tier_curve.h"

#define DEFAULT_POLICIES "age,vmin,paw,pace,opp"

/* Rate limits of the human table of mdkctl mpc. */
static const double table_targets[] = { 0.001, 0.005, 0.01, 0.02, 0.05, 0.1 };

/*
 * The human table of mdkctl mpc: per policy, the best savings and its
 * setting at each rate limit of table_targets.
 */
static void print_table(const char *const *names, struct mdk_point *const *pts,
			const size_t *npts, size_t np)
{
	char r[16];
	size_t i, t;

	printf("best savings (setting) at a max window promotion rate of at most:\n");
	printf("%-6s %9s", "policy", "settings");
	for (t = 0; t < sizeof(table_targets) / sizeof(table_targets[0]); t++)
		printf(" %20s", mdkctl_pct(table_targets[t], r, sizeof(r)));
	putchar('\n');
	for (i = 0; i < np; i++) {
		printf("%-6s %9zu", names[i], npts[i]);
		for (t = 0;
		     t < sizeof(table_targets) / sizeof(table_targets[0]);
		     t++) {
			long b =
				mdk_mpc_best(pts[i], npts[i], table_targets[t]);
			char cell[64], set[48], *eq;

			if (b < 0) {
				printf(" %20s", "-");
				continue;
			}
			mdkctl_point_setting(&pts[i][b], set, sizeof(set));
			eq = strchr(set, ':');
			snprintf(cell, sizeof(cell), "%s %s",
				 mdkctl_pct(pts[i][b].savings, r, sizeof(r)),
				 eq ? eq + 1 : set);
			printf(" %20s", cell);
		}
		putchar('\n');
	}
}

/* Plot the curves @names[i], @pts[i][0..@npts[i]) into @path. */
static int plot_curves(const char *path, const char *title,
		       const char *const *names, struct mdk_point *const *pts,
		       const size_t *npts, size_t np, double target)
{
	struct mdkctl_curve *cv = calloc(np ? np : 1, sizeof(*cv));
	char err[512];
	size_t i;
	int ret;

	if (!cv) {
		fprintf(stderr, "mdkctl: out of memory\n");
		return -1;
	}
	for (i = 0; i < np; i++) {
		cv[i].name = names[i];
		cv[i].pts = pts[i];
		cv[i].n = npts[i];
	}
	ret = mdkctl_plot_mpc(path, title, cv, np, target, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mdkctl: --plot: %s\n", err);
	free(cv);
	return ret ? -1 : 0;
}

static void print_rates(const char *what, const struct mdkctl_live_rates *r)
{
	char a[16], b[16], c[16];

	if (!r->have || !r->windows) {
		printf("%-10s none (no window with a count)\n", what);
		return;
	}
	printf("%-10s max %-8s mean %-8s p99 %-8s promotions %.0f over %.0f windows\n",
	       what, mdkctl_pct(r->max_rate, a, sizeof(a)),
	       mdkctl_pct(r->mean_rate, b, sizeof(b)),
	       mdkctl_pct(r->p99_rate, c, sizeof(c)), r->promotions,
	       r->windows);
}

/*
 * Ask mdkd for the live curves of @cgroup: its reply in *@resp (to put),
 * the curves in @m (to free); 0, or 1 after a message.
 */
static int live_fetch(const char *cgroup, struct json_object **resp,
		      struct json_object **live, struct mdkctl_live_mpc *m)
{
	char err[1024];

	if (mdkctl_client_request(mdkctl_socket, "mpc --live", "mpc", cgroup,
				  NULL, resp))
		return 1;
	*live = NULL;
	if (!json_object_object_get_ex(*resp, "live", live) ||
	    mdkctl_live_mpc_parse(*live, m, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: mpc --live: mdkd's reply: %s\n",
			*live ? err : "no \"live\" object");
		json_object_put(*resp);
		return 1;
	}
	return 0;
}

/* What runs, what was predicted, measured and acted on, OPP's headroom. */
static void live_state(const struct mdkctl_live_mpc *m)
{
	char a[16], b[16], c[16], d[16];

	printf("%s: backend %s, windows %llu-%llu (%llu of a %llu-window horizon, %gs each); savings: occupancy\n",
	       m->cgroup, m->backend, m->lo, m->hi, m->hi - m->lo + 1,
	       m->horizon, m->window_s);
	if (m->setting)
		printf("running: %s (%s, target %s), reason %s\n", m->setting,
		       m->auto_tune ? "auto-tuned" : "fixed",
		       mdkctl_pct(m->target_rate, a, sizeof(a)), m->reason);
	else
		printf("running: none (%s), reason %s\n",
		       m->auto_tune ? "auto-tune" : "fixed", m->reason);
	if (m->have_predicted)
		printf("%-10s max %-8s mean %-8s p99 %-8s promotions %" PRIu64
		       ", savings %s\n",
		       "predicted",
		       mdkctl_pct(m->predicted.max_rate, a, sizeof(a)),
		       mdkctl_pct(m->predicted.mean_rate, b, sizeof(b)),
		       mdkctl_pct(m->predicted.p99_rate, c, sizeof(c)),
		       m->predicted.promotions,
		       mdkctl_pct(m->predicted.savings, d, sizeof(d)));
	print_rates("measured", &m->measured);
	printf("           (%s)\n", m->measured_source);
	print_rates("acted", &m->acted);
	if (m->have_opp)
		printf("OPP headroom at %s: %s saves %s%s%s%s%s\n",
		       mdkctl_pct(m->target_rate, a, sizeof(a)), m->opp_setting,
		       mdkctl_pct(m->opp_savings, b, sizeof(b)),
		       m->have_headroom ? ", the running setting " : "",
		       m->have_headroom ?
			       mdkctl_pct(m->opp_savings - m->headroom, c,
					  sizeof(c)) :
			       "",
		       m->have_headroom ? ": headroom " : "",
		       m->have_headroom ?
			       mdkctl_pct(m->headroom, d, sizeof(d)) :
			       "");
	else
		printf("OPP headroom: none (opp not evaluated, or no OPP setting within the target)\n");
}

/* The live curves as text: the state, each policy's best, the table. */
static void live_human(const struct mdkctl_live_mpc *m, double target)
{
	char a[16];

	live_state(m);
	for (size_t i = 0; i < m->npolicies; i++) {
		long best = mdk_mpc_best(m->pts[i], m->npts[i], target);

		printf("best %-5s at %s: ", m->names[i],
		       mdkctl_pct(target, a, sizeof(a)));
		if (best >= 0)
			mdkctl_point_human(&m->pts[i][best]);
		else
			printf("none\n");
	}
	print_table(m->names, m->pts, m->npts, m->npolicies);
}

/* mdkctl mpc --live CGROUP: the daemon's live curves of a cgroup. */
static int mpc_live(const char *cgroup, enum mdkctl_out_mode mode,
		    const char *plot, double target)
{
	struct json_object *resp, *live;
	struct mdkctl_live_mpc m;
	int rc = 1;

	if (live_fetch(cgroup, &resp, &live, &m))
		return 1;
	if (target < 0)
		target = m.target_rate;
	if (plot) {
		char title[512];

		snprintf(title, sizeof(title),
			 "live MPC of %s (windows %llu-%llu of %gs)", m.cgroup,
			 m.lo, m.hi, m.window_s);
		if (plot_curves(plot, title, m.names, m.pts, m.npts,
				m.npolicies, target))
			goto out;
	}
	rc = 0;
	if (mode == MDKCTL_OUT_JSON) {
		rc = mdkd_json_emit(json_object_get(live)) ? 1 : 0;
	} else if (mode == MDKCTL_OUT_HUMAN) {
		live_human(&m, target);
	} else {
		puts(MDKCTL_MPC_CSV_HEADER);
		for (size_t i = 0; i < m.npolicies; i++)
			for (size_t k = 0; k < m.npts[i]; k++)
				mdkctl_point_csv(stdout, &m.pts[i][k]);
	}
out:
	mdkctl_live_mpc_free(&m);
	json_object_put(resp);
	return rc;
}

static int mpc_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl mpc TRACE [--policy age,vmin,paw,pace,opp] [--target RATE]\n"
		"                  [--savings occupancy|paper] [--csv | -j] [--plot FILE.svg|.png]\n"
		"                  [--score-from W] [--threads N]\n"
		"       mdkctl [-s SOCKET] mpc --live CGROUP [--target RATE] [--csv | -j]\n"
		"                  [--plot FILE.svg|.png]\n"
		"       mdkctl mpc TRACE --tiers LIST|FILE [--window TIME | --per-access]\n"
		"                  [--target-stall SHARE] [--csv] [tage:...|tpace:...]\n");
	return 2;
}

/* What mdkctl mpc was asked for: its options and operand. */
struct mpc_opts {
	const char *list, *plot;
	bool live, list_given, savings_given, threads_given;
	unsigned int threads; /* 0: one per CPU */
	enum mdkctl_out_mode mode;
	unsigned int flags;
	uint32_t score_from; /* --score-from: the first window scored */
	double target; /* < 0: none */
	const char *operand; /* the TRACE, or with --live the CGROUP */
};

/* The curves of one trace, one per policy. */
struct mpc_curves {
	const char *trace;
	struct mdkctl_trace_meta meta;
	struct mdk_policy **pols;
	struct mdk_point **pts;
	const char **names;
	size_t np, *npts;
};

/* Returns 0, or the exit code after a message or the usage. */
static int parse_mpc(int argc, char **argv, struct mpc_opts *a)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "target", required_argument, NULL, 't' },
		{ "savings", required_argument, NULL, 's' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'P' },
		{ "live", no_argument, NULL, 'L' },
		{ "threads", required_argument, NULL, 'T' },
		{ "score-from", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int opt;

	*a = (struct mpc_opts){ .list = DEFAULT_POLICIES,
				.mode = MDKCTL_OUT_HUMAN,
				.target = -1 };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			a->list = optarg;
			a->list_given = true;
			break;
		case 'L':
			a->live = true;
			break;
		case 't':
			if (mdkctl_parse_fraction(optarg, &a->target)) {
				fprintf(stderr,
					"mdkctl: --target '%s': expected a rate such as 0.01 or 1%%\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (mdkctl_parse_savings(optarg, &a->flags))
				return 2;
			a->savings_given = true;
			break;
		case 'c':
			a->mode = MDKCTL_OUT_CSV;
			break;
		case 'j':
			a->mode = MDKCTL_OUT_JSON;
			break;
		case 'P':
			a->plot = optarg;
			break;
		case 'T':
			if (mdkctl_parse_u64(optarg, 10, 1, MDK_MPC_THREADS_MAX,
					     &v)) {
				fprintf(stderr,
					"mdkctl: --threads '%s': expected a thread count from 1 to %u\n",
					optarg, MDK_MPC_THREADS_MAX);
				return 2;
			}
			a->threads = (unsigned int)v;
			a->threads_given = true;
			break;
		case 'F':
			if (mdkctl_parse_window_index(optarg, "--score-from",
						      &a->score_from))
				return 2;
			break;
		default:
			return mpc_usage();
		}
	}
	if (optind != argc - 1)
		return mpc_usage();
	a->operand = argv[optind];
	if (a->live && a->threads_given) {
		fprintf(stderr,
			"mdkctl: mpc --live: the daemon computes the live curves (no --threads)\n");
		return 2;
	}
	if (a->live && a->score_from) {
		fprintf(stderr,
			"mdkctl: mpc --live: the daemon's curves are over its horizon (no --score-from)\n");
		return 2;
	}
	if (a->live && (a->list_given || a->savings_given)) {
		fprintf(stderr,
			"mdkctl: mpc --live: the daemon's curves are those of its evaluate key, savings occupancy (no --policy or --savings)\n");
		return 2;
	}
	return 0;
}

static void free_curves(struct mpc_curves *m)
{
	for (size_t i = 0; m->pts && i < m->np; i++)
		free(m->pts[i]);
	free(m->pts);
	free(m->npts);
	free(m->names);
	mdkctl_policies_free(m->pols, m->np);
}

/* Run the policies over the trace; 0, or the exit code after a message. */
static int run_curves(const struct mpc_opts *a, struct mpc_curves *m)
{
	char err[512];
	int ret;

	if (mdk_policy_parse_list(a->list, &m->pols, &m->np, err,
				  sizeof(err))) {
		fprintf(stderr, "mdkctl: --policy: %s\n", err);
		return 2;
	}
	if (mdkctl_trace_meta(m->trace, &m->meta))
		return 1;
	m->pts = calloc(m->np, sizeof(*m->pts));
	m->npts = calloc(m->np, sizeof(*m->npts));
	if (!m->pts || !m->npts)
		return 1;
	/* Scoring from a later window is mdk_mpc_run_opts()'s, on one thread. */
	if (a->score_from)
		ret = mdk_mpc_run_opts(
			m->trace, m->pols, m->np,
			&(struct mdk_run_opts){ .flags = a->flags,
						.score_from = a->score_from },
			m->pts, m->npts, err, sizeof(err));
	else
		ret = mdk_mpc_run_threads(m->trace, m->pols, m->np, a->flags,
					  a->threads, m->pts, m->npts, err,
					  sizeof(err));
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	m->names = calloc(m->np ? m->np : 1, sizeof(*m->names));
	if (!m->names)
		return 1;
	for (size_t i = 0; i < m->np; i++)
		m->names[i] = mdk_policy_name(m->pols[i]);
	return 0;
}

static void print_curves_csv(const struct mpc_opts *a,
			     const struct mpc_curves *m)
{
	puts(MDKCTL_MPC_CSV_HEADER);
	for (size_t i = 0; i < m->np; i++) {
		if (a->target >= 0) {
			long b = mdk_mpc_best(m->pts[i], m->npts[i], a->target);

			if (b >= 0)
				mdkctl_point_csv(stdout, &m->pts[i][b]);
			continue;
		}
		for (size_t k = 0; k < m->npts[i]; k++)
			mdkctl_point_csv(stdout, &m->pts[i][k]);
	}
}

static int print_curves_json(const struct mpc_opts *a,
			     const struct mpc_curves *m)
{
	struct json_object *o = json_object_new_object(), *arr;

	mdkd_json_add_str(o, "trace", m->trace);
	mdkd_json_add_u64(o, "windows", m->meta.windows);
	mdkd_json_add_u64(o, "records", m->meta.records);
	mdkd_json_add_str(o, "savings",
			  a->flags & MDK_SAVINGS_PAPER ? "paper" : "occupancy");
	mdkd_json_add_u64(o, "score_from", a->score_from);
	if (a->target >= 0)
		mdkd_json_add_double(o, "target", a->target);
	arr = json_object_new_array_ext((int)m->np);
	for (size_t i = 0; i < m->np; i++) {
		struct json_object *po = json_object_new_object();

		mdkd_json_add_str(po, "policy", mdk_policy_name(m->pols[i]));
		mdkd_json_add_u64(po, "settings", m->npts[i]);
		if (a->target >= 0) {
			long b = mdk_mpc_best(m->pts[i], m->npts[i], a->target);

			mdkd_json_add(po, "best",
				      b >= 0 ?
					      mdkctl_point_json(&m->pts[i][b]) :
					      NULL);
		}
		mdkd_json_add(po, "points",
			      mdkctl_points_json(m->pts[i], m->npts[i]));
		mdkd_json_push(arr, po);
	}
	mdkd_json_add(o, "policies", arr);
	return mdkd_json_emit(o) ? 1 : 0;
}

static void print_curves_human(const struct mpc_opts *a,
			       const struct mpc_curves *m)
{
	char r[16];

	printf("%s: %u windows, %" PRIu64 " records; savings: %s\n", m->trace,
	       m->meta.windows, m->meta.records,
	       a->flags & MDK_SAVINGS_PAPER ? "paper" : "occupancy");
	if (a->score_from)
		printf("scored over windows %u..%u (earlier windows make the state only)\n",
		       a->score_from, m->meta.windows - 1);
	if (a->target < 0) {
		print_table(m->names, m->pts, m->npts, m->np);
		return;
	}
	printf("best setting with a max window promotion rate of at most %s:\n",
	       mdkctl_pct(a->target, r, sizeof(r)));
	for (size_t i = 0; i < m->np; i++) {
		long b = mdk_mpc_best(m->pts[i], m->npts[i], a->target);

		if (b >= 0)
			mdkctl_point_human(&m->pts[i][b]);
		else
			printf("%-24s none (every setting exceeds the rate)\n",
			       mdk_policy_name(m->pols[i]));
	}
}

/* The plot (if asked for), then the curves in the output mode. */
static int output_curves(const struct mpc_opts *a, const struct mpc_curves *m)
{
	if (a->plot) {
		char title[512];

		snprintf(title, sizeof(title), "MPC of %s (%u windows)",
			 m->trace, m->meta.windows);
		if (plot_curves(a->plot, title, m->names, m->pts, m->npts,
				m->np, a->target))
			return 1;
	}
	if (a->mode == MDKCTL_OUT_CSV)
		print_curves_csv(a, m);
	else if (a->mode == MDKCTL_OUT_JSON)
		return print_curves_json(a, m);
	else
		print_curves_human(a, m);
	return 0;
}

int mdkctl_cmd_mpc(int argc, char **argv)
{
	struct mpc_curves m = { 0 };
	struct mpc_opts a;
	int rc;

	/* Tiered curves in stall time: cli/tier_curve.c. */
	if (mdkctl_has_tiers(argc, argv))
		return mdkctl_tier_cmd(argc, argv, false);

	rc = parse_mpc(argc, argv, &a);
	if (rc)
		return rc;
	if (a.live)
		return mpc_live(a.operand, a.mode, a.plot, a.target);
	m.trace = a.operand;
	rc = run_curves(&a, &m);
	if (!rc)
		rc = output_curves(&a, &m);
	free_curves(&m);
	return rc;
}
