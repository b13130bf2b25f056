// SPDX-License-Identifier: GPL-2.0
/* The routing of policy mode's backend auto: see tier_route.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/util.h>

#include "tier_route.h"

int mdkd_route_waits(struct mdkd_route *r, const double *T, unsigned int n)
{
	uint32_t d = MDKD_ROUTE_NONE;
	unsigned int k;

	if (n < 1 || n > MDK_TIERS_MAX)
		return -EINVAL;
	for (k = 0; k < n; k++)
		if (!isinf(T[k]) && (!(T[k] >= 1) || T[k] != floor(T[k]) ||
				     T[k] >= 4294967295.0))
			return -EINVAL;
	r->n = n;
	/* d_k = min over j >= k of T_j: a page never comes back up. */
	for (k = n; k-- > 0;) {
		if (!isinf(T[k]) && (uint32_t)T[k] < d)
			d = (uint32_t)T[k];
		r->t[k].wait = d;
	}
	return 0;
}

/* Whether tier @k (1-based) takes a page now. */
static bool takes(const struct mdkd_route *r, unsigned int k)
{
	return r->t[k - 1].open && r->t[k - 1].room;
}

static void take(struct mdkd_route *r, unsigned int k)
{
	if (r->t[k - 1].room != UINT64_MAX)
		r->t[k - 1].room--;
}

/* The tier a page due in the tiers of @mask (bit k - 1: tier k) goes to,
 * 0 for none. */
static unsigned int route_mask(struct mdkd_route *r, unsigned int mask,
			       unsigned int *held_in)
{
	unsigned int k, deepest = 0;

	*held_in = 0;
	for (k = r->n; k >= 1; k--) {
		if (!(mask & 1u << (k - 1)))
			continue;
		if (!deepest)
			deepest = k;
		if (takes(r, k)) {
			take(r, k);
			if (k != deepest)
				*held_in = deepest;
			return k;
		}
	}
	*held_in = deepest;
	return 0;
}

unsigned int mdkd_route_page(struct mdkd_route *r, uint32_t age,
			     unsigned int cur, unsigned int *held_in)
{
	unsigned int k, mask = 0, to;

	for (k = cur + 1; k <= r->n; k++)
		if (r->t[k - 1].wait != MDKD_ROUTE_NONE &&
		    r->t[k - 1].wait <= age)
			mask |= 1u << (k - 1);
	to = route_mask(r, mask, held_in);
	return to ? to : cur;
}

int mdkd_route_pick(struct mdkd_route *r, const uint64_t *const *due,
		    const size_t *ndue, struct mdkd_route_out *out)
{
	size_t at[MDK_TIERS_MAX] = { 0 };
	unsigned int k;

	memset(out->n, 0, sizeof(out->n));
	memset(out->held, 0, sizeof(out->held));
	for (;;) {
		uint64_t id = UINT64_MAX;
		unsigned int mask = 0, to, held;
		bool any = false;

		/* The next page of the merged lists, and the tiers it is due in. */
		for (k = 0; k < r->n; k++)
			if (at[k] < ndue[k] && (!any || due[k][at[k]] < id)) {
				id = due[k][at[k]];
				any = true;
			}
		if (!any)
			return 0;
		for (k = 0; k < r->n; k++)
			if (at[k] < ndue[k] && due[k][at[k]] == id) {
				mask |= 1u << k;
				at[k]++;
			}
		to = route_mask(r, mask, &held);
		if (held)
			out->held[held - 1]++;
		if (!to)
			continue;
		if (mdk_grow((void **)&out->ids[to - 1], &out->cap[to - 1],
			     out->n[to - 1] + 1, sizeof(**out->ids)))
			return -ENOMEM;
		out->ids[to - 1][out->n[to - 1]++] = id;
	}
}

/* Pages of idle ages [@from, @to) in @hist. */
static uint64_t ages(const uint64_t *hist, size_t nbins, uint32_t from,
		     uint32_t to)
{
	uint64_t sum = 0;
	size_t a;

	for (a = from; a < nbins && a < to; a++)
		sum += hist[a];
	return sum;
}

void mdkd_route_capped(struct mdk_tier_point *pts, size_t n,
		       const struct mdk_tiers *t, const uint64_t *hist,
		       size_t nbins)
{
	struct mdkd_route r;
	unsigned int k;
	size_t i;

	for (i = 0; i < n; i++) {
		if (mdkd_route_waits(&r, pts[i].p, t->n))
			continue;
		for (k = 0; k < t->n; k++) {
			uint32_t to = k + 1 < t->n ? r.t[k + 1].wait :
						     MDKD_ROUTE_NONE;

			pts[i].peak[k] =
				r.t[k].wait == MDKD_ROUTE_NONE ?
					0 :
					ages(hist, nbins, r.t[k].wait, to);
			if (t->t[k].capacity &&
			    pts[i].peak[k] > t->t[k].capacity)
				pts[i].feasible = false;
		}
	}
}

void mdkd_route_out_free(struct mdkd_route_out *out)
{
	unsigned int k;

	for (k = 0; k < MDK_TIERS_MAX; k++) {
		free(out->ids[k]);
		out->ids[k] = NULL;
		out->n[k] = out->cap[k] = 0;
	}
}
