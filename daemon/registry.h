/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The built-in modes and actuators, and their tables: adding one is a
 * line in registry.c.  The configuration looks them up by name.
 */
#ifndef MDKD_REGISTRY_H
#define MDKD_REGISTRY_H

#include "controller.h"

/* The registries: NULL-terminated, looked up by name. */
extern const struct mdkd_mode_ops *const mdkd_modes[];
extern const struct mdkd_actuator_ops *const mdkd_actuators[];
const struct mdkd_mode_ops *mdkd_mode_find(const char *name);
const struct mdkd_actuator_ops *mdkd_actuator_find(const char *name);

/* The built-in modes and actuators. */
extern const struct mdkd_mode_ops mdkd_mode_senpai;
extern const struct mdkd_mode_ops mdkd_mode_senpai_integral;
extern const struct mdkd_mode_ops mdkd_mode_off;
extern const struct mdkd_mode_ops mdkd_mode_policy;
extern const struct mdkd_actuator_ops mdkd_act_reclaim;
extern const struct mdkd_actuator_ops mdkd_act_high_pulse;
extern const struct mdkd_actuator_ops mdkd_act_pageout;
extern const struct mdkd_actuator_ops mdkd_act_migrate;
extern const struct mdkd_actuator_ops mdkd_act_tier;

#endif /* MDKD_REGISTRY_H */
