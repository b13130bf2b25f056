// SPDX-License-Identifier: GPL-2.0
/*
 * What mdkctl mpc and mdkctl simulate share (see analysis.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/mpc.h>
#include <mdk/trace.h>

#include "analysis.h"

int mdkctl_trace_meta(const char *path, struct mdkctl_trace_meta *m)
{
	struct mdk_trace_reader *r;
	char err[512];

	if (mdk_trace_reader_open(path, 0, &r, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return -1;
	}
	m->windows = mdk_trace_reader_info(r)->windows;
	m->records = mdk_trace_reader_info(r)->records;
	m->window_s = (double)mdk_trace_reader_info(r)->window_us / 1e6;
	if (!mdk_trace_reader_info(r)->indexed) {
		/* A pipe: the trace is read more than once. */
		fprintf(stderr,
			"mdkctl: %s: needs a trace in a regular file (it is read more than once)\n",
			path);
		mdk_trace_reader_close(r);
		return -1;
	}
	mdk_trace_reader_close(r);
	return 0;
}

int mdkctl_parse_savings(const char *s, unsigned int *flags)
{
	if (!strcmp(s, "occupancy")) {
		*flags &= ~MDK_SAVINGS_PAPER;
		return 0;
	}
	if (!strcmp(s, "paper")) {
		*flags |= MDK_SAVINGS_PAPER;
		return 0;
	}
	fprintf(stderr, "mdkctl: --savings '%s': expected occupancy or paper\n",
		s);
	return -1;
}

void mdkctl_policies_free(struct mdk_policy **pols, size_t n)
{
	size_t i;

	for (i = 0; pols && i < n; i++)
		mdk_policy_free(pols[i]);
	free(pols);
}
