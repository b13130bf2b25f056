/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's manager: the set of managed cgroups and what happens to each one
 * every interval (batched reads on the loop, the controller's decision,
 * the actuator, the metrics), configuration reloads, runtime settings and
 * the control socket.  mdkd.c only parses the command line and runs it.
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

#include "buf.h"
#include "cgroup.h"
#include "config.h"
#include "controller.h"
#include "loop.h"

struct mdkd;
struct mdkd_cgroup;

/* A completion callback of an actuator's queued write. */
typedef void (*mdkd_act_fn)(struct mdkd_cgroup *cg, void *state, int res);

struct mdkd_cg_op {
	struct mdkd_op op;
	struct mdkd_cgroup *cg;
	int idx; /* file index for reads */
	mdkd_act_fn fn; /* actuator writes */
};

#define MDKD_CG_ACT_OPS 4

struct mdkd_cgroup_stats {
	uint64_t intervals; /* decisions taken */
	uint64_t reclaim_requests, reclaim_failures;
	uint64_t reclaimed_bytes; /* sum of successful requests */
	uint64_t requested_bytes; /* sum of all requests */
	uint64_t eagain, ebusy; /* kernel back-off signals */
	uint64_t read_errors;
	uint64_t busy_skips; /* intervals skipped: the last action still ran */
	uint64_t swapin_bytes, swapout_bytes, refaults; /* sums of intervals */
};

struct mdkd_cgroup {
	struct mdkd *d;
	char *path; /* relative to the cgroup root */
	uint64_t id; /* inode of the directory: a recreated cgroup differs */
	int dirfd;
	int fds[MDKD_CGF_NR];
	char *bufs[MDKD_CGF_NR];
	size_t bufsz[MDKD_CGF_NR], lens[MDKD_CGF_NR];
	struct mdkd_cg_op reads[MDKD_CGF_NR];
	struct mdkd_cg_op acts[MDKD_CG_ACT_OPS];
	unsigned int reads_left, inflight;
	int read_err, read_err_file;
	bool reading, acting, detached;

	struct mdkd_settings set;
	char source[MDKD_CGROUP_PATH_MAX + 64]; /* where set came from */
	struct mdkd_ctl ctl;
	const struct mdkd_actuator_ops *act;
	void *act_state;
	uint64_t next_due_us, attached_us;

	/* The last interval, for status, metrics and the record file. */
	struct mdkd_sample sample;
	bool have_sample;
	struct mdkd_interval iv;
	struct mdkd_decision dec;
	int act_result; /* of the last action */
	uint64_t act_bytes, act_start_us, act_us;
	struct mdkd_cgroup_stats stats;
};

/* A runtime change from the control socket (mdkctl set / cgroup create). */
struct mdkd_override {
	char *path;
	struct mdkd_settings set;
	uint64_t mask;
	bool manage; /* managed even without a matching [cgroup] section */
};

struct mdkd_client;

struct mdkd {
	struct mdkd_config *cfg;
	char *config_path; /* NULL: defaults only */
	struct mdkd_loop loop;
	bool loop_ready;
	struct mdkd_cgroup **cgs; /* sorted by path */
	size_t ncgs;
	struct mdkd_cgroup **zombies; /* detached, operations in flight */
	size_t nzombies;
	struct mdkd_override *ovr;
	size_t novr;
	bool have_reclaim; /* the root has memory.reclaim (>= 5.19) */
	bool stop, reload;
	uint64_t (*now)(void *data); /* clock, overridable by the tests */
	void *now_data;
	uint64_t started_us, next_rescan_us, next_watchdog_us, watchdog_us;
	unsigned int reading; /* cgroups with reads in flight */
	unsigned int read_window; /* at most this many at once */
	bool flush_due;
	uint64_t swap_total, swap_free, swap_read_us; /* host, meminfo */
	uint64_t ticks, reloads, reload_failures;
	char last_reload_error[512];
	char failed[MDKD_CGROUP_PATH_MAX]; /* last attach error logged */

	/* signalfd */
	int sigfd;
	struct mdkd_op sig_op;
	char sig_buf[128];
	bool sig_armed;

	/* control socket */
	int listen_fd;
	char socket_path[108];
	struct mdkd_op accept_op;
	bool accept_armed;
	struct mdkd_client *clients;
	unsigned int nclients;

	/* recording */
	int record_fd;
	char record_path[MDKD_PATH_MAX];
	struct mdkd_buf record, record_out;
	struct mdkd_op record_op;
	bool record_busy;
	struct mdkd_buf prom;
	char prom_tmp[MDKD_PATH_MAX + 8];
	int prom_fd;
	unsigned int prom_pending;
	bool prom_dirty; /* write again once the one in flight is done */
	struct mdkd_op prom_write_op, prom_rename_op;
	int prom_err;
};

/*
 * mdkd_new() - a manager for @cfg (taken over; freed with the manager),
 * loaded from @config_path (NULL: defaults, nothing to reload).
 * @socket_override replaces the socket key when not NULL.  Checks the
 * system (cgroup2, the memory controller, PSI), replays the crash-recovery
 * journal, creates the ring, the signalfd and the control socket, and
 * attaches the configured cgroups.  Return: the manager or NULL with the
 * reason in @err.
 */
struct mdkd *mdkd_new(struct mdkd_config *cfg, const char *config_path,
		      const char *socket_override, bool signals, char *err,
		      size_t errlen);
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
 * records).  For the tests and the benchmark.  Return: 0 or -errno.
 */
int mdkd_tick_all(struct mdkd *d);

/*
 * mdkd_reload_config() - parse the configuration file again and apply it,
 * keeping the controller state of cgroups that stay managed.  A file that
 * does not parse leaves everything as it was.  Return: 0 or -errno with
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

/*
 * mdkd_set() - runtime settings for the managed cgroup @path, @n keys and
 * values, all or none applied.  @manage: also manage @path from now on
 * (mdkctl cgroup create).  Return: 0 or -errno with a message in @err.
 */
int mdkd_set(struct mdkd *d, const char *path, const char *const keys[],
	     const char *const values[], unsigned int n, bool manage, char *err,
	     size_t errlen);

/*
 * mdkd_release() - stop managing @path at runtime (forgets its runtime
 * settings; a matching [cgroup] section manages it again at the next
 * reload).  Return: 0 or -ENOENT.
 */
int mdkd_release(struct mdkd *d, const char *path, char *err, size_t errlen);

/* mdkd_find() - the managed cgroup at @path, or NULL. */
struct mdkd_cgroup *mdkd_find(struct mdkd *d, const char *path);

/* For actuators: queue a write of @len bytes at offset 0 of @fd on the
 * loop; @fn gets the result.  @link: the next write of this cgroup runs
 * after this one even if it fails (IOSQE_IO_HARDLINK).  Return: 0 or
 * -EBUSY when the cgroup has MDKD_CG_ACT_OPS writes in flight. */
int mdkd_cgroup_queue_write(struct mdkd_cgroup *cg, int fd, const void *buf,
			    size_t len, bool link, mdkd_act_fn fn);

/* For actuators: the action on @cg finished with @result (0 or -errno). */
void mdkd_cgroup_act_done(struct mdkd_cgroup *cg, int result);

/* The manager's state directory and cgroup root, for actuators. */
const char *mdkd_cgroup_state_dir(const struct mdkd_cgroup *cg);

#endif /* MDKD_MANAGER_H */
