/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmdk internals of the policies and above (layers 3 to 6 of
 * internal.h): the policy ops every policy implements, grids, the MPC
 * generator's bins that the policies' curve hooks read, and L-OPP's
 * model as its trainer builds it.
 */
#ifndef MDK_POLICY_INT_H
#define MDK_POLICY_INT_H

#include <mdk/policy.h>

#include "internal.h"

#pragma GCC visibility push(hidden)

/* L-OPP (lopp/model.c): a model from its parts (MDK_LOPP_FEATURES each). */
struct mdk_lopp_model;
struct mdk_lopp_model *mdk__lopp_model_new(double rho, const double *mean,
					   const double *scale, const double *w,
					   double bias);
/*
 * A trees model from XGBoost's UBJSON @payload (copied), trained on @rows
 * rows of which @positives (> 0) were labelled reclaim.  0 or -errno.
 */
int mdk__lopp_model_new_trees(double rho, uint64_t rows, uint64_t positives,
			      const char *trace, const void *payload,
			      size_t len, struct mdk_lopp_model **out,
			      char *err, size_t errlen);
/*
 * The keys of @n feature rows @x (lopp/keys.c): mdk_lopp_key() of each
 * row's mdk_lopp_score(), faster.
 */
void mdk__lopp_keys(const struct mdk_lopp_model *m, const float *x, size_t n,
		    uint32_t *keys);

/* ------------------------------------------------------------------ */
/* Policies (policy*.c, policy/<name>.c) */

#define MDK_MAX_PARAMS 2
#define MDK_MAX_GRID 1000000u

/* A sorted list of distinct parameter values. */
struct mdk_grid {
	size_t n;
	uint64_t *v;
};

enum mdk_param_type {
	MDK_PARAM_WINDOWS, /* a count of windows */
	MDK_PARAM_FRACTION, /* a fraction, kept in parts per million */
	MDK_PARAM_PAGES, /* a count of pages */
};

struct mdk_param_desc {
	const char *key;
	const char *help;
	enum mdk_param_type type;
	uint64_t min, max; /* in the stored unit */
	/* Default grid for a trace of @n windows (or pages); NULL: required. */
	int (*dflt)(uint64_t n, struct mdk_grid *g);
	/* dflt() that also sees the policy (what else its spec gives). */
	int (*dflt_p)(const struct mdk_policy *p, uint64_t n,
		      struct mdk_grid *g);
	/* The value the word "none" stands for (0: not accepted). */
	uint64_t none;
};

/* Returned by wait() when the policy keeps the page for the interval. */
#define MDK_KEEP INT64_MAX

/* How an MPC generator bins a parameter (struct mdk_policy_ops.gen_*). */
#define MDK_GEN_NONE (-1) /* the dimension is not used: one bin */
#define MDK_GEN_EXACT (-2) /* one bin per value (OPP's gaps) */

struct mdk_gen;

/*
 * One policy.  Every hook is optional and guarded by its caller: a policy
 * without wait() cannot be simulated by sim.c, one without gen_row() has no
 * single-pass MPC, and so on.
 */
struct mdk_policy_ops {
	const char *name;
	const char *help;
	enum mdk_policy_kind kind;
	unsigned int nparams;
	struct mdk_param_desc params[MDK_MAX_PARAMS];

	/*
	 * wait() - the wait d of an interval of length @len (a gap, or a tail
	 * with @tail) after an access whose prior reuse distance is @reuse
	 * (0: the access was the page's first), or MDK_KEEP.  Setting @v.
	 */
	int64_t (*wait)(const uint64_t *v, uint32_t reuse, uint32_t len,
			bool tail);
	/*
	 * wait_opt() - wait() for a policy whose rule also reads its options
	 * (lopp's wait=): called in its place when set (mdk__policy_wait()).
	 */
	int64_t (*wait_opt)(const struct mdk_policy *p, const uint64_t *v,
			    uint32_t reuse, uint32_t len, bool tail);
	/*
	 * wait() ignores @len and @tail: the policy decides when the interval
	 * opens, so a daemon can run it (mdk_policy_decide()).
	 */
	bool online;
	/* budget() - promotions allowed in a window of @accessed pages. */
	uint64_t (*budget)(const uint64_t *v, uint64_t accessed);

	/*
	 * MPC generator.  Intervals are binned by prior reuse distance along
	 * parameter gen_r and by gap (or tail) length along parameter gen_g:
	 * for a grid x_0 < ... < x_{m-1} a reuse r falls in bin #{i: x_i < r}
	 * (so "r > x_i" is "bin > i"), a gap g in bin #{j: x_j <= g} ("g >=
	 * x_j" is "bin > j").  See mpc.c.
	 */
	int gen_r, gen_g;
	/*
	 * gen_row() - from one window's row (@S: its 2-D suffix sums, see
	 * struct mdk_gen) and its @accessed count, the promotions of every
	 * setting into @prom[] (overwrite) and any savings into @saved[] (add).
	 */
	void (*gen_row)(const struct mdk_gen *g, const uint64_t *S,
			const uint32_t *row, uint64_t accessed, uint64_t *prom,
			uint64_t *saved);
	/*
	 * gen_saved() - add every setting's saved page-windows from the 2-D
	 * suffix sums of gap counts @Gc and gap lengths @Gs and of tail counts
	 * @Tc and lengths @Ts over the horizon.
	 */
	void (*gen_saved)(const struct mdk_gen *g, const uint64_t *Gc,
			  const uint64_t *Gs, const uint64_t *Tc,
			  const uint64_t *Ts, uint64_t *saved);
	/*
	 * gen_ggrid() - the thresholds the gaps are binned by when they are
	 * not gen_g's grid alone (lopp: the A grid and its wait option) into
	 * @g (empty on entry; freed by the generator).  0 or -ENOMEM.
	 */
	int (*gen_ggrid)(const struct mdk_policy *p, struct mdk_grid *g);

	/*
	 * Cache policies (LRU, OPT), driven by mrc.c: cache_new() makes the
	 * state, cache_refs() takes @n references (dense page indices) in
	 * order, cache_misses() fills the misses of every setting of @p (its
	 * k grid resolved against the distinct pages) once at the end.
	 * Return 0 or -ENOMEM / -E2BIG.
	 */
	int (*cache_new)(void **state);
	int (*cache_refs)(void *state, const uint32_t *pages, size_t n);
	int (*cache_misses)(void *state, const struct mdk_policy *p,
			    uint64_t *misses);
	void (*cache_free)(void *state);

	/*
	 * Keyed policies (lopp): wait() and the curve's r-dimension see a key
	 * that keys() computes for each access from its page ids and dense
	 * indices (0..key_max), in place of the prior reuse distance; the
	 * interval an access opens carries its key (mdk_keyer_*() in
	 * mdk/policy.h).  keys_new() makes the per-trace state (the policy
	 * must outlive it); keys_forget() drops a dense page's history.
	 */
	uint32_t key_max;
	int (*keys_new)(const struct mdk_policy *p, void **state, char *err,
			size_t errlen);
	int (*keys)(void *state, uint32_t window, const uint64_t *ids,
		    const uint32_t *pages, size_t n, uint32_t *keys, char *err,
		    size_t errlen);
	void (*keys_forget)(void *state, uint32_t page);
	void (*keys_free)(void *state);

	/*
	 * Options: a KEY=VALUE that is not a grid (lopp's model=FILE), kept in
	 * struct mdk_policy's priv.  option() returns 0, -ENOENT for a key it
	 * does not know or -EINVAL; option_spec() writes ",KEY=VALUE" (":KEY=VALUE" when
	 * @first) for mdk_policy_spec() (snprintf semantics); priv_free() frees priv.
	 */
	int (*option)(struct mdk_policy *p, const char *key, const char *value,
		      char *err, size_t errlen);
	int (*option_spec)(const struct mdk_policy *p, bool first, char *buf,
			   size_t len);
	void (*priv_free)(void *priv);
};

struct mdk_policy {
	const struct mdk_policy_ops *ops;
	struct mdk_grid grid[MDK_MAX_PARAMS];
	bool given[MDK_MAX_PARAMS];
	bool resolved;
	void *priv; /* the options' state (ops->option) */
};

/*
 * Curve hooks of the policies that wait v[1] windows iff the interval's
 * r-value (reuse or key) is above v[0], else keep the page: paw, lopp
 * (defined in policy/paw.c).
 */
void mdk__gen_above_row(const struct mdk_gen *g, const uint64_t *S,
			const uint32_t *row, uint64_t accessed, uint64_t *prom,
			uint64_t *saved);
void mdk__gen_above_saved(const struct mdk_gen *g, const uint64_t *Gc,
			  const uint64_t *Gs, const uint64_t *Tc,
			  const uint64_t *Ts, uint64_t *saved);

/* ops->wait_opt() when set, else ops->wait(). */
static inline int64_t mdk__policy_wait(const struct mdk_policy *p,
				       const uint64_t *v, uint32_t reuse,
				       uint32_t len, bool tail)
{
	return p->ops->wait_opt ? p->ops->wait_opt(p, v, reuse, len, tail) :
				  p->ops->wait(v, reuse, len, tail);
}

/* Grids (policy_grid.c): values are pushed, then sorted and deduplicated. */
void mdk__grid_free(struct mdk_grid *g);
/* Append @v (*@cap: the capacity of g->v); 0, -E2BIG (MDK_MAX_GRID), -ENOMEM. */
int mdk__grid_push(struct mdk_grid *g, size_t *cap, uint64_t v);
void mdk__grid_finish(struct mdk_grid *g);
/*
 * mdk__grid_parse() - the values [@s, @e) of parameter @d (the spec syntax
 * of mdk/policy.h) into @g for policy @name (policy_spec.c).  0, -EINVAL
 * or -E2BIG with the message in @err.
 */
int mdk__grid_parse(const char *name, const struct mdk_param_desc *d,
		    const char *s, const char *e, struct mdk_grid *g, char *err,
		    size_t errlen);
/* Grid helpers for the default grids. */
int mdk__grid_range(struct mdk_grid *g, uint64_t lo, uint64_t hi,
		    uint64_t step);
int mdk__grid_logspace(struct mdk_grid *g, uint64_t lo, uint64_t hi, size_t n);
int mdk__grid_one(struct mdk_grid *g, uint64_t v);
int mdk__grid_thresholds(uint64_t windows, struct mdk_grid *g);

/* The registered policy named by @len bytes at @name (any case), or NULL. */
const struct mdk_policy_ops *mdk__policy_find(const char *name, size_t len);

/* The registered policies (policy.c's table). */
extern const struct mdk_policy_ops mdk_policy_age;
extern const struct mdk_policy_ops mdk_policy_vmin;
extern const struct mdk_policy_ops mdk_policy_paw;
extern const struct mdk_policy_ops mdk_policy_pace;
extern const struct mdk_policy_ops mdk_policy_opp;
extern const struct mdk_policy_ops mdk_policy_lopp;
extern const struct mdk_policy_ops mdk_policy_lru;
extern const struct mdk_policy_ops mdk_policy_opt;

/* ------------------------------------------------------------------ */
/* MPC generators (mpc*.c) */

/*
 * The binned histograms of one generator.  Cells are nr x ng (r-bin major);
 * 2-D suffix sums are (nr + 1) x (ng + 1) with a zero last row and column:
 * S[i * (ng + 1) + j] = sum of cells (i', j') with i' >= i and j' >= j.
 */
struct mdk_gen {
	const struct mdk_policy *pol;
	uint32_t cap; /* windows the ring holds */
	uint32_t nr, ng; /* bins */
	uint32_t cells; /* nr * ng */
	const struct mdk_grid *rgrid, *ggrid; /* NULL for MDK_GEN_NONE/EXACT */
	size_t n1; /* values of the second parameter (1 if none) */
	size_t nset; /* settings */
	uint64_t *scratch; /* cap + 2 words gen_row() may use */
};

/* S index for bins (i, j) of generator @g. */
static inline size_t mdk__S(const struct mdk_gen *g, uint32_t i, uint32_t j)
{
	return (size_t)i * (g->ng + 1) + j;
}

/*
 * lopp's wait= option (policy/lopp.c): true with *@wait when @p is lopp
 * and its spec gave one.
 */
bool mdk__lopp_wait_given(const struct mdk_policy *p, uint64_t *wait);

/*
 * Whole-trace runs (sim.c, mpc_scored.c): @o checked against a trace of
 * @windows windows; 0 or -EINVAL with the message in @err.
 */
struct mdk_run_opts;
int mdk__run_opts_check(const struct mdk_run_opts *o, uint32_t windows,
			char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* MDK_POLICY_INT_H */
