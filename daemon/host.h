/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's memory as mdkd's limits see it, read at most once a second:
 * /proc/meminfo (free memory, swap, the zswap pool), /proc/vmstat (the
 * swap-out counter, turned into a rate), zswap's parameters, and the NUMA
 * nodes' meminfo (DRAM nodes, and the CMM-MP node when cmm_mp.ko is
 * loaded).  The parsers take buffers, so the unit tests feed them files
 * captured from both kernels.
 */
#ifndef MDKD_HOST_H
#define MDKD_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MDKD_HOST_PERIOD_US 1000000 /* one reading a second, at most */

struct mdkd_host {
	uint64_t read_us; /* when, 0: never */
	uint64_t mem_total, mem_free, mem_available; /* bytes */
	uint64_t swap_total, swap_free;
	bool has_zswap_pool; /* meminfo has "Zswap:" (5.19+) */
	uint64_t zswap_pool; /* compressed bytes in the zswap pool */
	bool zswap_enabled;
	unsigned int zswap_max_pool_percent; /* of MemTotal */
	uint64_t pswpout; /* pages, since boot */
	uint64_t pswpout_us; /* when pswpout was read (full readings only) */
	double swapout_rate; /* bytes a second over the last two readings */
	/* NUMA: DRAM nodes (all but the tier node), the tier node itself. */
	uint64_t dram_total, dram_free;
	int tier_node; /* -1: no CMM-MP node */
	uint64_t tier_total, tier_free;
};

/*
 * mdkd_host_parse_meminfo() - the fields of /proc/meminfo in @buf.
 * Return: 0, or -EINVAL when MemTotal, MemFree or the swap lines are
 * missing (every kernel since 3.14 has MemAvailable; Zswap is optional).
 */
int mdkd_host_parse_meminfo(struct mdkd_host *h, const char *buf);

/*
 * mdkd_host_parse_node_meminfo() - "Node N MemTotal:" and "Node N
 * MemFree:" of a node's meminfo in @buf.  Return: 0 or -EINVAL.
 */
int mdkd_host_parse_node_meminfo(const char *buf, uint64_t *total,
				 uint64_t *free);

/*
 * mdkd_host_vmstat() - the value of counter @key in /proc/vmstat text
 * @buf.  Return: 0 or -ENOENT.
 */
int mdkd_host_vmstat(const char *buf, const char *key, uint64_t *val);

/*
 * mdkd_host_read() - read everything at @now, under @proc_root and
 * @sys_root; the swap-out rate from the previous reading.  Unchanged when
 * the last reading is less than MDKD_HOST_PERIOD_US old, unless @force.
 * Return: 0, or -errno with the file and the reason in @err (meminfo is
 * required, the rest is optional).
 */
int mdkd_host_read(struct mdkd_host *h, const char *proc_root,
		   const char *sys_root, uint64_t now, bool force, char *err,
		   size_t errlen);

/*
 * mdkd_host_read_mem() - only /proc/meminfo (free memory, swap): what
 * activation needs while mdkd is inactive, at the cost of one file.  Same
 * period and errors as mdkd_host_read(); the swap-out rate keeps its value
 * and the next full reading measures it from the last full one.
 */
int mdkd_host_read_mem(struct mdkd_host *h, const char *proc_root, uint64_t now,
		       bool force, char *err, size_t errlen);

/* Shares (0..1) of the last reading; 0 where the total is 0. */
double mdkd_host_swap_used(const struct mdkd_host *h);
double mdkd_host_zswap_used(const struct mdkd_host *h); /* of its limit */
double mdkd_host_free_share(const struct mdkd_host *h); /* MemFree */
double mdkd_host_dram_free_share(const struct mdkd_host *h);
double mdkd_host_tier_used(const struct mdkd_host *h);

#endif /* MDKD_HOST_H */
