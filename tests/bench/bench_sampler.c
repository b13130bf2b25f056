// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of the page Accessed-bit sampler, run inside the VM by
 * tests/bench/sampler.sh.  A workload process holds SIZE of resident
 * memory (small pages, or THP) and touches a fraction of it before every
 * window.  Per window we measure, as CPU time of the sampling thread (user
 * + system: the BPF walk and clear_refs run in it), the sampler's
 * mdk_sampler_next() and its parts, and in the same run the baseline the
 * issue names: writing "1" to /proc/PID/clear_refs over the same memory
 * after the same touches.  Figures are per GiB of resident memory per
 * window, with the ratio to the baseline.  The workload's own cost of the
 * TLB flush (soft-dirty write faults) is measured too.
 *
 * usage: bench_sampler [-s SIZE_MIB] [-r ROUNDS] [-f TOUCH_PERCENT]
 *                      [-p small|thp]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/loader.h"

#define PAGE 4096UL
#define HPAGE (2UL << 20)

struct cfg {
	size_t mib;
	int rounds;
	int touch_pct;
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ULL + tv.tv_usec * 1000ULL;
}

/*
 * The workload: map and populate, then for each byte read from @cmd
 * touch (write) touch_pct% of the pages, chosen afresh, and answer with
 * its CPU time and minor faults for that pass.
 */
static int workload(const struct cfg *c, int thp, int cmd, int rsp)
{
	size_t n = c->mib << 20, pages = n / PAGE, i;
	uint64_t seed = 1, t[2];
	struct rusage a, b;
	char *raw, *p;
	char op;

	raw = mmap(NULL, n + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return 2;
	p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	madvise(p, n, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(p, 1, n);
	if (write(rsp, &op, 1) != 1)
		return 2;
	while (read(cmd, &op, 1) == 1) {
		getrusage(RUSAGE_SELF, &a);
		for (i = 0; i < pages; i++) {
			seed = seed * 6364136223846793005ULL +
			       1442695040888963407ULL;
			if ((seed >> 33) % 100 < (uint64_t)c->touch_pct)
				p[i * PAGE]++;
		}
		getrusage(RUSAGE_SELF, &b);
		t[0] = tv_ns(b.ru_utime) + tv_ns(b.ru_stime) -
		       tv_ns(a.ru_utime) - tv_ns(a.ru_stime);
		t[1] = b.ru_minflt - a.ru_minflt;
		if (write(rsp, t, sizeof(t)) != sizeof(t))
			return 2;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Median of v[i] / base[i], in 1/1000 (scratch: n entries). */
static double ratio(const uint64_t *v, const uint64_t *base, uint64_t *scratch,
		    int n)
{
	int i;

	for (i = 0; i < n; i++)
		scratch[i] = base[i] ? v[i] * 1000 / base[i] : 0;
	return median(scratch, n) / 1000;
}

/* Resident memory of @pid, in bytes. */
static double rss_bytes(pid_t pid)
{
	char path[64], line[128];
	double kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/*
 * Medians over the windows, per GiB resident; the ratios are medians of
 * each window's figure over the baseline measured right after it, which
 * the machine's load drifts less between than between whole runs.
 */
struct result {
	double next, walk, bpf, clear, base1, base4, touch, faults, gib;
	double pages;
	double r_next, r_walk, r_bpf, r_clear, r_base4;
};

static int touch(int cmd, int rsp, uint64_t t[2])
{
	char op = 't';

	return write(cmd, &op, 1) == 1 && read(rsp, t, 16) == 16 ? 0 : -1;
}

static int run(const struct cfg *c, int thp, unsigned int flags,
	       struct result *res)
{
	struct mdk_sampler_opts opts = { .tier_node = -1, .flags = flags };
	uint64_t *next = calloc(c->rounds, 8), *walk = calloc(c->rounds, 8);
	uint64_t *clr = calloc(c->rounds, 8), *b1 = calloc(c->rounds, 8);
	uint64_t *b4 = calloc(c->rounds, 8), *tf = calloc(c->rounds, 8);
	uint64_t *ff = calloc(c->rounds, 8), *bp = calloc(c->rounds, 8);
	uint64_t *rt = calloc(c->rounds, 8);
	uint64_t t[2], t0, pages = 0;
	struct mdk_sampler_window w;
	struct mdk_sampler *s;
	int a[2], b[2], fd, i, err = -1;
	char msg[256], path[64], op;
	pid_t pid;

	if (pipe(a) || pipe(b))
		return -1;
	pid = fork();
	if (!pid) {
		close(a[1]);
		close(b[0]);
		_exit(workload(c, thp, a[0], b[1]));
	}
	close(a[0]);
	close(b[1]);
	if (read(b[0], &op, 1) != 1)
		goto out;
	opts.pids = &pid;
	opts.nr_pids = 1;
	s = mdk_sampler_new(&opts, msg, sizeof(msg));
	if (!s || mdk_sampler_start(s, msg, sizeof(msg))) {
		fprintf(stderr, "bench_sampler: %s\n", msg);
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/clear_refs", pid);
	fd = open(path, O_WRONLY);
	for (i = 0; i < c->rounds; i++) {
		/* The sampler's window: touches, then its next(). */
		if (touch(a[1], b[0], t))
			break;
		tf[i] = t[0];
		ff[i] = t[1];
		if (mdk_sampler_next(s, &w, msg, sizeof(msg)))
			break;
		next[i] = w.cpu_ns;
		walk[i] = w.walk_ns;
		bp[i] = w.bpf_ns;
		clr[i] = w.clear_ns;
		pages += w.nr_pages;
		/* The baseline: the same touches, then clear_refs 1 alone
		 * (and 4 alone, for the breakdown, unless the workload is to
		 * run without soft-dirty faults). */
		if (touch(a[1], b[0], t))
			break;
		t0 = cpu_ns();
		if (write(fd, "1", 1) != 1)
			break;
		b1[i] = cpu_ns() - t0;
		if (flags & MDK_SAMPLER_NO_FLUSH)
			continue;
		t0 = cpu_ns();
		if (write(fd, "4", 1) != 1)
			break;
		b4[i] = cpu_ns() - t0;
	}
	if (i == c->rounds) {
		res->r_next = ratio(next, b1, rt, i);
		res->r_walk = ratio(walk, b1, rt, i);
		res->r_bpf = ratio(bp, b1, rt, i);
		res->r_clear = ratio(clr, b1, rt, i);
		res->r_base4 = ratio(b4, b1, rt, i);
		res->gib = rss_bytes(pid) / (1 << 30);
		res->next = median(next, i) / res->gib;
		res->walk = median(walk, i) / res->gib;
		res->bpf = median(bp, i) / res->gib;
		res->clear = median(clr, i) / res->gib;
		res->base1 = median(b1, i) / res->gib;
		res->base4 = median(b4, i) / res->gib;
		res->touch = median(tf, i);
		res->faults = median(ff, i);
		res->pages = (double)pages / i;
		err = 0;
	}
	close(fd);
	mdk_sampler_free(s);
out:
	close(a[1]);
	close(b[0]);
	waitpid(pid, NULL, 0);
	free(next);
	free(walk);
	free(clr);
	free(b1);
	free(b4);
	free(tf);
	free(ff);
	free(bp);
	free(rt);
	return err;
}

int main(int argc, char **argv)
{
	struct cfg c = { .mib = 1024, .rounds = 7, .touch_pct = 25 };
	static const char *const name[] = { "small pages", "THP" };
	struct result r, q;
	int opt, thp, kinds = 3;

	while ((opt = getopt(argc, argv, "s:r:f:p:")) != -1) {
		switch (opt) {
		case 's':
			c.mib = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			c.rounds = atoi(optarg);
			break;
		case 'f':
			c.touch_pct = atoi(optarg);
			break;
		case 'p':
			kinds = !strcmp(optarg, "small") ? 1 :
				!strcmp(optarg, "thp")	 ? 2 :
							   0;
			break;
		default:
			fprintf(stderr, "usage: bench_sampler [-s MIB] "
					"[-r ROUNDS] [-f TOUCH_PERCENT] "
					"[-p small|thp]\n");
			return 2;
		}
	}
	if (!c.mib || c.rounds < 1 || c.touch_pct < 0 || c.touch_pct > 100 ||
	    !kinds) {
		fprintf(stderr, "bench_sampler: bad arguments\n");
		return 2;
	}
	printf("sampler cost: %zu MiB resident, %d%% of its pages touched "
	       "per window, medians of %d windows; CPU time of the sampling "
	       "thread per GiB resident per window\n",
	       c.mib, c.touch_pct, c.rounds);
	for (thp = 0; thp < 2; thp++) {
		if (!(kinds & (1 << thp)))
			continue;
		if (run(&c, thp, 0, &r)) {
			fprintf(stderr, "bench_sampler: %s run failed\n",
				name[thp]);
			return 1;
		}
		printf("\n%s (%.2f GiB resident, %.0f pages accessed per "
		       "window):\n",
		       name[thp], r.gib, r.pages);
		printf("  baseline clear_refs 1     %8.2f ms/GiB\n",
		       r.base1 / 1e6);
		printf("  sampler window            %8.2f ms/GiB  %5.2fx "
		       "baseline (target <= 3x)\n",
		       r.next / 1e6, r.r_next);
		printf("    walk                    %8.2f ms/GiB  %5.2fx "
		       "(in BPF %.2f ms/GiB, %.2fx; the rest makes page ids)\n",
		       r.walk / 1e6, r.r_walk, r.bpf / 1e6, r.r_bpf);
		printf("    clear_refs 1 + 4        %8.2f ms/GiB  %5.2fx "
		       "(4 alone: %.2f ms/GiB, %.2fx)\n",
		       r.clear / 1e6, r.r_clear, r.base4 / 1e6, r.r_base4);
		if (run(&c, thp, MDK_SAMPLER_RUNS, &q)) {
			fprintf(stderr, "bench_sampler: %s runs run failed\n",
				name[thp]);
			return 1;
		}
		printf("  sampler window, runs      %8.2f ms/GiB  %5.2fx "
		       "baseline (walk %.2fx, BPF %.2fx, clear_refs %.2fx; "
		       "baseline %.2f ms/GiB)\n",
		       q.next / 1e6, q.r_next, q.r_walk, q.r_bpf, q.r_clear,
		       q.base1 / 1e6);
		if (run(&c, thp, MDK_SAMPLER_NO_FLUSH, &q)) {
			fprintf(stderr,
				"bench_sampler: %s no-flush run failed\n",
				name[thp]);
			return 1;
		}
		printf("  sampler window, no flush  %8.2f ms/GiB  %5.2fx "
		       "baseline (walk %.2fx; baseline %.2f ms/GiB)\n",
		       q.next / 1e6, q.r_next, q.r_walk, q.base1 / 1e6);
		printf("  workload's touch pass     %8.2f ms with the flush, "
		       "%.2f ms without (%.2fx); %.0f vs %.0f minor faults\n",
		       r.touch / 1e6, q.touch / 1e6,
		       q.touch ? r.touch / q.touch : 0, r.faults, q.faults);
	}
	return 0;
}
