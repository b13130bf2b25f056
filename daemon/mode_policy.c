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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mdk/evaluator.h>
#include <mdk/trace.h>

#include "controller.h"
#include "jsonout.h"
#include "log.h"
#include "loop.h"
#include "mode_policy.h"
#include "pages.h"
#include "target.h"

/* ---- the window source ---- */

static void *sampler_open(const struct mdk_sampler_opts *opts, char *msg,
			  size_t len)
{
	return mdk_sampler_new(opts, msg, len);
}

static int sampler_start(void *src, char *msg, size_t len)
{
	return mdk_sampler_start(src, msg, len);
}

static int sampler_next(void *src, struct mdk_sampler_window *w, char *msg,
			size_t len)
{
	return mdk_sampler_next(src, w, msg, len);
}

static const struct mdk_sampler_proc *sampler_proc(void *src, uint32_t id)
{
	return mdk_sampler_proc(src, id);
}

static void sampler_close(void *src)
{
	mdk_sampler_free(src);
}

const struct mdkd_policy_source mdkd_policy_source_sampler = {
	.open = sampler_open,
	.start = sampler_start,
	.next = sampler_next,
	.proc = sampler_proc,
	.close = sampler_close,
};

/* ---- state ---- */

struct policy_totals {
	uint64_t windows; /* windows fed to the evaluator */
	uint64_t picked; /* pages the settings picked */
	uint64_t out; /* pages advised (pageout) or demoted (migrate) */
	uint64_t back; /* pages promoted back (migrate) */
	uint64_t failed, gone, denied; /* pages the actuator could not move */
	uint64_t paused; /* windows whose page-outs PSI paused */
	uint64_t tune_changes; /* auto-tune switched settings */
	uint64_t forgotten; /* pages of processes that were gone */
	uint64_t drops; /* swap-cache drops run (memory.reclaim writes) */
	uint64_t drop_bytes; /* bytes they asked for */
	uint64_t drop_freed; /* bytes the swap cache shrank by meanwhile */
	uint64_t drop_short; /* drops the kernel answered EAGAIN (less) */
	uint64_t drop_us; /* their wall time */
	uint64_t sampler_cpu_ns; /* the sampler's CPU time */
	uint64_t errors; /* windows lost to a sampler or evaluator error */
};

struct policy_state {
	const struct mdkd_policy_source *src_ops;
	void *src;
	struct mdk_eval *eval;
	uint32_t gone_proc; /* proc_gone()'s last answer, for this process */
	bool gone_last;
	bool started; /* window 0 began */
	int tier_node, home_node; /* cxl */

	struct mdk_trace_writer *trace;
	char trace_path[sizeof(((struct mdkd_settings *)0)->trace_file)];
	bool trace_failed;

	/* the setting this window runs */
	struct mdk_eval_sel sel;
	/* lopp's rate guard: no theta below guard_theta (ppm) */
	uint64_t guard_theta;
	uint32_t guard_good; /* windows within the target since a step */
	uint64_t guard_steps;
	int64_t guard_window; /* sampler window of the last step; -1: none */
	char running[96];
	bool tuned;
	enum mdkd_reason why; /* MDKD_R_RECLAIM, or why nothing is picked */
	char last_error[256];

	/* the decision, for the actuator */
	struct mdkd_pages pages;
	size_t npicked;

	/* the swap-cache drop: what the last window advised, and what
	 * page-outs left in the swap cache that was not dropped yet */
	uint64_t advised_bytes;
	uint64_t pending_bytes;
	const struct mdkd_sample *cur; /* in observe: the interval's sample */

	struct mdk_sampler_window last; /* counters only (pages not kept) */
	bool have_last;
	struct policy_totals tot;
	struct mdkd_target *t;
};

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

static void set_error(struct policy_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_error(struct policy_state *st, const char *fmt, ...)
{
	char msg[sizeof(st->last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Log a message once, not every window. */
	if (strcmp(msg, st->last_error))
		log_warn("%s: %s", st->t->path, msg);
	snprintf(st->last_error, sizeof(st->last_error), "%s", msg);
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

/* memory.stat's swapcached of @st's cgroup now, or -errno. */
static int64_t swapcached(struct policy_state *st)
{
	struct mdkd_memstat ms;
	char buf[8192], err[128];
	ssize_t n;
	int fd;

	fd = openat(st->t->dirfd, "memory.stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	if (mdkd_memstat_parse(buf, (size_t)n, &ms, err, sizeof(err)) ||
	    !ms.has_swapcached)
		return -ENOENT;
	return (int64_t)ms.swapcached;
}

/* Whether zswap is on (SYS/module/zswap/parameters/enabled is Y). */
static bool zswap_enabled(const char *sys_root)
{
	char file[MDKD_PATH_MAX + 64], c = 'N';
	int fd;

	snprintf(file, sizeof(file), "%s/module/zswap/parameters/enabled",
		 sys_root);
	fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 'N';
		close(fd);
	}
	return c == 'Y' || c == 'y' || c == '1';
}

/*
 * The sampler's before_reset hook, swap back end.  A page MADV_PAGEOUT
 * writes to a swap device is under writeback when the call returns, so it
 * stays in the swap cache, charged to the cgroup, until the kernel
 * reclaims again; the end of its writeback moves it to the tail of the
 * inactive list.  One memory.reclaim of those written back takes them
 * first (mdkd_swap_cache_drop(); nothing with zswap, which frees each
 * page at once).  One write, not several: a page the kernel's scan spared
 * as referenced has lost its Accessed bit to that scan, and the next
 * scan, soon after, takes it.  It runs here, while the Accessed bits are
 * this window's: after the sampler's reset the kernel would see every
 * page idle and take pages in use, and its scan would clear the bits the
 * next walk needs.
 */
static void drop_swap_cache(void *arg, const struct mdk_sampler_window *w)
{
	struct policy_state *st = arg;
	/* The interval's memory.stat, read as the window ended. */
	const struct mdkd_memstat *ms = &st->cur->stat;
	uint64_t bytes, t0;
	int64_t after;
	char buf[32];
	int fd, len;

	bytes = st->advised_bytes;
	st->advised_bytes = 0;
	if (zswap_enabled(st->t->sys_root)) {
		st->pending_bytes = 0;
		return;
	}
	if (!ms->has_swapcached)
		return;
	/* Kept with the drop off too: turned on, it drops what is there. */
	bytes = mdkd_swap_cache_drop(
		&st->pending_bytes, bytes,
		w->have_counters ? w->swapin_pages * MDKD_PAGE_SIZE : 0,
		ms->swapcached, ms->file_writeback);
	if (bytes < MDKD_PAGE_SIZE || !st->t->set->drop_swap_cache)
		return;
	fd = openat(st->t->dirfd, "memory.reclaim", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		set_error(st, "drop_swap_cache: memory.reclaim: %s",
			  strerror(errno));
		return;
	}
	t0 = mdkd_now_us();
	len = snprintf(buf, sizeof(buf), "%" PRIu64, bytes);
	if (write(fd, buf, len) != len) {
		if (errno == EAGAIN)
			st->tot.drop_short++;
		else
			set_error(st, "drop_swap_cache: memory.reclaim: %s",
				  strerror(errno));
	}
	close(fd);
	st->tot.drop_us += mdkd_now_us() - t0;
	st->tot.drops++;
	st->tot.drop_bytes += bytes;
	/* Asked once: what the kernel took instead is not asked again. */
	st->pending_bytes -= bytes;
	after = swapcached(st);
	if (after >= 0 && (uint64_t)after < ms->swapcached)
		st->tot.drop_freed += ms->swapcached - (uint64_t)after;
	log_debug("%s: drop_swap_cache: memory.reclaim %" PRIu64
		  " (swapcached %" PRIu64 ", %" PRIu64
		  " under writeback): swapcached %" PRId64,
		  st->t->path, bytes, ms->swapcached, ms->file_writeback,
		  after);
}

/* ---- hooks ---- */

static void policy_stop(struct mdkd_target *t, void *state)
{
	struct policy_state *st = state;

	trace_close(st);
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
	if (set->backend == MDKD_BACKEND_CXL) {
		int node = set->tier_node >= 0 ? set->tier_node :
						 mdkd_cmm_mp_node(t->sys_root);

		if (node < 0) {
			snprintf(
				err, errlen,
				"backend cxl: tier_node is -1 and /sys/kernel/cmm_mp/node: %s (load cmm_mp.ko or set tier_node)",
				strerror(-node));
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
	if (set->backend == MDKD_BACKEND_SWAP) {
		o.before_reset = drop_swap_cache;
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

/*
 * lopp's rate guard.  The curve predicts the rate of the horizon's past;
 * when the model's precision is low, a window's measured rate can still
 * exceed the target.  Then theta rises halfway from the running one to 1
 * (fewer reclaims; to the grid value at or above) and stays at least
 * there: a few windows over the target reach any score.  After a
 * horizon of windows within the target (the curve then holds none of the
 * windows that were over) it steps back down one value of the grid.
 */
/* The setting of @p with v[1] of setting @i and the grid's v[0] next above
 * (@up) or below @theta; -1 for none. */
static long theta_step(const struct mdk_policy *p, size_t i, uint64_t theta,
		       bool up)
{
	struct mdk_setting cur, s;
	size_t k, n = mdk_policy_settings(p);
	long best = -1;
	uint64_t bv = 0;

	if (mdk_policy_setting(p, i, &cur))
		return -1;
	for (k = 0; k < n; k++) {
		mdk_policy_setting(p, k, &s);
		if (s.v[1] != cur.v[1] ||
		    (up ? s.v[0] <= theta : s.v[0] >= theta))
			continue;
		if (best < 0 || (up ? s.v[0] < bv : s.v[0] > bv)) {
			best = (long)k;
			bv = s.v[0];
		}
	}
	return best;
}

/* Hold @sel (lopp's) at or above the guard's theta. */
static void guard_apply(struct policy_state *st, struct mdk_eval_sel *sel)
{
	const struct mdk_policy *p =
		mdk_eval_policy(st->eval, (size_t)sel->policy);
	struct mdk_setting s;
	long k;

	if (!st->t->set->rate_guard || !p || !mdk_policy_keyed(p) ||
	    !st->guard_theta || mdk_policy_setting(p, sel->setting, &s) ||
	    s.v[0] >= st->guard_theta)
		return;
	k = theta_step(p, sel->setting, st->guard_theta - 1, true);
	if (k >= 0)
		sel->setting = (size_t)k;
}

/* After window @index, of @measured promotions over @accessed pages. */
static void guard_observe(struct policy_state *st, uint64_t index,
			  uint64_t measured, uint64_t accessed)
{
	const struct mdkd_settings *set = st->t->set;
	const struct mdk_policy *p;
	struct mdk_setting s;
	long k;

	if (!set->rate_guard || st->sel.policy < 0 || !accessed)
		return;
	p = mdk_eval_policy(st->eval, (size_t)st->sel.policy);
	if (!p || !mdk_policy_keyed(p) ||
	    mdk_policy_setting(p, st->sel.setting, &s))
		return;
	if ((double)measured > set->target_rate * (double)accessed) {
		uint64_t half = s.v[0] + (1000000 - s.v[0] + 1) / 2;

		k = theta_step(p, st->sel.setting, half - 1, true);
		if (k < 0)
			k = theta_step(p, st->sel.setting, s.v[0], true);
		st->guard_good = 0;
		if (k < 0)
			return; /* already at the top */
		mdk_policy_setting(p, (size_t)k, &s);
		st->guard_theta = s.v[0];
		st->guard_steps++;
		st->guard_window = (int64_t)index;
		log_info("%s: rate guard: window rate %.4f over %g: theta %g",
			 st->t->path, (double)measured / (double)accessed,
			 set->target_rate, s.v[0] / 1e6);
		return;
	}
	if (!st->guard_theta || ++st->guard_good < set->horizon)
		return;
	st->guard_good = 0;
	k = theta_step(p, st->sel.setting, st->guard_theta, false);
	if (k < 0) {
		st->guard_theta = 0;
		return;
	}
	mdk_policy_setting(p, (size_t)k, &s);
	st->guard_theta = s.v[0];
}

/* The setting to run in this window, into st->sel; st->why otherwise. */
static void choose(struct policy_state *st)
{
	const struct mdkd_settings *set = st->t->set;
	struct mdk_eval_sel sel;
	char err[512];
	int ret;

	if (set->auto_tune) {
		if (mdk_eval_windows(st->eval) < set->warmup) {
			st->why = MDKD_R_WARMUP;
			st->sel.policy = -1;
			return;
		}
		ret = mdk_eval_tune(st->eval, set->policy, set->target_rate,
				    &sel, NULL, err, sizeof(err));
		if (ret == -ENOENT) {
			st->why = MDKD_R_NO_SETTING;
			st->sel.policy = -1;
			return;
		}
	} else {
		ret = mdk_eval_find(st->eval, set->policy, &sel, err,
				    sizeof(err));
	}
	if (ret) {
		set_error(st, "policy %s: %s", set->policy, err);
		st->why = MDKD_R_NO_SETTING;
		st->sel.policy = -1;
		return;
	}
	guard_apply(st, &sel);
	if (sel.policy != st->sel.policy || sel.setting != st->sel.setting) {
		char was[sizeof(st->running)];

		snprintf(was, sizeof(was), "%s", st->running);
		mdk_policy_format(mdk_eval_policy(st->eval, (size_t)sel.policy),
				  sel.setting, st->running,
				  sizeof(st->running));
		if (set->auto_tune) {
			st->tot.tune_changes++;
			log_info("%s: auto-tune: %s -> %s (target %g%%)",
				 st->t->path, *was ? was : "none", st->running,
				 set->target_rate * 100);
		}
	}
	st->sel = sel;
	st->tuned = set->auto_tune;
	st->why = MDKD_R_RECLAIM;
}

static void policy_observe(struct mdkd_target *t, void *state,
			   const struct mdkd_sample *cur)
{
	struct policy_state *st = state;
	const struct mdkd_settings *set = t->set;
	struct mdk_sampler_window w;
	uint64_t measured;
	const uint64_t *ids;
	size_t n;
	char msg[512];
	int ret;

	st->pages.nout = st->pages.nback = 0;
	st->npicked = 0;
	st->why = MDKD_R_NOTHING;
	if (!st->src || !st->eval)
		return;
	if (!st->started) {
		/* The baseline sample: window 0 begins now. */
		ret = st->src_ops->start(st->src, msg, sizeof(msg));
		if (ret) {
			set_error(st, "sampler: %s", msg);
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
		set_error(st, "sampler: %s", msg);
		return;
	}
	st->tot.sampler_cpu_ns += w.cpu_ns;
	trace_open(st);
	if (st->trace &&
	    mdk_trace_writer_put(st->trace, (uint32_t)w.index, w.pages,
				 w.nr_pages, 0, msg, sizeof(msg))) {
		log_warn("%s: trace_file %s: %s; closed", t->path,
			 st->trace_path, msg);
		mdk_trace_writer_abort(st->trace);
		st->trace = NULL;
		st->trace_failed = true;
	}
	if (st->tier_node >= 0)
		measured =
			w.tier_pages + (w.have_counters ? w.promote_pages : 0);
	else
		measured =
			w.swapin_pages + w.file_refault_pages + w.promote_pages;
	ret = mdk_eval_window(st->eval, w.pages, w.nr_pages, measured,
			      w.have_counters || st->tier_node >= 0, msg,
			      sizeof(msg));
	if (ret) {
		/* A failed generator cannot be trusted: start again. */
		st->tot.errors++;
		set_error(st, "evaluator: %s; evaluation restarted", msg);
		mdk_eval_free(st->eval);
		st->eval = eval_new(set, msg, sizeof(msg));
		st->sel.policy = -1;
		st->running[0] = '\0';
		st->guard_theta = 0;
		return;
	}
	if (w.have_counters || st->tier_node >= 0)
		guard_observe(st, w.index, measured, w.nr_pages);
	st->last = w;
	st->last.pages = NULL;
	st->have_last = true;
	st->tot.windows++;
	st->gone_proc = UINT32_MAX;
	st->tot.forgotten += mdk_eval_forget(st->eval, proc_gone, st);

	choose(st);
	if (st->why == MDKD_R_RECLAIM) {
		ret = mdk_eval_pick(st->eval, &st->sel, &ids, &n);
		if (ret) {
			set_error(st, "picking pages: %s", strerror(-ret));
			st->why = MDKD_R_NOTHING;
		} else {
			st->pages.out = ids;
			st->npicked = n;
			st->tot.picked += n;
		}
	}
	if (st->tier_node >= 0 && set->cxl_promote) {
		st->pages.back = mdk_eval_returned(st->eval, &n);
		st->pages.nback = n;
	}
	if (st->last_error[0] && st->why == MDKD_R_RECLAIM)
		st->last_error[0] = '\0';
}

static void policy_decide(void *state, const struct mdkd_settings *set,
			  const struct mdkd_input *in, struct mdkd_decision *d)
{
	struct policy_state *st = state;
	double psi = in->iv->mem_some, thr = set->psi_threshold;
	bool pressure = thr <= 0 || psi >= thr;
	size_t nout = st->why == MDKD_R_RECLAIM ? st->npicked : 0;

	/* The PSI guard: no page-outs under pressure; promotions go on. */
	if (pressure && nout) {
		st->tot.paused++;
		nout = 0;
	}
	st->pages.nout = nout;
	d->pages = &st->pages;
	d->want_bytes = (uint64_t)(nout + st->pages.nback) * MDKD_PAGE_SIZE;
	if (d->want_bytes) {
		d->reason = MDKD_R_RECLAIM;
		return;
	}
	d->reason = pressure		      ? MDKD_R_PRESSURE :
		    st->why == MDKD_R_RECLAIM ? MDKD_R_NOTHING :
						st->why;
}

static void policy_feedback(void *state, const struct mdkd_settings *set,
			    uint64_t bytes, int result)
{
	struct policy_state *st = state;
	const struct mdkd_pages_result *r = &st->pages.res;

	/* Tried pages are not picked again before their next access. */
	if (st->eval && r->out_tried)
		mdk_eval_mark(st->eval, st->pages.out, (size_t)r->out_tried);
	if (st->tier_node < 0)
		st->advised_bytes = r->out_done * MDKD_PAGE_SIZE;
	st->tot.out += r->out_done;
	st->tot.back += r->back_done;
	st->tot.failed += r->failed;
	st->tot.gone += r->gone;
	st->tot.denied += r->denied;
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
			set_error(st, "restarting for the new back end: %s",
				  err);
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
	    (runs_lopp(set) && set->target_rate != old->target_rate)) {
		struct mdk_eval *e = eval_new(set, err, sizeof(err));

		if (!e) {
			set_error(
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
	return set->backend == MDKD_BACKEND_CXL ? &mdkd_act_migrate :
						  &mdkd_act_pageout;
}

/* ---- JSON views ---- */

static struct json_object *rates_json(const struct mdk_eval_rates *r)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "windows", r->windows);
	mdkd_json_add_u64(o, "promotions", r->promotions);
	mdkd_json_add_u64(o, "accessed", r->accessed);
	mdkd_json_add_double(o, "max_rate", r->max_rate);
	mdkd_json_add_double(o, "mean_rate", r->mean_rate);
	mdkd_json_add_double(o, "p99_rate", r->p99_rate);
	return o;
}

/* [p1, p2|null, max_rate, mean_rate, p99_rate, savings, promotions,
 *  saved, footprint] */
static struct json_object *point_json(const struct mdk_point *p)
{
	struct json_object *a = json_object_new_array_ext(9);

	json_object_array_add(a, json_object_new_double(p->p1));
	json_object_array_add(a,
			      p->has_p2 ? json_object_new_double(p->p2) : NULL);
	json_object_array_add(a, json_object_new_double(p->max_rate));
	json_object_array_add(a, json_object_new_double(p->mean_rate));
	json_object_array_add(a, json_object_new_double(p->p99_rate));
	json_object_array_add(a, json_object_new_double(p->savings));
	json_object_array_add(a, json_object_new_uint64(p->promotions));
	json_object_array_add(a, json_object_new_uint64(p->saved));
	json_object_array_add(a, json_object_new_uint64(p->footprint));
	return a;
}

/* The running setting's name and point, into @o. */
static void running_json(struct policy_state *st, struct json_object *o)
{
	const struct mdkd_settings *set = st->t->set;
	struct json_object *r = json_object_new_object();
	struct mdk_point pt;
	char err[256];

	mdkd_json_add_str(r, "policy", set->policy);
	json_object_object_add(r, "auto_tune",
			       json_object_new_boolean(set->auto_tune));
	mdkd_json_add_double(r, "target_rate", set->target_rate);
	mdkd_json_add_str(r, "reason", mdkd_reason_names[st->why]);
	if (st->sel.policy >= 0 && st->eval &&
	    !mdk_eval_point(st->eval, &st->sel, &pt, err, sizeof(err))) {
		mdkd_json_add_str(r, "setting", st->running);
		json_object_object_add(r, "tuned",
				       json_object_new_boolean(st->tuned));
		json_object_object_add(r, "predicted", point_json(&pt));
	} else {
		json_object_object_add(r, "setting", NULL);
		json_object_object_add(r, "predicted", NULL);
	}
	json_object_object_add(o, "running", r);
}

/* L-OPP's learning and its guard, into @o. */
static void lopp_json(struct policy_state *st, struct json_object *o)
{
	struct mdk_eval_lopp l;
	struct json_object *j;

	if (!mdk_eval_lopp(st->eval, &l))
		return;
	j = json_object_new_object();
	mdkd_json_add_u64(j, "trainings", l.trainings);
	mdkd_json_add_u64(j, "rows", l.rows);
	mdkd_json_add_double(j, "precision", l.precision);
	mdkd_json_add_double(j, "recall", l.recall);
	mdkd_json_add_double(j, "auc", l.auc);
	mdkd_json_add_double(j, "guard_theta", st->guard_theta / 1e6);
	mdkd_json_add_u64(j, "guard_steps", st->guard_steps);
	json_object_object_add(j, "guard_window",
			       st->guard_window < 0 ?
				       NULL :
				       json_object_new_int64(st->guard_window));
	json_object_object_add(o, "lopp", j);
}

static struct json_object *policy_status_json(struct mdkd_target *tgt,
					      void *state)
{
	struct policy_state *st = state;
	struct json_object *o, *w, *t;
	struct mdk_eval_rates m, a;

	if (!st)
		return NULL;
	o = json_object_new_object();
	mdkd_json_add_str(o, "backend", mdkd_backend_name(tgt->set->backend));
	mdkd_json_add_double(o, "window_s", tgt->set->window_us / 1e6);
	if (st->tier_node >= 0)
		json_object_object_add(o, "tier_node",
				       json_object_new_int(st->tier_node));
	running_json(st, o);
	if (st->eval) {
		mdkd_json_add_u64(o, "windows", mdk_eval_windows(st->eval));
		mdkd_json_add_u64(o, "horizon", mdk_eval_capacity(st->eval));
		mdkd_json_add_u64(o, "pages_tracked", mdk_eval_pages(st->eval));
		mdkd_json_add_u64(o, "evaluator_bytes",
				  mdk_eval_memory(st->eval));
		mdk_eval_rates(st->eval, &m, &a);
		json_object_object_add(o, "measured", rates_json(&m));
		json_object_object_add(o, "acted", rates_json(&a));
		lopp_json(st, o);
	}
	if (st->have_last) {
		const struct mdk_sampler_window *l = &st->last;

		w = json_object_new_object();
		mdkd_json_add_u64(w, "index", l->index);
		mdkd_json_add_u64(w, "accessed_pages", l->nr_pages);
		mdkd_json_add_u64(w, "procs", l->nr_procs);
		mdkd_json_add_u64(w, "swapin_pages", l->swapin_pages);
		mdkd_json_add_u64(w, "file_refault_pages",
				  l->file_refault_pages);
		mdkd_json_add_u64(w, "promote_pages", l->promote_pages);
		mdkd_json_add_u64(w, "tier_pages", l->tier_pages);
		mdkd_json_add_double(w, "star",
				     l->nr_pages ? (double)l->tier_pages /
							   (double)l->nr_pages :
						   0);
		mdkd_json_add_u64(w, "picked_pages", st->npicked);
		mdkd_json_add_double(w, "sampler_cpu_ms", l->cpu_ns / 1e6);
		json_object_object_add(o, "last_window", w);
	}
	t = json_object_new_object();
	mdkd_json_add_u64(t, "windows", st->tot.windows);
	mdkd_json_add_u64(t, "picked_pages", st->tot.picked);
	mdkd_json_add_u64(t, "out_pages", st->tot.out);
	mdkd_json_add_u64(t, "back_pages", st->tot.back);
	mdkd_json_add_u64(t, "failed_pages", st->tot.failed);
	mdkd_json_add_u64(t, "gone_pages", st->tot.gone);
	mdkd_json_add_u64(t, "denied_pages", st->tot.denied);
	mdkd_json_add_u64(t, "paused_windows", st->tot.paused);
	mdkd_json_add_u64(t, "tune_changes", st->tot.tune_changes);
	mdkd_json_add_u64(t, "forgotten_pages", st->tot.forgotten);
	mdkd_json_add_u64(t, "swap_cache_drops", st->tot.drops);
	mdkd_json_add_u64(t, "swap_cache_drop_bytes", st->tot.drop_bytes);
	mdkd_json_add_u64(t, "swap_cache_freed_bytes", st->tot.drop_freed);
	mdkd_json_add_u64(t, "swap_cache_drops_short", st->tot.drop_short);
	mdkd_json_add_double(t, "swap_cache_drop_s", st->tot.drop_us / 1e6);
	mdkd_json_add_u64(t, "errors", st->tot.errors);
	mdkd_json_add_double(t, "sampler_cpu_s", st->tot.sampler_cpu_ns / 1e9);
	json_object_object_add(o, "totals", t);
	mdkd_json_add_str(o, "error", st->last_error);
	return o;
}

static struct json_object *policy_live_json(struct mdkd_target *t, void *state,
					    char *err, size_t errlen)
{
	struct policy_state *st = state;
	struct json_object *o, *pols, *hd = NULL;
	const struct mdkd_settings *set;
	struct mdk_eval_rates m, a;
	struct mdk_point run, opp_best;
	bool have_run = false, have_opp = false;
	uint32_t lo, hi;
	size_t i;

	set = t->set;
	if (!st || !st->eval || !mdk_eval_horizon(st->eval, &lo, &hi)) {
		snprintf(
			err, errlen,
			"%s: no window yet (the first ends %gs after the mode starts)",
			t->path, set->window_us / 1e6);
		return NULL;
	}
	o = json_object_new_object();
	mdkd_json_add_str(o, "cgroup", t->path);
	mdkd_json_add_str(o, "backend", mdkd_backend_name(set->backend));
	mdkd_json_add_double(o, "window_s", set->window_us / 1e6);
	mdkd_json_add_u64(o, "horizon", mdk_eval_capacity(st->eval));
	mdkd_json_add_u64(o, "lo", lo);
	mdkd_json_add_u64(o, "hi", hi);
	mdkd_json_add_u64(o, "windows", hi - lo + 1);
	mdkd_json_add_str(o, "savings", "occupancy");
	mdkd_json_add_double(o, "target_rate", set->target_rate);
	running_json(st, o);
	if (st->sel.policy >= 0)
		have_run =
			!mdk_eval_point(st->eval, &st->sel, &run, err, errlen);
	mdk_eval_rates(st->eval, &m, &a);
	json_object_object_add(o, "measured", rates_json(&m));
	mdkd_json_add_str(
		o, "measured_source",
		st->tier_node >= 0 ?
			"tier residency of accessed pages (STAR) + NUMA promotions" :
			"swap-ins + file refaults + NUMA promotions (BPF)");
	json_object_object_add(o, "acted", rates_json(&a));
	json_object_object_add(
		o, "columns",
		json_tokener_parse(
			"[\"p1\",\"p2\",\"max_rate\",\"mean_rate\",\"p99_rate\",\"savings\",\"promotions\",\"saved\",\"footprint\"]"));
	pols = json_object_new_array();
	for (i = 0; i < mdk_eval_npolicies(st->eval); i++) {
		const struct mdk_policy *p = mdk_eval_policy(st->eval, i);
		struct json_object *po = json_object_new_object(), *arr;
		struct mdk_point *pts;
		char spec[8192];
		long n, k, b;

		n = mdk_eval_curve(st->eval, i, &pts, err, errlen);
		if (n < 0) {
			json_object_put(po);
			json_object_put(pols);
			json_object_put(o);
			return NULL;
		}
		mdk_policy_spec(p, spec, sizeof(spec));
		mdkd_json_add_str(po, "policy", mdk_policy_name(p));
		mdkd_json_add_str(po, "spec", spec);
		mdkd_json_add_u64(po, "settings", (uint64_t)n);
		b = mdk_mpc_best(pts, (size_t)n, set->target_rate);
		if (b >= 0) {
			char best[96];

			mdk_policy_format(p, (size_t)b, best, sizeof(best));
			mdkd_json_add_str(po, "best", best);
			json_object_object_add(po, "best_point",
					       point_json(&pts[b]));
			if (!strcmp(mdk_policy_name(p), "opp")) {
				opp_best = pts[b];
				have_opp = true;
			}
		} else {
			json_object_object_add(po, "best", NULL);
		}
		arr = json_object_new_array_ext((int)n);
		for (k = 0; k < n; k++)
			json_object_array_add(arr, point_json(&pts[k]));
		json_object_object_add(po, "points", arr);
		json_object_array_add(pols, po);
		free(pts);
	}
	json_object_object_add(o, "policies", pols);
	/* What better information could still gain at the target. */
	if (have_opp) {
		char s[96];

		hd = json_object_new_object();
		snprintf(s, sizeof(s), "opp:rho=%g", opp_best.p1);
		mdkd_json_add_str(hd, "opp", s);
		mdkd_json_add_double(hd, "opp_savings", opp_best.savings);
		if (have_run) {
			mdkd_json_add_double(hd, "running_savings",
					     run.savings);
			mdkd_json_add_double(hd, "headroom",
					     opp_best.savings - run.savings);
		}
	}
	json_object_object_add(o, "opp_headroom", hd);
	return o;
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
	.status_json = policy_status_json,
	.live_json = policy_live_json,
	.actuator = policy_actuator,
	.observe_only = false,
	.picks_pages = true,
};
