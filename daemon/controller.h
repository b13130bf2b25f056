/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's controller: per managed cgroup, samples in (struct mdkd_sample,
 * once per interval), reclaim decisions out (struct mdkd_decision).  It is
 * pure logic: no I/O, no clock; the unit tests drive it with sequences.
 *
 * Extension points (the page-policy modes of the BPF sampler issue plug in
 * here without reshaping the daemon):
 *
 *  - A *mode* decides how much to take: a file daemon/mode_<name>.c whose
 *    only non-static symbol is `const struct mdkd_mode_ops
 *    mdkd_mode_<name>`, plus one line in mdkd_modes[] (registry.c).  Its
 *    per-cgroup state is state_size bytes, zeroed at attach; every hook but
 *    decide is optional and guarded by the caller.  start/stop run in the
 *    daemon (they may open files or attach BPF programs through the
 *    cgroup's handle, struct mdkd_target of target.h); decide must stay
 *    pure.
 *  - An *actuator* carries a decision out: daemon/act_<name>.c exporting
 *    `const struct mdkd_actuator_ops mdkd_act_<name>`, one line in
 *    mdkd_actuators[] (registry.c).  apply either queues asynchronous I/O
 *    on the loop (mdkd_target_queue_write()) and returns 0, the result
 *    arriving via mdkd_target_act_done(), or acts synchronously and
 *    returns 1 after calling mdkd_target_act_done() itself
 *    (process_madvise, move_pages).  restore undoes anything it left
 *    behind (exit, crash recovery).
 *  - A tunable is one struct mdkd_settings field plus one line in the key
 *    table in config.c (parser, default, range, help); the config file,
 *    mdkctl set, status output and the documentation checks follow.
 *
 * The core (mdkd_ctl_step) wraps every mode with what all share: the first
 * sample only records a baseline, then interval metrics, the back-off after
 * EAGAIN/EBUSY, the IO-pressure guard, the lower bound (memory.min or
 * min_bytes, plus unreclaimable memory), the per-interval cap max_bytes
 * and rounding to whole pages.  A mode file holds only its policy.
 */
#ifndef MDKD_CONTROLLER_H
#define MDKD_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

struct json_object;
struct mdkd_target;
struct mdkd_mode_ops;
struct mdkd_actuator_ops;
struct mdkd_pages;

/* Policy mode: where the pages it picks go. */
enum mdkd_backend {
	MDKD_BACKEND_SWAP, /* swap or zswap: actuator pageout */
	MDKD_BACKEND_CXL, /* the CMM-MP NUMA node: actuator migrate */
	MDKD_BACKEND_AUTO, /* each page to its tier by idle age: actuator tier */
	MDKD_BACKEND_NR,
};

extern const char *const mdkd_backend_names[MDKD_BACKEND_NR];
/* mdkd_backend_name() - "swap", "cxl", "auto", or "?" out of range. */
const char *mdkd_backend_name(int backend);

/* Policy mode, lopp: the model kinds, indexed by enum mdk_lopp_kind. */
#define MDKD_LOPP_MODEL_NR 2
extern const char *const mdkd_lopp_model_names[MDKD_LOPP_MODEL_NR];
/* mdkd_lopp_model_name() - "logistic", "trees", or "?" out of range. */
const char *mdkd_lopp_model_name(int kind);

#define MDKD_SPEC_MAX 192 /* a policy spec or list in the settings */

/* The tunables of one managed cgroup (defaults in the table of config.c). */
struct mdkd_settings {
	uint64_t interval_us; /* between two samples; 6 s */
	double psi_threshold; /* memory "some" share per interval; 0.001 */
	double reclaim_ratio; /* share of memory.current per interval; 0.0005 */
	uint64_t min_bytes; /* never reclaim below this (+ unreclaimable); 0 */
	uint64_t max_bytes; /* most one interval reclaims, 0 = no cap; 0 */
	uint64_t max_rate; /* bytes/s reclaimed, paged out, migrated; 0 off */
	int reclaim_swappiness; /* memory.reclaim swappiness=, -1: none */
	double io_psi_threshold; /* io "some" share that pauses reclaim; 0.1 */
	unsigned int backoff_max; /* intervals skipped at most after EAGAIN; 8 */
	const struct mdkd_mode_ops *mode; /* senpai */
	const struct mdkd_actuator_ops *actuator; /* NULL: the mode's/auto */
	/* senpai-integral (senpai.py's controller) */
	double max_probe; /* largest step down of the limit, share; 0.01 */
	double max_backoff; /* largest step up, share; 1.0 */
	double coeff_probe; /* probe sensitivity; 10 */
	double coeff_backoff; /* back-off sensitivity; 20 */
	/* policy mode (mode_policy.c) */
	uint64_t window_us; /* sampler window, the mode's interval; 30 s */
	char policy[MDKD_SPEC_MAX]; /* one setting, or a family to tune; pace */
	bool auto_tune; /* run the best setting within target_rate; on */
	double target_rate; /* max window promotion rate; 0.01 */
	unsigned int horizon; /* windows the live curves cover; 240 */
	char evaluate[MDKD_SPEC_MAX]; /* the live curves; age,paw,pace,opp */
	unsigned int warmup; /* windows before auto-tune acts; 10 */
	int backend; /* enum mdkd_backend; swap */
	int tier_node; /* CMM-MP node, -1: SYS/kernel/cmm_mp/node */
	bool cxl_promote; /* move accessed tier pages back; on */
	bool drop_swap_cache; /* swap: reclaim what page-outs left cached; off */
	bool rate_guard; /* lopp: a window over target steps theta up; on */
	int lopp_model; /* lopp: enum mdk_lopp_kind it fits; logistic */
	char trace_file[256]; /* the windows as an .mdkt trace; "" off */
	/* backend auto (mode_policy_auto.c) */
	double target_stall; /* max window stall share; 0.01 */
	char tiers[256]; /* a tier list (mdk/tier.h); "": the host's */
};

/* Why a decision reclaims what it does (shown by status, recorded). */
enum mdkd_reason {
	MDKD_R_BASELINE, /* first sample: nothing to compare with */
	MDKD_R_OBSERVE, /* mode off */
	MDKD_R_RECLAIM, /* reclaiming */
	MDKD_R_PRESSURE, /* memory pressure at or above the threshold */
	MDKD_R_IO_PRESSURE, /* io pressure above io_psi_threshold */
	MDKD_R_BACKOFF, /* skipping intervals after EAGAIN/EBUSY */
	MDKD_R_FLOOR, /* at the lower bound */
	MDKD_R_SMALL, /* less than one page */
	MDKD_R_NOTHING, /* policy mode: the policy picked no page */
	MDKD_R_WARMUP, /* policy mode: auto-tune waits for enough windows */
	MDKD_R_NO_SETTING, /* policy mode: no setting is within the target */
	/* The operator's limits (limits.h) held the decision back. */
	MDKD_R_SWAP_FULL, /* swap (or the zswap pool) over swap_max_used */
	MDKD_R_SWAPOUT_RATE, /* the host swaps out over swapout_max_rate */
	MDKD_R_RATE_CAP, /* max_rate or host_max_rate spent */
	MDKD_R_CPU_CAP, /* max_cpu spent: the interval is put off */
	MDKD_R_INACTIVE, /* free memory above active_below */
	/* The tier goals (tiers.h) held the decision back. */
	MDKD_R_TIER_FULL, /* the CMM-MP node is at tier_used_max */
	MDKD_R_NR,
};

extern const char *const mdkd_reason_names[MDKD_R_NR];

/* What one interval looked like, derived from two samples. */
struct mdkd_interval {
	uint64_t dt_us;
	double mem_some, mem_full, io_some; /* shares of dt stalled */
	uint64_t mem_some_us, mem_full_us; /* PSI total deltas */
	uint64_t refaults; /* workingset_refault_anon + _file, pages */
	uint64_t swapin_bytes, swapout_bytes; /* see mdkd_interval_derive() */
	uint64_t floor_bytes; /* the lower bound this interval */
};

struct mdkd_decision {
	uint64_t want_bytes; /* what the mode asked for */
	uint64_t reclaim_bytes; /* what to reclaim after the bounds */
	enum mdkd_reason reason;
	/* A mode that picks pages: which (daemon/pages.h), else NULL. */
	struct mdkd_pages *pages;
};

/* What a mode's decide sees. */
struct mdkd_input {
	const struct mdkd_sample *prev, *cur;
	const struct mdkd_interval *iv;
};

struct mdkd_mode_ops {
	const char *name;
	const char *help;
	size_t state_size;
	/* Optional: acquire what the mode needs for @cg (0 or -errno). */
	int (*start)(struct mdkd_target *t, void *state, char *err,
		     size_t errlen);
	/* Optional: the first sample after attach or a mode change. */
	void (*init)(void *state, const struct mdkd_settings *set,
		     const struct mdkd_sample *first);
	/*
	 * Required: fill d->want_bytes and d->reason (MDKD_R_RECLAIM or
	 * MDKD_R_PRESSURE); the core applies the bounds afterwards.
	 */
	void (*decide)(void *state, const struct mdkd_settings *set,
		       const struct mdkd_input *in, struct mdkd_decision *d);
	/* Optional: the actuator's result for the last decision. */
	void (*feedback)(void *state, const struct mdkd_settings *set,
			 uint64_t bytes, int result);
	/* Optional: release what start acquired. */
	void (*stop)(struct mdkd_target *t, void *state);
	/*
	 * Optional: impure work of an interval, before decide (policy mode
	 * ends a sampler window here).  Called for every sample, the
	 * baseline included.
	 */
	void (*observe)(struct mdkd_target *t, void *state,
			const struct mdkd_sample *cur);
	/* Optional: the cgroup's settings changed, the mode did not. */
	void (*update)(struct mdkd_target *t, void *state,
		       const struct mdkd_settings *old);
	/* Optional: the mode's own interval instead of set->interval_us. */
	uint64_t (*interval_us)(const struct mdkd_settings *set);
	/*
	 * Optional: what mdkctl status shows of the mode's state (a new
	 * object, or NULL for nothing), under the cgroup's "policy" key.
	 */
	struct json_object *(*status_json)(struct mdkd_target *t, void *state);
	/*
	 * Optional: the live curves of a mode that keeps them (the "mpc"
	 * request, mdkctl mpc --live): a new object, or NULL with the reason
	 * in @err.
	 */
	struct json_object *(*live_json)(struct mdkd_target *t, void *state,
					 char *err, size_t errlen);
	/* Optional: the actuator for "actuator = auto" (NULL: the default). */
	const struct mdkd_actuator_ops *(*actuator)(
		const struct mdkd_settings *set);
	bool observe_only; /* never actuates (mode off) */
	/*
	 * Decides pages, not an amount (policy mode): the lower bound is
	 * max(memory.min, min_bytes) only, without the estimate of what
	 * reclaim could take, since the actuator moves the pages it picked.
	 */
	bool picks_pages;
};

/* What an actuator does with the bytes it is given (limits.h counts). */
enum mdkd_action {
	MDKD_ACT_RECLAIM, /* memory.reclaim, memory.high (anon and file) */
	MDKD_ACT_PAGEOUT, /* MADV_PAGEOUT: to swap or zswap */
	MDKD_ACT_DEMOTE, /* move_pages to the CMM-MP node */
	MDKD_ACT_PROMOTE, /* move_pages back to DRAM */
	MDKD_ACT_NR,
};

extern const char *const mdkd_action_names[MDKD_ACT_NR];

struct mdkd_actuator_ops {
	const char *name;
	const char *help;
	size_t state_size;
	enum mdkd_action action; /* what it does, for the counters and limits */
	bool swap_backed; /* it may write anonymous memory to swap */
	/* Optional: 0 if usable on @cg, -errno with a reason otherwise. */
	int (*probe)(int cgroup_dirfd, char *err, size_t errlen);
	/* Optional: open files, record limits to restore (0 or -errno). */
	int (*attach)(struct mdkd_target *t, void *state, char *err,
		      size_t errlen);
	/*
	 * Required: carry out @bytes of reclaim (see the comment above);
	 * @pages: the decision's pages, for a mode that picks pages.
	 */
	int (*apply)(struct mdkd_target *t, void *state, uint64_t bytes,
		     struct mdkd_pages *pages);
	/* Optional: undo whatever limit it may have left (exit, detach). */
	void (*restore)(struct mdkd_target *t, void *state);
	/* Optional: close what attach opened. */
	void (*detach)(struct mdkd_target *t, void *state);
};

/* mdkd_mode_interval_us() - how often @set's mode wants a sample. */
uint64_t mdkd_mode_interval_us(const struct mdkd_settings *set);

/* Per-cgroup controller state, owned by the core. */
struct mdkd_ctl {
	const struct mdkd_mode_ops *mode;
	void *mode_state; /* mode->state_size bytes */
	struct mdkd_sample prev;
	bool have_prev;
	unsigned int backoff_level; /* consecutive EAGAIN/EBUSY results */
	unsigned int backoff_left; /* intervals still to skip */
};

/*
 * mdkd_ctl_init() - set up @ctl for @mode (state allocated and zeroed).
 * Return: 0 or -ENOMEM.
 */
int mdkd_ctl_init(struct mdkd_ctl *ctl, const struct mdkd_mode_ops *mode);
void mdkd_ctl_destroy(struct mdkd_ctl *ctl);

/*
 * mdkd_ctl_set_mode() - switch to @mode, starting it afresh from the next
 * sample (as after attach); a no-op for the current mode.  Return: 0 or
 * -ENOMEM (@ctl unchanged).
 */
int mdkd_ctl_set_mode(struct mdkd_ctl *ctl, const struct mdkd_mode_ops *mode);

/*
 * mdkd_ctl_step() - feed the sample of one interval and get the decision.
 * @iv receives the interval metrics (zeroed for the first sample).
 */
void mdkd_ctl_step(struct mdkd_ctl *ctl, const struct mdkd_settings *set,
		   const struct mdkd_sample *cur, struct mdkd_interval *iv,
		   struct mdkd_decision *d);

/*
 * mdkd_ctl_result() - the actuator's result for the last decision of
 * @bytes: 0 on success, -EAGAIN (the kernel reclaimed less than asked) or
 * -EBUSY start a back-off of 1, 2, 4 ... up to set->backoff_max intervals;
 * anything else is passed to the mode only.
 */
void mdkd_ctl_result(struct mdkd_ctl *ctl, const struct mdkd_settings *set,
		     uint64_t bytes, int result);

/*
 * mdkd_interval_derive() - the metrics of the interval from @prev to @cur.
 * Swap traffic comes from memory.stat pswpin/pswpout when the kernel has
 * them; otherwise swap-out is the growth of memory.swap.current and swap-in
 * the anonymous refaults (workingset_refault_anon), both lower bounds.
 */
void mdkd_interval_derive(const struct mdkd_sample *prev,
			  const struct mdkd_sample *cur,
			  const struct mdkd_settings *set,
			  struct mdkd_interval *iv);

/*
 * mdkd_floor_bytes() - the lower bound: max(memory.min, min_bytes) plus
 * what reclaim cannot take (memory.current - mdkd_reclaimable_bytes());
 * for a mode that picks pages, max(memory.min, min_bytes) alone.
 */
uint64_t mdkd_floor_bytes(const struct mdkd_sample *s,
			  const struct mdkd_settings *set);

#endif /* MDKD_CONTROLLER_H */
