// SPDX-License-Identifier: GPL-2.0
/*
 * mode policy: the page policies of the Memory Designer's Kit, run live.
 *
 * Each interval of a policy-mode cgroup is one sampler window (the window
 * key; the interval key does not apply).  At the end of every window:
 *
 *  1. observe (impure): the sampler ends the window and reports the pages
 *     the cgroup's processes accessed in it and the promotions BPF counted;
 *     the window goes to the trace file (if any) and to the live evaluator,
 *     which updates the interval stream and every live MPC over the
 *     horizon; pages of processes that are gone are forgotten.  Then the
 *     setting to run is chosen -- the policy key's single setting, or with
 *     auto_tune the setting of that policy that saves the most over the
 *     horizon within target_rate (after warmup windows) -- and the pages
 *     it reclaims now are picked (evaluator.h, mdk_eval_pick()); for the
 *     CXL back end, the tier-node pages the window saw accessed again are
 *     the ones to promote back.
 *  2. decide (pure): the Senpai PSI guard: memory pressure ("some", share
 *     of the window) at or above psi_threshold pauses the page-outs (the
 *     promotions still run); otherwise the amount is the picked pages.
 *     The core then applies the back-off, the IO-pressure guard, max_bytes
 *     and the lower bound as in every mode.
 *  3. the actuator (pageout or migrate, chosen by backend) moves the
 *     pages; feedback marks those it tried as reclaimed in the evaluator,
 *     so they are picked again only after their next access.
 *
 * A setting's predicted promotion rate is its point on the live curve; the
 * measured one comes from the sampler's BPF counters (swap-ins and file
 * refaults for swap, tier residency of the accessed pages -- STAR -- plus
 * NUMA promotions for CXL); the acted one counts the pages mdkd moved out
 * that came back.  All three are per window over the window's accessed
 * pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mdk/evaluator.h>
#include <mdk/trace.h>

#include "controller.h"
#include "log.h"
#include "mode_policy.h"
#include "mode_policy_int.h"
#include "pages.h"
#include "target.h"

static pid_t pid_of(void *arg, uint32_t proc)
{
	struct policy_state *st = arg;
	const struct mdk_sampler_proc *p = st->src_ops->proc(st->src, proc);

	return p && p->alive ? p->pid : 0;
}

/* Neighbouring indices mostly hold one process's pages: look a process
 * up once a run. */
static bool proc_gone(uint64_t id, void *arg)
{
	struct policy_state *st = arg;
	uint32_t proc = mdk_sampler_page_id_proc(id);
	const struct mdk_sampler_proc *p;

	if (proc == st->gone_proc)
		return st->gone_last;
	p = st->src_ops->proc(st->src, proc);
	st->gone_proc = proc;
	st->gone_last = !p || !p->alive;
	return st->gone_last;
}

/* Whether @set runs lopp ("lopp" or "lopp:..."). */
static bool runs_lopp(const struct mdkd_settings *set)
{
	return !strncmp(set->policy, "lopp", 4) &&
	       (!set->policy[4] || set->policy[4] == ':');
}

/*
 * The evaluator of @set: its evaluate list, plus lopp when the policy is
 * lopp (it learns from the first window), labelled at target_rate.
 */
static struct mdk_eval *eval_new(const struct mdkd_settings *set, char *err,
				 size_t errlen)
{
	char list[sizeof(set->evaluate) + 8];
	struct mdk_eval_opts o = {
		.horizon = set->horizon,
		.policies = list,
		.lopp_rho = set->target_rate,
		.lopp_model = (uint32_t)set->lopp_model,
		.lopp_async = 1, /* the loop does not wait for a fit */
	};
	bool has = false;
	const char *p;

	for (p = set->evaluate; (p = strstr(p, "lopp")); p += 4)
		has |= (p == set->evaluate || p[-1] == ',') &&
		       (!p[4] || p[4] == ',' || p[4] == ':');
	snprintf(list, sizeof(list), "%s%s", set->evaluate,
		 runs_lopp(set) && !has ? ",lopp" : "");
	return mdk_eval_new(&o, err, errlen);
}

/* A fit that failed in lopp's worker: the previous model stays. */
static void lopp_fit_check(struct policy_state *st)
{
	struct mdk_eval_lopp l;

	if (!mdk_eval_lopp(st->eval, &l))
		return;
	if (l.failures && l.failures != st->lopp_failures)
		mdkd_policy_error(
			st,
			"lopp: fit failed (%llu so far): %s; the previous model stays",
			(unsigned long long)l.failures, l.error);
	st->lopp_failures = l.failures;
}

static void trace_close(struct policy_state *st)
{
	char err[256];

	if (st->trace && mdk_trace_writer_close(st->trace, err, sizeof(err)))
		log_warn("%s: trace_file %s: %s", st->t->path, st->trace_path,
			 err);
	st->trace = NULL;
	st->trace_path[0] = '\0';
	st->trace_failed = false;
}

static void trace_open(struct policy_state *st)
{
	const struct mdkd_settings *set = st->t->set;
	struct mdk_trace_writer_opts o = { .page_size = 4096 };
	char desc[MDKD_CGROUP_PATH_MAX + 256], err[512];
	struct timespec ts;

	if (st->trace || st->trace_failed || !set->trace_file[0])
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(
		desc, sizeof(desc),
		"mdkd policy mode, cgroup %s: page id = process << %d | virtual address >> 12; windows numbered from the mode's start",
		st->t->path, MDK_SAMPLER_PAGE_VPN_BITS);
	o.window_us = set->window_us;
	o.start_us = (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	o.desc = desc;
	if (mdk_trace_writer_open(set->trace_file, &o, &st->trace, err,
				  sizeof(err))) {
		log_warn("%s: trace_file: %s", st->t->path, err);
		st->trace = NULL;
		st->trace_failed = true;
		return;
	}
	snprintf(st->trace_path, sizeof(st->trace_path), "%s", set->trace_file);
}

/* ---- hooks ---- */

static void policy_stop(struct mdkd_target *t, void *state)
{
	struct policy_state *st = state;

	trace_close(st);
	mdkd_policy_tiers_leave(st);
	mdkd_policy_auto_free(st);
	mdk_eval_free(st->eval);
	st->eval = NULL;
	if (st->src)
		st->src_ops->close(st->src);
	st->src = NULL;
	st->started = false;
}

static int policy_start(struct mdkd_target *t, void *state, char *err,
			size_t errlen)
{
	struct policy_state *st = state;
	const struct mdkd_settings *set = t->set;
	struct mdk_sampler_opts o = { .tier_node = -1 };
	char dir[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];

	st->t = t;
	st->src_ops = t->policy_source;
	st->tier_node = st->home_node = -1;
	st->sel.policy = -1;
	st->guard_window = -1;
	st->why = MDKD_R_NOTHING;
	if (set->backend == MDKD_BACKEND_AUTO) {
		/* The node is optional: without one, no cxl tier. */
		int node = set->tier_node >= 0 ? set->tier_node :
						 mdkd_cmm_mp_node(t->sys_root);

		if (node >= 0) {
			st->tier_node = node;
			st->home_node = mdkd_home_node(t->sys_root, node);
			o.tier_node = node;
		}
	}
	if (set->backend == MDKD_BACKEND_CXL) {
		int node = set->tier_node >= 0 ? set->tier_node :
						 mdkd_cmm_mp_node(t->sys_root);

		if (node < 0) {
			snprintf(
				err, errlen,
				"backend cxl: tier_node is -1 and %s/kernel/cmm_mp/node: %s (load cmm_mp.ko or set tier_node)",
				t->sys_root, strerror(-node));
			return node;
		}
		st->tier_node = node;
		st->home_node = mdkd_home_node(t->sys_root, node);
		o.tier_node = node;
	}
	st->eval = eval_new(set, err, errlen);
	if (!st->eval)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/%s", t->cgroup_root, t->path);
	o.cgroup = dir;
	/* Pages idle since before the sampler met their process count. */
	o.flags = MDK_SAMPLER_MET_RESIDENT;
	if (set->backend == MDKD_BACKEND_SWAP ||
	    set->backend == MDKD_BACKEND_AUTO) {
		o.before_reset = mdkd_policy_drop_swap_cache;
		o.before_reset_arg = st;
	}
	st->src = st->src_ops->open(&o, err, errlen);
	if (!st->src) {
		mdk_eval_free(st->eval);
		st->eval = NULL;
		return -EIO;
	}
	st->pages.pid_of = pid_of;
	st->pages.pid_arg = st;
	st->pages.tier_node = st->tier_node;
	st->pages.home_node = st->home_node;
	return 0;
}

/* Window @w to the trace file; a failed write closes it, not reopened. */
static void trace_put(struct policy_state *st,
		      const struct mdk_sampler_window *w)
{
	char msg[512];

	if (st->trace &&
	    mdk_trace_writer_put(st->trace, (uint32_t)w->index, w->pages,
				 w->nr_pages, 0, msg, sizeof(msg))) {
		log_warn("%s: trace_file %s: %s; closed", st->t->path,
			 st->trace_path, msg);
		mdk_trace_writer_abort(st->trace);
		st->trace = NULL;
		st->trace_failed = true;
	}
}

/* The promotions the sampler measured in @w, as the back end counts them. */
static uint64_t measured_pages(const struct policy_state *st,
			       const struct mdk_sampler_window *w)
{
	if (st->t->set->backend == MDKD_BACKEND_AUTO)
		return w->tier_pages + w->swapin_pages + w->file_refault_pages +
		       w->promote_pages;
	if (st->tier_node >= 0)
		return w->tier_pages +
		       (w->have_counters ? w->promote_pages : 0);
	return w->swapin_pages + w->file_refault_pages + w->promote_pages;
}

/* A failed generator cannot be trusted: start the evaluation again. */
static void eval_restart(struct policy_state *st, const char *why)
{
	char msg[512];

	st->tot.errors++;
	mdkd_policy_error(st, "evaluator: %s; evaluation restarted", why);
	mdk_eval_free(st->eval);
	st->eval = eval_new(st->t->set, msg, sizeof(msg));
	st->sel.policy = -1;
	st->running[0] = '\0';
	st->guard_theta = 0;
}

/* The setting to run and, if it reclaims, the pages to move now. */
static void policy_pick(struct policy_state *st)
{
	const uint64_t *ids;
	size_t n;
	int ret;

	mdkd_policy_choose(st);
	if (st->why == MDKD_R_RECLAIM) {
		ret = mdk_eval_pick(st->eval, &st->sel, &ids, &n);
		if (ret) {
			mdkd_policy_error(st, "picking pages: %s",
					  strerror(-ret));
			st->why = MDKD_R_NOTHING;
		} else {
			st->pages.out = ids;
			st->npicked = n;
			st->tot.picked += n;
		}
	}
	if (st->tier_node >= 0 && st->t->set->cxl_promote) {
		st->pages.back = mdk_eval_returned(st->eval, &n);
		st->pages.nback = n;
	}
	mdkd_policy_tiers_pick(st);
	if (st->last_error[0] && st->why == MDKD_R_RECLAIM)
		st->last_error[0] = '\0';
}

static void policy_observe(struct mdkd_target *t, void *state,
			   const struct mdkd_sample *cur)
{
	struct policy_state *st = state;
	struct mdk_sampler_window w;
	uint64_t measured;
	char msg[512];
	int ret;

	st->pages.nout = st->pages.nback = 0;
	st->npicked = 0;
	st->goal_picked = 0;
	st->tier_full = false;
	st->why = MDKD_R_NOTHING;
	if (!st->src || !st->eval)
		return;
	if (!st->started) {
		/* The baseline sample: window 0 begins now. */
		ret = st->src_ops->start(st->src, msg, sizeof(msg));
		if (ret) {
			mdkd_policy_error(st, "sampler: %s", msg);
			return;
		}
		st->started = true;
		trace_open(st);
		return;
	}
	st->cur = cur; /* for the sampler's before_reset hook */
	ret = st->src_ops->next(st->src, &w, msg, sizeof(msg));
	st->cur = NULL;
	if (ret) {
		st->tot.errors++;
		mdkd_policy_error(st, "sampler: %s", msg);
		return;
	}
	st->tot.sampler_cpu_ns += w.cpu_ns;
	trace_open(st);
	trace_put(st, &w);
	measured = measured_pages(st, &w);
	ret = mdk_eval_window(st->eval, w.pages, w.nr_pages, measured,
			      w.have_counters || st->tier_node >= 0, msg,
			      sizeof(msg));
	if (ret) {
		eval_restart(st, msg);
		return;
	}
	lopp_fit_check(st);
	if (w.have_counters || st->tier_node >= 0)
		mdkd_policy_guard_observe(st, w.index, measured, w.nr_pages);
	st->last = w;
	st->last.pages = NULL;
	st->have_last = true;
	st->tot.windows++;
	st->gone_proc = UINT32_MAX;
	st->tot.forgotten += mdk_eval_forget(st->eval, proc_gone, st);

	if (t->set->backend == MDKD_BACKEND_AUTO)
		mdkd_policy_auto_pick(st, cur);
	else
		policy_pick(st);
}

static void policy_decide(void *state, const struct mdkd_settings *set,
			  const struct mdkd_input *in, struct mdkd_decision *d)
{
	struct policy_state *st = state;
	double psi = in->iv->mem_some, thr = set->psi_threshold;
	bool pressure = thr <= 0 || psi >= thr;
	size_t nout = st->npicked; /* the policy's and dram_free_min's */

	/* The PSI guard: no page-outs under pressure; promotions go on. */
	if (pressure && nout) {
		st->tot.paused++;
		nout = 0;
	}
	st->pages.nout = nout;
	if (set->backend == MDKD_BACKEND_AUTO)
		nout = mdkd_policy_auto_out(st, nout > 0);
	d->pages = &st->pages;
	d->want_bytes = (uint64_t)(nout + st->pages.nback) * MDKD_PAGE_SIZE;
	if (d->want_bytes) {
		d->reason = MDKD_R_RECLAIM;
		return;
	}
	d->reason = pressure		      ? MDKD_R_PRESSURE :
		    st->tier_full	      ? MDKD_R_TIER_FULL :
		    st->why == MDKD_R_RECLAIM ? MDKD_R_NOTHING :
						st->why;
}

static void policy_feedback(void *state, const struct mdkd_settings *set,
			    uint64_t bytes, int result)
{
	struct policy_state *st = state;
	const struct mdkd_pages_result *r = &st->pages.res;

	/* Tried pages are not picked again before their next access. */
	if (set->backend == MDKD_BACKEND_AUTO)
		mdkd_policy_auto_moved(st);
	else if (st->eval && r->out_tried)
		mdk_eval_mark(st->eval, st->pages.out, (size_t)r->out_tried);
	if (st->tier_node < 0 && set->backend != MDKD_BACKEND_AUTO)
		st->advised_bytes = r->out_done * MDKD_PAGE_SIZE;
	st->tot.out += r->out_done;
	st->tot.back += r->back_done;
	st->tot.failed += r->failed;
	st->tot.gone += r->gone;
	st->tot.denied += r->denied;
	if (set->backend != MDKD_BACKEND_AUTO)
		mdkd_policy_tiers_moved(st);
	memset(&st->pages.res, 0, sizeof(st->pages.res));
	st->pages.nout = st->pages.nback = 0;
}

static void policy_update(struct mdkd_target *t, void *state,
			  const struct mdkd_settings *old)
{
	struct policy_state *st = state;
	const struct mdkd_settings *set = t->set;
	char err[512];

	if (set->backend != old->backend || set->tier_node != old->tier_node) {
		/* A new tier node: a new sampler (STAR) and evaluation. */
		policy_stop(t, state);
		if (policy_start(t, state, err, sizeof(err)))
			mdkd_policy_error(
				st, "restarting for the new back end: %s", err);
		else
			log_info(
				"%s: back end %s: sampling and evaluation restarted",
				t->path, mdkd_backend_name(set->backend));
		return;
	}
	if (strcmp(set->trace_file, st->trace_path))
		trace_close(st); /* the new file opens at the next window */
	/* lopp learns at target_rate from the evaluation's start. */
	if (set->horizon != old->horizon ||
	    strcmp(set->evaluate, old->evaluate) ||
	    runs_lopp(set) != runs_lopp(old) ||
	    (runs_lopp(set) && set->target_rate != old->target_rate) ||
	    set->lopp_model != old->lopp_model) {
		struct mdk_eval *e = eval_new(set, err, sizeof(err));

		if (!e) {
			mdkd_policy_error(
				st,
				"evaluate %s, horizon %u: %s; keeping the previous ones",
				set->evaluate, set->horizon, err);
			return;
		}
		mdk_eval_free(st->eval);
		st->eval = e;
		st->sel.policy = -1;
		st->running[0] = '\0';
		st->guard_theta = 0;
		log_info("%s: evaluation restarted (horizon %u, %s)", t->path,
			 set->horizon, set->evaluate);
	}
}

static uint64_t policy_interval_us(const struct mdkd_settings *set)
{
	return set->window_us;
}

static const struct mdkd_actuator_ops *
policy_actuator(const struct mdkd_settings *set)
{
	if (set->backend == MDKD_BACKEND_AUTO)
		return &mdkd_act_tier;
	return set->backend == MDKD_BACKEND_CXL ? &mdkd_act_migrate :
						  &mdkd_act_pageout;
}

const struct mdkd_mode_ops mdkd_mode_policy = {
	.name = "policy",
	.help = "page policies (AGE, PAW, PACE) on the BPF sampler's windows, with live MPCs and auto-tuning",
	.state_size = sizeof(struct policy_state),
	.start = policy_start,
	.init = NULL,
	.decide = policy_decide,
	.feedback = policy_feedback,
	.stop = policy_stop,
	.observe = policy_observe,
	.update = policy_update,
	.interval_us = policy_interval_us,
	.status_json = mdkd_policy_status_json,
	.live_json = mdkd_policy_live_json,
	.actuator = policy_actuator,
	.observe_only = false,
	.picks_pages = true,
};
