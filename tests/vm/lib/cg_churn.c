// SPDX-License-Identifier: GPL-2.0
/*
 * cg_churn DIR RATE SECONDS LOG: create RATE cgroups a second under the
 * cgroup DIR for SECONDS, removing each when its life ends: one in twenty
 * lives LONG_MS, the others SHORT_MS.  At the end the ones still there are
 * removed too.  LOG gets a line per event, "+ NAME US" and "- NAME US"
 * (CLOCK_REALTIME, microseconds, as date +%s%6N), written as they happen
 * so a reader sees the tree as it was.  A shell loop of mkdir and rmdir
 * forks too slowly under TCG to keep the rate (400 of each took 261 s on
 * 6.12; this, 2 s).  Prints what it did and how far behind the schedule
 * it fell at worst; exit 1 on an error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SHORT_MS 300
#define LONG_MS 15000

static uint64_t now_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

struct cg {
	uint64_t n;
	uint64_t end_us; /* CLOCK_MONOTONIC */
};

static int event(FILE *log, const char *dir, char op, uint64_t n)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/c-%llu", dir, (unsigned long long)n);
	ret = op == '+' ? mkdir(path, 0755) : rmdir(path);
	if (ret) {
		fprintf(stderr, "cg_churn: %s %s: %s\n",
			op == '+' ? "mkdir" : "rmdir", path, strerror(errno));
		return -1;
	}
	fprintf(log, "%c c-%llu %llu\n", op, (unsigned long long)n,
		(unsigned long long)now_us(CLOCK_REALTIME));
	fflush(log);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t start, step, next, lag = 0, n = 0, made, total, head = 0;
	struct cg *live;
	size_t nlive = 0, i;
	FILE *log;
	int rate;

	if (argc != 5 || (rate = atoi(argv[2])) <= 0 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: cg_churn DIR RATE SECONDS LOG\n");
		return 2;
	}
	log = fopen(argv[4], "w");
	total = (uint64_t)rate * (uint64_t)atoi(argv[3]);
	live = calloc(total, sizeof(*live));
	if (!log || !live)
		return 1;
	step = 1000000 / (uint64_t)rate;
	start = now_us(CLOCK_MONOTONIC);
	for (made = 0; made < total; made++) {
		uint64_t t;
		struct timespec ts;

		next = start + made * step;
		t = now_us(CLOCK_MONOTONIC);
		if (t < next) {
			ts.tv_sec = (time_t)((next - t) / 1000000);
			ts.tv_nsec = (long)((next - t) % 1000000 * 1000);
			nanosleep(&ts, NULL);
			t = now_us(CLOCK_MONOTONIC);
		} else if (t - next > lag) {
			lag = t - next;
		}
		/* The dead first: lives end in creation order per kind. */
		for (i = head; i < nlive; i++)
			if (live[i].end_us && live[i].end_us <= t) {
				if (event(log, argv[1], '-', live[i].n))
					return 1;
				live[i].end_us = 0;
			}
		while (head < nlive && !live[head].end_us)
			head++;
		if (event(log, argv[1], '+', n))
			return 1;
		live[nlive].n = n;
		live[nlive++].end_us =
			t + (n % 20 ? SHORT_MS : LONG_MS) * (uint64_t)1000;
		n++;
	}
	for (i = head; i < nlive; i++)
		if (live[i].end_us && event(log, argv[1], '-', live[i].n))
			return 1;
	printf("cg_churn: %llu cgroups made and removed in %.1f s, at worst %.0f ms behind\n",
	       (unsigned long long)n, (now_us(CLOCK_MONOTONIC) - start) / 1e6,
	       lag / 1e3);
	fclose(log);
	free(live);
	return 0;
}
