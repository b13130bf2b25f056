// SPDX-License-Identifier: GPL-2.0
/* The tables of modes and actuators: see registry.h. */
#include <string.h>

#include "registry.h"

const struct mdkd_mode_ops *const mdkd_modes[] = {
	&mdkd_mode_senpai,
	&mdkd_mode_senpai_integral,
	&mdkd_mode_off,
	&mdkd_mode_policy,
	NULL,
};

const struct mdkd_actuator_ops *const mdkd_actuators[] = {
	&mdkd_act_reclaim,
	&mdkd_act_high_pulse,
	&mdkd_act_pageout,
	&mdkd_act_migrate,
	&mdkd_act_tier, /* policy mode, backend auto */
	NULL,
};

const struct mdkd_mode_ops *mdkd_mode_find(const char *name)
{
	const struct mdkd_mode_ops *const *m;

	for (m = mdkd_modes; *m; m++)
		if (!strcmp((*m)->name, name))
			return *m;
	return NULL;
}

const struct mdkd_actuator_ops *mdkd_actuator_find(const char *name)
{
	const struct mdkd_actuator_ops *const *a;

	for (a = mdkd_actuators; *a; a++)
		if (!strcmp((*a)->name, name))
			return *a;
	return NULL;
}
