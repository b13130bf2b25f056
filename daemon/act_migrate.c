// SPDX-License-Identifier: GPL-2.0
/*
 * actuator migrate: the CXL back end of policy mode.  The pages the policy
 * picked move to the CMM-MP node (the CPU-less NUMA node cmm_mp.ko onlines
 * pool segments into, in a slower memory tier) with move_pages(2); a
 * demoted page stays mapped and is read in place, without a fault.  So
 * that the promotion model holds (a page reclaimed and touched again is
 * promoted once, in the window it is touched), the pages of the tier node
 * that a window saw accessed again move back to a DRAM node in the same
 * action, unless cxl_promote is off (then NUMA balancing, if on, promotes
 * them).
 *
 * move_pages() takes one process, an array of addresses and one target
 * node per page, and fills a status per page (the node it is on now, or
 * -errno: -EFAULT unmapped or the zero page, -ENOENT not present, -EACCES
 * shared with another process, -EBUSY, -ENOMEM).  At most
 * MDKD_MIGRATE_BATCH pages a call.  MPOL_MF_MOVE: only pages this process
 * alone maps.  Synchronous, like the pageout actuator.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"
#include "pages.h"
#include "target.h"
#include "bpf/loader.h"

struct batch {
	void **addr;
	int *nodes, *status;
};

/* A status move_pages() never stores: the page was not reported on. */
#define UNREPORTED INT_MIN
/* Most calls on one batch (each settles at least one page). */
#define MIGRATE_ROUNDS 8

static void fail_page(struct mdkd_pages_result *r, int status)
{
	r->failed++;
	if (!r->first_error)
		r->first_error = status;
}

/*
 * Move @b->addr[0..m) of @pid to @node; adds what moved to *@done.
 *
 * A page that fails to migrate stops move_pages() (do_pages_move(), 6.1
 * and 6.12 alike): the statuses of its run of pages are not stored, the
 * pages after it are not tried, and the call returns how many that is.
 * Those pages keep UNREPORTED.  A query (no nodes) says which of them
 * moved; the first one still elsewhere is one that failed (every page
 * before its run was reported), and the rest are tried again.
 * Return: 0, or the errno of a call that failed as a whole, with the pages
 * not settled in *@left.
 */
static int move_batch(const struct mdkd_page_sys *sys, struct batch *b,
		      pid_t pid, size_t m, int node, uint64_t *done,
		      struct mdkd_pages_result *r, size_t *left)
{
	size_t k, n;
	int round;

	for (round = 1; m; round++) {
		bool blamed = false;

		*left = m;
		for (k = 0; k < m; k++) {
			b->nodes[k] = node;
			b->status[k] = UNREPORTED;
		}
		r->calls++;
		if (sys->move_pages(pid, m, b->addr, b->nodes, b->status) < 0)
			return errno;
		for (k = n = 0; k < m; k++) {
			if (b->status[k] == UNREPORTED)
				b->addr[n++] = b->addr[k];
			else if (b->status[k] == node)
				(*done)++;
			else
				fail_page(r, b->status[k]);
		}
		*left = n;
		if (!n)
			return 0;
		r->calls++;
		if (sys->move_pages(pid, n, b->addr, NULL, b->status) < 0)
			return errno;
		for (k = m = 0; k < n; k++) {
			int st = b->status[k];

			if (st == node) {
				(*done)++;
			} else if (st < 0) {
				fail_page(r, st);
			} else if (!blamed) {
				blamed = true; /* the one that failed */
				fail_page(r, -EBUSY);
			} else {
				b->addr[m++] = b->addr[k];
			}
		}
		if (round == MIGRATE_ROUNDS) {
			r->failed += m;
			break;
		}
	}
	*left = 0;
	return 0;
}

/* Move @ids[0..n) (one process, @pid) to @node; adds what moved to *@done. */
static void move_proc(const struct mdkd_page_sys *sys, struct batch *b,
		      pid_t pid, const uint64_t *ids, size_t n, int node,
		      uint64_t *done, struct mdkd_pages_result *r)
{
	size_t i, k, m, left;
	int err;

	for (i = 0; i < n; i += m) {
		m = n - i < MDKD_MIGRATE_BATCH ? n - i : MDKD_MIGRATE_BATCH;
		for (k = 0; k < m; k++)
			b->addr[k] =
				(void *)(uintptr_t)mdk_sampler_page_id_addr(
					ids[i + k]);
		err = move_batch(sys, b, pid, m, node, done, r, &left);
		if (!err)
			continue;
		if (!r->first_error)
			r->first_error = -err;
		if (err != ESRCH && err != EPERM && err != EACCES) {
			r->failed += left;
			continue;
		}
		/* The rest of this process too. */
		left += n - i - m;
		if (err == ESRCH)
			r->gone += left;
		else
			r->denied += left;
		return;
	}
}

static int move_list(const struct mdkd_page_sys *sys, struct mdkd_pages *p,
		     struct batch *b, const uint64_t *ids, size_t n, int node,
		     uint64_t *done)
{
	size_t i, j;

	for (i = 0; i < n; i = j) {
		uint32_t proc = mdk_sampler_page_id_proc(ids[i]);
		pid_t pid;

		for (j = i + 1;
		     j < n && mdk_sampler_page_id_proc(ids[j]) == proc; j++)
			;
		pid = p->pid_of(p->pid_arg, proc);
		if (pid <= 0) {
			p->res.gone += j - i;
			continue;
		}
		move_proc(sys, b, pid, ids + i, j - i, node, done, &p->res);
	}
	return 0;
}

int mdkd_migrate(const struct mdkd_page_sys *sys, struct mdkd_pages *p,
		 size_t n)
{
	struct batch b;
	int ret = 0;

	if (n > p->nout)
		n = p->nout;
	b.addr = malloc(MDKD_MIGRATE_BATCH * sizeof(*b.addr));
	b.nodes = malloc(MDKD_MIGRATE_BATCH * sizeof(*b.nodes));
	b.status = malloc(MDKD_MIGRATE_BATCH * sizeof(*b.status));
	if (!b.addr || !b.nodes || !b.status) {
		ret = -ENOMEM;
		goto out;
	}
	/* Promotions first: the workload is the one waiting for them. */
	if (p->nback && p->home_node >= 0)
		move_list(sys, p, &b, p->back, p->nback, p->home_node,
			  &p->res.back_done);
	move_list(sys, p, &b, p->out, n, p->tier_node, &p->res.out_done);
	p->res.out_tried += n;
out:
	free(b.addr);
	free(b.nodes);
	free(b.status);
	return ret;
}

static int migrate_attach(struct mdkd_target *t, void *state, char *err,
			  size_t errlen)
{
	return mdkd_pages_attach(t, "migrate", err, errlen);
}

static int migrate_apply(struct mdkd_target *t, void *state, uint64_t bytes,
			 struct mdkd_pages *p)
{
	size_t budget = bytes / MDKD_PAGE_SIZE, n;
	int ret;

	if (!p || p->tier_node < 0) {
		mdkd_target_act_done(t, -EINVAL);
		return 1;
	}
	memset(&p->res, 0, sizeof(p->res));
	/* The budget covers the promotions first (see mode_policy.c). */
	if (p->nback > budget)
		p->nback = budget; /* the limits cut it (limits.h) */
	n = budget > p->nback ? budget - p->nback : 0;
	ret = mdkd_migrate(t->page_sys, p, n);
	mdkd_pages_done(t, p, "migrate", true, ret);
	return 1;
}

const struct mdkd_actuator_ops mdkd_act_migrate = {
	.name = "migrate",
	.action = MDKD_ACT_DEMOTE,
	.swap_backed = false,
	.help = "move_pages(2) of the pages mode policy picks to the CMM-MP node (CXL)",
	.state_size = 0,
	.probe = NULL,
	.attach = migrate_attach,
	.apply = migrate_apply,
	.restore = NULL,
	.detach = NULL,
};
