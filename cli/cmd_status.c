// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl status [-j|--csv] [CGROUP]: what mdkd does, from its control
 * socket: the daemon (its limits, tier goals and the back ends' measured
 * costs), then one line per managed cgroup with the metrics of its last
 * interval and its totals, and for policy mode its compression ratio and
 * back ends' counters.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "client.h"
#include "daemon/jsonout.h"
#include "mdkctl.h"

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;
	const char *s = NULL;

	/* A null value ("held": null) reads as no string too. */
	if (json_object_object_get_ex(o, key, &v))
		s = json_object_get_string(v);
	return s ? s : "";
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
		       json_object_get_double(v) :
		       0;
}

static struct json_object *sub(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *const csv_cols[] = {
	"cgroup",     "mode",	      "actuator",      "memory_current",
	"floor",      "reclaimed",    "last_reclaim",  "result",
	"reason",     "psi_some_pct", "psi_full_pct",  "some_avg10",
	"full_avg10", "swapin_bytes", "swapout_bytes", "refaults",
	"intervals",
};

/* The limit that held @lim's cgroup back, "file-only" when the swap
 * valve let its memory.reclaim go on file pages only, else "-". */
static void cg_held(struct json_object *lim, char *buf, size_t len)
{
	const char *held = str(lim, "held");
	bool fo = json_object_get_boolean(sub(lim, "file_only"));

	if (*held && strcmp(held, "none"))
		snprintf(buf, len, "%s%s", held, fo ? ",file-only" : "");
	else
		snprintf(buf, len, "%s", fo ? "file-only" : "-");
}

/* The host's limits: activation, the CPU cap, the swap valve. */
static void print_limits(struct json_object *l)
{
	char total[16], rate[16], maxb[16], max[24] = "off", valve[48];

	if (!l)
		return;
	printf("host: %s, %.1f%% of memory free (active_below %.0f%%); CPU cap ",
	       json_object_get_boolean(sub(l, "active")) ? "active" :
							   "inactive",
	       num(l, "mem_free_pct"), num(l, "active_below_pct"));
	if (num(l, "max_cpu_pct") > 0)
		printf("%.1f%%", num(l, "max_cpu_pct"));
	else
		printf("off");
	printf(", %.0f deferred\n", num(l, "cpu_deferred"));
	/* The daemon sends "open" or the reason it is closed. */
	if (strcmp(str(l, "swap_valve"), "open"))
		snprintf(valve, sizeof(valve), "closed (%s)",
			 str(l, "swap_valve"));
	else
		snprintf(valve, sizeof(valve), "open");
	mdkctl_client_bytes(num(l, "swap_total"), total, sizeof(total));
	mdkctl_client_bytes(num(l, "swapout_bytes_per_s"), rate, sizeof(rate));
	if (num(l, "swapout_max_rate") > 0)
		snprintf(max, sizeof(max), "%s/s",
			 mdkctl_client_bytes(num(l, "swapout_max_rate"), maxb,
					     sizeof(maxb)));
	printf("swap valve: %s: swap %.1f%% of %s used (max %.0f%%), zswap pool %.1f%%, swap-out %s/s (max %s), closed %.0f time%s\n",
	       valve, num(l, "swap_used_pct"), total,
	       num(l, "swap_max_used_pct"), num(l, "zswap_pool_used_pct"), rate,
	       max, num(l, "valve_closures"),
	       num(l, "valve_closures") == 1 ? "" : "s");
}

/* The tier goals: DRAM free against dram_free_min, the CMM-MP node's use
 * against tier_used_max, and what held them. */
static void print_tiers(struct json_object *t)
{
	char need[16], dem[16], pro[16];

	if (!t || num(t, "tier_node") < 0)
		return;
	printf("tiers: node %.0f %.1f%% used (max %.0f%%); DRAM %.1f%% free (goal ",
	       num(t, "tier_node"), num(t, "tier_used_pct"),
	       num(t, "tier_used_max_pct"), num(t, "dram_free_pct"));
	if (json_object_get_boolean(sub(t, "goal_on")))
		printf("%.0f%%, %s missing)", num(t, "dram_free_min_pct"),
		       mdkctl_client_bytes(num(t, "need_bytes"), need,
					   sizeof(need)));
	else
		printf("off)");
	printf("; demoted %s, promoted %s%s%s\n",
	       mdkctl_client_bytes(num(t, "demoted_bytes"), dem, sizeof(dem)),
	       mdkctl_client_bytes(num(t, "promoted_bytes"), pro, sizeof(pro)),
	       *str(t, "held") ? "; held: " : "", str(t, "held"));
}

/* The back ends' measured costs (tier_file): per tier, cost and cap. */
static void print_costs(struct json_object *c)
{
	struct json_object *arr = sub(c, "tiers"), *t;
	size_t i, n = arr ? json_object_array_length(arr) : 0;

	if (!c)
		return;
	if (!json_object_get_boolean(sub(c, "loaded"))) {
		printf("tier costs: none (%s%s%s)\n", str(c, "file"),
		       *str(c, "file") ? ": " : "", str(c, "note"));
		return;
	}
	printf("tier costs:");
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(arr, i);
		printf("%s %s %.1f us", i ? "," : "", str(t, "name"),
		       num(t, "cost_ns") / 1e3);
		if (sub(t, "capacity_pages"))
			printf(" (cap %.0f pages)", num(t, "capacity_pages"));
	}
	printf("; from %s, %s\n", str(c, "file"), str(c, "date"));
}

/* A policy-mode cgroup's compressibility and back ends' counters. */
static void print_cg_costs(struct json_object *t)
{
	if (!t)
		return;
	printf("  tiers: ratio ");
	if (sub(t, "ratio"))
		printf("%.2f (%s, saves %.0f%% in zswap)", num(t, "ratio"),
		       str(t, "ratio_source"), num(t, "save") * 100);
	else
		printf("unknown");
	printf(", swap-ins %.0f", num(t, "swapins"));
	if (strcmp(str(t, "swapins_source"), "memory.stat"))
		printf(" (%s)", str(t, "swapins_source"));
	if (sub(t, "zswap_loads"))
		printf(", zswap loads %.0f", num(t, "zswap_loads"));
	if (sub(t, "zswap_writebacks"))
		printf(", zswap writebacks %.0f", num(t, "zswap_writebacks"));
	printf(", cxl promotions %.0f, memory PSI some %.3f s\n",
	       num(t, "cxl_promotions"), num(t, "psi_some_total_us") / 1e6);
}

static void print_cgroup(struct json_object *cg, bool csv)
{
	struct json_object *psi = sub(cg, "psi"), *last = sub(cg, "last"),
			   *tot = sub(cg, "totals");
	char cur[16], floor[16], rec[16], lastb[16], in[16], out[16];
	char held[48];

	if (csv) {
		printf("%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%s,%s,%.4f,%.4f,%.2f,%.2f,%.0f,%.0f,%.0f,%.0f\n",
		       str(cg, "path"), str(cg, "mode"), str(cg, "actuator"),
		       num(cg, "memory_current"), num(cg, "floor"),
		       num(tot, "reclaimed_bytes"), num(last, "reclaim_bytes"),
		       str(last, "result"), str(last, "reason"),
		       num(psi, "some_interval_pct"),
		       num(psi, "full_interval_pct"), num(psi, "some_avg10"),
		       num(psi, "full_avg10"), num(last, "swapin_bytes"),
		       num(last, "swapout_bytes"), num(last, "refaults"),
		       num(tot, "intervals"));
		return;
	}
	cg_held(sub(cg, "limits"), held, sizeof(held));
	printf("%-24s %-15s %-10s %8s %8s %9s %8s %-7s %6.2f%% %6.2f%% %6.2f %8s %8s %8.0f %-12s %s\n",
	       str(cg, "path"), str(cg, "mode"), str(cg, "actuator"),
	       mdkctl_client_bytes(num(cg, "memory_current"), cur, sizeof(cur)),
	       mdkctl_client_bytes(num(cg, "floor"), floor, sizeof(floor)),
	       mdkctl_client_bytes(num(tot, "reclaimed_bytes"), rec,
				   sizeof(rec)),
	       mdkctl_client_bytes(num(last, "reclaim_bytes"), lastb,
				   sizeof(lastb)),
	       str(last, "result"), num(psi, "some_interval_pct"),
	       num(psi, "full_interval_pct"), num(psi, "some_avg10"),
	       mdkctl_client_bytes(num(last, "swapin_bytes"), in, sizeof(in)),
	       mdkctl_client_bytes(num(last, "swapout_bytes"), out,
				   sizeof(out)),
	       num(last, "refaults"), str(last, "reason"), held);
	print_cg_costs(sub(sub(cg, "policy"), "tiers"));
}

static int usage(void)
{
	fprintf(stderr,
		"usage: mdkctl [-s SOCKET] status [-j|--csv] [CGROUP]\n");
	return 2;
}

struct status_opts {
	bool json, csv;
	const char *filter; /* CGROUP */
};

/* 0; 2 after the usage; MDKCTL_DONE after --help. */
static int parse_status(int argc, char **argv, struct status_opts *o)
{
	*o = (struct status_opts){ 0 };
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			usage(); /* on stderr, yet exit 0 */
			return MDKCTL_DONE;
		}
		if (!strcmp(argv[a], "-j") || !strcmp(argv[a], "--json"))
			o->json = true;
		else if (!strcmp(argv[a], "--csv"))
			o->csv = true;
		else if (argv[a][0] == '-' || o->filter)
			return usage();
		else
			o->filter = argv[a];
	}
	return o->json && o->csv ? usage() : 0;
}

/* The daemon's line and the head of the cgroups' table, or the CSV's. */
static void print_head(struct json_object *dm, size_t n, bool csv)
{
	if (csv) {
		for (size_t i = 0; i < sizeof(csv_cols) / sizeof(csv_cols[0]);
		     i++)
			printf("%s%s", i ? "," : "", csv_cols[i]);
		printf("\n");
		return;
	}
	printf("mdkd %s, pid %.0f, up %.0fs, config %s, memory.reclaim %s, %zu cgroup%s managed\n",
	       str(dm, "version"), num(dm, "pid"), num(dm, "uptime_s"),
	       str(dm, "config"),
	       json_object_get_boolean(sub(dm, "memory_reclaim")) ?
		       "yes" :
		       "no (high-pulse fallback)",
	       n, n == 1 ? "" : "s");
	if (*str(dm, "last_reload_error"))
		printf("last reload failed: %s\n",
		       str(dm, "last_reload_error"));
	print_limits(sub(dm, "limits"));
	print_tiers(sub(dm, "tiers"));
	print_costs(sub(dm, "tier_costs"));
	if (n)
		printf("%-24s %-15s %-10s %8s %8s %9s %8s %-7s %7s %7s %6s %8s %8s %8s %-12s %s\n",
		       "CGROUP", "MODE", "ACTUATOR", "CURRENT", "FLOOR",
		       "RECLAIMED", "LAST", "RESULT", "SOME", "FULL", "AVG10",
		       "SWAPIN", "SWAPOUT", "REFAULTS", "REASON", "LIMIT");
}

int mdkctl_cmd_status(int argc, char **argv)
{
	struct json_object *resp, *cgs;
	struct status_opts o;
	size_t i, n;
	int ret;

	ret = parse_status(argc, argv, &o);
	if (ret)
		return ret == MDKCTL_DONE ? 0 : ret;
	if (mdkctl_client_request(mdkctl_socket, "status", "status", o.filter,
				  NULL, &resp))
		return 1;
	if (o.json) {
		mdkd_json_print(stdout, resp);
		goto out;
	}
	cgs = sub(resp, "cgroups");
	n = cgs ? json_object_array_length(cgs) : 0;
	print_head(sub(resp, "daemon"), n, o.csv);
	for (i = 0; i < n; i++)
		print_cgroup(json_object_array_get_idx(cgs, i), o.csv);
out:
	json_object_put(resp);
	return 0;
}
