// SPDX-License-Identifier: GPL-2.0
/*
 * The keys of mdkd.conf, one table (name, scope, type, default, range,
 * help), and the parsers and formatters of their values: see config.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <mdk/err.h>
#include <mdk/evaluator.h>
#include <mdk/policy.h>
#include <mdk/tier.h>

#include "config.h"

#define G(field)                             \
	offsetof(struct mdkd_global, field), \
		sizeof(((struct mdkd_global *)0)->field)
#define S(field)                               \
	offsetof(struct mdkd_settings, field), \
		sizeof(((struct mdkd_settings *)0)->field)

/*
 * The keys, in the order the shipped file lists them.  Ranges: seconds for
 * durations, percent for percentages, bytes for sizes.
 */
const struct mdkd_key mdkd_keys[] = {
	{ "socket", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(socket),
	  "/run/mdk/mdkd.sock", 0, 0, true, false,
	  "the control socket (mode 0600) that mdkctl talks to" },
	{ "cgroup_root", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(cgroup_root),
	  "/sys/fs/cgroup", 0, 0, true, false,
	  "where cgroup2 is mounted; [cgroup] paths are relative to it" },
	{ "proc_root", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(proc_root), "/proc", 0,
	  0, true, false, "where procfs is mounted (meminfo)" },
	{ "sys_root", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(sys_root), "/sys", 0, 0,
	  true, false,
	  "where sysfs is mounted (zswap, the CMM-MP node, NUMA nodes)" },
	{ "state_dir", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(state_dir), "/run/mdk",
	  0, 0, true, false,
	  "the journal of limits to restore after a crash (high-pulse actuator, backend auto's page-outs past zswap)" },
	{ "prometheus_file", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(prometheus_file),
	  "", 0, 0, false, true,
	  "metrics in Prometheus text format, replaced atomically every interval (node_exporter textfile collector); empty: off" },
	{ "record_file", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(record_file), "", 0,
	  0, false, true,
	  "append one CSV line per cgroup per interval; empty: off" },
	{ "rescan_interval", MDKD_SCOPE_GLOBAL, MDKD_T_DURATION,
	  G(rescan_interval_us), "30s", 0.01, 86400, false, false,
	  "how often [cgroup] globs are matched again to find new cgroups" },
	{ "log_level", MDKD_SCOPE_GLOBAL, MDKD_T_LOGLEVEL, G(log_level), "info",
	  0, 0, false, false,
	  "err, warning, notice, info or debug (one line per decision)" },
	{ "swap_max_used", MDKD_SCOPE_GLOBAL, MDKD_T_PERCENT,
	  G(limits.swap_max_used), "80%", 1, 100, false, false,
	  "swap-backed reclaim (memory.reclaim of anonymous memory, pageout) stops while swap, or the zswap pool against its max_pool_percent, is fuller than this; resumes 5 points below" },
	{ "swapout_max_rate", MDKD_SCOPE_GLOBAL, MDKD_T_BYTES,
	  G(limits.swapout_max_rate), "0", 0, 9.2e18, false, false,
	  "swap-backed reclaim stops while the host swaps out more than this many bytes a second (pswpout), resumes below half; 0: off" },
	{ "host_max_rate", MDKD_SCOPE_GLOBAL, MDKD_T_BYTES,
	  G(limits.host_max_rate), "0", 0, 9.2e18, false, false,
	  "bytes a second all cgroups together may reclaim, page out or migrate; 0: no cap" },
	{ "max_cpu", MDKD_SCOPE_GLOBAL, MDKD_T_PERCENT, G(limits.max_cpu), "0%",
	  0, 100, false, false,
	  "share of one core mdkd's own work may take (sampler walks included); over it, cgroups due are put off; 0: no cap" },
	{ "active_below", MDKD_SCOPE_GLOBAL, MDKD_T_PERCENT,
	  G(limits.active_below), "100%", 0.1, 100, false, false,
	  "free memory (MemFree, share of MemTotal) at or above which mdkd neither samples nor reclaims; 100%: always active" },
	{ "dram_free_min", MDKD_SCOPE_GLOBAL, MDKD_T_PERCENT,
	  G(tiers.dram_free_min), "0%", 0, 95, false, false,
	  "keep at least this share of the DRAM nodes free by demoting to the CMM-MP node the coldest pages (by idle age) of policy-mode cgroups with backend cxl; 0: off" },
	{ "tier_used_max", MDKD_SCOPE_GLOBAL, MDKD_T_PERCENT,
	  G(tiers.tier_used_max), "90%", 1, 100, false, false,
	  "demotions to the CMM-MP node (dram_free_min's and policy mode's) stop while the node is this full" },
	{ "tier_file", MDKD_SCOPE_GLOBAL, MDKD_T_PATH, G(tier_file),
	  "/var/lib/mdk/tiers", 0, 0, false, true,
	  "the back ends' measured costs (mdkctl tier calibrate writes it), read at start and on reload; missing: no costs; empty: off" },
	{ "mode", MDKD_SCOPE_CGROUP, MDKD_T_MODE, S(mode), "senpai", 0, 0,
	  false, false,
	  "senpai (the TMO law), senpai-integral (senpai.py's controller), policy (page policies on the sampler's windows) or off (observe only)" },
	{ "actuator", MDKD_SCOPE_CGROUP, MDKD_T_ACTUATOR, S(actuator), "auto",
	  0, 0, false, false,
	  "auto (policy mode: by backend; else reclaim where memory.reclaim exists, else high-pulse), reclaim, high-pulse, pageout, migrate or tier (backend auto)" },
	{ "interval", MDKD_SCOPE_CGROUP, MDKD_T_DURATION, S(interval_us), "6s",
	  0.01, 3600, false, false, "time between two samples and decisions" },
	{ "psi_threshold", MDKD_SCOPE_CGROUP, MDKD_T_PERCENT, S(psi_threshold),
	  "0.1%", 0.0001, 100, false, false,
	  "memory pressure (PSI some, share of the interval) at which reclaim stops" },
	{ "reclaim_ratio", MDKD_SCOPE_CGROUP, MDKD_T_DOUBLE, S(reclaim_ratio),
	  "0.0005", 0, 1, false, false,
	  "share of memory.current reclaimed per interval at zero pressure" },
	{ "min_bytes", MDKD_SCOPE_CGROUP, MDKD_T_BYTES, S(min_bytes), "0", 0,
	  9.2e18, false, false,
	  "never reclaim below max(min_bytes, memory.min) plus unreclaimable memory" },
	{ "max_bytes", MDKD_SCOPE_CGROUP, MDKD_T_BYTES, S(max_bytes), "0", 0,
	  9.2e18, false, false,
	  "most bytes reclaimed in one interval; 0: no cap" },
	{ "max_rate", MDKD_SCOPE_CGROUP, MDKD_T_BYTES, S(max_rate), "0", 0,
	  9.2e18, false, false,
	  "bytes a second this cgroup may reclaim, page out or migrate (over its interval); 0: no cap" },
	{ "reclaim_swappiness", MDKD_SCOPE_CGROUP, MDKD_T_INT,
	  S(reclaim_swappiness), "-1", -1, 200, false, false,
	  "swappiness= of each memory.reclaim write (0: file pages only, 200: anonymous only) where the kernel takes it; -1: the kernel's" },
	{ "io_psi_threshold", MDKD_SCOPE_CGROUP, MDKD_T_PERCENT,
	  S(io_psi_threshold), "10%", 0, 100, false, false,
	  "IO pressure (PSI some) above which reclaim pauses" },
	{ "backoff_max", MDKD_SCOPE_CGROUP, MDKD_T_UINT, S(backoff_max), "8", 0,
	  1000000, false, false,
	  "intervals skipped at most after memory.reclaim fails with EAGAIN or EBUSY (1, 2, 4, ...)" },
	{ "max_probe", MDKD_SCOPE_CGROUP, MDKD_T_DOUBLE, S(max_probe), "0.01",
	  0, 1, false, false,
	  "senpai-integral: largest share the limit drops by in one interval" },
	{ "max_backoff", MDKD_SCOPE_CGROUP, MDKD_T_DOUBLE, S(max_backoff),
	  "1.0", 0, 100, false, false,
	  "senpai-integral: largest share the limit rises by in one interval" },
	{ "coeff_probe", MDKD_SCOPE_CGROUP, MDKD_T_DOUBLE, S(coeff_probe), "10",
	  0.001, 1e6, false, false,
	  "senpai-integral: probe sensitivity (larger: gentler)" },
	{ "coeff_backoff", MDKD_SCOPE_CGROUP, MDKD_T_DOUBLE, S(coeff_backoff),
	  "20", 0.001, 1e6, false, false,
	  "senpai-integral: back-off sensitivity (larger: gentler)" },
	{ "window", MDKD_SCOPE_CGROUP, MDKD_T_DURATION, S(window_us), "30s",
	  0.01, 3600, false, false,
	  "policy: the sampler's window, the mode's interval" },
	{ "policy", MDKD_SCOPE_CGROUP, MDKD_T_POLICY, S(policy), "pace", 0, 0,
	  false, false,
	  "policy: age:T=N, paw:P=N,wait=N, pace:P=N,A=N or lopp:theta=F (learnt live); with auto_tune, a name (or partial setting) to tune" },
	{ "auto_tune", MDKD_SCOPE_CGROUP, MDKD_T_BOOL, S(auto_tune), "on", 0, 0,
	  false, false,
	  "policy: run the setting of that policy that saves most within target_rate over the horizon" },
	{ "target_rate", MDKD_SCOPE_CGROUP, MDKD_T_PERCENT, S(target_rate),
	  "1%", 0, 100, false, false,
	  "policy: the cgroup's promotion-rate target, max over windows of promotions / accessed pages" },
	{ "horizon", MDKD_SCOPE_CGROUP, MDKD_T_UINT, S(horizon), "240", 2,
	  MDK_EVAL_MAX_HORIZON, false, false,
	  "policy: windows the live curves cover (240 x 30s = 2h); a change restarts the evaluation" },
	{ "evaluate", MDKD_SCOPE_CGROUP, MDKD_T_POLICIES, S(evaluate),
	  "age,paw,pace,opp", 0, 0, false, false,
	  "policy: the policies whose live curves are kept (libmdk specs); a change restarts the evaluation" },
	{ "warmup", MDKD_SCOPE_CGROUP, MDKD_T_UINT, S(warmup), "10", 0,
	  MDK_EVAL_MAX_HORIZON, false, false,
	  "policy: windows of history before auto-tune moves pages" },
	{ "backend", MDKD_SCOPE_CGROUP, MDKD_T_BACKEND, S(backend), "swap", 0,
	  0, false, false,
	  "policy: swap (swap or zswap, actuator pageout), cxl (the CMM-MP node, actuator migrate) or auto (each page to the tier its idle time makes cheapest within target_stall, actuator tier)" },
	{ "tier_node", MDKD_SCOPE_CGROUP, MDKD_T_INT, S(tier_node), "-1", -1,
	  65535, false, false,
	  "policy, cxl: the CMM-MP NUMA node; -1: read /sys/kernel/cmm_mp/node" },
	{ "cxl_promote", MDKD_SCOPE_CGROUP, MDKD_T_BOOL, S(cxl_promote), "on",
	  0, 0, false, false,
	  "policy, cxl: move pages of the CMM-MP node accessed again back to DRAM" },
	{ "drop_swap_cache", MDKD_SCOPE_CGROUP, MDKD_T_BOOL, S(drop_swap_cache),
	  "on", 0, 0, false, false,
	  "policy, swap: memory.reclaim what page-outs left in the swap cache, between the sampler's walk and reset (anon only where it can); the curves count what else came back" },
	{ "rate_guard", MDKD_SCOPE_CGROUP, MDKD_T_BOOL, S(rate_guard), "on", 0,
	  0, false, false,
	  "policy, lopp: a window whose measured rate exceeds target_rate raises theta halfway to 1 (fewer reclaims); a horizon of windows within it lowers it a step" },
	{ "lopp_model", MDKD_SCOPE_CGROUP, MDKD_T_LOPP_MODEL, S(lopp_model),
	  "logistic", 0, 0, false, false,
	  "policy, lopp: the model fitted live, logistic (regression) or trees (gradient-boosted); a change restarts the evaluation" },
	{ "trace_file", MDKD_SCOPE_CGROUP, MDKD_T_PATH, S(trace_file), "", 0, 0,
	  false, true,
	  "policy: also write the sampled windows to this access-bit trace (.mdkt); empty: off" },
	/* backend auto */
	{ "target_stall", MDKD_SCOPE_CGROUP, MDKD_T_PERCENT, S(target_stall),
	  "1%", 0, 100, false, false,
	  "policy, auto: the cgroup's stall target, max over windows of the stall of its promotions (each at its tier's cost) / the window's length" },
	{ "tiers", MDKD_SCOPE_CGROUP, MDKD_T_TIERS, S(tiers), "", 0, 0, false,
	  true,
	  "policy, auto: the cgroup's tier list (cxl:cost=2us,cap=64K;zswap:cost=9us,ratio=3), used as given; empty: tier_file's, zswap at the cgroup's measured ratio" },
};

const size_t mdkd_nkeys = sizeof(mdkd_keys) / sizeof(mdkd_keys[0]);

static const char *const log_levels[] = {
	[LOG_ERR] = "err",   [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

const struct mdkd_key *mdkd_key_find(const char *name)
{
	size_t i;

	for (i = 0; i < mdkd_nkeys; i++)
		if (!strcmp(mdkd_keys[i].name, name))
			return &mdkd_keys[i];
	return NULL;
}

/* A non-negative finite number and the text after it. */
static int parse_num(const char *s, double *v, const char **rest)
{
	char *end;

	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v))
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	*rest = end;
	return 0;
}

static int parse_duration(const struct mdkd_key *k, const char *s, void *f,
			  char *err, size_t errlen)
{
	static const struct {
		const char *unit;
		double us;
	} units[] = { { "", 1e6 },    { "s", 1e6 }, { "sec", 1e6 },
		      { "ms", 1e3 },  { "us", 1 },  { "min", 60e6 },
		      { "h", 3600e6 } };
	const char *rest;
	double v;
	size_t i;

	if (!parse_num(s, &v, &rest))
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(rest, units[i].unit)) {
				double us = v * units[i].us;

				if (us < k->min * 1e6 || us > k->max * 1e6)
					break;
				*(uint64_t *)f = (uint64_t)llround(us);
				return 0;
			}
	return mdk_err(
		err, errlen, -EINVAL,
		"%s: expected a duration (6s, 500ms, 2min) from %gs to %gs, got '%s'",
		k->name, k->min, k->max, s);
}

static int parse_percent(const struct mdkd_key *k, const char *s, void *f,
			 char *err, size_t errlen)
{
	const char *rest;
	double v;

	if (!parse_num(s, &v, &rest) && (!*rest || !strcmp(rest, "%")) &&
	    v >= k->min && v <= k->max) {
		*(double *)f = v / 100;
		return 0;
	}
	return mdk_err(
		err, errlen, -EINVAL,
		"%s: expected a percentage from %g%% to %g%% (0.1 or 0.1%%), got '%s'",
		k->name, k->min, k->max, s);
}

static int parse_double(const struct mdkd_key *k, const char *s, void *f,
			char *err, size_t errlen)
{
	const char *rest;
	double v;

	if (!parse_num(s, &v, &rest) && !*rest && v >= k->min && v <= k->max) {
		*(double *)f = v;
		return 0;
	}
	return mdk_err(err, errlen, -EINVAL,
		       "%s: expected a number from %g to %g, got '%s'", k->name,
		       k->min, k->max, s);
}

static int parse_bytes(const struct mdkd_key *k, const char *s, void *f,
		       char *err, size_t errlen)
{
	static const char *const sfx = "KMGT";
	const char *rest;
	double v, mult = 1;

	if (!parse_num(s, &v, &rest)) {
		const char *p = strchr(sfx, toupper((unsigned char)*rest));

		if (*rest && p) {
			mult = ldexp(1, 10 * (int)(p - sfx + 1));
			rest++;
			if (!strcmp(rest, "iB") || !strcmp(rest, "B"))
				rest += strlen(rest);
		} else if (!strcmp(rest, "B")) {
			rest++;
		}
		v *= mult;
		if (!*rest && v == floor(v) && v >= k->min && v <= k->max) {
			*(uint64_t *)f = (uint64_t)v;
			return 0;
		}
	}
	return mdk_err(
		err, errlen, -EINVAL,
		"%s: expected a size in bytes (4096, 512M, 2G), got '%s'",
		k->name, s);
}

static int parse_uint(const struct mdkd_key *k, const char *s, void *f,
		      char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoull(s, &end, 10);
		if (!*end && !errno && v >= k->min && v <= k->max) {
			*(unsigned int *)f = (unsigned int)v;
			return 0;
		}
	}
	return mdk_err(err, errlen, -EINVAL,
		       "%s: expected an integer from %g to %g, got '%s'",
		       k->name, k->min, k->max, s);
}

static int parse_mode(const struct mdkd_key *k, const char *s, void *f,
		      char *err, size_t errlen)
{
	const struct mdkd_mode_ops *m = mdkd_mode_find(s);
	char names[256] = "";
	size_t i;

	if (m) {
		*(const struct mdkd_mode_ops **)f = m;
		return 0;
	}
	for (i = 0; mdkd_modes[i]; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", mdkd_modes[i]->name);
	return mdk_err(err, errlen, -EINVAL, "%s: expected one of %s, got '%s'",
		       k->name, names, s);
}

static int parse_actuator(const struct mdkd_key *k, const char *s, void *f,
			  char *err, size_t errlen)
{
	const struct mdkd_actuator_ops *a = mdkd_actuator_find(s);
	char names[256] = "auto";
	size_t i;

	if (a || !strcmp(s, "auto")) {
		*(const struct mdkd_actuator_ops **)f = a;
		return 0;
	}
	for (i = 0; mdkd_actuators[i]; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 ", %s", mdkd_actuators[i]->name);
	return mdk_err(err, errlen, -EINVAL, "%s: expected one of %s, got '%s'",
		       k->name, names, s);
}

static int parse_path(const struct mdkd_key *k, const char *s, void *f,
		      char *err, size_t errlen)
{
	size_t n = strlen(s);

	if (!n && k->empty_ok) {
		*(char *)f = '\0';
		return 0;
	}
	if (s[0] == '/' && n < k->size && !strchr(s, '\n')) {
		memcpy(f, s, n + 1);
		return 0;
	}
	return mdk_err(
		err, errlen, -EINVAL,
		"%s: expected an absolute path%s shorter than %zu bytes, got '%s'",
		k->name, k->empty_ok ? " (or nothing: off)" : "", k->size, s);
}

static int parse_loglevel(const struct mdkd_key *k, const char *s, void *f,
			  char *err, size_t errlen)
{
	int i;

	for (i = LOG_ERR; i <= LOG_DEBUG; i++)
		if (!strcmp(s, log_levels[i])) {
			*(int *)f = i;
			return 0;
		}
	return mdk_err(
		err, errlen, -EINVAL,
		"%s: expected err, warning, notice, info or debug, got '%s'",
		k->name, s);
}

static int parse_bool(const struct mdkd_key *k, const char *s, void *f,
		      char *err, size_t errlen)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i])) {
			*(bool *)f = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*(bool *)f = false;
			return 0;
		}
	}
	return mdk_err(err, errlen, -EINVAL, "%s: expected on or off, got '%s'",
		       k->name, s);
}

static int parse_int(const struct mdkd_key *k, const char *s, void *f,
		     char *err, size_t errlen)
{
	long long v;
	char *end;

	if ((*s >= '0' && *s <= '9') ||
	    (*s == '-' && s[1] >= '0' && s[1] <= '9')) {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (!*end && !errno && v >= k->min && v <= k->max) {
			*(int *)f = (int)v;
			return 0;
		}
	}
	return mdk_err(err, errlen, -EINVAL,
		       "%s: expected an integer from %g to %g, got '%s'",
		       k->name, k->min, k->max, s);
}

/* A string key: shorter than its field, no newline. */
static int string_fits(const struct mdkd_key *k, const char *s, char *err,
		       size_t errlen)
{
	if (strlen(s) < k->size && !strchr(s, '\n'))
		return 0;
	return mdk_err(err, errlen, -EINVAL, "%s: longer than %zu characters",
		       k->name, k->size - 1);
}

static int parse_policy(const struct mdkd_key *k, const char *s, void *f,
			char *err, size_t errlen)
{
	struct mdk_policy *p;
	char why[256], spec[MDKD_SPEC_MAX * 2];
	int ret;

	if (string_fits(k, s, err, errlen))
		return -EINVAL;
	ret = mdk_policy_new(s, &p, why, sizeof(why));
	if (ret)
		return mdk_err(err, errlen, -EINVAL, "%s: %s", k->name, why);
	if (!mdk_policy_online(p)) {
		mdk_policy_free(p);
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: expected age, paw, pace or lopp (policies that decide online), got '%s'",
			k->name, s);
	}
	/* Given parameters hold one value each: a setting, not a grid. */
	mdk_policy_spec(p, spec, sizeof(spec));
	mdk_policy_free(p);
	if (strchr(spec, '/') || strchr(spec, '-'))
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: expected one value per parameter (as in pace:P=4,A=2), got '%s'",
			k->name, s);
	memcpy(f, s, strlen(s) + 1);
	return 0;
}

static int parse_policies(const struct mdkd_key *k, const char *s, void *f,
			  char *err, size_t errlen)
{
	struct mdk_policy **pols;
	char why[256];
	size_t n, i, j;
	int ret = 0;

	if (string_fits(k, s, err, errlen))
		return -EINVAL;
	if (mdk_policy_parse_list(s, &pols, &n, why, sizeof(why)))
		return mdk_err(err, errlen, -EINVAL, "%s: %s", k->name, why);
	for (i = 0; i < n && !ret; i++) {
		if (mdk_policy_kind(pols[i]) == MDK_POLICY_CACHE)
			ret = mdk_err(
				err, errlen, -EINVAL,
				"%s: %s has no MPC (expected age, vmin, paw, pace, opp, lopp)",
				k->name, mdk_policy_name(pols[i]));
		for (j = 0; j < i && !ret; j++)
			if (!strcmp(mdk_policy_name(pols[i]),
				    mdk_policy_name(pols[j])))
				ret = mdk_err(
					err, errlen, -EINVAL,
					"%s: %s listed twice (one curve per policy)",
					k->name, mdk_policy_name(pols[i]));
	}
	for (i = 0; i < n; i++)
		mdk_policy_free(pols[i]);
	free(pols);
	if (!ret)
		memcpy(f, s, strlen(s) + 1);
	return ret;
}

static int parse_backend(const struct mdkd_key *k, const char *s, void *f,
			 char *err, size_t errlen)
{
	int i;

	for (i = 0; i < MDKD_BACKEND_NR; i++)
		if (!strcmp(s, mdkd_backend_names[i])) {
			*(int *)f = i;
			return 0;
		}
	return mdk_err(err, errlen, -EINVAL,
		       "%s: expected swap, cxl or auto, got '%s'", k->name, s);
}

static int parse_lopp_model(const struct mdkd_key *k, const char *s, void *f,
			    char *err, size_t errlen)
{
	int i;

	for (i = 0; i < MDKD_LOPP_MODEL_NR; i++)
		if (!strcmp(s, mdkd_lopp_model_names[i])) {
			*(int *)f = i;
			return 0;
		}
	return mdk_err(err, errlen, -EINVAL,
		       "%s: expected logistic or trees, got '%s'", k->name, s);
}

/* A tier list of the tiers mdkd knows, each at most once. */
static int parse_tiers(const struct mdkd_key *k, const char *s, void *f,
		       char *err, size_t errlen)
{
	static const char *const known[] = { "cxl", "zswap", "swap" };
	struct mdk_tiers t;
	char why[256];
	unsigned int i, j;

	if (strlen(s) >= k->size)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: expected a tier list shorter than %zu bytes",
			k->name, k->size);
	if (*s && mdk_tiers_parse(s, &t, why, sizeof(why)))
		return mdk_err(err, errlen, -EINVAL, "%s: %s", k->name, why);
	for (i = 0; *s && i < t.n; i++) {
		for (j = 0; j < 3 && strcmp(t.t[i].name, known[j]); j++)
			;
		if (j == 3 || mdk_tiers_find(&t, t.t[i].name) != (int)i)
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: tier %u: expected cxl, zswap or swap, each once, got '%s'",
				k->name, i + 1, t.t[i].name);
	}
	memcpy(f, s, strlen(s) + 1);
	return 0;
}

typedef int (*key_parser)(const struct mdkd_key *k, const char *s, void *f,
			  char *err, size_t errlen);

static const key_parser parsers[] = {
	[MDKD_T_DURATION] = parse_duration,
	[MDKD_T_PERCENT] = parse_percent,
	[MDKD_T_DOUBLE] = parse_double,
	[MDKD_T_BYTES] = parse_bytes,
	[MDKD_T_UINT] = parse_uint,
	[MDKD_T_MODE] = parse_mode,
	[MDKD_T_ACTUATOR] = parse_actuator,
	[MDKD_T_PATH] = parse_path,
	[MDKD_T_LOGLEVEL] = parse_loglevel,
	[MDKD_T_BOOL] = parse_bool,
	[MDKD_T_INT] = parse_int,
	[MDKD_T_POLICY] = parse_policy,
	[MDKD_T_POLICIES] = parse_policies,
	[MDKD_T_BACKEND] = parse_backend,
	[MDKD_T_LOPP_MODEL] = parse_lopp_model,
	[MDKD_T_TIERS] = parse_tiers,
};

static bool key_is_string(const struct mdkd_key *k)
{
	return k->type == MDKD_T_PATH || k->type == MDKD_T_POLICY ||
	       k->type == MDKD_T_POLICIES || k->type == MDKD_T_TIERS;
}

int mdkd_key_parse(const struct mdkd_key *k, const char *s, void *base,
		   char *err, size_t errlen)
{
	union {
		char path[MDKD_PATH_MAX];
		uint64_t u64;
		double d;
		const void *p;
		int i;
		bool b;
	} tmp;
	int ret;

	ret = parsers[k->type](k, s, &tmp, err, errlen);
	if (!ret)
		memcpy((char *)base + k->offset, &tmp,
		       key_is_string(k) ? strlen(tmp.path) + 1 : k->size);
	return ret;
}

void mdkd_key_format(const struct mdkd_key *k, const void *base, char *buf,
		     size_t len)
{
	const void *f = (const char *)base + k->offset;
	uint64_t u;
	int i;

	switch (k->type) {
	case MDKD_T_DURATION:
		u = *(const uint64_t *)f;
		if (u % 1000000 == 0)
			snprintf(buf, len, "%llus",
				 (unsigned long long)u / 1000000);
		else if (u % 1000 == 0)
			snprintf(buf, len, "%llums",
				 (unsigned long long)u / 1000);
		else
			snprintf(buf, len, "%lluus", (unsigned long long)u);
		break;
	case MDKD_T_PERCENT:
		snprintf(buf, len, "%g%%", *(const double *)f * 100);
		break;
	case MDKD_T_DOUBLE:
		snprintf(buf, len, "%g", *(const double *)f);
		break;
	case MDKD_T_BYTES:
		u = *(const uint64_t *)f;
		for (i = 4; i > 0; i--)
			if (u && !(u & ((1ULL << (10 * i)) - 1)))
				break;
		if (i)
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(u >> (10 * i)),
				 "KMGT"[i - 1]);
		else
			snprintf(buf, len, "%llu", (unsigned long long)u);
		break;
	case MDKD_T_UINT:
		snprintf(buf, len, "%u", *(const unsigned int *)f);
		break;
	case MDKD_T_MODE:
		snprintf(buf, len, "%s",
			 (*(const struct mdkd_mode_ops *const *)f)->name);
		break;
	case MDKD_T_ACTUATOR:
		snprintf(buf, len, "%s",
			 *(const struct mdkd_actuator_ops *const *)f ?
				 (*(const struct mdkd_actuator_ops *const *)f)
					 ->name :
				 "auto");
		break;
	case MDKD_T_PATH:
	case MDKD_T_POLICY:
	case MDKD_T_POLICIES:
	case MDKD_T_TIERS:
		snprintf(buf, len, "%s", (const char *)f);
		break;
	case MDKD_T_BOOL:
		snprintf(buf, len, "%s", *(const bool *)f ? "on" : "off");
		break;
	case MDKD_T_INT:
		snprintf(buf, len, "%d", *(const int *)f);
		break;
	case MDKD_T_BACKEND:
		snprintf(buf, len, "%s", mdkd_backend_name(*(const int *)f));
		break;
	case MDKD_T_LOPP_MODEL:
		snprintf(buf, len, "%s", mdkd_lopp_model_name(*(const int *)f));
		break;
	case MDKD_T_LOGLEVEL:
		i = *(const int *)f;
		snprintf(buf, len, "%s",
			 i >= LOG_ERR && i <= LOG_DEBUG ? log_levels[i] : "?");
		break;
	}
}
