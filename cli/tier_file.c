// SPDX-License-Identifier: GPL-2.0
/*
 * The tier file (tier_file.h): measurements in, the text of a file that
 * mdk_tiers_load() reads out.  Costs are medians over the rounds; the
 * spread (smallest and largest round) goes into a comment, in the manner
 * of Intel MLC's reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tier_file.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t mdkctl_tier_median(uint64_t *v, unsigned int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Appends like snprintf into @buf at *@off, counting what did not fit. */
#define ADD(...)                                                             \
	do {                                                                 \
		int _w = snprintf(*off < len ? buf + *off : NULL,            \
				  *off < len ? len - *off : 0, __VA_ARGS__); \
		if (_w > 0)                                                  \
			*off += (size_t)_w;                                  \
	} while (0)

static void add_tier(const struct mdkctl_tier_meas *m, uint64_t med, char *buf,
		     size_t len, size_t *off)
{
	uint64_t lo = m->round_ns[0], hi = m->round_ns[m->rounds - 1];

	ADD("# %s: median %" PRIu64 " ns a page over %u rounds, spread %" PRIu64
	    "-%" PRIu64 " ns (%.1f%% of the median)\n",
	    m->name, med, m->rounds, lo, hi,
	    med ? 100.0 * (double)(hi - lo) / (double)med : 0.0);
	if (m->how)
		ADD("#   %s\n", m->how);
	/* a cost is at least 1 ns (mdk/tier.h) */
	ADD("%s:cost=%" PRIu64 "ns", m->name, med ? med : 1);
	if (m->capacity)
		ADD(",cap=%" PRIu64, m->capacity);
	ADD("\n");
}

int mdkctl_tier_file_format(struct mdkctl_tier_meas *m, unsigned int n,
			    const struct mdkctl_tier_host *h, char *buf,
			    size_t len)
{
	uint64_t med[MDK_TIERS_MAX];
	unsigned int order[MDK_TIERS_MAX], i, j;
	size_t o = 0, *off = &o;

	if (!n || n > MDK_TIERS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		med[i] = mdkctl_tier_median(m[i].round_ns, m[i].rounds);
		/* insertion by cost, stable: tier.h wants them non-decreasing */
		for (j = i; j > 0 && med[order[j - 1]] > med[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	if (len)
		buf[0] = '\0';
	ADD("# mdk tier costs, measured by mdkctl tier calibrate\n");
	ADD("# host %s, kernel %s, %s\n", h->host, h->kernel, h->date);
	ADD("# %lu pages a round, %lu rounds; cost: the median of the rounds' ns a page\n",
	    h->pages, h->rounds);
	for (i = 0; i < n; i++)
		add_tier(&m[order[i]], med[order[i]], buf, len, off);
	return (int)o;
}
