/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's managed cgroups: the table (sorted by path), the cgroups detached
 * with operations still in flight, the runtime overrides of mdkctl set,
 * and the life of one managed cgroup (cgroups_attach.c): attach (open its
 * files, start the mode, attach the actuator), settings changes, detach.
 * A detached cgroup is freed once none of its operations is in flight.
 *
 * The table does no I/O on the loop itself: the pipeline (pipeline.c)
 * reads and acts, and answers the calls of modes and actuators through
 * the target_ops given here.
 */
#ifndef MDKD_CGROUPS_H
#define MDKD_CGROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "config.h"
#include "controller.h"
#include "limits.h"
#include "loop.h"
#include "target.h"

#define MDKD_CG_ACT_OPS 4

struct mdkd_cgroup;
struct mdkd_cgroups;

struct mdkd_cg_op {
	struct mdkd_op op;
	struct mdkd_cgroup *cg;
	int idx; /* file index for reads */
	mdkd_act_fn fn; /* actuator writes */
};

struct mdkd_cgroup_stats {
	uint64_t intervals; /* decisions taken */
	uint64_t reclaim_requests, reclaim_failures;
	uint64_t reclaimed_bytes; /* sum of successful requests */
	uint64_t requested_bytes; /* sum of all requests */
	uint64_t eagain, ebusy; /* kernel back-off signals */
	uint64_t read_errors;
	uint64_t busy_skips; /* intervals skipped: the last action still ran */
	uint64_t swapin_bytes, swapout_bytes, refaults; /* sums of intervals */
};

struct mdkd_cgroup {
	struct mdkd_cgroups *tbl; /* the table it belongs to */
	struct mdkd_target t; /* what its mode and actuator see */
	char *path; /* relative to the cgroup root */
	uint64_t id; /* inode of the directory: a recreated cgroup differs */
	int dirfd;
	int fds[MDKD_CGF_NR];
	char *bufs[MDKD_CGF_NR];
	size_t bufsz[MDKD_CGF_NR], lens[MDKD_CGF_NR];
	struct mdkd_cg_op reads[MDKD_CGF_NR];
	struct mdkd_cg_op acts[MDKD_CG_ACT_OPS];
	unsigned int reads_left, inflight;
	int read_err, read_err_file;
	bool reading, acting, detached;

	struct mdkd_settings set;
	char source[MDKD_CGROUP_PATH_MAX + 64]; /* where set came from */
	struct mdkd_ctl ctl;
	const struct mdkd_actuator_ops *act;
	void *act_state;
	uint64_t next_due_us, attached_us;

	/* The last interval, for status, metrics and the record file. */
	struct mdkd_sample sample;
	bool have_sample;
	struct mdkd_interval iv;
	struct mdkd_decision dec;
	int act_result; /* of the last action */
	uint64_t act_start_us, act_us; /* bytes: t.act_bytes */
	struct mdkd_cgroup_stats stats;
	struct mdkd_limits_cg lim; /* its rate bucket, action counters */
	bool deferring; /* put off by the CPU cap since it was due */
};

/* A runtime change from the control socket (mdkctl set / cgroup create). */
struct mdkd_override {
	char *path;
	struct mdkd_settings set;
	uint64_t mask;
	bool manage; /* managed even without a matching [cgroup] section */
};

struct mdkd_cgroups {
	struct mdkd_cgroup **cgs; /* sorted by path */
	size_t n, cgs_cap;
	struct mdkd_cgroup **zombies; /* detached, operations in flight */
	size_t nzombies, zombies_cap;
	struct mdkd_override *ovr;
	size_t novr, ovr_cap;
	unsigned int reading; /* cgroups with reads in flight */
	uint64_t next_rescan_us;
	char failed[MDKD_CGROUP_PATH_MAX]; /* last attach error logged */

	/* Given by the owner (mdkd_cgroups_init(), then kept current). */
	const struct mdkd_config *cfg;
	struct mdkd_loop *loop;
	const struct mdkd_clock *clock;
	/* Restart-only keys: copied, since a reload replaces cfg. */
	char cgroup_root[MDKD_PATH_MAX], state_dir[MDKD_PATH_MAX];
	char sys_root[MDKD_PATH_MAX];
	char proc_root[MDKD_PATH_MAX];
	const struct mdkd_page_sys *page_sys;
	const struct mdkd_policy_source *policy_source;
	const struct mdkd_target_ops *target_ops;
	void *target_arg; /* for target_ops: the pipeline */
	struct mdkd_tiers *tiers; /* the tier goals, host-wide (tiers.h) */
	const struct mdkd_host *host; /* the host's last reading (host.h) */
	const struct mdkd_limits *limits; /* the limits, host-wide */
	/* tier_file's costs (tier_costs.h), kept current; NULL: none */
	const struct mdkd_tier_costs *tier_costs;
};

/*
 * mdkd_cgroups_init() - an empty table for @cfg on @loop, with the real
 * system calls and the sampler (the owner may replace them before the
 * first attach) and @ops for what modes and actuators ask.
 */
void mdkd_cgroups_init(struct mdkd_cgroups *tbl, const struct mdkd_config *cfg,
		       struct mdkd_loop *loop, const struct mdkd_clock *clock,
		       const struct mdkd_target_ops *ops, void *ops_arg);

/* mdkd_cgroups_detach_all() - stop managing every cgroup (exit). */
void mdkd_cgroups_detach_all(struct mdkd_cgroups *tbl);

/*
 * mdkd_cgroups_free() - free the table; the zombies too when @idle (no
 * operation in flight any more), else they are left to the kernel.
 */
void mdkd_cgroups_free(struct mdkd_cgroups *tbl, bool idle);

/* mdkd_cgroups_find() - the managed cgroup at @path, or NULL. */
struct mdkd_cgroup *mdkd_cgroups_find(struct mdkd_cgroups *tbl,
				      const char *path);

/* mdkd_cgroups_rescan() - match the configuration against the tree. */
void mdkd_cgroups_rescan(struct mdkd_cgroups *tbl);

/*
 * mdkd_cgroups_set() - runtime settings for the managed cgroup @path, @n
 * keys and values, all or none applied.  @manage: also manage @path from
 * now on (mdkctl cgroup create).  Return: 0 or -errno with a message in
 * @err.
 */
int mdkd_cgroups_set(struct mdkd_cgroups *tbl, const char *path,
		     const char *const keys[], const char *const values[],
		     unsigned int n, bool manage, char *err, size_t errlen);

/*
 * mdkd_cgroups_release() - stop managing @path at runtime (forgets its
 * runtime settings; a matching [cgroup] section manages it again at the
 * next reload).  Return: 0 or -ENOENT.
 */
int mdkd_cgroups_release(struct mdkd_cgroups *tbl, const char *path, char *err,
			 size_t errlen);

/*
 * mdkd_cgroups_detach() - stop managing @cg: restore what the actuator
 * may have left, stop the mode, take it off the table; free it now or
 * when its last operation completes.
 */
void mdkd_cgroups_detach(struct mdkd_cgroups *tbl, struct mdkd_cgroup *cg);

/* mdkd_cgroup_op_done() - an operation of @cg completed: free it if
 * detached and the last. */
void mdkd_cgroup_op_done(struct mdkd_cgroup *cg);

/* cgroups_attach.c: one managed cgroup. */

/* mdkd_cgroup_attach() - a managed cgroup for @path, or NULL with the
 * reason in @err. */
struct mdkd_cgroup *mdkd_cgroup_attach(struct mdkd_cgroups *tbl,
				       const char *path,
				       const struct mdkd_settings *set,
				       const char *source, char *err,
				       size_t errlen);

/* mdkd_cgroup_stop() - restore the actuator's limits, stop the mode. */
void mdkd_cgroup_stop(struct mdkd_cgroup *cg);

/* mdkd_cgroup_free() - close and free; nothing may be in flight. */
void mdkd_cgroup_free(struct mdkd_cgroup *cg);

/*
 * mdkd_cgroup_update() - apply @set from @source, keeping the controller
 * state; a new mode starts afresh, a new actuator once the action in
 * flight is done.
 */
void mdkd_cgroup_update(struct mdkd_cgroup *cg, const struct mdkd_settings *set,
			const char *source);

#endif /* MDKD_CGROUPS_H */
