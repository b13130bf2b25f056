// SPDX-License-Identifier: GPL-2.0
/*
 * Policy mode's measured costs of a cgroup, its "tiers" status object: the
 * compression ratio of its memory (compress.h: memory.stat's zswap
 * counters where the kernel has them, else LZ4 over a bounded sample of
 * its resident anonymous pages, at most once a window) and the live
 * counters of each back end: swap-ins, zswap loads, promotions from the
 * CMM-MP node, and the cgroup's memory PSI some total.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "jsonout.h"
#include "loop.h"
#include "mode_policy_int.h"
#include "target.h"

/* Samples add up to this many pages, then count half. */
#define COSTS_SAMPLE_HISTORY 4096

static int read_at(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void refresh_ratio(struct policy_state *st, const char *stat)
{
	struct policy_costs *c = &st->costs;
	struct mdkd_compress s = { 0 };
	uint64_t now = mdkd_now_us();
	char dir[8192];
	double r;

	if (c->done && now - c->at_us < st->t->set->window_us)
		return;
	c->done = true;
	c->at_us = now;
	if (stat[0] && !mdkd_compress_memstat(stat, &r)) {
		c->ratio = r;
		c->source = "memory.stat";
		return;
	}
	snprintf(dir, sizeof(dir), "%s/%s", st->t->cgroup_root, st->t->path);
	if (mdkd_compress_sample(dir, st->t->proc_root, MDKD_COMPRESS_SAMPLE,
				 &c->pass, &s))
		return; /* no page resident: the last ratio stands */
	if (c->sum.pages >= COSTS_SAMPLE_HISTORY) {
		c->sum.pages /= 2;
		c->sum.in_bytes /= 2;
		c->sum.out_bytes /= 2;
	}
	c->sum.pages += s.pages;
	c->sum.in_bytes += s.in_bytes;
	c->sum.out_bytes += s.out_bytes;
	c->ratio = mdkd_compress_ratio(&c->sum);
	c->source = "sampled";
}

/* Swap-ins: the cgroup's where memory.stat has them, else the host's. */
static void add_swapins(struct policy_state *st, struct json_object *o,
			const char *stat)
{
	char path[4200], buf[16384];
	uint64_t v;

	if (mdkd_compress_stat_key(stat, "pswpin", &v)) {
		mdkd_json_add_u64(o, "swapins", v);
		mdkd_json_add_str(o, "swapins_source", "memory.stat");
		return;
	}
	snprintf(path, sizeof(path), "%s/vmstat", st->t->proc_root);
	if (!read_at(AT_FDCWD, path, buf, sizeof(buf)) &&
	    mdkd_compress_stat_key(buf, "pswpin", &v)) {
		mdkd_json_add_u64(o, "swapins", v);
		mdkd_json_add_str(o, "swapins_source", "host /proc/vmstat");
		return;
	}
	mdkd_json_add(o, "swapins", NULL);
	mdkd_json_add_str(o, "swapins_source", "");
}

struct json_object *mdkd_policy_costs_json(struct policy_state *st)
{
	struct json_object *o = json_object_new_object();
	struct policy_costs *c = &st->costs;
	char stat[16384];
	uint64_t v;

	read_at(st->t->dirfd, "memory.stat", stat, sizeof(stat));
	refresh_ratio(st, stat);
	if (c->ratio > 0) {
		mdkd_json_add_double(o, "ratio", c->ratio);
		mdkd_json_add_double(o, "save",
				     c->ratio > 1 ? 1 - 1 / c->ratio : 0);
	} else {
		mdkd_json_add(o, "ratio", NULL);
		mdkd_json_add(o, "save", NULL);
	}
	mdkd_json_add_str(o, "ratio_source", c->source ? c->source : "");
	mdkd_json_add_u64(o, "sampled_pages", c->sum.pages);
	add_swapins(st, o, stat);
	if (mdkd_compress_stat_key(stat, "zswpin", &v))
		mdkd_json_add_u64(o, "zswap_loads", v);
	else
		mdkd_json_add(o, "zswap_loads", NULL);
	/* Linux 6.8 on: compressed pages written to swap, among them those
	 * that page-outs past zswap displaced (zswap_off.h). */
	if (mdkd_compress_stat_key(stat, "zswpwb", &v))
		mdkd_json_add_u64(o, "zswap_writebacks", v);
	else
		mdkd_json_add(o, "zswap_writebacks", NULL);
	mdkd_json_add_u64(o, "cxl_promotions", st->tot.back);
	mdkd_json_add_u64(o, "psi_some_total_us",
			  st->t->sample ? st->t->sample->mem.some.total_us : 0);
	return o;
}

double mdkd_policy_costs_ratio(struct policy_state *st)
{
	char stat[16384];

	read_at(st->t->dirfd, "memory.stat", stat, sizeof(stat));
	refresh_ratio(st, stat);
	return st->costs.ratio;
}
