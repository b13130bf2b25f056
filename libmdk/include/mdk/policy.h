/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_POLICY_H
#define MDK_POLICY_H

/*
 * Page policies of the access-bit model (definitions in
 * Documentation/mdk.rst, "Definitions"):
 *
 *   age   AGE(T)       reclaim a page idle for T windows
 *   vmin  VMIN(T)      reclaim right away an interval of gap >= T (offline)
 *   paw   PAW(P; wait) reclaim after @wait idle windows a page whose prior
 *                      reuse distance is > P
 *   pace  PACE(P, A)   reclaim right away if the prior reuse distance is
 *                      > P, else after A idle windows
 *   opp   OPP(rho)     the optimal policy under a rate limit rho (offline)
 *   lopp  L-OPP(theta; wait) reclaim after @wait idle windows (0) a page
 *                      whose access a model (model=FILE, mdk/lopp.h)
 *                      scores at theta or above: OPP learnt
 *   lru   LRU(k), opt  OPT(k): fixed-size memories of k pages over a
 *                      reference string (mdkctl mrc)
 *
 * A struct mdk_policy is one of them with its parameters, each a grid of
 * values: one setting for a simulation, many for a curve.  Specs are
 * "NAME[:KEY=VALUES[,KEY=VALUES...]]" where VALUES is V, LO-HI, LO-HI:STEP
 * or several of these joined by '/': "age:T=4", "pace:P=1-8,A=2/4/8",
 * "opp:rho=0-0.05:0.005".  Fractions (rho, theta) take "0.01" or "1%"
 * with at most six decimals (they are kept in parts per million); sizes
 * (k) take K, M and G suffixes (powers of 1024).  lopp also takes an
 * option that is not a grid, model=FILE: "lopp:model=t.mdkm,theta=0-1:0.05".
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mdk_policy;

/* One setting of a policy: its parameter values (p2 only with has_p2). */
struct mdk_setting {
	double p1; /* T, P, rho (as a fraction) or k */
	double p2; /* PAW's wait or PACE's A */
	bool has_p2;
	uint64_t v[2]; /* the same in the policy's units (rho in ppm) */
};

/*
 * mdk_policy_new() - parse @spec.  Parameters left out get their default
 * when the policy is resolved.  Returns 0 with *@out set, -ENOENT for an
 * unknown policy, -EINVAL for a bad parameter (message says which and
 * what was expected), -E2BIG for a grid over 1,000,000 values.
 */
int mdk_policy_new(const char *spec, struct mdk_policy **out, char *err,
		   size_t errlen);

/*
 * mdk_policy_parse_list() - parse a comma-separated list of specs, where
 * a token holding '=' belongs to the policy before it: "age,paw:wait=3,
 * P=2,opp" is age, paw with wait=3 and P=2, and opp.  Returns 0 with a
 * malloc'ed array of *@n policies in *@out (free each, then the array),
 * or -errno.
 */
int mdk_policy_parse_list(const char *list, struct mdk_policy ***out, size_t *n,
			  char *err, size_t errlen);

/*
 * mdk_policy_set() - set parameter @key of @p to @values (the VALUES of a
 * spec), replacing what it had.  Returns 0, or -EINVAL naming the problem.
 */
int mdk_policy_set(struct mdk_policy *p, const char *key, const char *values,
		   char *err, size_t errlen);

/* mdk_policy_has() - whether parameter @key of @p was given or set. */
bool mdk_policy_has(const struct mdk_policy *p, const char *key);

/* mdk_policy_free() - free @p; NULL is a no-op. */
void mdk_policy_free(struct mdk_policy *p);

/* mdk_policy_name() - the policy's name ("age"). */
const char *mdk_policy_name(const struct mdk_policy *p);

/* mdk_policy_kind() values */
enum mdk_policy_kind {
	MDK_POLICY_INTERVAL, /* a wait per interval: age vmin paw pace lopp */
	MDK_POLICY_BUDGET, /* a promotion budget per window: opp */
	MDK_POLICY_CACHE, /* fixed size over a reference string: lru opt */
};
enum mdk_policy_kind mdk_policy_kind(const struct mdk_policy *p);

/*
 * mdk_policy_resolve() - give the parameters left out their defaults for a
 * trace of @n windows (for cache policies: @n distinct pages), and check
 * the result.  Defaults: T, P: every threshold 1..n-1 (512 log-spaced
 * values when n > 4097); wait: 2; PACE's P and A: 1..n-1 (64 log-spaced
 * values when n > 257); rho: 0 to 5% in 0.1%
 * steps then to 100% in 1% steps; theta: 0, 0.1% to 1% in 0.1% steps,
 * then 2% to 100% in 1% steps; lopp's wait: 0; k: 1..n (512 log-spaced
 * sizes when n > 4096; 16 for OPT).  Idempotent for given parameters.
 * Returns 0 or -EINVAL.
 */
int mdk_policy_resolve(struct mdk_policy *p, uint64_t n, char *err,
		       size_t errlen);

/* mdk_policy_settings() - number of settings (after resolve). */
size_t mdk_policy_settings(const struct mdk_policy *p);

/* mdk_policy_setting() - setting @i (0-based, p1 major); -ERANGE past the end. */
int mdk_policy_setting(const struct mdk_policy *p, size_t i,
		       struct mdk_setting *s);

/*
 * mdk_policy_format() - "age:T=4" for setting @i into @buf (snprintf
 * semantics: returns the length it needed).
 */
int mdk_policy_format(const struct mdk_policy *p, size_t i, char *buf,
		      size_t len);

/*
 * mdk_policy_spec() - @p with the whole grid of every parameter given or
 * resolved, as a spec that mdk_policy_new() parses back to the same
 * settings: "age:T=1-239", "opp:rho=0/0.001/0.002".  Parameters neither
 * given nor resolved are left out.  snprintf semantics: returns the
 * length it needed.
 */
int mdk_policy_spec(const struct mdk_policy *p, char *buf, size_t len);

/*
 * mdk_policy_online() - whether @p decides each interval when it opens,
 * from the prior reuse distance alone (age, paw, pace) or from its
 * opening access's key (lopp): what a daemon can run.  vmin needs the
 * interval's length, opp a window's future accesses.
 */
bool mdk_policy_online(const struct mdk_policy *p);

/*
 * mdk_policy_decide() - setting @i of an online policy @p (resolved) for
 * the interval that opens with an access whose prior reuse distance is
 * @reuse (0: the page's first access; for a keyed policy, the access's
 * key, see below): reclaim the page once it has been idle *@wait
 * windows, i.e. at the end of window a + *@wait for an access in window
 * a.  Returns 1 (reclaim after *@wait), 0 (keep the page for
 * the whole interval), -EOPNOTSUPP (not an online policy) or -ERANGE (no
 * such setting).
 */
int mdk_policy_decide(const struct mdk_policy *p, size_t i, uint32_t reuse,
		      uint32_t *wait);

/*
 * Keyed policies (lopp) decide from a key computed for each access (its
 * features scored by a model) instead of the prior reuse distance: the
 * interval an access opens carries that access's key, and wait(), the
 * curves and mdk_policy_decide() see it where other policies see the
 * reuse distance.  Feed keyed policies' streams with
 * mdk_stream_feed_keys() and simulations with mdk_sim_add_keys().
 */
bool mdk_policy_keyed(const struct mdk_policy *p);
/* mdk_policy_key_max() - the largest key (0 for a policy not keyed). */
uint32_t mdk_policy_key_max(const struct mdk_policy *p);

struct mdk_keyer;

/*
 * mdk_keyer_new() - key state for one pass over a trace (the policy, which
 * must outlive it, brings its model).  Returns 0, -EOPNOTSUPP (not keyed),
 * -ENOMEM.
 */
int mdk_keyer_new(const struct mdk_policy *p, struct mdk_keyer **out, char *err,
		  size_t errlen);
/*
 * mdk_keyer_keys() - the keys of @n accesses of window @window (page ids
 * @ids and their dense indices @pages, distinct within the window;
 * windows must not decrease) into @keys.  Returns 0, -EINVAL, -ENOMEM.
 */
int mdk_keyer_keys(struct mdk_keyer *k, uint32_t window, const uint64_t *ids,
		   const uint32_t *pages, size_t n, uint32_t *keys, char *err,
		   size_t errlen);
/* mdk_keyer_forget() - dense page @page is gone (mdk_stream_forget()). */
void mdk_keyer_forget(struct mdk_keyer *k, uint32_t page);
void mdk_keyer_free(struct mdk_keyer *k);

/* The registry: policies 0..mdk_policy_count()-1, by name and help. */
size_t mdk_policy_count(void);
const char *mdk_policy_name_at(size_t i);
const char *mdk_policy_help_at(size_t i);

#ifdef __cplusplus
}
#endif

#endif /* MDK_POLICY_H */
