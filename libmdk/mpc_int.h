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
	size_t rows_map; /* bytes mapped for rows (0: from malloc) */
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

/*
 * The rates' 99th percentile (mpc_eval.c), shared with the tiered curves:
 * mdk__mpc_eval_k() is K, the rank from the top of the nearest-rank 99th
 * percentile of the rates of the windows of lo..hi with accesses; the
 * K largest rates are kept in ascending order by mdk__mpc_topk_add(),
 * the 99th percentile being t[0] once all are added.
 */
uint32_t mdk__mpc_eval_k(const struct mdk_mpc *m, uint32_t lo, uint32_t hi);
void mdk__mpc_topk_add(double *t, uint32_t k, uint32_t *n, double x);

/*
 * The whole-trace driver's parts (mpc_run.c), shared with the threaded
 * driver (mpc_threads.c): a run is a set of generators fed one interval
 * stream, with the keyed policies' own streams.
 */
#define MDK_RUN_BATCH 4096

/* A keyed policy's own stream, fed its keys (mdk_policy_keyed()). */
struct mdk__keyed {
	struct mdk_stream *st;
	struct mdk_keyer *k;
	uint32_t keys[MDK_RUN_BATCH], start[MDK_RUN_BATCH],
		reuse[MDK_RUN_BATCH];
	uint64_t first;
};

struct mdk__derive;

/* One mdk_mpc_run(): the trace, the shared stream, every generator. */
struct mdk__run {
	struct mdk_trace_reader *r; /* NULL in a threaded run's workers */
	uint32_t W;
	size_t np;
	struct mdk_mpc **gens;
	struct mdk_stream *st;
	struct mdk__keyed *kd;
	struct mdk__derive *dv;
	size_t *from; /* the generator gens[i] derives from, or SIZE_MAX */
	size_t *order;
	uint32_t start[MDK_RUN_BATCH], reuse[MDK_RUN_BATCH];
};

/*
 * mdk__run_open() - open @trace into rn->r with reader @flags and set
 * rn->W: a closed (indexed) trace with windows.  0 or -errno.
 */
int mdk__run_open(struct mdk__run *rn, const char *trace, unsigned int flags,
		  char *err, size_t errlen);
/* mdk__run_gens() - @rn's generators of @pols (rn->np, rn->W set). */
int mdk__run_gens(struct mdk__run *rn, struct mdk_policy *const *pols,
		  char *err, size_t errlen);
/* mdk__run_chunk() - one chunk (ids and pages) into the fed generators. */
int mdk__run_chunk(struct mdk__run *rn, const struct mdk_trace_chunk *c,
		   char *err, size_t errlen);
/* mdk__run_tails() - every page's last access into the fed generators. */
int mdk__run_tails(struct mdk__run *rn, char *err, size_t errlen);
/* mdk__run_derive() - the generators not fed, from those they nest in. */
void mdk__run_derive(struct mdk__run *rn);
/*
 * The same in two steps, each split into @nparts parts that threads may
 * run at once: part @part of the ring slots of every derived generator,
 * then, once every part is done, the rest of derived generators @part,
 * @part + @nparts, ...
 */
void mdk__run_derive_part(struct mdk__run *rn, unsigned int part,
			  unsigned int nparts);
void mdk__run_derive_finish(struct mdk__run *rn, unsigned int part,
			    unsigned int nparts);
/* mdk__run_eval() - every policy's points, as mdk_mpc_run() returns them. */
int mdk__run_eval(struct mdk__run *rn, unsigned int flags,
		  struct mdk_point **pts, size_t *npts, char *err,
		  size_t errlen);
void mdk__run_free(struct mdk__run *rn);

/*
 * mdk__mpc_huge_zalloc() - @bytes zeroed, in 2 MiB pages when large (see
 * mpc.c); free with mdk__mpc_huge_free() and the *@maplen it set.  NULL
 * when out of memory.
 */
void *mdk__mpc_huge_zalloc(size_t bytes, size_t *maplen);
void mdk__mpc_huge_free(void *p, size_t maplen);

/*
 * mdk__mpc_merge() - add the histograms and window counts of @src[0..n-1]
 * (generators of the same policy and capacity, fed the same windows) to
 * @dst's, over part @part of @nparts of each array, so that @nparts
 * threads merge at once.
 */
void mdk__mpc_merge(struct mdk_mpc *dst, struct mdk_mpc *const *src, size_t n,
		    unsigned int part, unsigned int nparts);
#pragma GCC visibility pop

#endif /* MDK_MPC_INT_H */
