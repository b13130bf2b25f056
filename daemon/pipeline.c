// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd's per-interval pipeline, on the loop: when a cgroup is due, read
 * its files (one read each, in flight together), parse the sample, let its
 * mode observe and decide, then hand the decision to its actuator and take
 * the result back (mdkd_cgroup_act_done()).  The manager (manager.c) runs
 * it: mgr_run_due() starts what is due, mgr_next_deadline() says when.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "manager.h"
#include "manager_int.h"
#include "metrics.h"

/* Host swap, for what counts as reclaimable; read at most once a second. */
void mgr_refresh_swap(struct mdkd *d, uint64_t now)
{
	int ret;

	if (d->swap_read_us && now - d->swap_read_us < 1000000)
		return;
	ret = mdkd_meminfo_swap(d->cfg->global.proc_root, &d->swap_total,
				&d->swap_free);
	if (ret) {
		d->swap_total = d->swap_free = 0;
		log_debug("%s/meminfo: %s", d->cfg->global.proc_root,
			  strerror(-ret));
	}
	d->swap_read_us = now;
}

static void start_read(struct mdkd *d, struct mdkd_cgroup *cg, uint64_t now)
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
		sqe = mdkd_loop_sqe(&d->loop, &cg->reads[i].op);
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
	d->reading++;
}

static void record_interval(struct mdkd_cgroup *cg)
{
	struct mdkd *d = cg->d;

	if (d->record_fd < 0 || cg->dec.reason == MDKD_R_BASELINE)
		return;
	mdkd_record_csv(cg, mgr_now_us(d) - d->started_us, &d->record);
	mdkd_record_kick(d);
}

static void decide(struct mdkd *d, struct mdkd_cgroup *cg)
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
	s.host_swap_total_bytes = d->swap_total;
	s.host_swap_free_bytes = d->swap_free;
	if (cg->ctl.mode->observe)
		cg->ctl.mode->observe(cg, cg->ctl.mode_state, &s);
	mdkd_ctl_step(&cg->ctl, &cg->set, &s, &cg->iv, &cg->dec);
	cg->sample = s;
	cg->have_sample = true;
	d->flush_due = true;
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
	if (!cg->dec.reclaim_bytes || !cg->act) {
		record_interval(cg);
		return;
	}
	cg->acting = true;
	cg->act_bytes = cg->dec.reclaim_bytes;
	cg->act_start_us = mgr_now_us(d);
	cg->stats.reclaim_requests++;
	cg->stats.requested_bytes += cg->act_bytes;
	ret = cg->act->apply(cg, cg->act_state, cg->act_bytes, cg->dec.pages);
	if (ret < 0)
		mdkd_cgroup_act_done(cg, ret);
}

void mgr_read_done(struct mdkd_op *op, int res)
{
	struct mdkd_cg_op *r = (struct mdkd_cg_op *)op;
	struct mdkd_cgroup *cg = r->cg;
	struct mdkd *d = cg->d;

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
		d->reading--;
		if (cg->read_err == -ENODEV || cg->read_err == -ENOENT) {
			log_notice("%s: cgroup removed; no longer managed",
				   cg->path);
			mgr_cg_detach(d, cg);
		} else if (cg->read_err) {
			cg->stats.read_errors++;
			if (cg->read_err != -EMSGSIZE)
				log_warn("%s/%s: read: %s", cg->path,
					 mdkd_cgroup_files[cg->read_err_file]
						 .name,
					 strerror(-cg->read_err));
		} else {
			decide(d, cg);
		}
	}
	mgr_cg_op_done(cg);
}

void mgr_act_write_done(struct mdkd_op *op, int res)
{
	struct mdkd_cg_op *w = (struct mdkd_cg_op *)op;
	struct mdkd_cgroup *cg = w->cg;
	mdkd_act_fn fn = w->fn;

	w->fn = NULL;
	if (fn && cg->act)
		fn(cg, cg->act_state, res);
	mgr_cg_op_done(cg);
}

int mdkd_cgroup_queue_write(struct mdkd_cgroup *cg, int fd, const void *buf,
			    size_t len, bool link, mdkd_act_fn fn)
{
	struct io_uring_sqe *sqe;
	int i;

	for (i = 0; i < MDKD_CG_ACT_OPS; i++)
		if (!cg->acts[i].fn)
			break;
	if (i == MDKD_CG_ACT_OPS)
		return -EBUSY;
	sqe = mdkd_loop_sqe(&cg->d->loop, &cg->acts[i].op);
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

void mdkd_cgroup_act_done(struct mdkd_cgroup *cg, int result)
{
	struct mdkd *d = cg->d;

	cg->acting = false;
	cg->act_result = result;
	cg->act_us = mgr_now_us(d) - cg->act_start_us;
	if (!result) {
		cg->stats.reclaimed_bytes += cg->act_bytes;
	} else {
		cg->stats.reclaim_failures++;
		if (result == -EAGAIN)
			cg->stats.eagain++;
		else if (result == -EBUSY)
			cg->stats.ebusy++;
		else if (result != -ECANCELED && !cg->detached)
			log_warn("%s: %s %llu bytes: %s", cg->path,
				 cg->act ? cg->act->name : "action",
				 (unsigned long long)cg->act_bytes,
				 strerror(-result));
	}
	mdkd_ctl_result(&cg->ctl, &cg->set, cg->act_bytes, result);
	if (cg->detached)
		return;
	record_interval(cg);
	d->flush_due = true;
	/* A settings change may have asked for another actuator meanwhile. */
	mgr_cg_update(cg, &cg->set, cg->source);
}

void mgr_run_due(struct mdkd *d, uint64_t now)
{
	bool swap_fresh = false;
	size_t i;

	for (i = 0; i < d->ncgs && d->reading < d->read_window; i++) {
		struct mdkd_cgroup *cg = d->cgs[i];

		if (cg->reading || cg->next_due_us > now)
			continue;
		cg->next_due_us += mdkd_mode_interval_us(&cg->set);
		if (cg->next_due_us <= now)
			cg->next_due_us = now + mdkd_mode_interval_us(&cg->set);
		if (cg->acting) {
			/* Still carrying out the last decision: skip one. */
			cg->stats.busy_skips++;
			log_debug("%s: busy with the previous action",
				  cg->path);
			continue;
		}
		if (!swap_fresh) {
			mgr_refresh_swap(d, now);
			swap_fresh = true;
		}
		start_read(d, cg, now);
	}
}

uint64_t mgr_next_deadline(struct mdkd *d)
{
	uint64_t t = d->next_rescan_us;
	size_t i;

	if (d->watchdog_us && d->next_watchdog_us < t)
		t = d->next_watchdog_us;
	/* With every read slot taken, the next completion wakes us anyway. */
	if (d->reading >= d->read_window)
		return t;
	for (i = 0; i < d->ncgs; i++)
		if (!d->cgs[i]->reading && d->cgs[i]->next_due_us < t)
			t = d->cgs[i]->next_due_us;
	return t;
}
