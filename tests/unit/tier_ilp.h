/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiered OPP as an integer program, solved by GLPK, for the tests of
 * libmdk/tier/opp.c: built from the trace matrix itself, not from
 * libmdk's interval stream.  One binary x[i][k] per interval i (a gap
 * g >= 1 ending in window n, or a tail t >= 1, read g = t, n = W) and
 * tier k: at most one tier an interval; per window n, the stall
 * sum c_k x[i][k] over the gaps ending in n at most @budget[n]; per
 * window w and tier k with a capacity, the intervals in tier k during w
 * (sent at once, an interval of start a is there in windows a+1..n-1)
 * at most C_k; maximise sum s_k g x[i][k].  Defined in tier_ilp.c;
 * only the tests that call it link GLPK.
 */
#ifndef MDK_TESTS_TIER_ILP_H
#define MDK_TESTS_TIER_ILP_H

#include <stdint.h>

#include <mdk/tier.h>

#include "mdk_test.h"

struct tier_ilp {
	uint64_t saved_ppm; /* the optimum: sum of s_k g over x = 1 */
	size_t vars, rows;
	double secs;
};

/*
 * Solve for @t under @tiers and per-window budgets @budget[0..W-1] (ns).
 * Returns 0, or -ETIME when GLPK did not prove an optimum within
 * @limit_s seconds, -EIO on any other GLPK failure.
 */
int tier_ilp_solve(const struct tt *t, const struct mdk_tiers *tiers,
		   const uint64_t *budget, double limit_s,
		   struct tier_ilp *out);

#endif /* MDK_TESTS_TIER_ILP_H */
