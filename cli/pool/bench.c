// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool bench: latency and bandwidth from each CPU node to each
 * memory node (cli/pool_bench.c measures), as text or JSON.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/pool_bench.h"
#include "daemon/jsonout.h"
#include "pool.h"

/* The CMM-MP node, or -1 when the module is not loaded. */
static int pool_node(void)
{
	struct cmm_mp_info info;
	int fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC), node = -1;

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (!mdkctl_pool_ioctl(fd, CMM_MP_IOC_INFO, &info))
		node = info.node;
	close(fd);
	return node;
}

static void bench_matrix(const struct mdkctl_pool_bench *b, const char *title,
			 int what)
{
	int c, m;

	printf("%s\n\t\tNuma node\nNuma node", title);
	for (m = 0; m < b->nr_mem; m++)
		printf("\t%6d", b->mem_nodes[m]);
	printf("\n");
	for (c = 0; c < b->nr_cpu; c++) {
		printf("%9d", b->cpu_nodes[c]);
		for (m = 0; m < b->nr_mem; m++) {
			const struct mdkctl_pool_bench_cell *x =
				&b->cells[c * b->nr_mem + m];

			if (!x->measured)
				printf("\t%6s", "-");
			else if (what == 0)
				printf("\t%6.1f", x->latency_ns);
			else
				printf("\t%6.0f", x->read_mbps);
		}
		printf("\n");
	}
	printf("\n");
}

static int bench_json(const struct mdkctl_pool_bench *b)
{
	struct json_object *o = json_object_new_object(),
			   *cells = json_object_new_array();
	int c, m;

	mdkd_json_add_u64(o, "bytes", b->bytes);
	mdkd_json_add_u64(o, "rounds", b->rounds);
	mdkd_json_add_i64(o, "pool_node", b->pool_node);
	for (c = 0; c < b->nr_cpu; c++) {
		for (m = 0; m < b->nr_mem; m++) {
			const struct mdkctl_pool_bench_cell *x =
				&b->cells[c * b->nr_mem + m];
			struct json_object *j = json_object_new_object();

			mdkd_json_add_i64(j, "cpu_node", b->cpu_nodes[c]);
			mdkd_json_add_i64(j, "mem_node", b->mem_nodes[m]);
			mdkd_json_add_bool(j, "measured", x->measured);
			if (x->measured) {
				mdkd_json_add_fixed(j, "latency_ns",
						    x->latency_ns, 2);
				mdkd_json_add_fixed(j, "read_mbps",
						    x->read_mbps, 1);
				mdkd_json_add_fixed(j, "on_node", x->on_node,
						    3);
			}
			mdkd_json_push(cells, j);
		}
	}
	mdkd_json_add(o, "cells", cells);
	return mdkd_json_emit(o);
}

static int parse_bench(int argc, char **argv, struct mdkctl_pool_opts *o)
{
	int i = mdkctl_pool_parse_opts(argc, argv, "jsr", o);

	if (i < 0)
		return 2;
	if (i != argc) {
		fprintf(stderr, "mdkctl: pool bench: takes no operands\n");
		return 2;
	}
	return 0;
}

/* Each node against the first, and what went wrong, as text. */
static void bench_ratios(const struct mdkctl_pool_bench *b)
{
	int c, m;

	for (c = 0; c < b->nr_cpu; c++) {
		const struct mdkctl_pool_bench_cell *base = NULL;

		for (m = 0; m < b->nr_mem; m++) {
			const struct mdkctl_pool_bench_cell *x =
				&b->cells[c * b->nr_mem + m];

			if (!x->measured)
				continue;
			if (!base) {
				base = x;
				continue;
			}
			printf("CPUs of node %d: node %d%s against node %d: latency x%.2f, bandwidth x%.2f\n",
			       b->cpu_nodes[c], b->mem_nodes[m],
			       b->mem_nodes[m] == b->pool_node ? " (CMM-MP)" :
								 "",
			       b->mem_nodes[0],
			       x->latency_ns / base->latency_ns,
			       x->read_mbps / base->read_mbps);
		}
	}
	for (m = 0; m < b->nr_mem; m++) {
		if (b->mem_nodes[m] == b->pool_node && !b->cells[m].measured)
			printf("node %d (CMM-MP) has no memory online: mdkctl pool online SEG first\n",
			       b->pool_node);
		for (c = 0; c < b->nr_cpu; c++) {
			const struct mdkctl_pool_bench_cell *x =
				&b->cells[c * b->nr_mem + m];

			if (x->measured && x->on_node < 0.999)
				printf("warning: only %.1f%% of the buffer for node %d landed there\n",
				       100 * x->on_node, b->mem_nodes[m]);
		}
	}
}

int mdkctl_pool_bench(int argc, char **argv)
{
	struct mdkctl_pool_opts o = { .bench_bytes = 64ULL << 20,
				      .bench_rounds = 3 };
	struct mdkctl_pool_bench b;
	char err[256];
	int ret;

	ret = parse_bench(argc, argv, &o);
	if (ret)
		return ret;
	ret = mdkctl_pool_bench_run(&b, o.bench_bytes, o.bench_rounds,
				    pool_node(), err, sizeof(err));
	if (ret) {
		fprintf(stderr, "mdkctl: pool bench: %s\n", err);
		return 1;
	}
	if (o.json) {
		ret = bench_json(&b) ? 1 : 0;
		goto out;
	}
	printf("Buffer %" PRIu64 " MiB per node, best of %u rounds%s\n\n",
	       b.bytes >> 20, b.rounds,
	       b.pool_node >= 0 ? "" : " (cmm_mp.ko not loaded)");
	bench_matrix(&b, "Measuring idle latencies (in ns)...", 0);
	bench_matrix(&b, "Measuring memory bandwidth, reads (in MB/sec)...", 1);
	bench_ratios(&b);
out:
	mdkctl_pool_bench_free(&b);
	return ret;
}
