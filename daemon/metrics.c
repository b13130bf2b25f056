// SPDX-License-Identifier: GPL-2.0
/* mdkd's metrics: see metrics.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "jsonout.h"
#include "metrics.h"
#include "mode_policy.h"

const char mdkd_record_header[] =
	"time_s,cgroup,mode,reason,memory_current,floor,want,reclaim,result,"
	"act_us,psi_some_pct,psi_full_pct,psi_some_avg10,psi_full_avg10,"
	"io_some_pct,swapin_bytes,swapout_bytes,refaults,reclaimed_total\n";

const char *mdkd_result_name(int result)
{
	static char other[32];

	switch (result) {
	case 0:
		return "ok";
	case -EAGAIN:
		return "EAGAIN";
	case -EBUSY:
		return "EBUSY";
	case -ENODEV:
		return "ENODEV";
	case -ECANCELED:
		return "ECANCELED";
	case -EINTR:
		return "EINTR";
	default:
		snprintf(other, sizeof(other), "errno %d", -result);
		return other;
	}
}

struct json_object *mdkd_cgroup_json(const struct mdkd_cgroup *cg)
{
	struct json_object *o = json_object_new_object(), *psi, *last, *tot,
			   *set;
	const struct mdkd_sample *s = &cg->sample;
	const struct mdkd_interval *iv = &cg->iv;
	size_t i;

	if (!o)
		return NULL;
	mdkd_json_add_str(o, "path", cg->path);
	mdkd_json_add_u64(o, "id", cg->id);
	mdkd_json_add_str(o, "mode", cg->ctl.mode->name);
	mdkd_json_add_str(o, "actuator", cg->act ? cg->act->name : "none");
	mdkd_json_add_str(o, "source", cg->source);
	mdkd_json_add_double(o, "interval_s", cg->set.interval_us / 1e6);
	json_object_object_add(o, "sampled",
			       json_object_new_boolean(cg->have_sample));
	mdkd_json_add_u64(o, "memory_current", s->current_bytes);
	mdkd_json_add_u64(o, "memory_min",
			  s->min_bytes == UINT64_MAX ? 0 : s->min_bytes);
	mdkd_json_add_u64(o, "memory_swap_current", s->swap_current_bytes);
	mdkd_json_add_u64(o, "floor", iv->floor_bytes);
	mdkd_json_add_u64(o, "anon", s->stat.anon);
	mdkd_json_add_u64(o, "file", s->stat.file);

	psi = json_object_new_object();
	mdkd_json_add_double(psi, "some_avg10", s->mem.some.avg10);
	mdkd_json_add_double(psi, "full_avg10", s->mem.full.avg10);
	mdkd_json_add_u64(psi, "some_total_us", s->mem.some.total_us);
	mdkd_json_add_u64(psi, "full_total_us", s->mem.full.total_us);
	mdkd_json_add_u64(psi, "some_delta_us", iv->mem_some_us);
	mdkd_json_add_u64(psi, "full_delta_us", iv->mem_full_us);
	mdkd_json_add_double(psi, "some_interval_pct", iv->mem_some * 100);
	mdkd_json_add_double(psi, "full_interval_pct", iv->mem_full * 100);
	mdkd_json_add_double(psi, "io_some_interval_pct", iv->io_some * 100);
	mdkd_json_add_double(psi, "io_some_avg10", s->io.some.avg10);
	json_object_object_add(o, "psi", psi);

	last = json_object_new_object();
	mdkd_json_add_double(last, "dt_s", iv->dt_us / 1e6);
	mdkd_json_add_str(last, "reason", mdkd_reason_names[cg->dec.reason]);
	mdkd_json_add_u64(last, "want_bytes", cg->dec.want_bytes);
	mdkd_json_add_u64(last, "reclaim_bytes", cg->dec.reclaim_bytes);
	mdkd_json_add_str(last, "result",
			  cg->stats.reclaim_requests ?
				  mdkd_result_name(cg->act_result) :
				  "none");
	mdkd_json_add_u64(last, "act_us", cg->act_us);
	mdkd_json_add_u64(last, "swapin_bytes", iv->swapin_bytes);
	mdkd_json_add_u64(last, "swapout_bytes", iv->swapout_bytes);
	mdkd_json_add_u64(last, "refaults", iv->refaults);
	json_object_object_add(o, "last", last);

	tot = json_object_new_object();
	mdkd_json_add_u64(tot, "intervals", cg->stats.intervals);
	mdkd_json_add_u64(tot, "reclaim_requests", cg->stats.reclaim_requests);
	mdkd_json_add_u64(tot, "reclaim_failures", cg->stats.reclaim_failures);
	mdkd_json_add_u64(tot, "reclaimed_bytes", cg->stats.reclaimed_bytes);
	mdkd_json_add_u64(tot, "requested_bytes", cg->stats.requested_bytes);
	mdkd_json_add_u64(tot, "eagain", cg->stats.eagain);
	mdkd_json_add_u64(tot, "ebusy", cg->stats.ebusy);
	mdkd_json_add_u64(tot, "read_errors", cg->stats.read_errors);
	mdkd_json_add_u64(tot, "busy_skips", cg->stats.busy_skips);
	mdkd_json_add_u64(tot, "swapin_bytes", cg->stats.swapin_bytes);
	mdkd_json_add_u64(tot, "swapout_bytes", cg->stats.swapout_bytes);
	mdkd_json_add_u64(tot, "refaults", cg->stats.refaults);
	mdkd_json_add_u64(tot, "backoff_left", cg->ctl.backoff_left);
	json_object_object_add(o, "totals", tot);
	json_object_object_add(o, "limits", mdkd_limits_cg_json(&cg->lim));
	if (cg->ctl.mode->status_json) {
		struct json_object *mode = cg->ctl.mode->status_json(
			(struct mdkd_target *)&cg->t, cg->ctl.mode_state);

		if (mode)
			json_object_object_add(o, "policy", mode);
	}

	set = json_object_new_object();
	for (i = 0; i < mdkd_nkeys; i++) {
		char val[MDKD_PATH_MAX];

		if (mdkd_keys[i].scope != MDKD_SCOPE_CGROUP)
			continue;
		mdkd_key_format(&mdkd_keys[i], &cg->set, val, sizeof(val));
		mdkd_json_add_str(set, mdkd_keys[i].name, val);
	}
	json_object_object_add(o, "settings", set);
	return o;
}

void mdkd_prom_label(struct mdkd_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			mdkd_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			mdkd_buf_printf(b, "\\n");
		else
			mdkd_buf_append(b, s, 1);
	}
}

struct prom_metric {
	const char *name, *type, *help;
	double (*get)(const struct mdkd_cgroup *cg);
};

#define PM(fn, expr)                                   \
	static double fn(const struct mdkd_cgroup *cg) \
	{                                              \
		return (double)(expr);                 \
	}
PM(pm_current, cg->sample.current_bytes)
PM(pm_floor, cg->iv.floor_bytes)
PM(pm_swap_current, cg->sample.swap_current_bytes)
PM(pm_reclaimed, cg->stats.reclaimed_bytes)
PM(pm_requested, cg->stats.requested_bytes)
PM(pm_requests, cg->stats.reclaim_requests)
PM(pm_failures, cg->stats.reclaim_failures)
PM(pm_eagain, cg->stats.eagain)
PM(pm_last, cg->dec.reclaim_bytes)
PM(pm_some_avg10, cg->sample.mem.some.avg10)
PM(pm_full_avg10, cg->sample.mem.full.avg10)
PM(pm_some_total, cg->sample.mem.some.total_us / 1e6)
PM(pm_full_total, cg->sample.mem.full.total_us / 1e6)
PM(pm_some_iv, cg->iv.mem_some)
PM(pm_io_some_iv, cg->iv.io_some)
PM(pm_swapin, cg->stats.swapin_bytes)
PM(pm_swapout, cg->stats.swapout_bytes)
PM(pm_refaults, cg->stats.refaults)
PM(pm_intervals, cg->stats.intervals)
#undef PM

static const struct prom_metric prom_metrics[] = {
	{ "memory_current_bytes", "gauge", "memory.current", pm_current },
	{ "floor_bytes", "gauge", "lower bound of reclaim", pm_floor },
	{ "memory_swap_current_bytes", "gauge", "memory.swap.current",
	  pm_swap_current },
	{ "reclaimed_bytes_total", "counter",
	  "bytes of successful reclaim requests", pm_reclaimed },
	{ "reclaim_requested_bytes_total", "counter", "bytes requested",
	  pm_requested },
	{ "reclaim_requests_total", "counter", "reclaim requests",
	  pm_requests },
	{ "reclaim_failures_total", "counter", "failed reclaim requests",
	  pm_failures },
	{ "reclaim_eagain_total", "counter",
	  "requests the kernel could not fully satisfy", pm_eagain },
	{ "last_reclaim_bytes", "gauge", "reclaim decided in the last interval",
	  pm_last },
	{ "psi_some_avg10_percent", "gauge", "memory.pressure some avg10",
	  pm_some_avg10 },
	{ "psi_full_avg10_percent", "gauge", "memory.pressure full avg10",
	  pm_full_avg10 },
	{ "psi_some_stall_seconds_total", "counter",
	  "memory.pressure some total", pm_some_total },
	{ "psi_full_stall_seconds_total", "counter",
	  "memory.pressure full total", pm_full_total },
	{ "psi_some_interval_ratio", "gauge",
	  "share of the last interval with some memory stall", pm_some_iv },
	{ "io_psi_some_interval_ratio", "gauge",
	  "share of the last interval with some IO stall", pm_io_some_iv },
	{ "swapin_bytes_total", "counter",
	  "swap-ins (pswpin, or anon refaults where the kernel lacks it)",
	  pm_swapin },
	{ "swapout_bytes_total", "counter",
	  "swap-outs (pswpout, or memory.swap.current growth)", pm_swapout },
	{ "refaults_total", "counter", "workingset refaults, pages",
	  pm_refaults },
	{ "intervals_total", "counter", "decisions taken", pm_intervals },
};

/* Backend auto's families, per tier (@per_tier) or per cgroup. */
static const struct auto_metric {
	const char *name, *type, *help;
	bool per_tier;
	int field; /* 0 pages, 1 moved, 2 returned, 3 held; 4.. cgroup's */
} auto_metrics[] = {
	{ "auto_tier_pages", "gauge",
	  "backend auto: pages moved to the tier, not accessed since", true,
	  0 },
	{ "auto_moved_pages_total", "counter",
	  "backend auto: pages moved to the tier", true, 1 },
	{ "auto_returned_pages_total", "counter",
	  "backend auto: acted promotions from the tier", true, 2 },
	{ "auto_held_pages_total", "counter",
	  "backend auto: pages due in the tier it did not take (closed, full), per window",
	  true, 3 },
	{ "auto_stall_seconds_total", "counter",
	  "backend auto: measured stall, promotions at their tiers' costs",
	  false, 4 },
	{ "auto_stall_share", "gauge",
	  "backend auto: the last window's measured stall over its length",
	  false, 5 },
	{ "auto_predicted_max_stall", "gauge",
	  "backend auto: the running setting's max window stall share over the horizon",
	  false, 6 },
};

static double auto_value(const struct mdkd_policy_auto_view *v, unsigned int k,
			 int field)
{
	switch (field) {
	case 0:
		return (double)v->t[k].pages;
	case 1:
		return (double)v->t[k].moved;
	case 2:
		return (double)v->t[k].returned;
	case 3:
		return (double)v->t[k].held;
	case 4:
		return v->stall_ns / 1e9;
	case 5:
		return v->stall_share;
	default:
		return v->predicted_max_stall;
	}
}

/* The policy-mode cgroups of backend auto, family by family. */
static void auto_prom(struct mdkd_cgroup *const *cgs, size_t n,
		      struct mdkd_buf *b)
{
	struct mdkd_policy_auto_view v;
	size_t m, i;
	unsigned int k;

	for (m = 0; m < sizeof(auto_metrics) / sizeof(auto_metrics[0]); m++) {
		const struct auto_metric *am = &auto_metrics[m];
		bool head = false;

		for (i = 0; i < n; i++) {
			if (strcmp(cgs[i]->ctl.mode->name, "policy") ||
			    !mdkd_policy_auto_view(&cgs[i]->t,
						   cgs[i]->ctl.mode_state, &v))
				continue;
			if (!head)
				mdkd_buf_printf(
					b,
					"# HELP mdkd_%s %s\n# TYPE mdkd_%s %s\n",
					am->name, am->help, am->name, am->type);
			head = true;
			for (k = 0; k < (am->per_tier ? v.n : 1); k++) {
				mdkd_buf_printf(b, "mdkd_%s{cgroup=\"",
						am->name);
				mdkd_prom_label(b, cgs[i]->path);
				if (am->per_tier)
					mdkd_buf_printf(b, "\",tier=\"%s",
							v.t[k].name);
				mdkd_buf_printf(b, "\"} %.17g\n",
						auto_value(&v, k, am->field));
			}
		}
	}
}

void mdkd_prometheus_text(struct mdkd_cgroup *const *cgs, size_t n,
			  const struct mdkd_limits *l,
			  const struct mdkd_host *h, struct mdkd_buf *b)
{
	size_t m, i;

	mdkd_buf_printf(b,
			"# HELP mdkd_managed_cgroups cgroups managed by mdkd\n"
			"# TYPE mdkd_managed_cgroups gauge\n"
			"mdkd_managed_cgroups %zu\n",
			n);
	for (m = 0; m < sizeof(prom_metrics) / sizeof(prom_metrics[0]); m++) {
		const struct prom_metric *pm = &prom_metrics[m];

		mdkd_buf_printf(b, "# HELP mdkd_%s %s\n# TYPE mdkd_%s %s\n",
				pm->name, pm->help, pm->name, pm->type);
		for (i = 0; i < n; i++) {
			mdkd_buf_printf(b, "mdkd_%s{cgroup=\"", pm->name);
			mdkd_prom_label(b, cgs[i]->path);
			mdkd_buf_printf(b, "\"} %.17g\n", pm->get(cgs[i]));
		}
	}
	auto_prom(cgs, n, b);
	if (l && h)
		mdkd_limits_prom(l, h, cgs, n, b);
}

/* A CSV field, quoted when it needs to be (RFC 4180). */
static void csv_field(struct mdkd_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		mdkd_buf_printf(b, "%s", s);
		return;
	}
	mdkd_buf_append(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			mdkd_buf_append(b, "\"", 1);
		mdkd_buf_append(b, s, 1);
	}
	mdkd_buf_append(b, "\"", 1);
}

void mdkd_record_csv(const struct mdkd_cgroup *cg, uint64_t t_us,
		     struct mdkd_buf *b)
{
	const struct mdkd_interval *iv = &cg->iv;
	bool acted = cg->dec.reclaim_bytes && cg->act;

	mdkd_buf_printf(b, "%.3f,", t_us / 1e6);
	csv_field(b, cg->path);
	mdkd_buf_printf(
		b,
		",%s,%s,%llu,%llu,%llu,%llu,%s,%llu,%.4f,%.4f,%.2f,%.2f,%.4f,%llu,%llu,%llu,%llu\n",
		cg->ctl.mode->name, mdkd_reason_names[cg->dec.reason],
		(unsigned long long)cg->sample.current_bytes,
		(unsigned long long)iv->floor_bytes,
		(unsigned long long)cg->dec.want_bytes,
		(unsigned long long)cg->dec.reclaim_bytes,
		acted ? mdkd_result_name(cg->act_result) : "-",
		(unsigned long long)(acted ? cg->act_us : 0),
		iv->mem_some * 100, iv->mem_full * 100,
		cg->sample.mem.some.avg10, cg->sample.mem.full.avg10,
		iv->io_some * 100, (unsigned long long)iv->swapin_bytes,
		(unsigned long long)iv->swapout_bytes,
		(unsigned long long)iv->refaults,
		(unsigned long long)cg->stats.reclaimed_bytes);
}
