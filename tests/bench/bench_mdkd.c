// SPDX-License-Identifier: GPL-2.0
/*
 * bench_mdkd N [INTERVALS]: the CPU time mdkd spends per interval managing
 * N cgroups of a fake cgroup tree (plain files in a tmpfs directory), the
 * whole daemon path: batched reads through the ring, parsing, the TMO law,
 * the memory.reclaim write of every cgroup, status bookkeeping.  The
 * baseline, measured in the same run, is the least any daemon must do:
 * read the same files of the same cgroups with pread(2), one after the
 * other, from descriptors opened once.  Prints both (user + system time,
 * from getrusage) and their ratio, and the cost per cgroup against the
 * target of 1 ms per cgroup per interval.  A second daemon run adds the
 * Prometheus file and the CSV record; a third the operator's limits, all
 * on but set high enough never to hold work back (their bookkeeping is
 * what it costs), against the target of 50 us per cgroup per interval.
 * Before any of it, the resident memory a managed cgroup takes: VmRSS of
 * a daemon managing none, then all N after a rescan found them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/fakecg.h"
#include "daemon/cgroup.h"
#include "daemon/manager.h"
#include "daemon/request.h"

static uint64_t fake_now = 1000000000;

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

/*
 * The limits and the tier goals on but high: no rate cap, CPU cap, swap
 * valve or goal holds work back (the fake host has DRAM free above 1%).
 */
#define LIMITS_GLOBAL                                               \
	"host_max_rate = 1T\nmax_cpu = 100%\nswap_max_used = 99%\n" \
	"swapout_max_rate = 1T\nactive_below = 99%\n"               \
	"dram_free_min = 1%\ntier_used_max = 99%\n"
#define LIMITS_CGROUP "max_rate = 1T\n"

static struct mdkd *start_daemon(struct fakecg *f, const char *extra,
				 const char *cg_extra)
{
	struct mdkd_config *cfg;
	struct mdkd *d;
	char err[1024];

	fake_write(
		f->conf,
		"[global]\ncgroup_root = %s\nproc_root = %s\nstate_dir = %s\n"
		"socket = %s\ninterval = 1s\nlog_level = warning\n%s"
		"[cgroup bench/*]\n%s",
		f->root, f->proc, f->state, f->sock, extra, cg_extra);
	if (mdkd_config_load(f->conf, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	d = mdkd_new(cfg, f->conf, NULL, false, mdkd_request_handle, err,
		     sizeof(err));
	if (!d) {
		fprintf(stderr, "bench_mdkd: %s\n", err);
		exit(1);
	}
	d->clock.now = fake_clock;
	return d;
}

/* CPU microseconds per interval of the daemon over @iters intervals. */
static double run_daemon(struct fakecg *f, const char *extra,
			 const char *cg_extra, int n, int iters)
{
	struct mdkd *d = start_daemon(f, extra, cg_extra);
	double t0;
	int i;

	if ((int)d->cgroups.n != n) {
		fprintf(stderr, "bench_mdkd: %zu cgroups managed, not %d\n",
			d->cgroups.n, n);
		exit(1);
	}
	for (i = 0; i < 2; i++) { /* baseline sample, first decision */
		fake_now += 1000000;
		mdkd_tick_all(d);
	}
	t0 = cpu_us();
	for (i = 0; i < iters; i++) {
		fake_now += 1000000;
		if (mdkd_tick_all(d)) {
			fprintf(stderr, "bench_mdkd: tick failed\n");
			exit(1);
		}
	}
	t0 = (cpu_us() - t0) / iters;
	if (d->pipeline.limits.deferred) {
		fprintf(stderr,
			"bench_mdkd: the CPU cap put off %llu cgroups\n",
			(unsigned long long)d->pipeline.limits.deferred);
		exit(1);
	}
	mdkd_free(d);
	return t0;
}

/* VmRSS of this process, kB. */
static long rss_kb(void)
{
	const char *s = strstr(fake_read("/proc/self/status"), "VmRSS:");

	return s ? atol(s + 6) : 0;
}

/*
 * Resident bytes per managed cgroup: a daemon managing none, then the @n
 * cgroups made and found by a rescan, through a few intervals.  Run first,
 * before other runs leave freed memory in the allocator to reuse.
 */
static double rss_per_cgroup(struct fakecg *f, int n)
{
	struct mdkd *d;
	char name[64];
	long before;
	int i;

	snprintf(name, sizeof(name), "%s/bench", f->root);
	fake_mkdirs(name);
	d = start_daemon(f, LIMITS_GLOBAL, LIMITS_CGROUP);
	mdkd_tick_all(d);
	before = rss_kb();
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "bench/cg-%04d", i);
		fake_cgroup(f, name, 80ULL << 20, 20ULL << 20);
	}
	mdkd_rescan(d);
	if ((int)d->cgroups.n != n) {
		fprintf(stderr,
			"bench_mdkd: rescan found %zu cgroups, not %d\n",
			d->cgroups.n, n);
		exit(1);
	}
	for (i = 0; i < 3; i++) {
		fake_now += 1000000;
		mdkd_tick_all(d);
	}
	before = rss_kb() - before;
	mdkd_free(d);
	return before * 1024.0 / n;
}

/* The same files, read one by one with pread(2) from open descriptors. */
static double run_baseline(struct fakecg *f, int n, int iters)
{
	int *fds = calloc((size_t)n * MDKD_CGF_NR, sizeof(int));
	static char buf[16384];
	double t0;
	int i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < MDKD_CGF_NR; j++) {
			char path[PATH_MAX * 2];

			snprintf(path, sizeof(path), "%s/bench/cg-%04d/%s",
				 f->root, i, mdkd_cgroup_files[j].name);
			fds[i * MDKD_CGF_NR + j] = open(path, O_RDONLY);
		}
	t0 = cpu_us();
	for (k = 0; k < iters; k++)
		for (i = 0; i < n * MDKD_CGF_NR; i++)
			if (pread(fds[i], buf, sizeof(buf), 0) < 0)
				exit(1);
	t0 = (cpu_us() - t0) / iters;
	for (i = 0; i < n * MDKD_CGF_NR; i++)
		close(fds[i]);
	free(fds);
	return t0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	double base, plain, full, caps, rss;
	char extra[PATH_MAX * 3];
	struct rlimit rl;
	struct fakecg f;

	if (n <= 0 || iters <= 0)
		return 2;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fake_setup(&f, NULL);
	rss = rss_per_cgroup(&f, n);
	base = run_baseline(&f, n, iters);
	plain = run_daemon(&f, "", "", n, iters);
	snprintf(extra, sizeof(extra),
		 "prometheus_file = %s/mdkd.prom\nrecord_file = %s/rec.csv\n",
		 f.top, f.top);
	full = run_daemon(&f, extra, "", n, iters);
	caps = run_daemon(&f, LIMITS_GLOBAL, LIMITS_CGROUP, n, iters);
	printf("cgroups %d, %d intervals: baseline (pread of the %d files each) %.0f us/interval\n",
	       n, iters, MDKD_CGF_NR, base);
	printf("  mdkd                     %8.0f us/interval  %6.1f us/cgroup  ratio %.2f  target 1000 us/cgroup: %s\n",
	       plain, plain / n, plain / base,
	       plain / n < 1000 ? "met" : "MISSED");
	printf("  mdkd + prometheus + CSV  %8.0f us/interval  %6.1f us/cgroup  ratio %.2f  target 1000 us/cgroup: %s\n",
	       full, full / n, full / base, full / n < 1000 ? "met" : "MISSED");
	printf("  mdkd + limits (caps on)  %8.0f us/interval  %6.1f us/cgroup  ratio %.2f  target   50 us/cgroup: %s\n",
	       caps, caps / n, caps / base, caps / n <= 50 ? "met" : "MISSED");
	printf("  resident memory          %8.1f KiB/cgroup (VmRSS from 0 to %d managed cgroups)\n",
	       rss / 1024, n);
	fake_teardown(&f);
	return plain / n < 1000 && full / n < 1000 && caps / n <= 50 ? 0 : 1;
}
