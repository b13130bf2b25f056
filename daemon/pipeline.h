/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's per-interval pipeline, on the loop: for each managed cgroup that
 * is due, read its files, parse the sample, let its mode observe and
 * decide, hand the decision to its actuator, take the result back, and
 * queue the interval's record line.  At most read_window cgroups read at
 * once.  It answers the calls of modes and actuators
 * (mdkd_pipeline_target_ops, given to the cgroup table).
 */
#ifndef MDKD_PIPELINE_H
#define MDKD_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroups.h"
#include "host.h"
#include "limits.h"
#include "loop.h"
#include "record.h"

struct mdkd_pipeline {
	struct mdkd_cgroups *cgs;
	struct mdkd_recorder *rec;
	const struct mdkd_clock *clock;
	uint64_t started_us; /* record lines count time from here */
	unsigned int read_window; /* cgroups reading at once, at most */
	bool flush_due; /* a decision since the last flush */
	struct mdkd_host host; /* read at most once a second */
	struct mdkd_limits limits; /* the operator's limits, host-wide */
	uint64_t cpu_wake_us; /* the CPU cap puts work off until then */
};

extern const struct mdkd_target_ops mdkd_pipeline_target_ops;

void mdkd_pipeline_init(struct mdkd_pipeline *pl, struct mdkd_cgroups *cgs,
			struct mdkd_recorder *rec,
			const struct mdkd_clock *clock,
			unsigned int read_window, uint64_t started_us);

/*
 * mdkd_pipeline_refresh_host() - read the host (at most once a second,
 * unless @force) and update the limits with it.
 */
void mdkd_pipeline_refresh_host(struct mdkd_pipeline *pl, uint64_t now,
				bool force);

/* mdkd_pipeline_run_due() - start the reads of the cgroups due at @now. */
void mdkd_pipeline_run_due(struct mdkd_pipeline *pl, uint64_t now);

/* mdkd_pipeline_next_due() - when a cgroup is next due, if before @t. */
uint64_t mdkd_pipeline_next_due(struct mdkd_pipeline *pl, uint64_t t);

#endif /* MDKD_PIPELINE_H */
