// SPDX-License-Identifier: GPL-2.0
/*
 * bench_mdk: the measuring half of tests/bench/mdk.sh.  Each mode runs one
 * job over a trace and prints "key value" lines (seconds, records, peak
 * RSS); the script turns them into ratios against the floor pass measured
 * in the same run.
 *
 *   bench_mdk gen OUT PAGES WINDOWS SEED [SPEC...]  synthesize a trace
 *   bench_mdk floor TRACE        decode + page map + last-access state only
 *   bench_mdk mpc TRACE POLICY[,POLICY...] [THREADS]
 *                                one pass feeding those generators, then
 *                                evaluating every setting (on THREADS
 *                                threads: mdk_mpc_run_threads(), 0 for
 *                                every CPU; one pass: mdk_mpc_run())
 *   bench_mdk sim TRACE POLICY N simulate the first N settings of POLICY's
 *                                default grid (spread over it), one pass
 *                                each, as a user without MPCs would
 *   bench_mdk spin THREADS       a fixed busy loop on each of THREADS
 *                                threads: how much the machine runs at once
 *                                now (a calibration for the speed-ups)
 *   bench_mdk tier TRACE TIERS SPEC
 *                                a tiered curve (mdk_tier_run(): every
 *                                setting of SPEC, "tage" for its default
 *                                grid, over the tier list TIERS)
 *   bench_mdk train TRACE RHO [MODEL]
 *                                L-OPP's training as mdkctl train does it
 *                                (the model written to MODEL)
 *                                (defaults: 20% held out, 512K rows)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <mdk/interval.h>
#include <mdk/lopp.h>
#include <mdk/mpc.h>
#include <mdk/sim.h>
#include <mdk/synth.h>
#include <mdk/tier.h>
#include <mdk/trace.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of this process: robust to other load. */
static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int die(const char *err)
{
	fprintf(stderr, "bench_mdk: %s\n", err);
	return 1;
}

static int cmd_gen(int argc, char **argv)
{
	struct mdk_synth_opts o = { 0 };
	struct mdk_trace_writer_opts wo = {
		.window_us = 30000000,
		.page_size = 4096,
		.desc = "bench_mdk gen",
	};
	struct mdk_synth *s;
	char err[512];
	double t0 = now();
	int i;

	if (argc < 6)
		return die("usage: gen OUT PAGES WINDOWS SEED [SPEC...]");
	o.pages = strtoull(argv[3], NULL, 0);
	o.windows = (uint32_t)strtoul(argv[4], NULL, 0);
	o.seed = strtoull(argv[5], NULL, 0);
	if (mdk_synth_new(&o, &s, err, sizeof(err)))
		return die(err);
	for (i = 6; i < argc; i++)
		if (mdk_synth_add(s, argv[i], err, sizeof(err)))
			return die(err);
	if (mdk_synth_write(s, argv[2], &wo, err, sizeof(err)))
		return die(err);
	mdk_synth_free(s);
	printf("seconds %.3f\ncpu %.3f\nrss_kib %ld\n", now() - t0, cpu(),
	       peak_rss_kib());
	return 0;
}

static int cmd_floor(int argc, char **argv)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	uint32_t *last = NULL;
	size_t cap = 0, i;
	uint64_t records = 0, sum = 0;
	char err[512];
	double t0 = now();
	int ret;

	if (argc < 3)
		return die("usage: floor TRACE");
	if (mdk_trace_reader_open(argv[2], MDK_TRACE_DENSE, &r, err,
				  sizeof(err)))
		return die(err);
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0) {
		for (i = 0; i < c.n; i++) {
			uint32_t p = c.pages[i];

			if (p >= cap) {
				size_t ncap = cap ? cap * 2 : 1 << 20;

				while (ncap <= p)
					ncap *= 2;
				last = realloc(last, ncap * sizeof(*last));
				if (!last)
					return die("out of memory");
				memset(last + cap, 0,
				       (ncap - cap) * sizeof(*last));
				cap = ncap;
			}
			/* What every generator needs: the gap, then the update. */
			sum += c.window - last[p];
			last[p] = c.window + 1;
		}
		records += c.n;
	}
	if (ret < 0)
		return die(err);
	printf("seconds %.3f\ncpu %.3f\nrecords %llu\npages %llu\nwindows %u\nrss_kib %ld\nchecksum %llu\n",
	       now() - t0, cpu(), (unsigned long long)records,
	       (unsigned long long)mdk_trace_reader_pages(r),
	       mdk_trace_reader_windows(r), peak_rss_kib(),
	       (unsigned long long)sum);
	mdk_trace_reader_close(r);
	free(last);
	return 0;
}

static int cmd_mpc(int argc, char **argv)
{
	struct mdk_policy **pols;
	struct mdk_point **pts;
	size_t np, *npts, i, total = 0;
	char err[512];
	double t0 = now();

	int ret;

	if (argc < 4)
		return die("usage: mpc TRACE POLICY[,POLICY...] [THREADS]");
	if (mdk_policy_parse_list(argv[3], &pols, &np, err, sizeof(err)))
		return die(err);
	pts = calloc(np, sizeof(*pts));
	npts = calloc(np, sizeof(*npts));
	if (!pts || !npts)
		return die("out of memory");
	if (argc > 4)
		ret = mdk_mpc_run_threads(argv[2], pols, np, 0,
					  (unsigned int)strtoul(argv[4], NULL,
								0),
					  pts, npts, err, sizeof(err));
	else
		ret = mdk_mpc_run(argv[2], pols, np, 0, pts, npts, err,
				  sizeof(err));
	if (ret)
		return die(err);
	for (i = 0; i < np; i++) {
		total += npts[i];
		free(pts[i]);
		mdk_policy_free(pols[i]);
	}
	printf("seconds %.3f\ncpu %.3f\nsettings %zu\nrss_kib %ld\n",
	       now() - t0, cpu(), total, peak_rss_kib());
	free(pols);
	free(pts);
	free(npts);
	return 0;
}

static int cmd_sim(int argc, char **argv)
{
	struct mdk_trace_reader *r;
	struct mdk_policy *p;
	struct mdk_point pt;
	size_t n, i, grid;
	char err[512];
	double t0, c0;

	if (argc < 5)
		return die("usage: sim TRACE POLICY N");
	n = strtoul(argv[4], NULL, 0);
	if (mdk_policy_new(argv[3], &p, err, sizeof(err)))
		return die(err);
	if (mdk_trace_reader_open(argv[2], 0, &r, err, sizeof(err)))
		return die(err);
	if (mdk_policy_resolve(p, mdk_trace_reader_info(r)->windows, err,
			       sizeof(err)))
		return die(err);
	mdk_trace_reader_close(r);
	grid = mdk_policy_settings(p);
	if (n > grid)
		n = grid;
	t0 = now();
	c0 = cpu();
	for (i = 0; i < n; i++)
		if (mdk_simulate(argv[2], p, i * grid / n, 0, &pt, err,
				 sizeof(err)))
			return die(err);
	printf("seconds %.3f\ncpu %.3f\nsimulated %zu\ngrid %zu\nrss_kib %ld\n",
	       now() - t0, cpu() - c0, n, grid, peak_rss_kib());
	mdk_policy_free(p);
	return 0;
}

static void *spin(void *arg)
{
	volatile uint64_t x = 0;
	uint64_t i;

	(void)arg;
	for (i = 0; i < 400000000ull; i++)
		x += i;
	return NULL;
}

static int cmd_spin(int argc, char **argv)
{
	pthread_t th[64];
	double t0 = now();
	long n, i;

	if (argc < 3)
		return die("usage: spin THREADS");
	n = strtol(argv[2], NULL, 0);
	if (n < 1 || n > 64)
		return die("spin: 1 to 64 threads");
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, spin, NULL))
			return die("spin: cannot create a thread");
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("seconds %.3f\ncpu %.3f\nrss_kib %ld\n", now() - t0, cpu(),
	       peak_rss_kib());
	return 0;
}

static int cmd_train(int argc, char **argv)
{
	struct mdk_lopp_train_opts o = { .holdout = 0.2 };
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m;
	char err[512];
	double t0 = now();

	if (argc < 4)
		return die("usage: train TRACE RHO [MODEL [trees|logistic]]");
	o.rho = strtod(argv[3], NULL);
	/* mdkctl train's default kind, logistic, unless told */
	o.fit.kind = argc > 5 && !strcmp(argv[5], "trees") ? MDK_LOPP_TREES :
							     MDK_LOPP_LOGISTIC;
	if (mdk_lopp_train(argv[2], &o, &m, &rep, err, sizeof(err)))
		return die(err);
	if (argc > 4 && mdk_lopp_model_write(m, argv[4], err, sizeof(err)))
		return die(err);
	printf("seconds %.3f\ncpu %.3f\nrss_kib %ld\nintervals %llu\nrows %llu\nsample %.4f\nprecision %.4f\nrecall %.4f\nauc %.4f\n",
	       now() - t0, cpu(), peak_rss_kib(),
	       (unsigned long long)rep.intervals,
	       (unsigned long long)(rep.train.rows + rep.test.rows), rep.sample,
	       rep.test.precision, rep.test.recall, rep.test.auc);
	mdk_lopp_model_free(m);
	return 0;
}

static int cmd_tier(int argc, char **argv)
{
	struct mdk_tier_point *pts;
	struct mdk_tiers t;
	struct mdk_tier_opts o = { .tiers = &t };
	char err[512];
	double t0 = now();
	size_t n;

	if (argc < 5)
		return die("usage: tier TRACE TIERS SPEC");
	if (mdk_tiers_parse(argv[3], &t, err, sizeof(err)) ||
	    mdk_tier_run(argv[2], argv[4], &o, &pts, &n, err, sizeof(err)))
		return die(err);
	printf("seconds %.3f\ncpu %.3f\nsettings %zu\nrss_kib %ld\n",
	       now() - t0, cpu(), n, peak_rss_kib());
	free(pts);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "gen"))
		return cmd_gen(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "floor"))
		return cmd_floor(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "mpc"))
		return cmd_mpc(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "sim"))
		return cmd_sim(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "train"))
		return cmd_train(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "spin"))
		return cmd_spin(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "tier"))
		return cmd_tier(argc, argv);
	return die("usage: bench_mdk gen|floor|mpc|sim|spin|tier|train ...");
}
