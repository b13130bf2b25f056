// SPDX-License-Identifier: GPL-2.0
/*
 * Description: not a test, the workload of the mdkd VM tests and the demo.
 * It maps a cold set and a hot set of anonymous memory (small pages), fills
 * both with a known pattern, then keeps touching every page of the hot set
 * until SIGTERM or --seconds; the cold set is never touched again.  An
 * optional warm set changes pattern: idle after its fill until
 * --warm-after seconds (or SIGUSR1, whichever comes first), then read once
 * every --warm-every seconds.  An optional growing set is mapped at the
 * start and filled one MiB every --grow-every seconds, never read again:
 * cold memory of every age.  Once a
 * second it rewrites --report FILE with "ready passes seconds".  At the end
 * it checks every word of both sets: exit 0 when all are intact, 1 when
 * one is not, 2 on a setup error.  --compressible fills pages zswap can
 * compress; by default they are not.
 *
 *   mdkd_workload --cold MIB --hot MIB [--seconds N] [--report FILE]
 *                 [--warm MIB --warm-after S --warm-every S]
 *                 [--grow MIB --grow-every S] [--compressible]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop, warm_now;

static void on_term(int sig)
{
	stop = 1;
}

static void on_usr1(int sig)
{
	warm_now = 1;
}

/* --compressible: one word in 8 varies, so pages compress several times
 * (and none is a page of one repeated word, which zswap keeps apart). */
static int compressible;

static uint64_t pattern(size_t i, uint64_t salt)
{
	if (compressible && i % 8)
		return 0x5a5a5a5a5a5a5a5aULL ^ salt;
	return (i + 1) * 0x9e3779b97f4a7c15ULL ^ salt;
}

/* Words [@from, @to) of @p get their pattern. */
static void fill(uint64_t *p, size_t from, size_t to, uint64_t salt)
{
	size_t i;

	for (i = from; i < to; i++)
		p[i] = pattern(i, salt);
}

/* @bytes mapped, the first @filled of them filled. */
static uint64_t *map_part(size_t bytes, size_t filled, uint64_t salt)
{
	uint64_t *p;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_NOHUGEPAGE);
	fill(p, 0, filled / sizeof(uint64_t), salt);
	return p;
}

static uint64_t *map(size_t bytes, uint64_t salt)
{
	return map_part(bytes, bytes, salt);
}

static int check(const uint64_t *p, size_t bytes, uint64_t salt)
{
	size_t i, n = bytes / sizeof(uint64_t);

	for (i = 0; i < n; i++)
		if (p[i] != pattern(i, salt))
			return -1;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const char *file, unsigned long passes, double secs)
{
	char tmp[4096];
	FILE *f;

	if (!file)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "ready %lu %.1f\n", passes, secs);
	if (!fclose(f))
		rename(tmp, file);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cold", required_argument, NULL, 'c' },
		{ "hot", required_argument, NULL, 'H' },
		{ "seconds", required_argument, NULL, 's' },
		{ "report", required_argument, NULL, 'r' },
		{ "warm", required_argument, NULL, 'w' },
		{ "warm-after", required_argument, NULL, 'a' },
		{ "warm-every", required_argument, NULL, 'e' },
		{ "grow", required_argument, NULL, 'g' },
		{ "grow-every", required_argument, NULL, 'G' },
		{ "compressible", no_argument, &compressible, 1 },
		{ 0 },
	};
	size_t cold = 64 << 20, hot = 16 << 20, warm = 0, i, page = 4096;
	double secs = 300, start, last = 0, warm_after = 0, warm_every = 1;
	double warm_next, grow_every = 1, grow_next;
	size_t grow = 0, grown = 0;
	uint64_t *wm = NULL, *gm = NULL;
	const char *file = NULL;
	unsigned long passes = 0;
	uint64_t *c, *h;
	volatile uint64_t sink = 0;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			cold = strtoull(optarg, NULL, 10) << 20;
			break;
		case 'H':
			hot = strtoull(optarg, NULL, 10) << 20;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'r':
			file = optarg;
			break;
		case 'w':
			warm = strtoull(optarg, NULL, 10) << 20;
			break;
		case 'a':
			warm_after = atof(optarg);
			break;
		case 'e':
			warm_every = atof(optarg);
			break;
		case 'g':
			grow = strtoull(optarg, NULL, 10) << 20;
			break;
		case 'G':
			grow_every = atof(optarg);
			break;
		case 0: /* a flag: set */
			break;
		default:
			fprintf(stderr,
				"usage: %s --cold MIB --hot MIB [--seconds N] [--report FILE]\n"
				"       [--warm MIB --warm-after S --warm-every S]\n"
				"       [--grow MIB --grow-every S] [--compressible]\n",
				argv[0]);
			return 2;
		}
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGUSR1, on_usr1);
	c = map(cold, 1);
	h = map(hot, 2);
	if (warm)
		wm = map(warm, 3);
	if (grow)
		gm = map_part(grow, 0, 4);
	if (!c || !h || (warm && !wm) || (grow && !gm)) {
		perror("mmap");
		return 2;
	}
	start = now_s();
	warm_next = warm_after;
	grow_next = grow_every;
	report(file, 0, 0);
	while (!stop && now_s() - start < secs) {
		/* One read of each hot page: its Accessed bit stays set. */
		for (i = 0; i < hot / sizeof(uint64_t);
		     i += page / sizeof(uint64_t))
			sink += h[i];
		if (warm_now) {
			warm_now = 0;
			if (now_s() - start < warm_next)
				warm_next = now_s() - start;
		}
		if (wm && now_s() - start >= warm_next) {
			for (i = 0; i < warm / sizeof(uint64_t);
			     i += page / sizeof(uint64_t))
				sink += wm[i];
			warm_next += warm_every;
		}
		if (gm && grown < grow && now_s() - start >= grow_next) {
			fill(gm, grown / sizeof(uint64_t),
			     (grown + (1 << 20)) / sizeof(uint64_t), 4);
			grown += 1 << 20;
			grow_next += grow_every;
		}
		passes++;
		if (now_s() - last >= 1) {
			last = now_s();
			report(file, passes, last - start);
		}
		usleep(20000);
	}
	if (check(c, cold, 1) || check(h, hot, 2) ||
	    (wm && check(wm, warm, 3)) || (gm && check(gm, grown, 4))) {
		fprintf(stderr, "mdkd_workload: memory corrupted\n");
		return 1;
	}
	return 0;
}
