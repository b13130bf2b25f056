/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a mode or an actuator sees of the managed cgroup it works on: a
 * handle with the cgroup's identity, its settings, the daemon's roots and
 * system-call tables, and the two calls back into the daemon an actuator
 * makes (queue a write on the loop, report the action's result).  The
 * cgroup table (cgroups.c) fills it at attach and the pipeline
 * (pipeline.c) answers the calls; modes and actuators never see struct
 * mdkd_cgroup.
 */
#ifndef MDKD_TARGET_H
#define MDKD_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mdkd_target;
struct mdkd_settings;
struct mdkd_sample;
struct mdkd_mode_ops;
struct mdkd_page_sys;
struct mdkd_policy_source;
struct mdkd_tiers;
struct mdkd_host;
struct mdkd_limits;
struct mdkd_tier_costs;

/* A completion callback of an actuator's queued write. */
typedef void (*mdkd_act_fn)(struct mdkd_target *t, void *state, int res);

/* What the daemon does for a target (pipeline.c). */
struct mdkd_target_ops {
	/*
	 * Queue a write of @len bytes at offset 0 of @fd on the loop; @fn
	 * gets the result.  @link: the next write of this cgroup runs after
	 * this one even if it fails (IOSQE_IO_HARDLINK).  Return: 0 or
	 * -EBUSY when the cgroup has too many writes in flight.
	 */
	int (*queue_write)(struct mdkd_target *t, int fd, const void *buf,
			   size_t len, bool link, mdkd_act_fn fn);
	/* The action finished with @result (0 or -errno). */
	void (*act_done)(struct mdkd_target *t, int result);
};

struct mdkd_target {
	const char *path; /* relative to the cgroup root */
	uint64_t id; /* inode of the directory */
	int dirfd; /* the cgroup's directory */
	const struct mdkd_settings *set; /* its settings, kept current */
	const struct mdkd_sample *sample; /* its last sample */
	/*
	 * The action in flight: the bytes asked for.  An actuator that moved
	 * another amount (the pages actuators) stores it here before
	 * reporting the result.
	 */
	uint64_t act_bytes;
	/*
	 * swappiness= for the reclaim actuator's write of this action, -1:
	 * none (reclaim_swappiness, or 0 while the swap valve is closed).
	 */
	int swappiness;
	const char *cgroup_root, *sys_root, *state_dir;
	const char *proc_root; /* procfs: compressibility samples */
	const struct mdkd_page_sys *page_sys; /* the page actuators' calls */
	const struct mdkd_policy_source *policy_source; /* policy mode's */
	const struct mdkd_target_ops *ops;
	/* The tier goals (tiers.h), host-wide; NULL: none. */
	struct mdkd_tiers *tiers;
	/* The host's last reading and the limits (swap valve); NULL: none. */
	const struct mdkd_host *host;
	const struct mdkd_limits *limits;
	/* The host's measured costs (tier_file); NULL: none. */
	const struct mdkd_tier_costs *tier_costs;
};

static inline int mdkd_target_queue_write(struct mdkd_target *t, int fd,
					  const void *buf, size_t len,
					  bool link, mdkd_act_fn fn)
{
	return t->ops->queue_write(t, fd, buf, len, link, fn);
}

static inline void mdkd_target_act_done(struct mdkd_target *t, int result)
{
	t->ops->act_done(t, result);
}

#endif /* MDKD_TARGET_H */
