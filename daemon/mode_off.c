// SPDX-License-Identifier: GPL-2.0
/* mode off: observe and report only; never reclaims. */
#include "controller.h"

static void off_decide(void *state, const struct mdkd_settings *set,
		       const struct mdkd_input *in, struct mdkd_decision *d)
{
	d->want_bytes = 0;
	d->reason = MDKD_R_OBSERVE;
}

const struct mdkd_mode_ops mdkd_mode_off = {
	.name = "off",
	.help = "observe only: sample and report, never reclaim",
	.state_size = 0,
	.start = NULL,
	.init = NULL,
	.decide = off_decide,
	.feedback = NULL,
	.stop = NULL,
	.observe_only = true,
};
