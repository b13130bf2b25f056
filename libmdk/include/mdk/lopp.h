/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_LOPP_H
#define MDK_LOPP_H

/*
 * L-OPP, the learned policy of the MDK paper: at each access of a page, a
 * model predicts whether OPP(rho) would reclaim the page right after that
 * access, from what is known at that time only.  The policy reclaims the
 * page at once when the model's score is at least theta, else keeps it
 * for the interval ("lopp:model=FILE,theta=..." in mdk/policy.h).
 *
 * Features of an access of page p in window w (MDK_LOPP_FEATURES; counts
 * as log2(1 + x), a reuse distance the page has not had yet counting
 * MDK_LOPP_RECENT windows):
 *
 *   0..3   p's last MDK_LOPP_HISTORY reuse distances, newest first (the
 *          first is w minus p's previous access window)
 *   4      p's accesses so far, this one included, over the windows since
 *          its first (1 + w - first): a share from 0 to 1
 *   5      p's accesses in the last MDK_LOPP_RECENT windows
 *   6..11  the same for p's 2 MiB region (ids >> 9), over the windows in
 *          which any page of the region was accessed
 *
 * The model, trained on OPP(rho) labels, is a logistic regression over
 * the standardised features (liblinear; a version 1 text file) or
 * gradient-boosted trees (XGBoost; a version 2 file, XGBoost's UBJSON
 * model inside a binary mdk header), both documented in
 * Documentation/mdk.rst ("L-OPP", "Model files").
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MDK_LOPP_FEATURES 12
#define MDK_LOPP_HISTORY 4
#define MDK_LOPP_RECENT 32 /* windows of page_recent; an unseen reuse */
#define MDK_LOPP_REGION_SHIFT 9 /* 512 pages of 4 KiB: 2 MiB */

/*
 * A score as an interval key (what the policy's curve bins): 1 + the
 * score in parts per million, capped so that theta = 1 keeps every page.
 * Key 0 means "no score".
 */
#define MDK_LOPP_KEY_MAX 1000000u

/* ---- the features ---- */

struct mdk_lopp_feat;

/* mdk_lopp_feat_new() - a tracker with no page seen.  0 or -ENOMEM. */
int mdk_lopp_feat_new(struct mdk_lopp_feat **out);
void mdk_lopp_feat_free(struct mdk_lopp_feat *f);

/*
 * mdk_lopp_feat_add() - @n accesses of window @window: page ids @ids and
 * their dense indices @pages (mdk_trace_reader's, distinct in a window).
 * Windows must not decrease; a window may come in several calls.  Fills
 * @x with @n rows of MDK_LOPP_FEATURES.  Returns 0, -EINVAL (window went
 * back, a page twice in a window) or -ENOMEM.
 */
int mdk_lopp_feat_add(struct mdk_lopp_feat *f, uint32_t window,
		      const uint64_t *ids, const uint32_t *pages, size_t n,
		      float *x, char *err, size_t errlen);

/* mdk_lopp_feat_forget() - dense page @page is gone: forget its history. */
void mdk_lopp_feat_forget(struct mdk_lopp_feat *f, uint32_t page);

/* mdk_lopp_feat_memory() - bytes of per-page and per-region state. */
size_t mdk_lopp_feat_memory(const struct mdk_lopp_feat *f);

/* mdk_lopp_feature_name() - "page_reuse1" .. "region_recent". */
const char *mdk_lopp_feature_name(unsigned int i);

/* ---- the model ---- */

struct mdk_lopp_model;

/*
 * Model kinds.  Logistic: a logistic regression (liblinear), written as a
 * version 1 text file.  Trees: gradient-boosted trees (XGBoost), written
 * as a version 2 file, XGBoost's UBJSON model inside a binary mdk header.
 */
enum mdk_lopp_kind {
	MDK_LOPP_LOGISTIC = 0,
	MDK_LOPP_TREES = 1,
};

/* mdk_lopp_model_kind() - @m's kind. */
enum mdk_lopp_kind mdk_lopp_model_kind(const struct mdk_lopp_model *m);

/*
 * mdk_lopp_model_read() - read a model file.  Bad input gets -EINVAL with
 * "FILE:LINE: (offset N) expected ..., got ..." in @err; -ENOENT etc.
 * when it cannot be read.
 */
int mdk_lopp_model_read(const char *path, struct mdk_lopp_model **out,
			char *err, size_t errlen);
/* mdk_lopp_model_parse() - the same from @len bytes at @buf. */
int mdk_lopp_model_parse(const char *buf, size_t len, const char *name,
			 struct mdk_lopp_model **out, char *err, size_t errlen);
/* mdk_lopp_model_write() - write @m to @path (replaced atomically). */
int mdk_lopp_model_write(const struct mdk_lopp_model *m, const char *path,
			 char *err, size_t errlen);
/* mdk_lopp_model_print() - the file format of @m to @f. */
int mdk_lopp_model_print(const struct mdk_lopp_model *m, FILE *f);
/* mdk_lopp_model_dup() - a copy of @m, or NULL. */
struct mdk_lopp_model *mdk_lopp_model_dup(const struct mdk_lopp_model *m);
void mdk_lopp_model_free(struct mdk_lopp_model *m);

/* mdk_lopp_model_rho() - the rate limit of the labels it learnt. */
double mdk_lopp_model_rho(const struct mdk_lopp_model *m);

/* mdk_lopp_score() - the model's score, in [0, 1], of one feature row. */
double mdk_lopp_score(const struct mdk_lopp_model *m, const float *x);

/* mdk_lopp_key() - @score as an interval key, 1..MDK_LOPP_KEY_MAX. */
uint32_t mdk_lopp_key(double score);

/* ---- the policy ---- */

struct mdk_policy;

/*
 * mdk_lopp_policy_set_model() - make (a copy of) @m the model of the lopp
 * policy @p, as "model=FILE" would; keyers of @p (mdk_keyer_new()) score
 * with it from their next call.  Returns 0, -EINVAL (@p is not lopp) or
 * -ENOMEM.
 */
int mdk_lopp_policy_set_model(struct mdk_policy *p,
			      const struct mdk_lopp_model *m, char *err,
			      size_t errlen);

/*
 * mdk_lopp_policy_model() - the model of the lopp policy @p (owned by @p,
 * valid until it changes), or NULL: none yet, or @p is not lopp.
 */
const struct mdk_lopp_model *mdk_lopp_policy_model(const struct mdk_policy *p);

/* ---- training ---- */

/*
 * A set of labelled feature rows: a ring keeping the newest @cap, whose
 * memory mdk_lopp_set_new() reserves (so that adding cannot fail).
 */
struct mdk_lopp_set;

/* mdk_lopp_set_new() - 0, -EINVAL (@cap 0 or too large) or -ENOMEM. */
int mdk_lopp_set_new(size_t cap, struct mdk_lopp_set **out);
void mdk_lopp_set_free(struct mdk_lopp_set *s);
/* mdk_lopp_set_add() - add a row (replacing the oldest when full). */
void mdk_lopp_set_add(struct mdk_lopp_set *s, const float *x, bool label);
size_t mdk_lopp_set_size(const struct mdk_lopp_set *s);
/* mdk_lopp_set_positives() - rows labelled "reclaim". */
size_t mdk_lopp_set_positives(const struct mdk_lopp_set *s);
void mdk_lopp_set_clear(struct mdk_lopp_set *s);

/*
 * mdk_lopp_fit() - a logistic regression of @s's labels (liblinear,
 * L2R_LR: L2-regularised, cost @C; 0 takes 1) over the features
 * standardised by their mean and standard deviation, which the model
 * keeps; @rho is recorded in the model.  Returns 0, -EINVAL (@C < 0, @rho
 * outside [0, 1], no rows, or one class only: @err says which), -ENOMEM.
 */
int mdk_lopp_fit(const struct mdk_lopp_set *s, double rho, double C,
		 struct mdk_lopp_model **out, char *err, size_t errlen);

/* How mdk_lopp_fit_with() fits; zero is mdk_lopp_fit()'s logistic fit. */
struct mdk_lopp_fit_opts {
	enum mdk_lopp_kind kind;
	double C; /* logistic: liblinear's cost; 0: 1 */
	unsigned int trees; /* trees: boosting rounds; 0: 100 */
	unsigned int depth; /* trees: maximum depth; 0: 6 */
	double eta; /* trees: learning rate; 0: 0.3 */
	/*
	 * Weight of a positive (reclaim) row relative to a negative one, for
	 * the rare class: liblinear's class weight, XGBoost's
	 * scale_pos_weight.  0: 1 (unweighted); < 0: negatives / positives.
	 */
	double pos_weight;
	const char *trace; /* trees: recorded in the model file; NULL: "" */
};

/*
 * mdk_lopp_fit_with() - mdk_lopp_fit() of either kind.  Trees are
 * XGBoost's (binary:logistic, tree_method hist, nthread 1).  Both refuse
 * a set of one class only, so no model ever scores without having seen a
 * positive row.  Returns 0, -EINVAL (an option out of range, @err says
 * which) or -ENOMEM.
 */
int mdk_lopp_fit_with(const struct mdk_lopp_set *s, double rho,
		      const struct mdk_lopp_fit_opts *o,
		      struct mdk_lopp_model **out, char *err, size_t errlen);

/* How a model's decisions at theta match the labels of a set. */
struct mdk_lopp_quality {
	uint64_t rows, positives; /* labelled "reclaim" */
	uint64_t tp, fp, fn; /* decisions (score >= theta) vs labels */
	double precision, recall; /* 0 when undefined */
	double auc; /* area under the ROC curve of the scores, ties half
		     * (0 without both classes) */
};

/* mdk_lopp_assess() - @m's decisions at @theta over @s. 0 or -ENOMEM. */
int mdk_lopp_assess(const struct mdk_lopp_model *m,
		    const struct mdk_lopp_set *s, double theta,
		    struct mdk_lopp_quality *q);

/*
 * mdk_lopp_labels() - OPP(@rho_ppm)'s decisions for the intervals that end
 * in one window of @accessed pages: @gaps[i] is interval i's gap; sets
 * @label[i].  The floor(rho x accessed) largest gaps >= 1 are reclaimed
 * (ties in index order), as OPP's definition has it.  @hist is scratch of
 * 1 + the largest gap entries, zero on entry and on return.
 */
void mdk_lopp_labels(const uint32_t *gaps, size_t n, uint64_t accessed,
		     uint32_t rho_ppm, uint32_t *hist, bool *label);

struct mdk_lopp_train_opts {
	double rho; /* the labels' rate limit, 0..1 */
	double holdout; /* fraction of windows (the last) held out: 0..0.9 */
	/*
	 * About how many rows to keep (pages sampled by hash of their id, so
	 * all of a page's intervals or none; each of the training and
	 * held-out sets holds at most this many); 0: 2^19.
	 */
	size_t max_samples;
	double C; /* liblinear's cost; 0: 1 */
	double theta; /* where precision and recall are reported; 0: 0.5 */
	/* The model (struct mdk_lopp_fit_opts; its C and trace unused). */
	struct mdk_lopp_fit_opts fit;
};

struct mdk_lopp_train_report {
	uint32_t windows, split; /* windows >= split are held out */
	uint64_t intervals; /* in the trace */
	double sample; /* fraction of pages whose intervals are kept */
	struct mdk_lopp_quality train, test;
};

/*
 * mdk_lopp_train() - train on the (closed, indexed) trace @trace: every
 * interval's features at its opening access (first accesses included),
 * labelled with OPP(rho)'s decision when it closes (mdk_lopp_labels()
 * over all intervals ending in that window), a tail with 1 once idle as
 * long as the gaps OPP mostly reclaimed (left out while younger);
 * intervals opening in windows below split =
 * ceil((1 - holdout) W) train, the rest are held out.  Fills *@rep.
 * Returns 0 or -errno: -EINVAL for an option out of range, a trace
 * without index or training rows of one class only.
 */
int mdk_lopp_train(const char *trace, const struct mdk_lopp_train_opts *o,
		   struct mdk_lopp_model **out,
		   struct mdk_lopp_train_report *rep, char *err, size_t errlen);

/*
 * mdk_lopp_train_until() - mdk_lopp_train() on windows 0..@until-1 of
 * @trace: the training rows labelled as if the trace ended there (the
 * intervals still open are its tails), the held-out ones the intervals
 * opening from @until on, labelled with the whole trace (holdout unused),
 * so that a curve scored from window @until (struct mdk_run_opts) sees no
 * window the model learnt from.  @until 0: every window.  -EINVAL for
 * @until beyond the trace.
 */
int mdk_lopp_train_until(const char *trace, const struct mdk_lopp_train_opts *o,
			 uint32_t until, struct mdk_lopp_model **out,
			 struct mdk_lopp_train_report *rep, char *err,
			 size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MDK_LOPP_H */
