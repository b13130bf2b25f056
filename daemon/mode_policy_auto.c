// SPDX-License-Identifier: GPL-2.0
/*
 * Policy mode, backend auto: the hierarchy of back ends as one
 * (mode_policy_int.h).  At each window's end:
 *
 *  1. the cgroup's tiers: its tier list (the tiers key, or the host's),
 *     restricted to the back ends that exist now -- the CMM-MP node,
 *     zswap enabled with a swap device, a swap device (while zswap is on,
 *     reached past it with memory.zswap.max at 0: zswap_off.h);
 *  2. what came back: the window's acted promotions per tier, and their
 *     stall (each at its tier's cost) over the window's length;
 *  3. the setting: after warmup windows, the tiered AGE setting that
 *     saves the most over the horizon within target_stall (the live
 *     tiered curve, mdk_eval_tier_curve()) among those that would not
 *     hold more than a tier's capacity now (mdkd_route_capped());
 *  4. the routing (tier_route.h): the pages due in each tier
 *     (mdk_eval_pick_tier()) go to the deepest open tier with room they
 *     are due in.  The node closes at tier_used_max or its cap in the
 *     list, the page-out tier with the swap valve (limits.h).
 *
 * The node's pages accessed again move back to DRAM (cxl_promote).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/util.h>

#include "controller.h"
#include "host.h"
#include "limits.h"
#include "log.h"
#include "mode_policy_int.h"
#include "target.h"
#include "tier_costs.h"
#include "zswap_off.h"

/*
 * The list @st's cgroup runs with, into *@t: the tiers key's as given,
 * or the host's measured costs (tier_file) with zswap's saving from the
 * cgroup's compression ratio (left out while it is not known).
 * Return: 0 or -errno with the reason in @msg.
 */
static int tier_list(struct policy_state *st, struct mdk_tiers *t, char *msg,
		     size_t len)
{
	const struct mdkd_settings *set = st->t->set;
	const struct mdkd_tier_costs *c = st->t->tier_costs;
	double ratio;
	int z;

	if (set->tiers[0])
		return mdk_tiers_parse(set->tiers, t, msg, len);
	if (!c || !c->loaded) {
		snprintf(
			msg, len,
			"backend auto: no tiers: set the tiers key, or run mdkctl tier calibrate (%s)",
			c && c->note[0] ? c->note : "no tier_file");
		return -ENOENT;
	}
	*t = c->tiers;
	z = mdk_tiers_find(t, "zswap");
	if (z < 0)
		return 0;
	ratio = mdkd_policy_costs_ratio(st);
	if (ratio >= 1) {
		t->t[z].save_ppm = mdk_tier_save_ppm(ratio);
		return 0;
	}
	/* No saving made up: zswap waits for a measured ratio. */
	memmove(&t->t[z], &t->t[z + 1],
		(t->n - (unsigned int)z - 1) * sizeof(t->t[0]));
	t->n--;
	snprintf(msg, len,
		 "zswap: the cgroup's compression ratio is not known yet");
	return t->n ? 0 : -ENOENT;
}

/* Whether tier @name of the list exists now; the reason in @why if not. */
static bool tier_exists(struct policy_state *st, const char *name,
			const struct mdkd_sample *cur, char *why, size_t len)
{
	const struct mdkd_host *h = st->t->host;
	bool swap = cur->host_swap_total_bytes > 0,
	     zswap = h && h->zswap_enabled;

	if (!strcmp(name, "cxl")) {
		if (st->tier_node < 0)
			snprintf(why, len, "cxl: no CMM-MP node");
		return st->tier_node >= 0;
	}
	if (!swap) {
		snprintf(why, len, "%s: no swap device", name);
		return false;
	}
	if (!strcmp(name, "zswap") && !zswap) {
		snprintf(why, len, "zswap: not enabled");
		return false;
	}
	if (!strcmp(name, "swap") && zswap &&
	    !mdkd_zswap_off_able(st->t->dirfd)) {
		snprintf(
			why, len,
			"swap: zswap is on and the cgroup has no memory.zswap.max to page out past it (Linux 5.19 and later)");
		return false;
	}
	return true;
}

/* Step 1: st->au.tiers, and a message once when what is left out changes. */
static int auto_tiers(struct policy_state *st, const struct mdkd_sample *cur)
{
	const struct mdkd_host *h = st->t->host;
	struct policy_auto *au = &st->au;
	struct mdk_tiers all;
	char msg[sizeof(au->tiers_msg)] = "", why[128], first[192] = "";
	unsigned int i;
	int ret;

	if (st->tier_node < 0 && st->t->set->tier_node < 0) {
		int node = mdkd_cmm_mp_node(st->t->sys_root);

		if (node >= 0) {
			st->tier_node = st->pages.tier_node = node;
			st->home_node = st->pages.home_node =
				mdkd_home_node(st->t->sys_root, node);
		}
	}
	ret = tier_list(st, &all, first, sizeof(first));
	if (ret)
		snprintf(msg, sizeof(msg), "%s", first);
	else if (*first) /* a tier of the host's left out */
		snprintf(msg, sizeof(msg), "left out: %s", first);
	au->tiers.n = 0;
	au->cxl = au->out = au->disk = 0;
	for (i = 0; !ret && i < all.n; i++) {
		if (!tier_exists(st, all.t[i].name, cur, why, sizeof(why))) {
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
				 "%s%s", *msg ? "; " : "left out: ", why);
			continue;
		}
		au->tiers.t[au->tiers.n++] = all.t[i];
		if (!strcmp(all.t[i].name, "cxl"))
			au->cxl = au->tiers.n;
		else if (!strcmp(all.t[i].name, "swap") && h &&
			 h->zswap_enabled)
			au->disk = au->tiers.n;
		else
			au->out = au->tiers.n;
	}
	if (!ret && !au->tiers.n)
		ret = -ENOENT;
	if (strcmp(msg, au->tiers_msg))
		log_info("%s: backend auto: %s", st->t->path,
			 *msg ? msg : "every tier of the list exists");
	snprintf(au->tiers_msg, sizeof(au->tiers_msg), "%s", msg);
	return ret;
}

/* Step 2: the window's acted promotions per tier and their stall. */
static void auto_returned(struct policy_state *st)
{
	struct policy_auto *au = &st->au;
	uint64_t counts[MDK_TIERS_MAX];
	const uint64_t *ret;
	const uint8_t *tier;
	size_t n, i, nb = 0;
	unsigned int k;

	ret = mdk_eval_returned(st->eval, &n);
	tier = mdk_eval_returned_tiers(st->eval, counts);
	au->stall_ns = 0;
	for (k = 0; k < MDK_TIERS_MAX; k++) {
		memset(&au->win[k], 0, sizeof(au->win[k]));
		au->win[k].returned = counts[k];
		au->tot[k].returned += counts[k];
		if (k < au->tiers.n)
			au->stall_ns += counts[k] * au->tiers.t[k].cost_ns;
	}
	au->stall_share = (double)au->stall_ns / (st->t->set->window_us * 1e3);
	au->tot_stall_ns += au->stall_ns;
	au->tot_windows++;
	if (au->stall_share > au->max_stall_share)
		au->max_stall_share = au->stall_share;
	/* The node's pages accessed again go back to DRAM. */
	if (!au->cxl || !st->t->set->cxl_promote ||
	    mdk_grow((void **)&au->back, &au->backcap, n, sizeof(*au->back)))
		return;
	for (i = 0; i < n; i++)
		if (tier[i] == au->cxl)
			au->back[nb++] = ret[i];
	st->pages.back = au->back;
	st->pages.nback = nb;
}

/* Step 3: the setting, into au->pt and au->route's waits. */
static int auto_setting(struct policy_state *st)
{
	const struct mdkd_settings *set = st->t->set;
	struct policy_auto *au = &st->au;
	struct mdk_tier_opts o = {
		.tiers = &au->tiers,
		.window_ns = set->window_us * 1000,
	};
	struct mdk_tier_point *pts;
	char err[256];
	uint64_t *hist;
	size_t nbins;
	long n, best;

	au->setting[0] = '\0';
	if (mdk_eval_windows(st->eval) < set->warmup) {
		st->why = MDKD_R_WARMUP;
		return -EAGAIN;
	}
	/* Tiered AGE's default grids: log-spaced waits over the horizon. */
	n = mdk_eval_tier_curve(st->eval, "tage", &o, &pts, err, sizeof(err));
	if (n < 0) {
		mdkd_policy_error(st, "backend auto: tage: %s", err);
		return (int)n;
	}
	/* The capacities, on what each setting would hold now. */
	nbins = mdk_eval_capacity(st->eval) + 1;
	hist = calloc(nbins, sizeof(*hist));
	if (!hist) {
		free(pts);
		return -ENOMEM;
	}
	mdk_eval_age_hist(st->eval, hist, nbins);
	mdkd_route_capped(pts, (size_t)n, &au->tiers, hist, nbins);
	free(hist);
	best = mdk_tier_best(pts, (size_t)n, set->target_stall);
	if (best >= 0)
		au->pt = pts[best];
	free(pts);
	if (best < 0) {
		st->why = MDKD_R_NO_SETTING;
		return -ENOENT;
	}
	if (mdkd_route_waits(&au->route, au->pt.p, au->tiers.n)) {
		mdkd_policy_error(
			st, "backend auto: a setting of %u waits for %u tiers",
			au->pt.np, au->tiers.n);
		return -EINVAL;
	}
	mdk_tier_point_format(&au->pt, au->setting, sizeof(au->setting));
	return 0;
}

/* Pages of @room bytes, UINT64_MAX kept. */
static uint64_t pages_of(uint64_t room)
{
	return room == UINT64_MAX ? room : room / MDKD_PAGE_SIZE;
}

/*
 * The cgroup's anonymous pages mapped on @node, from memory.numa_stat
 * (bytes), or 0 when it cannot be read.  The marks undercount them: a
 * page paged out from the node that the kernel kept, or one whose
 * promotion failed, is still on it.  File pages are left out: there the
 * kernel counts the swap cache too, which page-outs leave behind and it
 * frees as it needs.
 */
static uint64_t node_pages(struct policy_state *st, int node)
{
	char buf[8192], key[16], *line, *save = NULL;
	uint64_t sum = 0;
	ssize_t n;
	int fd, len;

	fd = openat(st->t->dirfd, "memory.numa_stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	len = snprintf(key, sizeof(key), " N%d=", node);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *at = strstr(line, key);

		if (at && !strncmp(line, "anon ", 5))
			sum = strtoull(at + len, NULL, 10);
	}
	return sum / MDKD_PAGE_SIZE;
}

/* Step 4a: which tiers take pages now, and how many. */
static void auto_rooms(struct policy_state *st)
{
	struct policy_auto *au = &st->au;
	const struct mdkd_limits *l = st->t->limits;
	struct mdkd_tiers *tg = st->t->tiers;
	unsigned int k;

	mdk_eval_tier_pages(st->eval, au->in_tier);
	for (k = 1; k <= au->tiers.n; k++) {
		struct mdkd_route_tier *rt = &au->route.t[k - 1];
		const struct mdk_tier *t = &au->tiers.t[k - 1];

		rt->open = true;
		rt->room = UINT64_MAX;
		au->closed[k - 1] = NULL;
		if (t->capacity) {
			uint64_t used = au->in_tier[k - 1];

			if (k == au->cxl) {
				uint64_t on = node_pages(st, st->tier_node);

				used = on > used ? on : used;
			}
			rt->room = t->capacity > used ? t->capacity - used : 0;
		}
		if (k == au->cxl && tg && tg->tier_node == st->tier_node &&
		    tg->tier_room < rt->room)
			rt->room = tg->tier_room;
		if ((k == au->out || k == au->disk) && l) {
			enum mdkd_reason why = mdkd_limits_valve_reason(l);

			if (why != MDKD_R_RECLAIM) {
				rt->open = false;
				au->closed[k - 1] = mdkd_reason_names[why];
			} else if (pages_of(l->swap_room) < rt->room) {
				rt->room = pages_of(l->swap_room);
			}
		}
		if (rt->open && !rt->room)
			au->closed[k - 1] =
				k == au->cxl ?
					mdkd_reason_names[MDKD_R_TIER_FULL] :
					"full";
	}
}

/* Step 4b: the pages due in each tier, routed. */
static int auto_route(struct policy_state *st)
{
	struct policy_auto *au = &st->au;
	unsigned int k;
	int ret;

	for (k = 1; k <= au->tiers.n; k++) {
		const uint64_t *ids;
		size_t n = 0;

		au->ndue[k - 1] = 0;
		if (au->route.t[k - 1].wait == MDKD_ROUTE_NONE)
			continue;
		ret = mdk_eval_pick_tier(st->eval, k, au->route.t[k - 1].wait,
					 &ids, &n);
		if (ret)
			return ret;
		if (mdk_grow((void **)&au->due[k - 1], &au->duecap[k - 1], n,
			     sizeof(**au->due)))
			return -ENOMEM;
		if (n)
			memcpy(au->due[k - 1], ids, n * sizeof(*ids));
		au->ndue[k - 1] = n;
	}
	ret = mdkd_route_pick(&au->route, (const uint64_t *const *)au->due,
			      au->ndue, &au->ro);
	if (ret)
		return ret;
	for (k = 1; k <= au->tiers.n; k++) {
		au->win[k - 1].held = au->ro.held[k - 1];
		au->tot[k - 1].held += au->ro.held[k - 1];
		/* Its room ran out on the way: full too. */
		if (au->ro.held[k - 1] && !au->closed[k - 1])
			au->closed[k - 1] =
				k == au->cxl ?
					mdkd_reason_names[MDKD_R_TIER_FULL] :
					"full";
	}
	if (au->cxl) {
		st->pages.out = au->ro.ids[au->cxl - 1];
		st->npicked = au->ro.n[au->cxl - 1];
	}
	if (au->out) {
		au->pageout.out = au->ro.ids[au->out - 1];
		au->pageout.nout = au->ro.n[au->out - 1];
		st->npicked += au->pageout.nout;
	}
	if (au->disk) {
		au->diskout.out = au->ro.ids[au->disk - 1];
		au->diskout.nout = au->ro.n[au->disk - 1];
		st->npicked += au->diskout.nout;
	}
	return 0;
}

void mdkd_policy_auto_pick(struct policy_state *st,
			   const struct mdkd_sample *cur)
{
	struct policy_auto *au = &st->au;
	char msg[sizeof(au->tiers_msg)];
	int ret;

	au->pageout.nout = au->diskout.nout = 0;
	au->pageout.pid_of = au->diskout.pid_of = st->pages.pid_of;
	au->pageout.pid_arg = au->diskout.pid_arg = st->pages.pid_arg;
	au->pageout.tier_node = au->pageout.home_node = -1;
	au->diskout.tier_node = au->diskout.home_node = -1;
	au->diskout.zswap_off = true;
	au->pageout.pageout = &au->diskout;
	st->pages.pageout = &au->pageout;
	ret = auto_tiers(st, cur);
	if (ret) {
		if (ret == -ENOENT)
			snprintf(
				msg, sizeof(msg),
				"backend auto: no tier of the list exists (%s)",
				au->tiers_msg);
		else
			snprintf(msg, sizeof(msg), "%s", au->tiers_msg);
		mdkd_policy_error(st, "%s", msg);
		return;
	}
	auto_returned(st);
	if (auto_setting(st))
		return;
	auto_rooms(st);
	ret = auto_route(st);
	if (ret) {
		mdkd_policy_error(st, "backend auto: routing pages: %s",
				  strerror(-ret));
		st->npicked = 0;
		return;
	}
	st->tot.picked += st->npicked;
	st->why = MDKD_R_RECLAIM;
	if (st->last_error[0])
		st->last_error[0] = '\0';
}

size_t mdkd_policy_auto_out(struct policy_state *st, bool go)
{
	struct policy_auto *au = &st->au;

	st->pages.nout = go && au->cxl ? au->ro.n[au->cxl - 1] : 0;
	au->pageout.nout = go && au->out ? au->ro.n[au->out - 1] : 0;
	au->diskout.nout = go && au->disk ? au->ro.n[au->disk - 1] : 0;
	return st->pages.nout + au->pageout.nout + au->diskout.nout;
}

/* Count @r, the result of moving tier @k's pages @ids, into its tier. */
static void auto_count(struct policy_state *st, unsigned int k,
		       const uint64_t *ids, const struct mdkd_pages_result *r)
{
	struct policy_auto *au = &st->au;

	if (!k || !st->eval || !r->out_tried)
		return;
	mdk_eval_mark_tier(st->eval, ids, (size_t)r->out_tried, k);
	au->win[k - 1].tried = r->out_tried;
	au->win[k - 1].moved = r->out_done;
	au->tot[k - 1].tried += r->out_tried;
	au->tot[k - 1].moved += r->out_done;
}

void mdkd_policy_auto_moved(struct policy_state *st)
{
	struct policy_auto *au = &st->au;
	const struct mdkd_pages_result *r = &st->pages.res;
	struct mdkd_pages *q[] = { &au->pageout, &au->diskout };
	struct mdkd_tiers *tg = st->t->tiers;
	unsigned int i;

	auto_count(st, au->cxl, st->pages.out, r);
	auto_count(st, au->out, au->pageout.out, &au->pageout.res);
	auto_count(st, au->disk, au->diskout.out, &au->diskout.res);
	st->advised_bytes = 0;
	for (i = 0; i < 2; i++) {
		st->tot.out += q[i]->res.out_done;
		st->tot.failed += q[i]->res.failed;
		st->tot.gone += q[i]->res.gone;
		st->tot.denied += q[i]->res.denied;
		st->advised_bytes += q[i]->res.out_done * MDKD_PAGE_SIZE;
		memset(&q[i]->res, 0, sizeof(q[i]->res));
		q[i]->nout = 0;
	}
	if (tg && au->cxl && tg->tier_node == st->tier_node)
		mdkd_tiers_moved(tg, r->out_done, 0, r->back_done);
}

void mdkd_policy_auto_free(struct policy_state *st)
{
	struct policy_auto *au = &st->au;
	unsigned int k;

	mdkd_route_out_free(&au->ro);
	for (k = 0; k < MDK_TIERS_MAX; k++) {
		free(au->due[k]);
		au->due[k] = NULL;
		au->duecap[k] = au->ndue[k] = 0;
	}
	free(au->back);
	au->back = NULL;
	au->backcap = 0;
	st->pages.pageout = NULL;
}
