// SPDX-License-Identifier: GPL-2.0
/* The operator's limits: see limits.h. */
#include <math.h>
#include <string.h>

#include "limits.h"
#include "log.h"

const char *const mdkd_action_names[MDKD_ACT_NR] = {
	[MDKD_ACT_RECLAIM] = "reclaim",
	[MDKD_ACT_PAGEOUT] = "pageout",
	[MDKD_ACT_DEMOTE] = "demote",
	[MDKD_ACT_PROMOTE] = "promote",
};

double mdkd_bucket_avail(struct mdkd_bucket *b, double rate, uint64_t cap_us,
			 uint64_t now)
{
	double cap = rate * (double)cap_us / 1e6;

	if (!b->last_us) {
		b->tokens = cap;
	} else if (now > b->last_us) {
		b->tokens += rate * (double)(now - b->last_us) / 1e6;
		if (b->tokens > cap)
			b->tokens = cap;
	}
	if (now > b->last_us)
		b->last_us = now;
	return b->tokens;
}

void mdkd_limits_init(struct mdkd_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->conf.swap_max_used = 1;
	l->conf.active_below = 1;
	l->active = true;
	l->swap_room = UINT64_MAX;
	l->swap_overshoot = MDKD_SWAP_OVERSHOOT_INIT;
}

void mdkd_limits_swap_taken(struct mdkd_limits *l, uint64_t asked,
			    uint64_t taken)
{
	double r, decayed = 1 + (l->swap_overshoot - 1) * 0.9;

	if (asked < MDKD_SWAP_OVERSHOOT_MIN_ASK)
		return;
	r = (double)taken / (double)asked;
	if (r > MDKD_SWAP_OVERSHOOT_MAX)
		r = MDKD_SWAP_OVERSHOOT_MAX;
	l->swap_overshoot = r > decayed ? r : decayed;
}

static void update_valve(struct mdkd_limits *l, const struct mdkd_host *h)
{
	const struct mdkd_limits_conf *c = &l->conf;
	double used = mdkd_host_swap_used(h), zused = mdkd_host_zswap_used(h);
	double fill = used > zused ? used : zused;
	bool was = l->swap_full || l->swapout_fast;
	uint64_t limit;

	/* Within MDKD_SWAP_CLOSE_GAP of the limit, half the room is nothing. */
	if (l->swap_full)
		l->swap_full = fill >= c->swap_max_used - MDKD_SWAP_REOPEN_GAP;
	else
		l->swap_full = h->swap_total &&
			       fill >= c->swap_max_used - MDKD_SWAP_CLOSE_GAP;
	if (l->swapout_fast)
		l->swapout_fast =
			c->swapout_max_rate &&
			h->swapout_rate >=
				c->swapout_max_rate * MDKD_SWAPOUT_REOPEN;
	else
		l->swapout_fast = c->swapout_max_rate &&
				  h->swapout_rate > (double)c->swapout_max_rate;
	l->swap_used = h->swap_total - h->swap_free;
	/* What swap-backed actions may add before the next reading. */
	limit = (uint64_t)((double)h->swap_total * c->swap_max_used);
	l->swap_room = h->swap_total - h->swap_free < limit ?
			       limit - (h->swap_total - h->swap_free) :
			       0;
	if (!h->swap_total)
		l->swap_room = 0;
	/* No room for an action (see mdkd_limits_gate()): as good as full. */
	if (h->swap_total &&
	    (double)l->swap_room * MDKD_SWAP_ROOM_SHARE / l->swap_overshoot <
		    MDKD_SWAP_MIN_ACTION)
		l->swap_full = true;
	if (!was && (l->swap_full || l->swapout_fast)) {
		l->valve_closures++;
		log_notice(
			"swap-backed reclaim stops: swap %.1f%% used, zswap pool %.1f%% of its limit, swap-out %.0f kB/s (swap_max_used %.0f%%, swapout_max_rate %llu)",
			used * 100, zused * 100, h->swapout_rate / 1024,
			c->swap_max_used * 100,
			(unsigned long long)c->swapout_max_rate);
	} else if (was && !l->swap_full && !l->swapout_fast) {
		log_notice("swap-backed reclaim resumes: swap %.1f%% used",
			   used * 100);
	}
}

static void update_active(struct mdkd_limits *l, const struct mdkd_host *h)
{
	double free = mdkd_host_free_share(h), below = l->conf.active_below;
	bool was = l->active;

	if (below >= 1 || !h->mem_total)
		l->active = true;
	else if (l->active)
		l->active = free < below + MDKD_ACTIVE_GAP;
	else
		l->active = free < below;
	if (was != l->active)
		log_notice("%s: %.1f%% of memory free (active_below %.1f%%)",
			   l->active ? "active" : "inactive", free * 100,
			   below * 100);
}

void mdkd_limits_update(struct mdkd_limits *l,
			const struct mdkd_limits_conf *conf,
			const struct mdkd_host *h)
{
	l->conf = *conf;
	update_valve(l, h);
	update_active(l, h);
}

enum mdkd_reason mdkd_limits_valve_reason(const struct mdkd_limits *l)
{
	if (l->swap_full)
		return MDKD_R_SWAP_FULL;
	if (l->swapout_fast)
		return MDKD_R_SWAPOUT_RATE;
	return MDKD_R_RECLAIM;
}

/* Cut *@allowed to @avail bytes, recording @why when it cuts. */
static void cut(uint64_t *allowed, double avail, enum mdkd_reason why,
		enum mdkd_reason *held)
{
	uint64_t a = avail > 0 ? (uint64_t)avail : 0;

	if (a < *allowed) {
		*allowed = a;
		*held = why;
	}
}

uint64_t mdkd_limits_gate(struct mdkd_limits *l, struct mdkd_limits_cg *cg,
			  const struct mdkd_limits_ask *a, bool *file_only)
{
	enum mdkd_reason valve = mdkd_limits_valve_reason(l);
	uint64_t allowed = a->want, cap_us = a->interval_us;
	enum mdkd_reason held = MDKD_R_RECLAIM;
	/* Only a write that carries swappiness= can go on file-only. */
	bool sw = a->takes_swappiness && l->swappiness_ok;
	bool swap_backed = a->swap_backed && !(sw && a->swappiness == 0);

	*file_only = false;
	if (cap_us < MDKD_HOST_PERIOD_US)
		cap_us = MDKD_HOST_PERIOD_US;
	if (swap_backed && valve != MDKD_R_RECLAIM) {
		if (sw) {
			*file_only = true;
		} else {
			allowed = 0;
			held = valve;
		}
	}
	if (swap_backed && !*file_only) {
		double room = (double)l->swap_room * MDKD_SWAP_ROOM_SHARE /
			      l->swap_overshoot;

		cut(&allowed, room < MDKD_SWAP_MIN_ACTION ? 0 : room,
		    MDKD_R_SWAP_FULL, &held);
	}
	if (a->max_rate)
		cut(&allowed,
		    mdkd_bucket_avail(&cg->rate, (double)a->max_rate, cap_us,
				      a->now),
		    MDKD_R_RATE_CAP, &held);
	if (l->conf.host_max_rate)
		cut(&allowed,
		    mdkd_bucket_avail(&l->rate, (double)l->conf.host_max_rate,
				      cap_us, a->now),
		    MDKD_R_RATE_CAP, &held);
	allowed -= allowed % MDKD_PAGE_SIZE;
	if (a->max_rate)
		cg->rate.tokens -= (double)allowed;
	if (l->conf.host_max_rate)
		l->rate.tokens -= (double)allowed;
	cg->swap_asked = 0;
	if (swap_backed && !*file_only) {
		/* What the kernel is expected to take of the room. */
		double take = (double)allowed * l->swap_overshoot;

		/* Near the limit, the pipeline measures what it took. */
		if (take * MDKD_SWAP_LEARN_SHARE >= (double)l->swap_room) {
			cg->swap_before = l->swap_used;
			cg->swap_asked = allowed;
		}
		l->swap_room -= take < (double)l->swap_room ? (uint64_t)take :
							      l->swap_room;
	}
	cg->held = held;
	cg->file_only = *file_only;
	if (*file_only)
		cg->file_only_decisions++;
	if (held != MDKD_R_RECLAIM) {
		cg->act[a->action].limit_hits++;
		l->act[a->action].limit_hits++;
		l->held[held]++;
	}
	return allowed;
}

void mdkd_limits_account(struct mdkd_limits *l, struct mdkd_limits_cg *cg,
			 enum mdkd_action action, uint64_t tried,
			 uint64_t applied)
{
	cg->act[action].tried_bytes += tried;
	cg->act[action].applied_bytes += applied;
	l->act[action].tried_bytes += tried;
	l->act[action].applied_bytes += applied;
}

uint64_t mdkd_limits_cpu(struct mdkd_limits *l, uint64_t now, uint64_t cpu_us)
{
	double share = l->conf.max_cpu, cap = share * MDKD_HOST_PERIOD_US;

	if (share <= 0)
		return 0;
	if (!l->cpu_wall_us) {
		l->cpu_tokens_us = cap;
	} else {
		if (now > l->cpu_wall_us)
			l->cpu_tokens_us +=
				share * (double)(now - l->cpu_wall_us);
		if (cpu_us > l->cpu_used_us)
			l->cpu_tokens_us -= (double)(cpu_us - l->cpu_used_us);
		if (l->cpu_tokens_us > cap)
			l->cpu_tokens_us = cap;
	}
	l->cpu_wall_us = now;
	l->cpu_used_us = cpu_us;
	if (l->cpu_tokens_us >= 0)
		return 0;
	return now + (uint64_t)ceil(-l->cpu_tokens_us / share);
}
