/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's metrics, per managed cgroup per interval: memory.current, what
 * was reclaimed, PSI some/full (avg10 and the share of the interval from
 * the total's delta), IO pressure, swap in/out, refaults, the decision.
 * Three views of the same data: the status JSON of the control socket
 * (mdkctl status), the Prometheus text file and the CSV record file.
 */
#ifndef MDKD_METRICS_H
#define MDKD_METRICS_H

#include <json-c/json.h>

#include "buf.h"
#include "manager.h"

/* The first line of a record file: the column names. */
extern const char mdkd_record_header[];

/*
 * mdkd_status_json() - the daemon and every managed cgroup (only @filter
 * when not NULL).  Return: a new JSON object, or NULL (out of memory).
 */
struct json_object *mdkd_status_json(struct mdkd *d, const char *filter);

/* mdkd_cgroup_json() - one managed cgroup, as in the status. */
struct json_object *mdkd_cgroup_json(const struct mdkd_cgroup *cg);

/* mdkd_prometheus_text() - the metrics in Prometheus text format 0.0.4. */
void mdkd_prometheus_text(struct mdkd *d, struct mdkd_buf *b);

/*
 * mdkd_record_csv() - one CSV line for the last interval of @cg, @t_us
 * after the daemon started.
 */
void mdkd_record_csv(const struct mdkd_cgroup *cg, uint64_t t_us,
		     struct mdkd_buf *b);

/* mdkd_result_name() - "ok", "EAGAIN", ... for an action's result. */
const char *mdkd_result_name(int result);

/*
 * The record file (record_file: one CSV line an interval, appended) and
 * the Prometheus file (prometheus_file: rewritten whole, via FILE.tmp and
 * a rename), both written asynchronously on the daemon's loop.
 * mdkd_record_open() opens record_file if the configuration changed it;
 * mdkd_record_kick() writes what mdkd_record_csv() queued, one write in
 * flight at a time; mdkd_prom_flush() rewrites the Prometheus file (again
 * once the write in flight is done, if one is).  The *_done callbacks are
 * the completions of d->record_op, d->prom_write_op and d->prom_rename_op.
 */
int mdkd_record_open(struct mdkd *d);
void mdkd_record_kick(struct mdkd *d);
void mdkd_prom_flush(struct mdkd *d);
void mdkd_record_done(struct mdkd_op *op, int res);
void mdkd_prom_write_done(struct mdkd_op *op, int res);
void mdkd_prom_rename_done(struct mdkd_op *op, int res);

#endif /* MDKD_METRICS_H */
