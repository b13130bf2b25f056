// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd's per-interval pipeline, on the loop: when a cgroup is due, read
 * its files (one read each, in flight together), parse the sample, let its
 * mode observe and decide, then hand the decision to its actuator and take
 * the result back (the target ops of the actuators).  The manager
 * (manager.c) runs it: mdkd_pipeline_run_due() starts what is due,
 * mdkd_pipeline_next_due() says when.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "metrics.h"
#include "pages.h"
#include "pipeline.h"
#include "registry.h"

#define TARGET_CG(tp) \
	((struct mdkd_cgroup *)((char *)(tp)-offsetof(struct mdkd_cgroup, t)))

static void read_done(struct mdkd_op *op, int res);
static void act_write_done(struct mdkd_op *op, int res);
static void act_done(struct mdkd_target *t, int result);

void mdkd_pipeline_init(struct mdkd_pipeline *pl, struct mdkd_cgroups *cgs,
			struct mdkd_recorder *rec,
			const struct mdkd_clock *clock,
			unsigned int read_window, uint64_t started_us)
{
	memset(pl, 0, sizeof(*pl));
	pl->cgs = cgs;
	pl->rec = rec;
	pl->clock = clock;
	pl->read_window = read_window;
	pl->started_us = started_us;
	mdkd_limits_init(&pl->limits);
	mdkd_tiers_init(&pl->tiers);
	cgs->tiers = &pl->tiers;
	cgs->host = &pl->host;
	cgs->limits = &pl->limits;
}

void mdkd_pipeline_refresh_host(struct mdkd_pipeline *pl, uint64_t now,
				bool force)
{
	const struct mdkd_global *g = &pl->cgs->cfg->global;
	uint64_t read_us = pl->host.read_us;
	bool was_active = pl->limits.active;
	char err[512];
	int ret;

	/* Inactive, only free memory matters: one file, not a dozen. */
	if (was_active || force)
		ret = mdkd_host_read(&pl->host, g->proc_root, g->sys_root, now,
				     force, err, sizeof(err));
	else
		ret = mdkd_host_read_mem(&pl->host, g->proc_root, now, false,
					 err, sizeof(err));
	if (ret) {
		/* Unknown swap: nothing counts as swap room. */
		pl->host.swap_total = pl->host.swap_free = 0;
		log_debug("%s", err);
	}
	if (pl->host.read_us != read_us || ret) {
		mdkd_limits_update(&pl->limits, &g->limits, &pl->host);
		mdkd_tiers_update(&pl->tiers, &g->tiers, &pl->host);
	}
	/* Waking up: the valve wants all of it before the first action. */
	if (!was_active && pl->limits.active && !force)
		mdkd_pipeline_refresh_host(pl, now, true);
}

static void start_read(struct mdkd_pipeline *pl, struct mdkd_cgroup *cg,
		       uint64_t now)
{
	int i;

	cg->reading = true;
	cg->reads_left = 0;
	cg->read_err = 0;
	cg->sample.time_us = now;
	for (i = 0; i < MDKD_CGF_NR; i++) {
		struct io_uring_sqe *sqe;

		if (cg->fds[i] < 0)
			continue;
		cg->reads[i].op.fn = read_done;
		sqe = mdkd_loop_sqe(pl->cgs->loop, &cg->reads[i].op);
		if (!sqe) {
			cg->read_err = -EIO;
			continue;
		}
		/* Offset 0 makes seq_file generate the file afresh. */
		io_uring_prep_read(sqe, cg->fds[i], cg->bufs[i],
				   cg->bufsz[i] - 1, 0);
		cg->reads_left++;
		cg->inflight++;
	}
	pl->cgs->reading++;
}

static void record_interval(struct mdkd_pipeline *pl, struct mdkd_cgroup *cg)
{
	struct mdkd_recorder *r = pl->rec;

	if (r->record_fd < 0 || cg->dec.reason == MDKD_R_BASELINE)
		return;
	mdkd_record_csv(cg, mdkd_clock_now(pl->clock) - pl->started_us,
			&r->record);
	mdkd_recorder_kick(r);
}

/* The operator's limits on the decision: cut it, or hold it back. */
static void gate(struct mdkd_pipeline *pl, struct mdkd_cgroup *cg)
{
	struct mdkd_limits_ask ask = {
		.action = cg->act->action,
		.swap_backed = cg->act->swap_backed && pl->host.swap_total,
		.takes_swappiness = cg->act == &mdkd_act_reclaim,
		.swappiness = cg->set.reclaim_swappiness,
		.want = cg->dec.reclaim_bytes,
		.max_rate = cg->set.max_rate,
		.interval_us = mdkd_mode_interval_us(&cg->set),
		.now = mdkd_clock_now(pl->clock),
	};
	bool file_only;

	cg->dec.reclaim_bytes =
		mdkd_limits_gate(&pl->limits, &cg->lim, &ask, &file_only);
	if (file_only)
		cg->t.swappiness = 0;
	else if (pl->limits.swappiness_ok)
		cg->t.swappiness = cg->set.reclaim_swappiness;
	else
		cg->t.swappiness = -1;
	if (!cg->dec.reclaim_bytes) {
		cg->dec.reason = cg->lim.held;
		log_debug("%s: held back: %s", cg->path,
			  mdkd_reason_names[cg->lim.held]);
	}
}

static void decide(struct mdkd_pipeline *pl, struct mdkd_cgroup *cg)
{
	const char *bufs[MDKD_CGF_NR];
	struct mdkd_sample s = cg->sample;
	char err[256];
	int i, ret;

	for (i = 0; i < MDKD_CGF_NR; i++) {
		bufs[i] = cg->fds[i] >= 0 ? cg->bufs[i] : NULL;
		if (bufs[i])
			cg->bufs[i][cg->lens[i]] = '\0';
	}
	ret = mdkd_cgroup_parse(&s, bufs, cg->lens, err, sizeof(err));
	if (ret) {
		cg->stats.read_errors++;
		log_warn("%s: %s", cg->path, err);
		return;
	}
	s.host_swap_total_bytes = pl->host.swap_total;
	s.host_swap_free_bytes = pl->host.swap_free;
	if (cg->ctl.mode->observe)
		cg->ctl.mode->observe(&cg->t, cg->ctl.mode_state, &s);
	mdkd_ctl_step(&cg->ctl, &cg->set, &s, &cg->iv, &cg->dec);
	cg->sample = s;
	cg->have_sample = true;
	pl->flush_due = true;
	if (cg->dec.reason == MDKD_R_BASELINE)
		return;
	cg->stats.intervals++;
	cg->stats.swapin_bytes += cg->iv.swapin_bytes;
	cg->stats.swapout_bytes += cg->iv.swapout_bytes;
	cg->stats.refaults += cg->iv.refaults;
	log_debug(
		"%s: current %llu floor %llu psi some %.4f%% io %.4f%%: %s %llu",
		cg->path, (unsigned long long)s.current_bytes,
		(unsigned long long)cg->iv.floor_bytes, cg->iv.mem_some * 100,
		cg->iv.io_some * 100, mdkd_reason_names[cg->dec.reason],
		(unsigned long long)cg->dec.reclaim_bytes);
	cg->lim.held = MDKD_R_RECLAIM;
	if (cg->dec.reclaim_bytes && cg->act)
		gate(pl, cg);
	if (!cg->dec.reclaim_bytes || !cg->act) {
		record_interval(pl, cg);
		return;
	}
	cg->acting = true;
	cg->t.act_bytes = cg->dec.reclaim_bytes;
	cg->act_start_us = mdkd_clock_now(pl->clock);
	cg->stats.reclaim_requests++;
	cg->stats.requested_bytes += cg->t.act_bytes;
	ret = cg->act->apply(&cg->t, cg->act_state, cg->t.act_bytes,
			     cg->dec.pages);
	if (ret < 0)
		act_done(&cg->t, ret);
}

static void read_done(struct mdkd_op *op, int res)
{
	struct mdkd_cg_op *r = (struct mdkd_cg_op *)op;
	struct mdkd_cgroup *cg = r->cg;
	struct mdkd_pipeline *pl = cg->tbl->target_arg;

	if (res < 0) {
		if (!cg->read_err) {
			cg->read_err = res;
			cg->read_err_file = r->idx;
		}
	} else if ((size_t)res >= cg->bufsz[r->idx] - 1) {
		/* Maybe cut short: a larger buffer from the next interval. */
		char *p = realloc(cg->bufs[r->idx], 2 * cg->bufsz[r->idx]);

		if (p) {
			cg->bufs[r->idx] = p;
			cg->bufsz[r->idx] *= 2;
		}
		if (!cg->read_err) {
			cg->read_err = -EMSGSIZE;
			cg->read_err_file = r->idx;
		}
	} else {
		cg->lens[r->idx] = (size_t)res;
	}
	if (--cg->reads_left == 0 && !cg->detached) {
		cg->reading = false;
		cg->tbl->reading--;
		if (cg->read_err == -ENODEV || cg->read_err == -ENOENT) {
			log_notice("%s: cgroup removed; no longer managed",
				   cg->path);
			mdkd_cgroups_detach(cg->tbl, cg);
		} else if (cg->read_err) {
			cg->stats.read_errors++;
			if (cg->read_err != -EMSGSIZE)
				log_warn("%s/%s: read: %s", cg->path,
					 mdkd_cgroup_files[cg->read_err_file]
						 .name,
					 strerror(-cg->read_err));
		} else {
			decide(pl, cg);
		}
	}
	mdkd_cgroup_op_done(cg);
}

static void act_write_done(struct mdkd_op *op, int res)
{
	struct mdkd_cg_op *w = (struct mdkd_cg_op *)op;
	struct mdkd_cgroup *cg = w->cg;
	mdkd_act_fn fn = w->fn;

	w->fn = NULL;
	if (fn && cg->act)
		fn(&cg->t, cg->act_state, res);
	mdkd_cgroup_op_done(cg);
}

static int queue_write(struct mdkd_target *t, int fd, const void *buf,
		       size_t len, bool link, mdkd_act_fn fn)
{
	struct mdkd_cgroup *cg = TARGET_CG(t);
	struct io_uring_sqe *sqe;
	int i;

	for (i = 0; i < MDKD_CG_ACT_OPS; i++)
		if (!cg->acts[i].fn)
			break;
	if (i == MDKD_CG_ACT_OPS)
		return -EBUSY;
	cg->acts[i].op.fn = act_write_done;
	sqe = mdkd_loop_sqe(cg->tbl->loop, &cg->acts[i].op);
	if (!sqe)
		return -EIO;
	/* Offset -1: the file position (cgroup files ignore it). */
	io_uring_prep_write(sqe, fd, buf, (unsigned int)len, (uint64_t)-1);
	if (link)
		sqe->flags |= IOSQE_IO_HARDLINK;
	cg->acts[i].fn = fn;
	cg->inflight++;
	return 0;
}

/* Bytes tried and applied by the action that ended with @result. */
static void account(struct mdkd_pipeline *pl, struct mdkd_cgroup *cg,
		    int result)
{
	const struct mdkd_pages *p = cg->dec.pages, *q;
	enum mdkd_action action = cg->act ? cg->act->action : MDKD_ACT_RECLAIM;

	if (!p) {
		mdkd_limits_account(&pl->limits, &cg->lim, action,
				    cg->dec.reclaim_bytes,
				    result ? 0 : cg->t.act_bytes);
		return;
	}
	mdkd_limits_account(&pl->limits, &cg->lim, action,
			    p->res.out_tried * MDKD_PAGE_SIZE,
			    p->res.out_done * MDKD_PAGE_SIZE);
	if (p->nback)
		mdkd_limits_account(&pl->limits, &cg->lim, MDKD_ACT_PROMOTE,
				    p->nback * MDKD_PAGE_SIZE,
				    p->res.back_done * MDKD_PAGE_SIZE);
	/* Actuator tier: its page-outs, lists of their own. */
	for (q = p->pageout; q; q = q->pageout)
		if (q->res.out_tried)
			mdkd_limits_account(&pl->limits, &cg->lim,
					    MDKD_ACT_PAGEOUT,
					    q->res.out_tried * MDKD_PAGE_SIZE,
					    q->res.out_done * MDKD_PAGE_SIZE);
}

static void act_done(struct mdkd_target *t, int result)
{
	struct mdkd_cgroup *cg = TARGET_CG(t);
	struct mdkd_pipeline *pl = cg->tbl->target_arg;

	cg->acting = false;
	cg->act_result = result;
	cg->act_us = mdkd_clock_now(pl->clock) - cg->act_start_us;
	if (!result) {
		cg->stats.reclaimed_bytes += cg->t.act_bytes;
	} else {
		cg->stats.reclaim_failures++;
		if (result == -EAGAIN)
			cg->stats.eagain++;
		else if (result == -EBUSY)
			cg->stats.ebusy++;
		else if (result != -ECANCELED && !cg->detached)
			log_warn("%s: %s %llu bytes: %s", cg->path,
				 cg->act ? cg->act->name : "action",
				 (unsigned long long)cg->t.act_bytes,
				 strerror(-result));
	}
	account(pl, cg, result);
	if (cg->lim.swap_asked && !cg->detached) {
		/* What it took of swap, read now: the overshoot to learn. */
		mdkd_pipeline_refresh_host(pl, mdkd_clock_now(pl->clock), true);
		mdkd_limits_swap_taken(
			&pl->limits, cg->lim.swap_asked,
			pl->limits.swap_used > cg->lim.swap_before ?
				pl->limits.swap_used - cg->lim.swap_before :
				0);
		cg->lim.swap_asked = 0;
	}
	mdkd_ctl_result(&cg->ctl, &cg->set, cg->t.act_bytes, result);
	if (cg->detached)
		return;
	record_interval(pl, cg);
	pl->flush_due = true;
	/* A settings change may have asked for another actuator meanwhile. */
	mdkd_cgroup_update(cg, &cg->set, cg->source);
}

/* @cg is due but the CPU cap puts it off: it stays due until then. */
static void defer(struct mdkd_pipeline *pl, struct mdkd_cgroup *cg)
{
	if (cg->deferring)
		return;
	cg->deferring = true;
	cg->lim.deferred++;
	cg->lim.held = MDKD_R_CPU_CAP;
	pl->limits.deferred++;
	pl->limits.held[MDKD_R_CPU_CAP]++;
}

void mdkd_pipeline_run_due(struct mdkd_pipeline *pl, uint64_t now)
{
	struct mdkd_cgroups *tbl = pl->cgs;
	bool host_fresh = false;
	size_t i;

	pl->cpu_wake_us =
		mdkd_limits_cpu(&pl->limits, now, mdkd_clock_cpu(pl->clock));
	for (i = 0; i < tbl->n && tbl->reading < pl->read_window; i++) {
		struct mdkd_cgroup *cg = tbl->cgs[i];
		uint64_t interval = mdkd_mode_interval_us(&cg->set);

		if (cg->reading || cg->next_due_us > now)
			continue;
		if (!host_fresh && !pl->limits.active &&
		    now < pl->host.read_us + MDKD_INACTIVE_PERIOD_US) {
			/* Inactive: nothing to do until free memory's check. */
			cg->next_due_us =
				pl->host.read_us + MDKD_INACTIVE_PERIOD_US;
			cg->lim.held = MDKD_R_INACTIVE;
			continue;
		}
		if (!host_fresh) {
			mdkd_pipeline_refresh_host(pl, now, false);
			host_fresh = true;
		}
		if (pl->limits.active && pl->cpu_wake_us > now) {
			defer(pl, cg);
			continue;
		}
		cg->deferring = false;
		cg->next_due_us += interval;
		if (cg->next_due_us <= now)
			cg->next_due_us = now + interval;
		if (cg->acting) {
			/* Still carrying out the last decision: skip one. */
			cg->stats.busy_skips++;
			log_debug("%s: busy with the previous action",
				  cg->path);
			continue;
		}
		if (!pl->limits.active) {
			/* Neither sample nor reclaim: skip the interval. */
			cg->lim.inactive++;
			cg->lim.held = MDKD_R_INACTIVE;
			if (cg->next_due_us < now + MDKD_INACTIVE_PERIOD_US)
				cg->next_due_us = now + MDKD_INACTIVE_PERIOD_US;
			continue;
		}
		start_read(pl, cg, now);
	}
	if (!pl->limits.active && host_fresh)
		pl->limits.inactive_ticks++;
}

uint64_t mdkd_pipeline_next_due(struct mdkd_pipeline *pl, uint64_t t)
{
	struct mdkd_cgroups *tbl = pl->cgs;
	size_t i;

	/* With every read slot taken, the next completion wakes us anyway. */
	if (tbl->reading >= pl->read_window)
		return t;
	for (i = 0; i < tbl->n; i++) {
		uint64_t due = tbl->cgs[i]->next_due_us;

		if (due < pl->cpu_wake_us)
			due = pl->cpu_wake_us; /* put off by the CPU cap */
		if (!tbl->cgs[i]->reading && due < t)
			t = due;
	}
	return t;
}

const struct mdkd_target_ops mdkd_pipeline_target_ops = {
	.queue_write = queue_write,
	.act_done = act_done,
};
