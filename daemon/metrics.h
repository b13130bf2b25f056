/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's metrics, per managed cgroup per interval: memory.current, what
 * was reclaimed, PSI some/full (avg10 and the share of the interval from
 * the total's delta), IO pressure, swap in/out, refaults, the decision.
 * Three views of the same data: the status JSON of the control socket
 * (mdkctl status), the Prometheus text file and the CSV record file;
 * record.c writes the two files.
 */
#ifndef MDKD_METRICS_H
#define MDKD_METRICS_H

#include <json-c/json.h>

#include "buf.h"
#include "cgroups.h"
#include "host.h"
#include "limits.h"
#include "tiers.h"

/* The first line of a record file: the column names. */
extern const char mdkd_record_header[];

/* mdkd_cgroup_json() - one managed cgroup, as mdkctl status shows it. */
struct json_object *mdkd_cgroup_json(const struct mdkd_cgroup *cg);

/*
 * mdkd_prometheus_text() - the metrics of the @n cgroups @cgs, and of the
 * limits @l on host @h (both NULL: none), in Prometheus text format 0.0.4.
 */
void mdkd_prometheus_text(struct mdkd_cgroup *const *cgs, size_t n,
			  const struct mdkd_limits *l,
			  const struct mdkd_host *h, struct mdkd_buf *b);

/* mdkd_prom_label() - a label value with \ " and newline escaped. */
void mdkd_prom_label(struct mdkd_buf *b, const char *s);

/* metrics_limits.c: the limits' part (limits.h, host.h). */

/* mdkd_limits_json() - the host-wide limits and readings, for status. */
struct json_object *mdkd_limits_json(const struct mdkd_limits *l,
				     const struct mdkd_host *h);

/* mdkd_limits_cg_json() - a cgroup's limit and action counters. */
struct json_object *mdkd_limits_cg_json(const struct mdkd_limits_cg *c);

/* mdkd_limits_prom() - the limits' Prometheus lines, host and cgroups. */
void mdkd_limits_prom(const struct mdkd_limits *l, const struct mdkd_host *h,
		      struct mdkd_cgroup *const *cgs, size_t n,
		      struct mdkd_buf *b);

/* metrics_tiers.c: the tier goals' part (tiers.h, host.h). */

/* mdkd_tiers_json() - the tier goals and the nodes' readings, for status. */
struct json_object *mdkd_tiers_json(const struct mdkd_tiers *t,
				    const struct mdkd_host *h);

/* mdkd_tiers_prom() - the tier goals' Prometheus lines. */
void mdkd_tiers_prom(const struct mdkd_tiers *t, const struct mdkd_host *h,
		     struct mdkd_buf *b);

/*
 * mdkd_record_csv() - one CSV line for the last interval of @cg, @t_us
 * after the daemon started.
 */
void mdkd_record_csv(const struct mdkd_cgroup *cg, uint64_t t_us,
		     struct mdkd_buf *b);

/* mdkd_result_name() - "ok", "EAGAIN", ... for an action's result. */
const char *mdkd_result_name(int result);

#endif /* MDKD_METRICS_H */
