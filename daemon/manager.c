// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd's manager: the daemon's life cycle and its loop.  It owns the
 * parts and wires them together: the cgroup table (cgroups.c), the
 * per-interval pipeline (pipeline.c), the record and Prometheus files
 * (record.c), the control socket (ctlsock.c) and the signals
 * (signals.c); configuration reloads; the periodic flush (metrics file,
 * systemd status) and watchdog.  See manager.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "manager.h"
#include "metrics.h"
#include "notify.h"

/* Cgroups read at the same time; each is MDKD_CGF_NR reads in flight. */
#define MDKD_READ_WINDOW 256
#define MDKD_RING_ENTRIES 1024

struct mdkd_cgroup *mdkd_find(struct mdkd *d, const char *path)
{
	return mdkd_cgroups_find(&d->cgroups, path);
}

void mdkd_rescan(struct mdkd *d)
{
	mdkd_cgroups_rescan(&d->cgroups);
}

static void flush(struct mdkd *d)
{
	uint64_t reclaimed = 0;
	size_t i;

	d->pipeline.flush_due = false;
	d->ticks++;
	mdkd_recorder_prom(&d->recorder);
	for (i = 0; i < d->cgroups.n; i++)
		reclaimed += d->cgroups.cgs[i]->stats.reclaimed_bytes;
	mdkd_notify("STATUS=managing %zu cgroup%s, %.1f MiB reclaimed",
		    d->cgroups.n, d->cgroups.n == 1 ? "" : "s",
		    reclaimed / 1048576.0);
}

int mdkd_apply_config(struct mdkd *d, struct mdkd_config *cfg, char *err,
		      size_t errlen)
{
	struct mdkd_config *old = d->cfg;
	size_t i;
	int ret;

	/* Keys that need a restart keep their running value. */
	for (i = 0; old && i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];
		char *a = (char *)&old->global + k->offset;
		char *b = (char *)&cfg->global + k->offset;

		if (!k->restart)
			continue;
		if (strcmp(a, b))
			log_warn(
				"%s: changed to '%s'; takes effect at the next start",
				k->name, b);
		memcpy(b, a, k->size);
	}
	/* a bad tier file fails the reload: the old costs stay */
	ret = mdkd_tier_costs_load(&d->costs, cfg->global.tier_file, err,
				   errlen);
	if (ret)
		return ret;
	d->cfg = cfg;
	d->cgroups.cfg = cfg;
	mdkd_log_set_level(cfg->global.log_level);
	mdkd_recorder_configure(&d->recorder, cfg->global.record_file,
				cfg->global.prometheus_file);
	mdkd_config_free(old);
	mdkd_cgroups_rescan(&d->cgroups);
	return 0;
}

int mdkd_reload_config(struct mdkd *d, char *err, size_t errlen)
{
	struct mdkd_config *cfg;
	int ret;

	mdkd_notify("RELOADING=1\nSTATUS=reloading %s",
		    d->config_path ? d->config_path : "defaults");
	d->reloads++;
	/* The file and its drop-ins, all or none of them. */
	if (!d->config_path)
		ret = mdkd_config_load_default(&cfg, err, errlen);
	else
		ret = mdkd_config_load(d->config_path, &cfg, err, errlen);
	if (!ret) {
		ret = mdkd_apply_config(d, cfg, err, errlen);
		if (ret)
			mdkd_config_free(cfg);
	}
	if (ret) {
		d->reload_failures++;
		snprintf(d->last_reload_error, sizeof(d->last_reload_error),
			 "%s", err);
		log_err("reload: %s; keeping the previous configuration", err);
	} else {
		d->last_reload_error[0] = '\0';
		log_info("reloaded %s: %zu cgroup%s managed",
			 d->config_path ? d->config_path : "defaults",
			 d->cgroups.n, d->cgroups.n == 1 ? "" : "s");
	}
	mdkd_notify("READY=1\nSTATUS=managing %zu cgroup%s", d->cgroups.n,
		    d->cgroups.n == 1 ? "" : "s");
	return ret;
}

/* ---- life cycle ---- */

/* Whether memory.reclaim takes swappiness= (6.9+), asked once. */
static void probe_swappiness(struct mdkd *d)
{
	int dirfd, ret = -ENOENT;

	dirfd = open(d->cfg->global.cgroup_root,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd >= 0) {
		ret = mdkd_reclaim_swappiness_probe(dirfd);
		close(dirfd);
	}
	d->pipeline.limits.swappiness_ok = ret > 0;
	if (ret > 0)
		log_info("memory.reclaim takes swappiness=");
	else if (!ret)
		log_notice(
			"memory.reclaim does not take swappiness= on this kernel (6.9+ does): reclaim_swappiness is ignored, and reclaim stops altogether while the swap valve is closed");
}

static int check_system(struct mdkd *d, char *err, size_t errlen)
{
	const struct mdkd_global *g = &d->cfg->global;
	char file[MDKD_PATH_MAX + 32], buf[512];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "%s/cgroup.controllers", g->cgroup_root);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s: is cgroup2 mounted at %s?", file,
			 strerror(errno), g->cgroup_root);
		return -errno;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (!strstr(buf, "memory")) {
		snprintf(err, errlen,
			 "%s: no memory controller (cgroup_disable=memory?)",
			 file);
		return -ENODEV;
	}
	snprintf(file, sizeof(file), "%s/pressure/memory", g->proc_root);
	if (access(file, R_OK)) {
		snprintf(file, sizeof(file), "%s/memory.pressure",
			 g->cgroup_root);
		if (access(file, R_OK)) {
			snprintf(
				err, errlen,
				"no pressure stall information (%s: %s): a kernel with CONFIG_PSI, booted without psi=0",
				file, strerror(errno));
			return -ENODEV;
		}
	}
	snprintf(file, sizeof(file), "%s/memory.reclaim", g->cgroup_root);
	d->have_reclaim = !access(file, F_OK);
	if (!d->have_reclaim)
		log_warn(
			"%s is missing (Linux older than 5.19): actuator auto falls back to high-pulse, which lowers memory.high for one write and restores it",
			file);
	probe_swappiness(d);
	mdkd_pipeline_refresh_host(&d->pipeline, mdkd_clock_now(&d->clock),
				   true);
	if (!d->pipeline.host.swap_total)
		log_notice("no swap: reclaim can only drop page cache");
	return 0;
}

static bool on_signal(void *arg, int signo)
{
	struct mdkd *d = arg;

	if (signo == SIGHUP) {
		d->reload = true;
		return true;
	}
	log_info("signal %d: stopping", signo);
	d->stop = true;
	return false;
}

static void prom_text(void *arg, struct mdkd_buf *b)
{
	struct mdkd *d = arg;

	mdkd_prometheus_text(d->cgroups.cgs, d->cgroups.n, &d->pipeline.limits,
			     &d->pipeline.host, b);
	mdkd_tiers_prom(&d->pipeline.tiers, &d->pipeline.host, b);
}

/* The parts, wired together; nothing started yet. */
static struct mdkd *alloc_parts(struct mdkd_config *cfg)
{
	struct mdkd *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->cfg = cfg;
	d->started_us = mdkd_clock_now(&d->clock);
	mdkd_signals_init(&d->signals);
	d->ctl.listen_fd = -1;
	mdkd_recorder_init(&d->recorder, &d->loop, mdkd_record_header,
			   prom_text, d);
	mdkd_cgroups_init(&d->cgroups, cfg, &d->loop, &d->clock,
			  &mdkd_pipeline_target_ops, &d->pipeline);
	mdkd_pipeline_init(&d->pipeline, &d->cgroups, &d->recorder, &d->clock,
			   MDKD_READ_WINDOW, d->started_us);
	return d;
}

struct mdkd *mdkd_new(struct mdkd_config *cfg, const char *config_path,
		      const char *socket_override, bool signals,
		      mdkd_ctlsock_fn handle, char *err, size_t errlen)
{
	struct mdkd *d;
	int ret;

	if (socket_override)
		snprintf(cfg->global.socket, sizeof(cfg->global.socket), "%s",
			 socket_override);
	d = alloc_parts(cfg);
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (config_path) {
		d->config_path = strdup(config_path);
		if (!d->config_path) {
			snprintf(err, errlen, "out of memory");
			goto err_free;
		}
	}
	mdkd_log_set_level(cfg->global.log_level);
	if (check_system(d, err, errlen))
		goto err_free;
	if (mdkd_tier_costs_load(&d->costs, cfg->global.tier_file, err, errlen))
		goto err_free;
	ret = mdkd_restore_journal(cfg->global.state_dir,
				   cfg->global.cgroup_root);
	if (ret < 0)
		log_warn("%s: the journal: %s", cfg->global.state_dir,
			 strerror(-ret));
	if (mdkd_loop_init(&d->loop, MDKD_RING_ENTRIES, err, errlen))
		goto err_free;
	d->loop_ready = true;
	if (signals && mdkd_signals_setup(&d->signals, &d->loop, on_signal, d,
					  err, errlen))
		goto err_free;
	if (mdkd_ctlsock_start(&d->ctl, &d->loop, cfg->global.socket, handle, d,
			       err, errlen))
		goto err_free;
	mdkd_recorder_configure(&d->recorder, cfg->global.record_file,
				cfg->global.prometheus_file);
	d->watchdog_us = mdkd_watchdog_usec() / 2;
	d->next_watchdog_us = d->started_us + d->watchdog_us;
	d->cgroups.tier_costs = &d->costs; /* backend auto's tiers */
	mdkd_cgroups_rescan(&d->cgroups);
	return d;

err_free:
	d->cfg = NULL; /* the caller still owns it */
	mdkd_free(d);
	return NULL;
}

void mdkd_free(struct mdkd *d)
{
	if (!d)
		return;
	mdkd_ctlsock_stop(&d->ctl);
	mdkd_cgroups_detach_all(&d->cgroups);
	if (d->loop_ready) {
		mdkd_recorder_kick(&d->recorder);
		if (mdkd_loop_drain(&d->loop, 5000000))
			log_warn("%u operations still in flight at exit",
				 d->loop.inflight);
	}
	mdkd_ctlsock_free(&d->ctl);
	/* A pulse cut short by the drain leaves its journal entry. */
	if (d->cfg)
		mdkd_restore_journal(d->cfg->global.state_dir,
				     d->cfg->global.cgroup_root);
	mdkd_cgroups_free(&d->cgroups, !d->loop_ready || !d->loop.inflight);
	mdkd_recorder_close(&d->recorder);
	mdkd_signals_close(&d->signals);
	if (d->loop_ready)
		mdkd_loop_exit(&d->loop);
	mdkd_config_free(d->cfg);
	free(d->config_path);
	free(d);
}

static uint64_t next_deadline(struct mdkd *d)
{
	uint64_t t = d->cgroups.next_rescan_us;

	if (d->watchdog_us && d->next_watchdog_us < t)
		t = d->next_watchdog_us;
	return mdkd_pipeline_next_due(&d->pipeline, t);
}

int mdkd_run_once(struct mdkd *d, uint64_t deadline_us)
{
	uint64_t now = mdkd_clock_now(&d->clock);
	char err[1024];
	int ret;

	if (d->reload) {
		d->reload = false;
		mdkd_reload_config(d, err, sizeof(err));
	}
	if (now >= d->cgroups.next_rescan_us)
		mdkd_cgroups_rescan(&d->cgroups);
	if (d->watchdog_us && now >= d->next_watchdog_us) {
		mdkd_notify("WATCHDOG=1");
		d->next_watchdog_us = now + d->watchdog_us;
	}
	mdkd_pipeline_run_due(&d->pipeline, now);
	if (!d->stop) {
		mdkd_signals_arm(&d->signals);
		mdkd_ctlsock_arm(&d->ctl);
	}
	ret = mdkd_loop_wait(&d->loop, deadline_us);
	if (ret < 0)
		return ret;
	/* Cgroups that finished may have freed read slots. */
	mdkd_pipeline_run_due(&d->pipeline, mdkd_clock_now(&d->clock));
	if (d->pipeline.flush_due && !d->cgroups.reading)
		flush(d);
	return ret;
}

int mdkd_run(struct mdkd *d)
{
	int ret;

	while (!d->stop) {
		uint64_t deadline = next_deadline(d);

		ret = mdkd_run_once(d, deadline);
		if (ret < 0) {
			log_err("io_uring: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int mdkd_tick_all(struct mdkd *d)
{
	uint64_t now = mdkd_clock_now(&d->clock);
	size_t i;
	int ret;

	for (i = 0; i < d->cgroups.n; i++)
		d->cgroups.cgs[i]->next_due_us = now;
	mdkd_pipeline_run_due(&d->pipeline, now);
	for (;;) {
		bool busy = d->cgroups.reading > 0 ||
			    mdkd_recorder_busy(&d->recorder);

		/* One the CPU cap put off waits for a later now. */
		for (i = 0; i < d->cgroups.n && !busy; i++)
			busy = d->cgroups.cgs[i]->acting ||
			       (d->cgroups.cgs[i]->next_due_us <= now &&
				!d->cgroups.cgs[i]->deferring);
		if (!busy)
			break;
		ret = mdkd_loop_wait(&d->loop, mdkd_now_us() + 1000000);
		if (ret < 0)
			return ret;
		mdkd_pipeline_run_due(&d->pipeline, now);
		if (d->pipeline.flush_due && !d->cgroups.reading)
			flush(d);
	}
	return 0;
}
