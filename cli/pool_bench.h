/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool_bench: pointer-chase latency and streaming read bandwidth from the
 * CPUs of each NUMA node to the memory of each node, as Intel MLC's
 * latency and bandwidth matrices (mdkctl pool bench).
 */
#ifndef MDKCTL_POOL_BENCH_H
#define MDKCTL_POOL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct mdkctl_pool_bench_cell - one (CPU node, memory node) measurement.
 * @measured: false when the memory node has no memory.
 * @latency_ns: mean load-to-load latency of a random pointer chase, best
 *	round, in ns.
 * @read_mbps: sequential read bandwidth, best round, in MB/s (10^6 B/s).
 * @on_node: fraction of the buffer's sampled pages found on the memory
 *	node (move_pages(2)).
 */
struct mdkctl_pool_bench_cell {
	bool measured;
	double latency_ns;
	double read_mbps;
	double on_node;
};

/**
 * struct mdkctl_pool_bench - the matrices.
 * @bytes: buffer size per measurement.
 * @rounds: rounds per measurement (the best is kept).
 * @pool_node: the CMM-MP node, or -1.
 * @nr_cpu: nodes with CPUs.
 * @cpu_nodes: their ids.
 * @nr_mem: nodes with memory, and the pool node.
 * @mem_nodes: their ids.
 * @cells: nr_cpu x nr_mem, row-major.
 */
struct mdkctl_pool_bench {
	uint64_t bytes;
	unsigned int rounds;
	int pool_node;
	int nr_cpu;
	int *cpu_nodes;
	int nr_mem;
	int *mem_nodes;
	struct mdkctl_pool_bench_cell *cells;
};

/*
 * mdkctl_pool_bench_run() - measure every (CPU node, memory node) pair with a
 * buffer of @bytes, @rounds times each; @pool_node (or -1) is listed even
 * without memory.  Returns 0, or -errno with a message in @err.
 */
int mdkctl_pool_bench_run(struct mdkctl_pool_bench *b, uint64_t bytes,
			  unsigned int rounds, int pool_node, char *err,
			  size_t errlen);
void mdkctl_pool_bench_free(struct mdkctl_pool_bench *b);

#endif /* MDKCTL_POOL_BENCH_H */
