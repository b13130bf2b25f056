/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_TIER_FILE_H
#define MDKCTL_TIER_FILE_H

/*
 * The tier file `mdkctl tier calibrate` writes: one tier a line in the
 * syntax of mdk/tier.h, what mdk_tiers_load() reads, with comments on
 * where, when and how it was measured.
 */
#include <stddef.h>
#include <stdint.h>

#include <mdk/tier.h>

/* What was measured of one back end: the per-page cost of each round. */
struct mdkctl_tier_meas {
	char name[MDK_TIER_NAME_MAX];
	uint64_t *round_ns; /* rounds of them */
	unsigned int rounds;
	uint64_t capacity; /* pages, 0: unbounded */
	const char *how; /* one line: contents, how it was reclaimed */
};

struct mdkctl_tier_host {
	const char *host, *kernel, *date;
	unsigned long pages, rounds;
};

/* mdkctl_tier_median() - the median of @n values (sorts @v). */
uint64_t mdkctl_tier_median(uint64_t *v, unsigned int n);

/*
 * mdkctl_tier_file_format() - the tier file of @n measurements in @m
 * (each at least one round), ordered by their median cost (ties keep the
 * order given), into @buf (snprintf semantics).  Returns the length, or
 * -EINVAL when @n is 0 or above MDK_TIERS_MAX.
 */
int mdkctl_tier_file_format(struct mdkctl_tier_meas *m, unsigned int n,
			    const struct mdkctl_tier_host *h, char *buf,
			    size_t len);

#endif /* MDKCTL_TIER_FILE_H */
