/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmdk internals of L-OPP's learning (libmdk/learn/): its training rows
 * and the live learner the evaluator runs.  This layer sits above the
 * curves (it fills MPC generators) and below the evaluator; the model and
 * features it fits and scores with are below the policies (libmdk/lopp/).
 */
#ifndef MDK_LEARN_INT_H
#define MDK_LEARN_INT_H

#include "../policy_int.h"

#pragma GCC visibility push(hidden)

/* L-OPP's rows (set.c): row @i of @s, 0 .. size - 1, in no set order. */
struct mdk_lopp_set;
const float *mdk__lopp_set_row(const struct mdk_lopp_set *s, size_t i,
			       bool *label);

/*
 * Gradient-boosted trees of @s's rows (fit_trees.c), positives weighted
 * @pos_weight; @s has both classes.  0 or -errno.
 */
struct mdk_lopp_fit_opts;
struct mdk_lopp_model;
int mdk__lopp_fit_trees(const struct mdk_lopp_set *s, double rho,
			const struct mdk_lopp_fit_opts *o, double pos_weight,
			struct mdk_lopp_model **out, char *err, size_t errlen);

/*
 * When an interval still open where the labels end gets one (train.c):
 * its gap is only known to be at least the windows it has been idle, so
 * it is labelled reclaimed once idle for the smallest gap g >= 1 from
 * which on OPP reclaimed most closed intervals (@cnt[g] closed of gap g,
 * @pos[g] of them reclaimed, g <= @longest), else @longest + 1, and is
 * left out while younger: labelling it would teach the model that a
 * page's newest access is one to reclaim.
 */
uint32_t mdk__lopp_tail_gap(const uint64_t *cnt, const uint64_t *pos,
			    uint32_t longest);

/* ------------------------------------------------------------------ */
/* L-OPP live: its refit (live_fit.c), for live.c */

#define MDK__LOPP_FIT_ERR 256

struct mdk__lopp_fit;
struct mdk_lopp_model;
struct mdk_lopp_quality;

int mdk__lopp_fit_new(size_t rows, struct mdk__lopp_fit **out);
/* Waits for a fit in flight (no hold) and drops its result. */
void mdk__lopp_fit_free(struct mdk__lopp_fit *f);
/* The job's set to fill with the rows of the next fit; NULL while busy. */
struct mdk_lopp_set *mdk__lopp_fit_set(struct mdk__lopp_fit *f);
/*
 * Fit a model of @kind (enum mdk_lopp_kind) at @rho to the job's set, in
 * a thread of its own when @async, else here and now.  The job is busy
 * until the result is collected.
 */
void mdk__lopp_fit_start(struct mdk__lopp_fit *f, double rho, unsigned int kind,
			 bool async);
bool mdk__lopp_fit_busy(struct mdk__lopp_fit *f);
/* Block until the fit in flight, if any, is done (not collected). */
void mdk__lopp_fit_wait(struct mdk__lopp_fit *f);
/*
 * A finished fit's model and its quality on its rows (at 0.5), taken
 * over: 1, 0 when none is finished, or the fit's -errno with its reason
 * in @err.  The job is idle after a result or an error.
 */
int mdk__lopp_fit_collect(struct mdk__lopp_fit *f, struct mdk_lopp_model **m,
			  struct mdk_lopp_quality *q, char *err, size_t errlen);
/* Test hook: while @hold, a fit started in a thread waits to begin. */
void mdk__lopp_fit_hold(struct mdk__lopp_fit *f, bool hold);

/* ------------------------------------------------------------------ */
/* L-OPP live (live.c), for the evaluator */

struct mdk__lopp_live;
struct mdk_mpc;
struct mdk_lopp_model;
struct mdk_lopp_quality;

/*
 * A learner over a horizon of @H windows: OPP(@rho_ppm) labels, a new
 * model every @retrain windows fitted to the newest @rows rows.  0 or
 * -ENOMEM.
 */
int mdk__lopp_live_new(uint32_t H, uint32_t rho_ppm, uint32_t retrain,
		       size_t rows, struct mdk__lopp_live **out);
void mdk__lopp_live_free(struct mdk__lopp_live *l);
/* Fit models of @kind (enum mdk_lopp_kind) from now on; logistic at first. */
void mdk__lopp_live_set_kind(struct mdk__lopp_live *l, unsigned int kind);
/*
 * Fit in a worker thread (@async) from now on: a window that starts a
 * fit returns at once, and the first window after it finished takes the
 * model.  A fit that fails there keeps the previous model and counts.
 */
void mdk__lopp_live_set_async(struct mdk__lopp_live *l, bool async);
/* Block until the fit in flight, if any, is done: the next window takes it. */
void mdk__lopp_live_wait(struct mdk__lopp_live *l);
/* The refit: one in flight, fits failed in the thread, the last reason. */
void mdk__lopp_live_fits(const struct mdk__lopp_live *l, bool *fitting,
			 uint64_t *failures, const char **error);
/* Test hook (mdk__lopp_fit_hold()). */
void mdk__lopp_live_hold(struct mdk__lopp_live *l, bool hold);
/*
 * Window @w: @n accesses, page ids @ids, dense indices @idx, the window
 * of each page's previous access @start (MDK_NONE: first), as the
 * interval stream reports them.  Returns 1 when a new model was fitted,
 * 0, or -errno.
 */
int mdk__lopp_live_window(struct mdk__lopp_live *l, uint32_t w,
			  const uint64_t *ids, const uint32_t *idx,
			  const uint32_t *start, size_t n, char *err,
			  size_t errlen);
/* The newest model, NULL before the first fit. */
const struct mdk_lopp_model *
mdk__lopp_live_model(const struct mdk__lopp_live *l);
/* Fits so far, the newest model's quality on its rows (at 0.5), rows. */
void mdk__lopp_live_stats(const struct mdk__lopp_live *l, uint64_t *trainings,
			  struct mdk_lopp_quality *q, size_t *rows);
/* Bytes held, the training rows included. */
size_t mdk__lopp_live_memory(const struct mdk__lopp_live *l);
/* The key of dense page @idx's last access (0: none, or no model). */
uint32_t mdk__lopp_live_key(const struct mdk__lopp_live *l, uint32_t idx);
void mdk__lopp_live_forget(struct mdk__lopp_live *l, uint32_t idx);
/*
 * Add the intervals of windows @lo..@hi, keyed by the newest model, to
 * the fresh generator @m (capacity H) of a keyed policy.  0 or -errno.
 */
int mdk__lopp_live_fill(const struct mdk__lopp_live *l, struct mdk_mpc *m,
			uint32_t lo, uint32_t hi, char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* MDK_LEARN_INT_H */
