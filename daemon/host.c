// SPDX-License-Identifier: GPL-2.0
/* The host's memory, read at most once a second: see host.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "host.h"
#include "pages.h"

/* The value after "@key:" on a line of @buf (@key at the line start). */
static const char *line_value(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return p + klen + 1;
	}
	return NULL;
}

/* "Key:   123 kB" in bytes. */
static int kb_value(const char *buf, const char *key, uint64_t *bytes)
{
	const char *v = line_value(buf, key);
	unsigned long long kb;

	if (!v || sscanf(v, "%llu kB", &kb) != 1)
		return -EINVAL;
	*bytes = (uint64_t)kb << 10;
	return 0;
}

int mdkd_host_parse_meminfo(struct mdkd_host *h, const char *buf)
{
	if (kb_value(buf, "MemTotal", &h->mem_total) ||
	    kb_value(buf, "MemFree", &h->mem_free) ||
	    kb_value(buf, "SwapTotal", &h->swap_total) ||
	    kb_value(buf, "SwapFree", &h->swap_free))
		return -EINVAL;
	if (kb_value(buf, "MemAvailable", &h->mem_available))
		h->mem_available = h->mem_free;
	h->has_zswap_pool = !kb_value(buf, "Zswap", &h->zswap_pool);
	if (!h->has_zswap_pool)
		h->zswap_pool = 0;
	return 0;
}

int mdkd_host_parse_node_meminfo(const char *buf, uint64_t *total,
				 uint64_t *free)
{
	const char *p;
	int got = 0;

	/* "Node 0 MemTotal:       1012345 kB" */
	for (p = buf; p && *p; p = strchr(p, '\n')) {
		unsigned long long kb;
		char key[32];

		if (*p == '\n')
			p++;
		if (sscanf(p, "Node %*d %31[A-Za-z]: %llu kB", key, &kb) != 2)
			continue;
		if (!strcmp(key, "MemTotal")) {
			*total = (uint64_t)kb << 10;
			got |= 1;
		} else if (!strcmp(key, "MemFree")) {
			*free = (uint64_t)kb << 10;
			got |= 2;
		}
	}
	return got == 3 ? 0 : -EINVAL;
}

int mdkd_host_vmstat(const char *buf, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = buf; p; p = strchr(p, '\n')) {
		unsigned long long v;

		if (*p == '\n')
			p++;
		if (!strncmp(p, key, klen) && p[klen] == ' ' &&
		    sscanf(p + klen, " %llu", &v) == 1) {
			*val = v;
			return 0;
		}
	}
	return -ENOENT;
}

static void read_zswap(struct mdkd_host *h, const char *sys_root)
{
	char path[4200], buf[32];

	snprintf(path, sizeof(path), "%s/module/zswap/parameters/enabled",
		 sys_root);
	h->zswap_enabled = mdkd_read_small(path, buf, sizeof(buf)) > 0 &&
			   (buf[0] == 'Y' || buf[0] == 'y' || buf[0] == '1');
	snprintf(path, sizeof(path),
		 "%s/module/zswap/parameters/max_pool_percent", sys_root);
	if (mdkd_read_small(path, buf, sizeof(buf)) > 0)
		h->zswap_max_pool_percent =
			(unsigned int)strtoul(buf, NULL, 10);
}

/* DRAM (every node with memory but the tier node) and the tier node. */
static void read_nodes(struct mdkd_host *h, const char *sys_root)
{
	char path[4200], buf[4096];
	int node, missing = 0;

	h->dram_total = h->dram_free = h->tier_total = h->tier_free = 0;
	h->tier_node = mdkd_cmm_mp_node(sys_root);
	if (h->tier_node < 0)
		h->tier_node = -1;
	for (node = 0; node < 1024 && missing < 64; node++) {
		uint64_t total, free;

		snprintf(path, sizeof(path),
			 "%s/devices/system/node/node%d/meminfo", sys_root,
			 node);
		if (mdkd_read_small(path, buf, sizeof(buf)) < 0) {
			missing++;
			continue;
		}
		if (mdkd_host_parse_node_meminfo(buf, &total, &free))
			continue;
		if (node == h->tier_node) {
			h->tier_total = total;
			h->tier_free = free;
		} else {
			h->dram_total += total;
			h->dram_free += free;
		}
	}
	if (!h->dram_total) {
		/* No NUMA sysfs: the whole machine is one DRAM node. */
		h->dram_total = h->mem_total;
		h->dram_free = h->mem_free;
	}
}

/* /proc/meminfo into @h, @buf (64 KiB) the scratch. */
static int read_meminfo(struct mdkd_host *h, const char *proc_root, char *buf,
			char *err, size_t errlen)
{
	char path[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	ret = mdkd_read_small(path, buf, 65536);
	if (ret >= 0 && mdkd_host_parse_meminfo(h, buf))
		ret = -EINVAL;
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EINVAL ? "no MemTotal, MemFree or swap lines" :
					  strerror(-ret));
		return ret;
	}
	return 0;
}

/* The start of a reading: NULL when none is due (*@ret 0) or on error. */
static char *reading(struct mdkd_host *h, uint64_t now, bool force, int *ret,
		     char *err, size_t errlen)
{
	char *buf;

	*ret = 0;
	if (!force && h->read_us && now - h->read_us < MDKD_HOST_PERIOD_US)
		return NULL;
	buf = malloc(65536);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		*ret = -ENOMEM;
		return NULL;
	}
	h->read_us = now;
	return buf;
}

int mdkd_host_read_mem(struct mdkd_host *h, const char *proc_root, uint64_t now,
		       bool force, char *err, size_t errlen)
{
	int ret;
	char *buf = reading(h, now, force, &ret, err, errlen);

	if (!buf)
		return ret;
	ret = read_meminfo(h, proc_root, buf, err, errlen);
	free(buf);
	return ret;
}

int mdkd_host_read(struct mdkd_host *h, const char *proc_root,
		   const char *sys_root, uint64_t now, bool force, char *err,
		   size_t errlen)
{
	uint64_t prev_out = h->pswpout, prev_us = h->pswpout_us;
	char path[4200], *buf;
	int ret;

	buf = reading(h, now, force, &ret, err, errlen);
	if (!buf)
		return ret;
	ret = read_meminfo(h, proc_root, buf, err, errlen);
	if (ret) {
		free(buf);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/vmstat", proc_root);
	if (mdkd_read_small(path, buf, 65536) < 0 ||
	    mdkd_host_vmstat(buf, "pswpout", &h->pswpout))
		h->pswpout = prev_out;
	else
		h->pswpout_us = now;
	h->swapout_rate = 0;
	if (prev_us && now > prev_us && h->pswpout >= prev_out)
		h->swapout_rate = (double)(h->pswpout - prev_out) *
				  MDKD_PAGE_SIZE * 1e6 /
				  (double)(now - prev_us);
	free(buf);
	read_zswap(h, sys_root);
	read_nodes(h, sys_root);
	return 0;
}

static double share(uint64_t part, uint64_t total)
{
	return total ? (double)part / (double)total : 0;
}

double mdkd_host_swap_used(const struct mdkd_host *h)
{
	return share(h->swap_total - h->swap_free, h->swap_total);
}

double mdkd_host_zswap_used(const struct mdkd_host *h)
{
	uint64_t limit = h->mem_total / 100 * h->zswap_max_pool_percent;

	return h->zswap_enabled ? share(h->zswap_pool, limit) : 0;
}

double mdkd_host_free_share(const struct mdkd_host *h)
{
	return share(h->mem_free, h->mem_total);
}

double mdkd_host_dram_free_share(const struct mdkd_host *h)
{
	return share(h->dram_free, h->dram_total);
}

double mdkd_host_tier_used(const struct mdkd_host *h)
{
	return share(h->tier_total - h->tier_free, h->tier_total);
}
