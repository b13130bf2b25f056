/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_LINCHECK_H
#define MDK_LINCHECK_H

/*
 * A linearizability checker for histories of key-value operations (the
 * Wing & Gong search with Lowe's memoization of visited configurations,
 * one key at a time: linearizability is local, so a history is
 * linearizable iff the sub-history of every key is).
 *
 * Each key is a register: MDK_SWARM_LIN_PUT writes @value (MDK_SWARM_LIN_ABSENT for a
 * delete), MDK_SWARM_LIN_GET read @value (MDK_SWARM_LIN_ABSENT when it found none).
 * Initially every key is absent.  An operation whose outcome is unknown
 * (its client crashed, or it failed with -EIO) is pending: @ret_ns is
 * MDK_SWARM_LIN_PENDING and it may take effect at any point after its call, or
 * never.  Pending gets carry no information and should be left out.
 * Times are from one clock (CLOCK_MONOTONIC): @call_ns is taken before
 * the operation starts and @ret_ns after it returned.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MDK_SWARM_LIN_ABSENT UINT64_MAX
#define MDK_SWARM_LIN_PENDING UINT64_MAX

enum mdk_swarm_lin_kind {
	MDK_SWARM_LIN_GET = 0,
	MDK_SWARM_LIN_PUT = 1,
};

struct mdk_swarm_lin_op {
	uint64_t key;
	uint64_t value;
	uint64_t call_ns;
	uint64_t ret_ns;
	uint32_t client;
	uint8_t kind;
};

/*
 * struct mdk_swarm_lin_report - the verdict.
 * @linearizable: the history is linearizable
 * @keys, @ops:   keys and operations checked
 * @bad_key:      the first key whose sub-history is not linearizable
 * @explored:     configurations the search visited
 * @msg:          one line saying what failed
 */
struct mdk_swarm_lin_report {
	bool linearizable;
	size_t keys, ops;
	uint64_t bad_key;
	uint64_t explored;
	char msg[256];
};

/*
 * mdk_swarm_lincheck() - check the @n operations of @ops (any order).  Returns 0
 * when the check ran to its verdict in @rep, -EINVAL for a malformed
 * operation (a return before its call, an unknown kind: @rep->msg names
 * its index), -E2BIG when a key needs more than @max_explored
 * configurations (0: no limit), -ENOMEM.
 */
int mdk_swarm_lincheck(const struct mdk_swarm_lin_op *ops, size_t n,
		       uint64_t max_explored, struct mdk_swarm_lin_report *rep);

/* mdk_swarm_lin_now_ns() - CLOCK_MONOTONIC in nanoseconds, for call_ns/ret_ns. */
uint64_t mdk_swarm_lin_now_ns(void);

#endif /* MDK_LINCHECK_H */
