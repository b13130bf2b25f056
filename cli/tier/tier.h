/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_TIER_TIER_H
#define MDKCTL_TIER_TIER_H

/*
 * mdkctl tier: the verbs (calibrate.c) and the probe that measures one
 * back end (probe.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIER_ROUNDS_MAX 64

enum tier_backend { TIER_CXL, TIER_ZSWAP, TIER_SWAP, TIER_NR };

struct tier_probe {
	enum tier_backend b;
	unsigned long pages;
	unsigned int rounds;
	int node, home; /* cxl: the CMM-MP node, DRAM's node */
	const char *cgroup; /* the probe cgroup's directory */
	const char *proc_root, *sys_root;
};

/* The back end's name in the tier file ("cxl", "zswap", "swap"). */
const char *tier_backend_name(enum tier_backend b);

/* One line: what the probe of @b puts in its pages and how it reclaims. */
const char *tier_backend_how(enum tier_backend b);

/*
 * tier_probe_run() - run @p's rounds in a child process in the probe
 * cgroup: per round, the ns a page of bringing @p->pages back, in
 * @round_ns.  Returns 0, or -errno with why the back end could not be
 * measured in @why.
 */
int tier_probe_run(const struct tier_probe *p, uint64_t *round_ns, char *why,
		   size_t whylen);

/*
 * The probe cgroup, under the cgroup2 mount: made with the memory
 * controller on, removed by tier_cgroup_remove() and on SIGINT, SIGTERM or
 * SIGHUP (the child probing is killed first).
 */
int tier_cgroup_create(char *path, size_t len, char *err, size_t errlen);
void tier_cgroup_remove(void);
/* The probe child a signal kills before the cgroup goes; 0: none. */
void tier_cgroup_child(int pid);
/* tier_write_file() - write @val to the (cgroup) file @path: 0 or -errno. */
int tier_write_file(const char *path, const char *val);

int mdkctl_tier_calibrate(int argc, char **argv);

#endif /* MDKCTL_TIER_TIER_H */
