// SPDX-License-Identifier: GPL-2.0
/*
 * mode senpai: the TMO law (Weiner et al., "TMO: Transparent Memory
 * Offloading in Datacenters", ASPLOS'22).  Every interval reclaim
 *
 *	memory.current * reclaim_ratio * max(0, 1 - psi_some / psi_threshold)
 *
 * where psi_some is the share of the last interval in which some task of
 * the cgroup stalled on memory.  Stateless: nothing carries over from one
 * interval to the next, so a restarted daemon picks up where it was.
 */
#include "controller.h"

static void senpai_decide(void *state, const struct mdkd_settings *set,
			  const struct mdkd_input *in, struct mdkd_decision *d)
{
	double psi = in->iv->mem_some, thr = set->psi_threshold, want;

	if (thr <= 0 || psi >= thr) {
		d->want_bytes = 0;
		d->reason = MDKD_R_PRESSURE;
		return;
	}
	want = (double)in->cur->current_bytes * set->reclaim_ratio *
	       (1.0 - psi / thr);
	d->want_bytes = want > 0 ? (uint64_t)want : 0;
	d->reason = MDKD_R_RECLAIM;
}

const struct mdkd_mode_ops mdkd_mode_senpai = {
	.name = "senpai",
	.help = "the TMO law on memory.reclaim (default)",
	.state_size = 0,
	.start = NULL,
	.init = NULL,
	.decide = senpai_decide,
	.feedback = NULL,
	.stop = NULL,
	.observe_only = false,
};
