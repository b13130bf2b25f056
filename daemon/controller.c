// SPDX-License-Identifier: GPL-2.0
/* The controller core, pure decision logic: see controller.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"

const char *const mdkd_reason_names[MDKD_R_NR] = {
	[MDKD_R_BASELINE] = "baseline",
	[MDKD_R_OBSERVE] = "observe",
	[MDKD_R_RECLAIM] = "reclaim",
	[MDKD_R_PRESSURE] = "pressure",
	[MDKD_R_IO_PRESSURE] = "io-pressure",
	[MDKD_R_BACKOFF] = "backoff",
	[MDKD_R_FLOOR] = "floor",
	[MDKD_R_SMALL] = "small",
	[MDKD_R_NOTHING] = "nothing",
	[MDKD_R_WARMUP] = "warmup",
	[MDKD_R_NO_SETTING] = "no-setting",
	[MDKD_R_SWAP_FULL] = "swap-full",
	[MDKD_R_SWAPOUT_RATE] = "swapout-rate",
	[MDKD_R_RATE_CAP] = "rate-cap",
	[MDKD_R_CPU_CAP] = "cpu-cap",
	[MDKD_R_INACTIVE] = "inactive",
	[MDKD_R_TIER_FULL] = "tier-full",
};

const char *const mdkd_backend_names[MDKD_BACKEND_NR] = {
	[MDKD_BACKEND_SWAP] = "swap",
	[MDKD_BACKEND_CXL] = "cxl",
	[MDKD_BACKEND_AUTO] = "auto",
};

const char *mdkd_backend_name(int backend)
{
	return backend >= 0 && backend < MDKD_BACKEND_NR ?
		       mdkd_backend_names[backend] :
		       "?";
}

const char *const mdkd_lopp_model_names[MDKD_LOPP_MODEL_NR] = {
	"logistic", /* MDK_LOPP_LOGISTIC */
	"trees", /* MDK_LOPP_TREES */
};

const char *mdkd_lopp_model_name(int kind)
{
	return kind >= 0 && kind < MDKD_LOPP_MODEL_NR ?
		       mdkd_lopp_model_names[kind] :
		       "?";
}

uint64_t mdkd_mode_interval_us(const struct mdkd_settings *set)
{
	return set->mode->interval_us ? set->mode->interval_us(set) :
					set->interval_us;
}

int mdkd_ctl_init(struct mdkd_ctl *ctl, const struct mdkd_mode_ops *mode)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->mode = mode;
	if (mode->state_size) {
		ctl->mode_state = calloc(1, mode->state_size);
		if (!ctl->mode_state)
			return -ENOMEM;
	}
	return 0;
}

void mdkd_ctl_destroy(struct mdkd_ctl *ctl)
{
	free(ctl->mode_state);
	ctl->mode_state = NULL;
}

int mdkd_ctl_set_mode(struct mdkd_ctl *ctl, const struct mdkd_mode_ops *mode)
{
	void *state = NULL;

	if (ctl->mode == mode)
		return 0;
	if (mode->state_size) {
		state = calloc(1, mode->state_size);
		if (!state)
			return -ENOMEM;
	}
	free(ctl->mode_state);
	ctl->mode_state = state;
	ctl->mode = mode;
	/* The new mode starts from a baseline, as after attach. */
	ctl->have_prev = false;
	ctl->backoff_level = 0;
	ctl->backoff_left = 0;
	return 0;
}

static uint64_t delta(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : 0;
}

uint64_t mdkd_floor_bytes(const struct mdkd_sample *s,
			  const struct mdkd_settings *set)
{
	uint64_t base = s->min_bytes > set->min_bytes ? s->min_bytes :
							set->min_bytes;
	uint64_t reclaimable = mdkd_reclaimable_bytes(s);
	uint64_t unreclaimable = s->current_bytes > reclaimable ?
					 s->current_bytes - reclaimable :
					 0;

	if (set->mode && set->mode->picks_pages)
		return base;

	return base > UINT64_MAX - unreclaimable ? UINT64_MAX :
						   base + unreclaimable;
}

void mdkd_interval_derive(const struct mdkd_sample *prev,
			  const struct mdkd_sample *cur,
			  const struct mdkd_settings *set,
			  struct mdkd_interval *iv)
{
	const struct mdkd_memstat *a = &prev->stat, *b = &cur->stat;

	memset(iv, 0, sizeof(*iv));
	iv->dt_us = delta(prev->time_us, cur->time_us);
	iv->mem_some_us =
		delta(prev->mem.some.total_us, cur->mem.some.total_us);
	iv->mem_full_us =
		delta(prev->mem.full.total_us, cur->mem.full.total_us);
	iv->mem_some = mdkd_psi_fraction(prev->mem.some.total_us,
					 cur->mem.some.total_us, iv->dt_us);
	iv->mem_full = mdkd_psi_fraction(prev->mem.full.total_us,
					 cur->mem.full.total_us, iv->dt_us);
	if (prev->has_io && cur->has_io)
		iv->io_some = mdkd_psi_fraction(prev->io.some.total_us,
						cur->io.some.total_us,
						iv->dt_us);
	iv->refaults =
		delta(a->workingset_refault_anon + a->workingset_refault_file,
		      b->workingset_refault_anon + b->workingset_refault_file);
	if (a->has_pswp && b->has_pswp) {
		iv->swapin_bytes = delta(a->pswpin, b->pswpin) * MDKD_PAGE_SIZE;
		iv->swapout_bytes =
			delta(a->pswpout, b->pswpout) * MDKD_PAGE_SIZE;
	} else {
		iv->swapin_bytes = delta(a->workingset_refault_anon,
					 b->workingset_refault_anon) *
				   MDKD_PAGE_SIZE;
		iv->swapout_bytes = delta(prev->swap_current_bytes,
					  cur->swap_current_bytes);
	}
	iv->floor_bytes = mdkd_floor_bytes(cur, set);
}

void mdkd_ctl_step(struct mdkd_ctl *ctl, const struct mdkd_settings *set,
		   const struct mdkd_sample *cur, struct mdkd_interval *iv,
		   struct mdkd_decision *d)
{
	struct mdkd_input in;
	uint64_t bytes, room;

	memset(d, 0, sizeof(*d));
	if (!ctl->have_prev) {
		memset(iv, 0, sizeof(*iv));
		iv->floor_bytes = mdkd_floor_bytes(cur, set);
		ctl->prev = *cur;
		ctl->have_prev = true;
		if (ctl->mode->init)
			ctl->mode->init(ctl->mode_state, set, cur);
		d->reason = MDKD_R_BASELINE;
		return;
	}
	mdkd_interval_derive(&ctl->prev, cur, set, iv);
	in.prev = &ctl->prev;
	in.cur = cur;
	in.iv = iv;
	d->reason = MDKD_R_OBSERVE;
	if (!ctl->mode->observe_only)
		ctl->mode->decide(ctl->mode_state, set, &in, d);
	ctl->prev = *cur;
	if (ctl->mode->observe_only || d->reason != MDKD_R_RECLAIM) {
		d->reclaim_bytes = 0;
		return;
	}
	if (ctl->backoff_left) {
		ctl->backoff_left--;
		d->reason = MDKD_R_BACKOFF;
		return;
	}
	if (cur->has_io && iv->io_some > set->io_psi_threshold) {
		d->reason = MDKD_R_IO_PRESSURE;
		return;
	}
	bytes = d->want_bytes;
	if (set->max_bytes && bytes > set->max_bytes)
		bytes = set->max_bytes;
	room = cur->current_bytes > iv->floor_bytes ?
		       cur->current_bytes - iv->floor_bytes :
		       0;
	if (bytes >= room) {
		bytes = room;
		if (bytes < MDKD_PAGE_SIZE) {
			d->reason = MDKD_R_FLOOR;
			return;
		}
	}
	bytes &= ~(MDKD_PAGE_SIZE - 1);
	if (!bytes) {
		d->reason = MDKD_R_SMALL;
		return;
	}
	d->reclaim_bytes = bytes;
}

void mdkd_ctl_result(struct mdkd_ctl *ctl, const struct mdkd_settings *set,
		     uint64_t bytes, int result)
{
	if (result == -EAGAIN || result == -EBUSY) {
		unsigned int skip;

		if (ctl->backoff_level < 31)
			ctl->backoff_level++;
		skip = 1U << (ctl->backoff_level - 1);
		ctl->backoff_left = skip < set->backoff_max ? skip :
							      set->backoff_max;
	} else if (!result) {
		ctl->backoff_level = 0;
		ctl->backoff_left = 0;
	}
	if (ctl->mode->feedback)
		ctl->mode->feedback(ctl->mode_state, set, bytes, result);
}
