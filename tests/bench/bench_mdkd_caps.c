// SPDX-License-Identifier: GPL-2.0
/*
 * bench_mdkd_caps: the operator's caps holding, on the unit tests' fake
 * cgroup tree with a fake wall clock.  The baselines are the same runs
 * without the cap, in the same process:
 *
 *  - max_rate and host_max_rate: the bytes mdkd hands to memory.reclaim
 *    over T simulated seconds of one decision a second, against the cap
 *    times T (the bucket starts full with one interval's burst, which the
 *    first decision takes: T decisions span T - 1 seconds).  The caps are
 *    a quarter of what the same cgroups asked for uncapped.
 *  - max_cpu: mdkd's CPU time (user + system, the clock the cap charges)
 *    over T simulated seconds of cgroups with a short interval, as a share
 *    of T, with max_cpu and without.  The cap may run over by its burst
 *    (one period, 1 s, at the cap) and by the work it let start before
 *    the budget ran out (the largest single step).
 *
 * Exit 1 when a cap does not hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "../unit/fakecg.h"
#include "daemon/manager.h"
#include "daemon/request.h"

#define RATE_CGROUPS 10
#define RATE_SECONDS 60
#define CPU_CGROUPS 500
#define CPU_INTERVAL "50ms"
#define CPU_STEP_US 10000 /* the fake wall clock's step */
#define CPU_SECONDS 10
#define MAX_CPU 0.05

static uint64_t fake_now;

static uint64_t fake_clock(void *data)
{
	return fake_now;
}

static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
}

static struct mdkd *start(struct fakecg *f, const char *global,
			  const char *cgroup, int n)
{
	struct mdkd_config *cfg;
	struct mdkd *d;
	char err[1024];

	fake_write(
		f->conf,
		"[global]\ncgroup_root = %s\nproc_root = %s\nstate_dir = %s\n"
		"socket = %s\nlog_level = warning\n%s[cgroup bench/*]\n%s",
		f->root, f->proc, f->state, f->sock, global, cgroup);
	if (mdkd_config_load(f->conf, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	d = mdkd_new(cfg, f->conf, NULL, false, mdkd_request_handle, err,
		     sizeof(err));
	if (!d) {
		fprintf(stderr, "bench_mdkd_caps: %s\n", err);
		exit(1);
	}
	if ((int)d->cgroups.n != n) {
		fprintf(stderr,
			"bench_mdkd_caps: %zu cgroups managed, not %d\n",
			d->cgroups.n, n);
		exit(1);
	}
	d->clock.now = fake_clock;
	return d;
}

static void make_cgroups(struct fakecg *f, int from, int to)
{
	char name[64];
	int i;

	for (i = from; i < to; i++) {
		snprintf(name, sizeof(name), "bench/cg-%04d", i);
		fake_cgroup(f, name, 80ULL << 20, 20ULL << 20);
	}
}

/* Bytes handed to memory.reclaim over RATE_SECONDS decisions. */
static uint64_t run_rate(struct fakecg *f, const char *global,
			 const char *cgroup)
{
	struct mdkd *d = start(f, global, cgroup, RATE_CGROUPS);
	uint64_t tried;
	int i;

	/* The baseline sample: no decision yet. */
	fake_now += 1000000;
	mdkd_tick_all(d);
	for (i = 0; i < RATE_SECONDS; i++) {
		fake_now += 1000000;
		if (mdkd_tick_all(d)) {
			fprintf(stderr, "bench_mdkd_caps: tick failed\n");
			exit(1);
		}
	}
	tried = d->pipeline.limits.act[MDKD_ACT_RECLAIM].tried_bytes;
	mdkd_free(d);
	return tried;
}

static bool busy(struct mdkd *d)
{
	size_t i;

	if (d->cgroups.reading)
		return true;
	for (i = 0; i < d->cgroups.n; i++)
		if (d->cgroups.cgs[i]->acting)
			return true;
	return false;
}

/*
 * mdkd's CPU share over CPU_SECONDS of the fake clock in steps of
 * CPU_STEP_US, the loop run to idle at every step; *@step_max gets the
 * most CPU time one step took.
 */
static double run_cpu(struct fakecg *f, const char *global, double *step_max)
{
	struct mdkd *d =
		start(f, global, "interval = " CPU_INTERVAL "\n", CPU_CGROUPS);
	double t0, s0;
	int i;

	*step_max = 0;
	t0 = cpu_us();
	for (i = 0; i < CPU_SECONDS * (1000000 / CPU_STEP_US); i++) {
		fake_now += CPU_STEP_US;
		s0 = cpu_us();
		if (mdkd_run_once(d, 0) < 0)
			exit(1);
		while (busy(d))
			if (mdkd_run_once(d, mdkd_now_us() + 100000) < 0)
				exit(1);
		s0 = cpu_us() - s0;
		if (s0 > *step_max)
			*step_max = s0;
	}
	t0 = (cpu_us() - t0) / (CPU_SECONDS * 1e6);
	mdkd_free(d);
	return t0;
}

static bool rate_caps(struct fakecg *f)
{
	char global[256], cgroup[256];
	uint64_t free_run, rate, got;
	double r1, r2;

	make_cgroups(f, 0, RATE_CGROUPS);
	free_run = run_rate(f, "interval = 1s\n", "");
	/* A quarter of what each cgroup asked for a second, uncapped. */
	rate = free_run / RATE_CGROUPS / RATE_SECONDS / 4;
	if (!rate) {
		fprintf(stderr,
			"bench_mdkd_caps: nothing reclaimed uncapped\n");
		exit(1);
	}
	snprintf(cgroup, sizeof(cgroup), "max_rate = %llu\n",
		 (unsigned long long)rate);
	got = run_rate(f, "interval = 1s\n", cgroup);
	r1 = (double)got / ((double)rate * RATE_CGROUPS * RATE_SECONDS);
	printf("%d cgroups, %d s, uncapped %.0f kB/s per cgroup:\n",
	       RATE_CGROUPS, RATE_SECONDS,
	       free_run / 1024.0 / RATE_CGROUPS / RATE_SECONDS);
	printf("  max_rate %llu B/s:      held: %.3f of the cap (%.2f of uncapped)\n",
	       (unsigned long long)rate, r1, (double)got / free_run);
	rate *= RATE_CGROUPS;
	snprintf(global, sizeof(global),
		 "interval = 1s\nhost_max_rate = %llu\n",
		 (unsigned long long)rate);
	got = run_rate(f, global, "");
	r2 = (double)got / ((double)rate * RATE_SECONDS);
	printf("  host_max_rate %llu B/s: held: %.3f of the cap (%.2f of uncapped)\n",
	       (unsigned long long)rate, r2, (double)got / free_run);
	return r1 <= 1.0 && r2 <= 1.0 && r1 > 0.5 && r2 > 0.5;
}

static bool cpu_cap(struct fakecg *f)
{
	double free_share, share, step_free, step, bound;
	char global[128];

	make_cgroups(f, RATE_CGROUPS, CPU_CGROUPS);
	free_share = run_cpu(f, "", &step_free);
	snprintf(global, sizeof(global), "max_cpu = %g%%\n", MAX_CPU * 100);
	share = run_cpu(f, global, &step);
	/* Its burst (1 s at the cap) and the step it let start last. */
	bound = MAX_CPU + (MAX_CPU * 1e6 + step) / (CPU_SECONDS * 1e6);
	printf("%d cgroups every %s, %d s: mdkd's CPU share uncapped %.1f%%\n",
	       CPU_CGROUPS, CPU_INTERVAL, CPU_SECONDS, free_share * 100);
	printf("  max_cpu %.0f%%:           share %.1f%%, %.2f of the cap, %.2f of uncapped; bound %.1f%% (burst, largest step %.1f ms): %s\n",
	       MAX_CPU * 100, share * 100, share / MAX_CPU, share / free_share,
	       bound * 100, step / 1000, share <= bound ? "held" : "MISSED");
	if (free_share < 2 * MAX_CPU)
		printf("  (uncapped under twice the cap: the cap barely binds)\n");
	return share <= bound;
}

int main(void)
{
	struct rlimit rl;
	struct fakecg f;
	bool ok;

	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Ahead of the real clock mdkd_new() attaches the cgroups by. */
	fake_now = mdkd_now_us();
	fake_setup(&f, NULL);
	ok = rate_caps(&f);
	ok = cpu_cap(&f) && ok;
	fake_teardown(&f);
	return ok ? 0 : 1;
}
