/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mode policy (mode_policy.c): per managed cgroup, the page sampler feeds
 * the live evaluator (evaluator.h) one window per interval; a policy
 * setting -- fixed, or auto-tuned over the live curves -- picks pages,
 * and the pageout or migrate actuator (pages.h) moves them.  This header
 * is what the rest of the daemon sees of it: the source of windows (the
 * sampler, or a fake in the unit tests) and the JSON views of the control
 * socket.  Documentation/mdkd.rst, "Policy mode".
 */
#ifndef MDKD_MODE_POLICY_H
#define MDKD_MODE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "bpf/loader.h"

struct mdkd_target;

/* Where policy mode gets its windows: the sampler's calls of
 * bpf/loader.h. */
struct mdkd_policy_source {
	void *(*open)(const struct mdk_sampler_opts *opts, char *msg,
		      size_t len);
	int (*start)(void *src, char *msg, size_t len);
	int (*next)(void *src, struct mdk_sampler_window *w, char *msg,
		    size_t len);
	const struct mdk_sampler_proc *(*proc)(void *src, uint32_t id);
	void (*close)(void *src);
};

/* The sampler's calls; each daemon hands its source to policy mode
 * through struct mdkd_target. */
extern const struct mdkd_policy_source mdkd_policy_source_sampler;

/* Backend auto's counters of one cgroup, for the metrics. */
struct mdkd_policy_auto_view {
	unsigned int n; /* tiers in force */
	struct {
		char name[16];
		uint64_t pages; /* moved there, not accessed since */
		uint64_t moved, returned, held; /* totals, pages */
	} t[3];
	uint64_t stall_ns; /* measured, in total */
	double stall_share; /* the last window's */
	double predicted_max_stall; /* the running setting's, 0: none */
};

/*
 * mdkd_policy_auto_view() - @state's (policy mode's, on @t) counters of
 * backend auto into *@v.  Return: false when @t is not of backend auto.
 */
bool mdkd_policy_auto_view(const struct mdkd_target *t, void *state,
			   struct mdkd_policy_auto_view *v);

#endif /* MDKD_MODE_POLICY_H */
