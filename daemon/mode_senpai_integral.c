// SPDX-License-Identifier: GPL-2.0
/*
 * mode senpai-integral: the controller of Facebook's senpai.py (and oomd's
 * Senpai plugin).  It keeps a virtual limit; each interval the stall
 * observed is compared with a target of psi_threshold * interval:
 *
 *   stall >= target: back off, limit += limit * min(max_backoff,
 *                    max_backoff * (stall / target / coeff_backoff)^2)
 *   stall <  target: probe,    limit -= limit * min(max_probe,
 *                    max_probe * (target / stall / coeff_probe)^2)
 *
 * senpai.py wrote the limit to memory.high; here it stays virtual and the
 * daemon reclaims memory.current - limit through the actuator, so the
 * cgroup keeps no limit that could outlive the daemon.  The limit is kept
 * between the lower bound and memory.current.
 */
#include <errno.h>
#include <math.h>

#include "controller.h"

struct integral_state {
	double limit;
	bool resync; /* the kernel refused the last step: restart from usage */
};

static void integral_init(void *state, const struct mdkd_settings *set,
			  const struct mdkd_sample *first)
{
	struct integral_state *st = state;

	st->limit = (double)first->current_bytes;
	st->resync = false;
}

static void integral_decide(void *state, const struct mdkd_settings *set,
			    const struct mdkd_input *in,
			    struct mdkd_decision *d)
{
	struct integral_state *st = state;
	double current = (double)in->cur->current_bytes;
	double target = set->psi_threshold * (double)in->iv->dt_us;
	double stall = (double)in->iv->mem_some_us, factor;
	double floor = (double)in->iv->floor_bytes;

	if (st->resync || st->limit > current) {
		st->limit = current;
		st->resync = false;
	}
	if (target < 1)
		target = 1;
	if (stall >= target) {
		factor = stall / target / set->coeff_backoff;
		factor = fmin(factor * factor * set->max_backoff,
			      set->max_backoff);
		st->limit += st->limit * factor;
		d->reason = MDKD_R_PRESSURE;
	} else {
		factor = target / fmax(stall, 1) / set->coeff_probe;
		factor = fmin(factor * factor * set->max_probe, set->max_probe);
		st->limit -= st->limit * factor;
		d->reason = MDKD_R_RECLAIM;
	}
	if (st->limit > current)
		st->limit = current;
	if (st->limit < floor)
		st->limit = floor;
	d->want_bytes = d->reason == MDKD_R_RECLAIM && current > st->limit ?
				(uint64_t)(current - st->limit) :
				0;
}

static void integral_feedback(void *state, const struct mdkd_settings *set,
			      uint64_t bytes, int result)
{
	struct integral_state *st = state;

	if (result == -EAGAIN || result == -EBUSY)
		st->resync = true;
}

const struct mdkd_mode_ops mdkd_mode_senpai_integral = {
	.name = "senpai-integral",
	.help = "senpai.py's integral controller, reclaiming down to its virtual limit",
	.state_size = sizeof(struct integral_state),
	.start = NULL,
	.init = integral_init,
	.decide = integral_decide,
	.feedback = integral_feedback,
	.stop = NULL,
	.observe_only = false,
};
