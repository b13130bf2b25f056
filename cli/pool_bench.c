// SPDX-License-Identifier: GPL-2.0
/*
 * pool_bench: latency and bandwidth matrices in the manner of Intel MLC.
 *
 * For each node with CPUs (the thread is bound there with libnuma) and each
 * node with memory (the buffer is allocated there, strictly, and faulted
 * in): a pointer chase over a random cyclic permutation of the buffer's
 * cache lines (Sattolo's algorithm, so one cycle visits every line and
 * hardware prefetchers cannot guess the next one) gives the load-to-load
 * latency; summing the buffer as 64-bit words gives the read bandwidth.
 * Each is the best of several rounds, the rounds of a row interleaved over
 * the memory nodes so that none is favoured by going first.  Where the
 * pages really are is
 * checked with move_pages(2).
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mdk/util.h>

#include "pool_bench.h"

#define LINE 64
#define PLACEMENT_SAMPLES 1024

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Links the lines of @buf into one random cycle; 0 or -ENOMEM. */
static int link_lines(char *buf, uint64_t bytes)
{
	uint64_t n = bytes / LINE, i, seed = 0x9e3779b97f4a7c15ULL;
	uint32_t *perm = malloc(n * sizeof(*perm));

	if (!perm)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	/* Sattolo: a uniformly random cyclic permutation. */
	for (i = n - 1; i > 0; i--) {
		uint64_t j = mdk_splitmix64(&seed) % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(buf + (uint64_t)perm[i] * LINE) =
			buf + (uint64_t)perm[(i + 1) % n] * LINE;
	free(perm);
	return 0;
}

static double chase_ns(char *buf, uint64_t bytes)
{
	uint64_t steps = bytes / LINE, i;
	void *volatile sink;
	void **p = (void **)buf;
	double t0 = now_ns();

	for (i = 0; i < steps; i++)
		p = (void **)*p;
	sink = p;
	(void)sink;
	return (now_ns() - t0) / (double)steps;
}

static double read_mbps(const char *buf, uint64_t bytes)
{
	const uint64_t *w = (const uint64_t *)buf;
	uint64_t n = bytes / sizeof(*w), i, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	volatile uint64_t sink;
	double t0 = now_ns(), dt;

	for (i = 0; i + 4 <= n; i += 4) {
		s0 += w[i];
		s1 += w[i + 1];
		s2 += w[i + 2];
		s3 += w[i + 3];
	}
	dt = now_ns() - t0;
	sink = s0 + s1 + s2 + s3;
	(void)sink;
	return (double)bytes / dt * 1e3; /* bytes/ns = GB/s; * 1000 = MB/s */
}

static double on_node(char *buf, uint64_t bytes, int node)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pages = bytes / page, step, i;
	void *addrs[PLACEMENT_SAMPLES];
	int status[PLACEMENT_SAMPLES], n = 0, hits = 0, k;

	step = pages > PLACEMENT_SAMPLES ? pages / PLACEMENT_SAMPLES : 1;
	for (i = 0; i < pages && n < PLACEMENT_SAMPLES; i += step)
		addrs[n++] = buf + i * page;
	if (numa_move_pages(0, n, addrs, NULL, status, 0))
		return 0;
	for (k = 0; k < n; k++)
		hits += status[k] == node;
	return n ? (double)hits / n : 0;
}

/*
 * The row of CPU node @c: a buffer on every memory node, then the rounds
 * interleaved over the nodes, so that no node is favoured by going first
 * (a warming emulator, a noisy neighbour).
 */
static int measure_row(struct mdkctl_pool_bench *b, int c, char *err,
		       size_t errlen)
{
	struct mdkctl_pool_bench_cell *row = &b->cells[c * b->nr_mem];
	char **bufs = calloc(b->nr_mem, sizeof(*bufs));
	long long free_bytes;
	unsigned int r;
	int m, ret = 0;

	if (!bufs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (numa_run_on_node(b->cpu_nodes[c])) {
		ret = -errno;
		snprintf(err, errlen, "cannot run on node %d: %s",
			 b->cpu_nodes[c], strerror(errno));
		goto out;
	}
	for (m = 0; m < b->nr_mem; m++) {
		if (numa_node_size64(b->mem_nodes[m], &free_bytes) <= 0)
			continue;
		bufs[m] = numa_alloc_onnode(b->bytes, b->mem_nodes[m]);
		if (!bufs[m]) {
			snprintf(err, errlen,
				 "cannot allocate %llu MiB on node %d",
				 (unsigned long long)(b->bytes >> 20),
				 b->mem_nodes[m]);
			ret = -ENOMEM;
			goto out;
		}
		memset(bufs[m], 1, b->bytes);
		row[m].on_node = on_node(bufs[m], b->bytes, b->mem_nodes[m]);
		ret = link_lines(bufs[m], b->bytes);
		if (ret) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		row[m].latency_ns = 1e300;
		row[m].measured = true;
	}
	for (r = 0; r < b->rounds; r++) {
		for (m = 0; m < b->nr_mem; m++) {
			double l, bw;

			if (!bufs[m])
				continue;
			l = chase_ns(bufs[m], b->bytes);
			bw = read_mbps(bufs[m], b->bytes);
			if (l < row[m].latency_ns)
				row[m].latency_ns = l;
			if (bw > row[m].read_mbps)
				row[m].read_mbps = bw;
		}
	}
out:
	for (m = 0; m < b->nr_mem; m++)
		if (bufs[m])
			numa_free(bufs[m], b->bytes);
	free(bufs);
	return ret;
}

int mdkctl_pool_bench_run(struct mdkctl_pool_bench *b, uint64_t bytes,
			  unsigned int rounds, int pool_node, char *err,
			  size_t errlen)
{
	int max, node, c, ret = -ENOMEM;
	struct bitmask *cpus;

	memset(b, 0, sizeof(*b));
	if (numa_available() < 0) {
		snprintf(err, errlen, "the kernel has no NUMA support");
		return -ENOSYS;
	}
	b->bytes = bytes / LINE * LINE;
	b->rounds = rounds;
	b->pool_node = pool_node;
	max = numa_max_node() + 1;
	b->cpu_nodes = calloc(max, sizeof(int));
	b->mem_nodes = calloc(max, sizeof(int));
	cpus = numa_allocate_cpumask();
	if (!b->cpu_nodes || !b->mem_nodes || !cpus) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	for (node = 0; node < max; node++) {
		long long free_bytes;

		if (!numa_node_to_cpus(node, cpus) &&
		    numa_bitmask_weight(cpus) > 0)
			b->cpu_nodes[b->nr_cpu++] = node;
		if (numa_node_size64(node, &free_bytes) > 0 ||
		    node == pool_node)
			b->mem_nodes[b->nr_mem++] = node;
	}
	b->cells = calloc((size_t)b->nr_cpu * b->nr_mem, sizeof(*b->cells));
	if (!b->cells) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	for (c = 0; c < b->nr_cpu; c++) {
		ret = measure_row(b, c, err, errlen);
		if (ret)
			goto err;
	}
	numa_run_on_node(-1);
	numa_free_cpumask(cpus);
	return 0;
err:
	if (cpus)
		numa_free_cpumask(cpus);
	mdkctl_pool_bench_free(b);
	return ret;
}

void mdkctl_pool_bench_free(struct mdkctl_pool_bench *b)
{
	free(b->cpu_nodes);
	free(b->mem_nodes);
	free(b->cells);
	memset(b, 0, sizeof(*b));
}
