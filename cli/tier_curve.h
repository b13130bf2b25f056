/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_TIER_CURVE_H
#define MDKCTL_TIER_CURVE_H

#include <stdbool.h>

/*
 * mdkctl_tier_cmd() - mdkctl mpc (@sim false) or simulate (@sim true)
 * with --tiers: a tiered curve, or one tiered setting simulated.
 * Return: the exit code.
 */
int mdkctl_tier_cmd(int argc, char **argv, bool sim);

/* mdkctl_has_tiers() - is --tiers (or --tiers=...) among @argv? */
bool mdkctl_has_tiers(int argc, char **argv);

#endif /* MDKCTL_TIER_CURVE_H */
