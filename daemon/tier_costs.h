/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The back ends' measured costs, host-wide: the tier file that `mdkctl
 * tier calibrate` writes (mdk/tier.h), named by the tier_file key, read at
 * start and on every reload.  A missing file is no error (there are no
 * costs until the host is calibrated); a bad one is, naming file:line,
 * and leaves the costs read before in place.
 */
#ifndef MDKD_TIER_COSTS_H
#define MDKD_TIER_COSTS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>
#include <mdk/tier.h>

struct mdkd_tier_costs {
	bool loaded; /* tiers holds a file's costs */
	struct mdk_tiers tiers;
	char path[4096]; /* the file they came from */
	int64_t mtime; /* its modification time, seconds since the epoch */
	char note[128]; /* why there are none */
};

/*
 * mdkd_tier_costs_load() - read @path ("" or absent: no costs, with a
 * note) into @c.  Return: 0, or -errno with "@path:LINE: ..." in @err and
 * @c unchanged.
 */
int mdkd_tier_costs_load(struct mdkd_tier_costs *c, const char *path, char *err,
			 size_t errlen);

/* mdkd_tier_costs_json() - @c as the status's "tier_costs" object. */
struct json_object *mdkd_tier_costs_json(const struct mdkd_tier_costs *c);

#endif /* MDKD_TIER_COSTS_H */
