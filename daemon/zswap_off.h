/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-outs past zswap, for backend auto's swap tier while zswap is on:
 * the cgroup's memory.zswap.max at 0 for the moment of the page-outs
 * (Linux 5.19 and later), so that zswap refuses the cgroup's pages and
 * they go to the swap device.  The value before is journalled first
 * (journal.h), so that a daemon that dies in between leaves nothing.
 *
 * Up to Linux 6.7 zswap refuses the page.  From 6.8 the kernel first
 * tries to write back one of the cgroup's compressed pages, the oldest,
 * and when it does, stores the new one: a page still leaves DRAM whole
 * for each page-out, but it may be an older compressed page rather than
 * the one paged out.
 */
#ifndef MDKD_ZSWAP_OFF_H
#define MDKD_ZSWAP_OFF_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup.h"

struct mdkd_target;

struct mdkd_zswap_off {
	char orig[32]; /* memory.zswap.max before, with its newline */
	char journal[MDKD_PATH_MAX + 64];
	int fd; /* memory.zswap.max, -1: not set */
};

/* mdkd_zswap_off_able() - whether @dirfd's cgroup has memory.zswap.max. */
bool mdkd_zswap_off_able(int dirfd);

/*
 * mdkd_zswap_off() - journal @t's memory.zswap.max and set it to 0, the
 * state to put back in @z.  Return: 0 or -errno (nothing changed).
 */
int mdkd_zswap_off(struct mdkd_target *t, struct mdkd_zswap_off *z);

/*
 * mdkd_zswap_on() - put back what mdkd_zswap_off() changed and remove
 * the journal entry (kept, and logged, when the write fails).
 * Return: 0 or -errno.
 */
int mdkd_zswap_on(struct mdkd_target *t, struct mdkd_zswap_off *z);

#endif /* MDKD_ZSWAP_OFF_H */
