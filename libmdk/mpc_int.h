/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The single-pass MPC generator's state, shared by the generator
 * (mpc.c), its evaluation (mpc_eval.c) and the whole-trace driver, which
 * derives a coarse generator's histograms from a finer one's (mpc_run.c).
 */
#ifndef MDK_MPC_INT_H
#define MDK_MPC_INT_H

#include <mdk/mpc.h>

#include "policy_int.h"

struct mdk_mpc {
	struct mdk_gen g; /* what the policy hooks see */
	struct mdk_policy *pol;
	const struct mdk_policy_ops *ops;
	uint32_t rmax; /* largest r-value binned: cap, or a keyed policy's key_max */
	uint32_t *rbin; /* r-value 0..rmax -> r-bin */
	uint32_t *gbin; /* length 0..cap-1 -> g-bin */
	/*
	 * When every g-bin holds one gap length (full threshold grids, OPP),
	 * gsum is count x length and is not kept: gval[] has the lengths.
	 */
	bool gsum_derived;
	uint32_t *gval;
	uint32_t *rows; /* cap x cells */
	uint64_t *gsum; /* cells */
	uint32_t *open; /* cap x nr */
	int64_t *acc; /* per slot */
	int64_t *first; /* per slot */
	uint32_t *slotwin; /* window + 1 a slot holds (0: none yet) */
	bool started;
	uint32_t hi_seen; /* newest window added */
	int failed;
	size_t bytes;
	uint64_t *scratch;
	struct mdk_grid gown; /* the gap thresholds of ops->gen_ggrid() */
};

static inline uint32_t slot_of(const struct mdk_mpc *m, uint32_t w)
{
	return w % m->g.cap;
}

#pragma GCC visibility push(hidden)
/*
 * mdk_mpc_eval() with @extra[w - lo] promotions added to every setting in
 * window w of lo..hi (NULL: none): counts that do not depend on the
 * setting, as the live evaluator's promotions of pages nobody picked.
 */
long mdk__mpc_eval_extra(struct mdk_mpc *m, uint32_t lo, uint32_t hi,
			 unsigned int flags, const uint64_t *extra,
			 struct mdk_point **pts, char *err, size_t errlen);
#pragma GCC visibility pop

#endif /* MDK_MPC_INT_H */
