/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's manager: the daemon's parts, wired together, and its loop.  It
 * owns the cgroup table (cgroups.h), the per-interval pipeline
 * (pipeline.h), the record and Prometheus files (record.h), the control
 * socket (ctlsock.h) and the signals (signals.h), and applies
 * configuration reloads.  mdkd.c parses the command line and runs it;
 * request.c answers the control socket with what this header offers.
 *
 * Lifetime of a managed cgroup: attach (open its files, start the mode,
 * attach the actuator), then every interval read -> parse -> decide ->
 * act -> record; detach when it no longer matches the configuration, when
 * it is removed (a read fails with ENODEV) or at exit.  A detached cgroup
 * is freed once none of its operations is in flight.
 */
#ifndef MDKD_MANAGER_H
#define MDKD_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroups.h"
#include "config.h"
#include "ctlsock.h"
#include "loop.h"
#include "pipeline.h"
#include "record.h"
#include "signals.h"
#include "tier_costs.h"

struct mdkd {
	struct mdkd_config *cfg;
	char *config_path; /* NULL: MDKD_CONFIG_PATH, may be absent */
	struct mdkd_clock clock; /* overridable by the tests */
	struct mdkd_loop loop;
	bool loop_ready;
	bool stop, reload;
	bool have_reclaim; /* the root has memory.reclaim (>= 5.19) */
	uint64_t started_us, next_watchdog_us, watchdog_us;
	uint64_t ticks, reloads, reload_failures;
	char last_reload_error[512];

	struct mdkd_cgroups cgroups;
	struct mdkd_pipeline pipeline;
	struct mdkd_recorder recorder;
	struct mdkd_ctlsock ctl;
	struct mdkd_signals signals;
	struct mdkd_tier_costs costs; /* tier_file's */
};

/*
 * mdkd_new() - a manager for @cfg (taken over; freed with the manager),
 * loaded from @config_path and its drop-ins (NULL: the default file,
 * which may be absent, and its drop-ins).
 * @socket_override replaces the socket key when not NULL.  Checks the
 * system (cgroup2, the memory controller, PSI), replays the crash-recovery
 * journal, creates the ring, the signalfd (@signals) and the control
 * socket, whose requests go to @handle (mdkd_request_handle(), called
 * with the manager), and attaches the configured cgroups.  Return: the
 * manager or NULL with the reason in @err.
 */
struct mdkd *mdkd_new(struct mdkd_config *cfg, const char *config_path,
		      const char *socket_override, bool signals,
		      mdkd_ctlsock_fn handle, char *err, size_t errlen);
void mdkd_free(struct mdkd *d);

/*
 * mdkd_run() - the event loop until SIGTERM/SIGINT (or d->stop).
 * Return: 0 or -errno when the ring failed.
 */
int mdkd_run(struct mdkd *d);

/*
 * mdkd_run_once() - one turn of the loop: start due reads, wait until
 * @deadline_us at most, dispatch.  Return: as mdkd_loop_wait().
 */
int mdkd_run_once(struct mdkd *d, uint64_t deadline_us);

/*
 * mdkd_tick_all() - make every managed cgroup due now and run the loop
 * until all of them went through one interval (reads, decision, action,
 * records), but for those the CPU cap puts off: they stay due, for a later
 * now.  For the tests and the benchmark.  Return: 0 or -errno.
 */
int mdkd_tick_all(struct mdkd *d);

/*
 * mdkd_reload_config() - parse the configuration file and its drop-ins
 * again and apply them, keeping the controller state of cgroups that stay
 * managed.  A file that does not parse leaves everything as it was.  Return: 0 or -errno with
 * "file:line: ..." in @err.
 */
int mdkd_reload_config(struct mdkd *d, char *err, size_t errlen);

/*
 * mdkd_apply_config() - switch to @cfg (taken over on success).
 * Return: 0, or -errno with @cfg still the caller's.
 */
int mdkd_apply_config(struct mdkd *d, struct mdkd_config *cfg, char *err,
		      size_t errlen);

/* mdkd_rescan() - match the configuration against the tree again. */
void mdkd_rescan(struct mdkd *d);

/* mdkd_find() - the managed cgroup at @path, or NULL. */
struct mdkd_cgroup *mdkd_find(struct mdkd *d, const char *path);

#endif /* MDKD_MANAGER_H */
