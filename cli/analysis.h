/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_ANALYSIS_H
#define MDKCTL_ANALYSIS_H

/*
 * What the trace analysis commands mdkctl mpc and mdkctl simulate share:
 * their output modes, --savings, a trace's size, their policies freed.
 */
#include <stddef.h>
#include <stdint.h>

#include <mdk/policy.h>

enum mdkctl_out_mode { MDKCTL_OUT_HUMAN, MDKCTL_OUT_CSV, MDKCTL_OUT_JSON };

/* What mdkctl mpc and simulate print of a trace before reading it all. */
struct mdkctl_trace_meta {
	uint32_t windows;
	uint64_t records;
	double window_s;
};

/*
 * @path's header into @m; 0, or -1 after a message (also for a trace
 * without an index, which cannot be read more than once).
 */
int mdkctl_trace_meta(const char *path, struct mdkctl_trace_meta *m);
/* --savings occupancy|paper into @flags; 0, or -1 after a message. */
int mdkctl_parse_savings(const char *s, unsigned int *flags);
/* mdk_policy_free() each of @n policies, then the array. */
void mdkctl_policies_free(struct mdk_policy **pols, size_t n);

#endif /* MDKCTL_ANALYSIS_H */
