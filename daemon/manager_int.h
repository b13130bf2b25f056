/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the manager (manager.c) and its per-interval pipeline (pipeline.c)
 * share; not for the rest of the daemon, which has manager.h.
 */
#ifndef MDKD_MANAGER_INT_H
#define MDKD_MANAGER_INT_H

#include <stdint.h>

#include "manager.h"

/* manager.c */
uint64_t mgr_now_us(struct mdkd *d); /* the daemon's clock (tests fake it) */
void mgr_cg_detach(struct mdkd *d, struct mdkd_cgroup *cg);
/* An operation of @cg completed: free it if detached and the last. */
void mgr_cg_op_done(struct mdkd_cgroup *cg);
void mgr_cg_update(struct mdkd_cgroup *cg, const struct mdkd_settings *set,
		   const char *source);

/* pipeline.c */
void mgr_refresh_swap(struct mdkd *d, uint64_t now);
void mgr_read_done(struct mdkd_op *op, int res); /* a cgroup file read */
void mgr_act_write_done(struct mdkd_op *op, int res); /* an actuator write */
void mgr_run_due(struct mdkd *d, uint64_t now); /* start what is due */
uint64_t mgr_next_deadline(struct mdkd *d); /* when something is next due */

#endif /* MDKD_MANAGER_INT_H */
