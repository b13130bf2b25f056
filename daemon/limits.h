/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operator's limits on what mdkd does, host-wide and per cgroup, in
 * the manner of oomd's Senpai valves and DAMOS quotas and watermarks:
 *
 *  - the swap valve: swap-backed actions (memory.reclaim of anonymous
 *    memory, pageout) stop while swap, or the zswap pool against its own
 *    limit, is fuller than swap_max_used, or while the host swaps out
 *    faster than swapout_max_rate, and resume with hysteresis; an action
 *    never takes more than half the swap room left below swap_max_used;
 *  - rate caps: max_rate per cgroup and host_max_rate for the host, bytes
 *    a second of reclaim, pageout and migration (token buckets);
 *  - the CPU cap: max_cpu, the share of one core mdkd's own work may take,
 *    enforced by deferring cgroups to later;
 *  - activation: above active_below of free memory mdkd neither samples
 *    nor reclaims.
 *
 * Pure logic, no I/O and no clock of its own: the pipeline feeds it the
 * host's readings (host.h) and its CPU clock, and asks it per decision.
 * Every action's bytes tried and applied and the limits hit are counted
 * here, per cgroup (struct mdkd_limits_cg) and host-wide.
 */
#ifndef MDKD_LIMITS_H
#define MDKD_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "controller.h"
#include "host.h"

/* Hysteresis: a closed valve opens this far below its limit. */
#define MDKD_SWAP_REOPEN_GAP 0.05 /* of swap (or of the zswap pool) */
/* ... and closes this far below it: actions take half the room left. */
#define MDKD_SWAP_CLOSE_GAP 0.01
#define MDKD_SWAPOUT_REOPEN 0.5 /* of swapout_max_rate */
#define MDKD_ACTIVE_GAP 0.01 /* of MemTotal, above active_below */
/* Inactive, free memory is checked this often (DAMON_RECLAIM's default). */
#define MDKD_INACTIVE_PERIOD_US 5000000
/*
 * A swap-backed action takes at most this share of the swap room, divided
 * by the overshoot learnt so far: the kernel's reclaim takes more swap
 * than it reports (pages still under writeback when memory.reclaim
 * returns count as not reclaimed, so it goes on).  Seen on 6.1, a 51 MiB
 * write filled 63 MiB of swap; on 6.12 12.6 MiB took 19 MiB.
 */
#define MDKD_SWAP_ROOM_SHARE 0.5
#define MDKD_SWAP_OVERSHOOT_INIT 2.0 /* before the first measure */
#define MDKD_SWAP_OVERSHOOT_MAX 16.0
#define MDKD_SWAP_OVERSHOOT_MIN_ASK (1 << 20) /* smaller: noise */
/* Learnt from actions expected to take at least 1/8 of the room only. */
#define MDKD_SWAP_LEARN_SHARE 8
/*
 * Less room than this for an action: none.  Tiny writes overshoot the
 * most (on 6.1 in the VM, 1.1 MiB of them took 6 MiB of swap).
 */
#define MDKD_SWAP_MIN_ACTION (1 << 20)

/* DAMOS's sz_tried, sz_applied and qt_exceeds, for one action. */
struct mdkd_action_stats {
	uint64_t tried_bytes; /* handed to the actuator */
	uint64_t applied_bytes; /* done, as the actuator reports */
	uint64_t limit_hits; /* decisions a limit cut short or held */
};

/* A token bucket of bytes (or CPU microseconds) a second. */
struct mdkd_bucket {
	double tokens;
	uint64_t last_us; /* 0: never used (starts full) */
};

/*
 * mdkd_bucket_avail() - what @b holds at @now, filling at @rate a second
 * up to @rate * @cap_us (its burst).
 */
double mdkd_bucket_avail(struct mdkd_bucket *b, double rate, uint64_t cap_us,
			 uint64_t now);

/* The limits' keys, host-wide ([global] of mdkd.conf). */
struct mdkd_limits_conf {
	double swap_max_used; /* share of swap; 0.8 */
	uint64_t swapout_max_rate; /* bytes/s, 0: off */
	uint64_t host_max_rate; /* bytes/s of all cgroups, 0: off */
	double max_cpu; /* share of one core, 0: off */
	double active_below; /* MemFree share; 1: always active */
};

/* Per managed cgroup. */
struct mdkd_limits_cg {
	struct mdkd_bucket rate;
	struct mdkd_action_stats act[MDKD_ACT_NR];
	enum mdkd_reason
		held; /* what limited the last decision (RECLAIM: none) */
	uint64_t deferred; /* intervals put off by the CPU cap */
	uint64_t inactive; /* intervals skipped while inactive */
	/* The swap valve let memory.reclaim go on file pages only. */
	bool file_only; /* the last decision */
	uint64_t file_only_decisions;
	/*
	 * The last swap-backed action near the limit: swap used before it,
	 * bytes asked (0: none, or far from the limit, nothing to learn).
	 */
	uint64_t swap_before, swap_asked;
};

/* Host-wide. */
struct mdkd_limits {
	struct mdkd_limits_conf conf;
	bool swap_full, swapout_fast; /* the valve's two reasons */
	uint64_t swap_room; /* bytes swap-backed actions may still take */
	double swap_overshoot; /* swap taken per byte asked, learnt, >= 1 */
	uint64_t swap_used; /* bytes, at the last reading */
	bool active;
	bool swappiness_ok; /* memory.reclaim takes swappiness= */
	struct mdkd_bucket rate; /* host_max_rate */
	/* CPU: microseconds of budget, and the clocks of the last charge. */
	double cpu_tokens_us;
	uint64_t cpu_wall_us, cpu_used_us;
	struct mdkd_action_stats act[MDKD_ACT_NR];
	uint64_t held[MDKD_R_NR]; /* decisions held, by reason */
	uint64_t deferred, inactive_ticks, valve_closures;
};

/* One decision's request to the limits. */
struct mdkd_limits_ask {
	enum mdkd_action action;
	bool swap_backed; /* it may write anonymous memory to swap */
	/* The actuator's write takes swappiness= (memory.reclaim's). */
	bool takes_swappiness;
	int swappiness; /* reclaim_swappiness, -1: the kernel's */
	uint64_t want; /* bytes */
	uint64_t max_rate; /* the cgroup's, bytes/s, 0: off */
	uint64_t interval_us; /* the cgroup's: the buckets' burst */
	uint64_t now;
};

/* mdkd_limits_init() - all open, active, counters zero. */
void mdkd_limits_init(struct mdkd_limits *l);

/*
 * mdkd_limits_update() - apply @conf and a new reading of the host: the
 * swap valve, the swap room, activation.  Logs when a state changes.
 */
void mdkd_limits_update(struct mdkd_limits *l,
			const struct mdkd_limits_conf *conf,
			const struct mdkd_host *h);

/*
 * mdkd_limits_gate() - how much of @a->want the limits allow now (whole
 * pages), charged to the buckets and the swap room.  *@file_only is set
 * when a memory.reclaim may still run with swappiness=0 while the swap
 * valve is closed.  A write with swappiness=0 (reclaim_swappiness) takes
 * no swap: neither the valve nor the swap room limits it.  @cg->held gets the limit that cut it, MDKD_R_RECLAIM
 * when none did.
 */
uint64_t mdkd_limits_gate(struct mdkd_limits *l, struct mdkd_limits_cg *cg,
			  const struct mdkd_limits_ask *a, bool *file_only);

/*
 * mdkd_limits_account() - @action of @cg tried @tried bytes and applied
 * @applied, host-wide too.
 */
void mdkd_limits_account(struct mdkd_limits *l, struct mdkd_limits_cg *cg,
			 enum mdkd_action action, uint64_t tried,
			 uint64_t applied);

/*
 * mdkd_limits_swap_taken() - a swap-backed action asked @asked bytes and
 * swap grew by @taken meanwhile: learn the overshoot (the largest seen,
 * decaying by a tenth of its excess over 1 a measure).
 */
void mdkd_limits_swap_taken(struct mdkd_limits *l, uint64_t asked,
			    uint64_t taken);

/*
 * mdkd_limits_cpu() - charge mdkd's CPU clock @cpu_us at wall time @now.
 * Return: 0 when work may start now, else the wall time it may.
 */
uint64_t mdkd_limits_cpu(struct mdkd_limits *l, uint64_t now, uint64_t cpu_us);

/*
 * mdkd_limits_valve_reason() - why swap-backed actions stop, or
 * MDKD_R_RECLAIM when they may run.
 */
enum mdkd_reason mdkd_limits_valve_reason(const struct mdkd_limits *l);

#endif /* MDKD_LIMITS_H */
