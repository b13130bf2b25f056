// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd's manager: the set of managed cgroups (attach, rescan, detach),
 * signals, reloads, runtime settings and the daemon's life cycle.  The
 * per-interval pipeline is pipeline.c, the record and Prometheus files
 * metrics.c, the high-pulse journal journal.c.  See manager.h for the
 * lifetime rules.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "journal.h"
#include "log.h"
#include "manager.h"
#include "manager_int.h"
#include "metrics.h"
#include "notify.h"

/* Cgroups read at the same time; each is MDKD_CGF_NR reads in flight. */
#define MDKD_READ_WINDOW 256
#define MDKD_RING_ENTRIES 1024

static void cg_free(struct mdkd_cgroup *cg);

uint64_t mgr_now_us(struct mdkd *d)
{
	return d->now ? d->now(d->now_data) : mdkd_now_us();
}

const char *mdkd_cgroup_state_dir(const struct mdkd_cgroup *cg)
{
	return cg->d->cfg->global.state_dir;
}

/* Index of @path in d->cgs, or where it would go (as -1 - index). */
static long cg_index(struct mdkd *d, const char *path)
{
	size_t lo = 0, hi = d->ncgs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(d->cgs[mid]->path, path);

		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1 - (long)lo;
}

struct mdkd_cgroup *mdkd_find(struct mdkd *d, const char *path)
{
	long i = cg_index(d, path);

	return i >= 0 ? d->cgs[i] : NULL;
}

static struct mdkd_override *ovr_find(struct mdkd *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->novr; i++)
		if (!strcmp(d->ovr[i].path, path))
			return &d->ovr[i];
	return NULL;
}

/* The settings of @path: configuration, then runtime overrides. */
static int effective_settings(struct mdkd *d, const char *path,
			      struct mdkd_settings *set, char *src,
			      size_t srclen, bool *wanted)
{
	struct mdkd_override *o = ovr_find(d, path);
	int n = mdkd_config_settings_for(d->cfg, path, set, src, srclen);

	if (o) {
		mdkd_settings_overlay(set, &o->set, o->mask);
		if (o->manage && !n)
			snprintf(src, srclen, "runtime");
		else if (o->mask)
			snprintf(src + strlen(src), srclen - strlen(src),
				 " + runtime");
	}
	if (wanted)
		*wanted = n > 0 || (o && o->manage);
	return n;
}

/*
 * The actuator @set asks for on the cgroup at @dirfd, in *@out (NULL for
 * an observing mode).  Return: 0 or -errno with the reason in @err.
 */
static int choose_actuator(const struct mdkd_settings *set, int dirfd,
			   const struct mdkd_actuator_ops **out, char *err,
			   size_t errlen)
{
	const struct mdkd_actuator_ops *a = set->actuator;
	int ret;

	*out = NULL;
	if (set->mode->observe_only)
		return 0;
	if (!a && set->mode->actuator)
		a = set->mode->actuator(set);
	if (!a)
		a = mdkd_act_reclaim.probe(dirfd, err, errlen) ?
			    &mdkd_act_high_pulse :
			    &mdkd_act_reclaim;
	if (a->probe) {
		ret = a->probe(dirfd, err, errlen);
		if (ret)
			return ret;
	}
	*out = a;
	return 0;
}

static int act_attach(struct mdkd_cgroup *cg, const struct mdkd_actuator_ops *a,
		      char *err, size_t errlen)
{
	void *state = NULL;
	int ret;

	if (!a)
		return 0;
	if (a->state_size) {
		state = calloc(1, a->state_size);
		if (!state) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	if (a->attach) {
		ret = a->attach(cg, state, err, errlen);
		if (ret) {
			free(state);
			return ret;
		}
	}
	cg->act = a;
	cg->act_state = state;
	return 0;
}

static void act_detach(struct mdkd_cgroup *cg)
{
	if (!cg->act)
		return;
	if (cg->act->restore)
		cg->act->restore(cg, cg->act_state);
	if (cg->act->detach)
		cg->act->detach(cg, cg->act_state);
	free(cg->act_state);
	cg->act = NULL;
	cg->act_state = NULL;
}

static struct mdkd_cgroup *cg_attach(struct mdkd *d, const char *path,
				     const struct mdkd_settings *set,
				     const char *source, char *err,
				     size_t errlen)
{
	const struct mdkd_actuator_ops *a;
	char full[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];
	struct mdkd_cgroup *cg;
	struct stat st;
	int i, ret;

	cg = calloc(1, sizeof(*cg));
	if (!cg)
		goto err_nomem;
	cg->d = d;
	cg->dirfd = -1;
	for (i = 0; i < MDKD_CGF_NR; i++)
		cg->fds[i] = -1;
	cg->path = strdup(path);
	if (!cg->path)
		goto err_free;
	snprintf(full, sizeof(full), "%s/%s", d->cfg->global.cgroup_root, path);
	cg->dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->dirfd < 0 || fstat(cg->dirfd, &st)) {
		snprintf(err, errlen, "%s: %s", full, strerror(errno));
		goto err_close;
	}
	cg->id = st.st_ino;
	for (i = 0; i < MDKD_CGF_NR; i++) {
		const struct mdkd_cgroup_file_desc *f = &mdkd_cgroup_files[i];

		cg->fds[i] = openat(cg->dirfd, f->name, O_RDONLY | O_CLOEXEC);
		if (cg->fds[i] < 0 && f->required) {
			snprintf(err, errlen, "%s/%s: %s%s", full, f->name,
				 strerror(errno),
				 i == MDKD_CGF_PRESSURE ?
					 " (PSI off? boot without psi=0)" :
					 "");
			goto err_close;
		}
		cg->bufsz[i] = f->bufsize;
		cg->bufs[i] = malloc(cg->bufsz[i]);
		if (!cg->bufs[i]) {
			snprintf(err, errlen, "out of memory");
			goto err_close;
		}
		cg->reads[i].cg = cg;
		cg->reads[i].idx = i;
		cg->reads[i].op.fn = mgr_read_done;
	}
	for (i = 0; i < MDKD_CG_ACT_OPS; i++) {
		cg->acts[i].cg = cg;
		cg->acts[i].op.fn = mgr_act_write_done;
	}
	cg->set = *set;
	snprintf(cg->source, sizeof(cg->source), "%s", source);
	if (mdkd_ctl_init(&cg->ctl, set->mode)) {
		snprintf(err, errlen, "out of memory");
		goto err_close;
	}
	if (set->mode->start) {
		ret = set->mode->start(cg, cg->ctl.mode_state, err, errlen);
		if (ret)
			goto err_ctl;
	}
	if (choose_actuator(set, cg->dirfd, &a, err, errlen) ||
	    act_attach(cg, a, err, errlen))
		goto err_mode;
	cg->attached_us = mgr_now_us(d);
	cg->next_due_us = cg->attached_us;
	return cg;

err_mode:
	if (set->mode->stop)
		set->mode->stop(cg, cg->ctl.mode_state);
err_ctl:
	mdkd_ctl_destroy(&cg->ctl);
err_close:
	cg_free(cg);
	return NULL;
err_free:
	free(cg);
err_nomem:
	snprintf(err, errlen, "out of memory");
	return NULL;
}

/* Close and free; nothing of @cg may be in flight. */
static void cg_free(struct mdkd_cgroup *cg)
{
	int i;

	if (cg->act && cg->act->detach)
		cg->act->detach(cg, cg->act_state);
	free(cg->act_state);
	mdkd_ctl_destroy(&cg->ctl);
	for (i = 0; i < MDKD_CGF_NR; i++) {
		if (cg->fds[i] >= 0)
			close(cg->fds[i]);
		free(cg->bufs[i]);
	}
	if (cg->dirfd >= 0)
		close(cg->dirfd);
	free(cg->path);
	free(cg);
}

static int cg_insert(struct mdkd *d, struct mdkd_cgroup *cg)
{
	long i = cg_index(d, cg->path);
	struct mdkd_cgroup **p;

	if (i >= 0)
		return -EEXIST;
	i = -1 - i;
	p = realloc(d->cgs, (d->ncgs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->cgs = p;
	memmove(&p[i + 1], &p[i], (d->ncgs - i) * sizeof(*p));
	p[i] = cg;
	d->ncgs++;
	return 0;
}

/*
 * Stop managing @cg: restore what the actuator may have left, stop the
 * mode, take it off the list; free it now or when its last operation
 * completes.
 */
void mgr_cg_detach(struct mdkd *d, struct mdkd_cgroup *cg)
{
	long i = cg_index(d, cg->path);

	if (i >= 0 && d->cgs[i] == cg) {
		memmove(&d->cgs[i], &d->cgs[i + 1],
			(d->ncgs - i - 1) * sizeof(*d->cgs));
		d->ncgs--;
	}
	cg->detached = true;
	if (cg->act && cg->act->restore)
		cg->act->restore(cg, cg->act_state);
	if (cg->ctl.mode->stop)
		cg->ctl.mode->stop(cg, cg->ctl.mode_state);
	if (cg->reading) {
		cg->reading = false;
		d->reading--;
	}
	if (!cg->inflight) {
		cg_free(cg);
		return;
	}
	/* Its SQEs must reach the kernel before the fds may close. */
	io_uring_submit(&d->loop.ring);
	if (d->nzombies % 16 == 0) {
		struct mdkd_cgroup **z =
			realloc(d->zombies, (d->nzombies + 16) * sizeof(*z));

		if (!z) {
			/* Leak rather than free memory the kernel may use. */
			log_err("%s: out of memory; leaking it", cg->path);
			return;
		}
		d->zombies = z;
	}
	d->zombies[d->nzombies++] = cg;
}

void mgr_cg_op_done(struct mdkd_cgroup *cg)
{
	struct mdkd *d = cg->d;
	size_t i;

	cg->inflight--;
	if (!cg->detached || cg->inflight)
		return;
	for (i = 0; i < d->nzombies; i++)
		if (d->zombies[i] == cg) {
			d->zombies[i] = d->zombies[--d->nzombies];
			break;
		}
	cg_free(cg);
}

/* Apply new settings to a managed cgroup, keeping controller state. */
void mgr_cg_update(struct mdkd_cgroup *cg, const struct mdkd_settings *set,
		   const char *source)
{
	const struct mdkd_mode_ops *old = cg->ctl.mode;
	const struct mdkd_actuator_ops *a;
	struct mdkd_settings prev = cg->set;
	char err[512];

	/* A mode starting afresh reads the new settings. */
	if (set != &cg->set)
		cg->set = *set;
	if (cg->set.mode != old) {
		const struct mdkd_mode_ops *mode = cg->set.mode;

		if (old->stop)
			old->stop(cg, cg->ctl.mode_state);
		if (mdkd_ctl_set_mode(&cg->ctl, mode)) {
			log_err("%s: out of memory switching to mode %s; observing only",
				cg->path, mode->name);
			mdkd_ctl_set_mode(&cg->ctl, &mdkd_mode_off);
		} else if (mode->start && mode->start(cg, cg->ctl.mode_state,
						      err, sizeof(err))) {
			log_err("%s: mode %s: %s; observing only", cg->path,
				mode->name, err);
			mdkd_ctl_set_mode(&cg->ctl, &mdkd_mode_off);
		}
		log_info("%s: mode %s -> %s", cg->path, old->name,
			 cg->ctl.mode->name);
	}
	cg->set.mode = cg->ctl.mode;
	if (mdkd_mode_interval_us(&cg->set) < mdkd_mode_interval_us(&prev) &&
	    cg->next_due_us >
		    mgr_now_us(cg->d) + mdkd_mode_interval_us(&cg->set))
		cg->next_due_us =
			mgr_now_us(cg->d) + mdkd_mode_interval_us(&cg->set);
	if (cg->ctl.mode == old && old->update)
		old->update(cg, cg->ctl.mode_state, &prev);
	if (source != cg->source)
		snprintf(cg->source, sizeof(cg->source), "%s", source);
	if (cg->acting)
		return; /* the actuator switches once its action is done */
	if (choose_actuator(&cg->set, cg->dirfd, &a, err, sizeof(err)))
		log_err("%s: %s; observing only", cg->path, err);
	if (a != cg->act) {
		const char *was = cg->act ? cg->act->name : "none";

		act_detach(cg);
		if (act_attach(cg, a, err, sizeof(err)))
			log_err("%s: actuator %s: %s; observing only", cg->path,
				a->name, err);
		log_info("%s: actuator %s -> %s", cg->path, was,
			 cg->act ? cg->act->name : "none");
	}
}

/* Attach @path unless it is already managed; log failures once. */
static struct mdkd_cgroup *manage(struct mdkd *d, const char *path)
{
	char src[MDKD_CGROUP_PATH_MAX + 64], err[1024];
	struct mdkd_settings set;
	struct mdkd_cgroup *cg;

	effective_settings(d, path, &set, src, sizeof(src), NULL);
	cg = cg_attach(d, path, &set, src, err, sizeof(err));
	if (!cg) {
		if (strcmp(d->failed, path)) {
			log_err("%s: cannot manage it: %s", path, err);
			snprintf(d->failed, sizeof(d->failed), "%s", path);
		}
		return NULL;
	}
	if (cg_insert(d, cg)) {
		cg_free(cg);
		return NULL;
	}
	if (!strcmp(d->failed, path))
		d->failed[0] = '\0';
	log_info("%s: managed (mode %s, actuator %s, interval %.3gs, from %s)",
		 path, cg->ctl.mode->name, cg->act ? cg->act->name : "none",
		 mdkd_mode_interval_us(&cg->set) / 1e6, cg->source);
	return cg;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void mdkd_rescan(struct mdkd *d)
{
	const char *root = d->cfg->global.cgroup_root;
	char **want = NULL, **paths;
	size_t nwant = 0, i, j;
	unsigned int nomem;
	int n;

	for (i = 0; i < d->cfg->nsections; i++) {
		const struct mdkd_section *s = &d->cfg->sections[i];
		char **p;

		n = mdkd_cgroup_resolve(root, s->pattern, &paths, &nomem);
		if (n < 0) {
			log_warn("[cgroup %s]: %s", s->pattern, strerror(-n));
			continue;
		}
		if (nomem)
			log_debug(
				"[cgroup %s]: %u match(es) without the memory controller",
				s->pattern, nomem);
		p = realloc(want, (nwant + n + 1) * sizeof(*p));
		if (!p) {
			while (n)
				free(paths[--n]);
			free(paths);
			continue;
		}
		want = p;
		memcpy(want + nwant, paths, n * sizeof(*paths));
		nwant += n;
		free(paths);
	}
	for (i = 0; i < d->novr; i++) {
		char file[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];
		char **p;

		if (!d->ovr[i].manage)
			continue;
		snprintf(file, sizeof(file), "%s/%s/memory.current", root,
			 d->ovr[i].path);
		if (access(file, F_OK))
			continue;
		p = realloc(want, (nwant + 1) * sizeof(*p));
		if (!p)
			continue;
		want = p;
		want[nwant] = strdup(d->ovr[i].path);
		if (want[nwant])
			nwant++;
	}
	if (want)
		qsort(want, nwant, sizeof(*want), cmp_str);

	/* Released: managed but no longer wanted. */
	for (i = 0; i < d->ncgs;) {
		struct mdkd_cgroup *cg = d->cgs[i];

		if (!want ||
		    !bsearch(&cg->path, want, nwant, sizeof(*want), cmp_str)) {
			log_info(
				"%s: no longer matches the configuration: released",
				cg->path);
			mgr_cg_detach(d, cg);
			continue;
		}
		i++;
	}
	for (i = 0; i < nwant; i++) {
		char full[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];
		char src[MDKD_CGROUP_PATH_MAX + 64];
		struct mdkd_settings set;
		struct mdkd_cgroup *cg;
		struct stat st;

		if (i && !strcmp(want[i], want[i - 1]))
			continue;
		cg = mdkd_find(d, want[i]);
		if (cg) {
			snprintf(full, sizeof(full), "%s/%s", root, want[i]);
			if (!stat(full, &st) && st.st_ino != cg->id) {
				log_notice(
					"%s: removed and created again: starting afresh",
					cg->path);
				mgr_cg_detach(d, cg);
				cg = NULL;
			}
		}
		if (!cg) {
			manage(d, want[i]);
			continue;
		}
		effective_settings(d, want[i], &set, src, sizeof(src), NULL);
		mgr_cg_update(cg, &set, src);
	}
	for (j = 0; j < nwant; j++)
		free(want[j]);
	free(want);
	d->next_rescan_us = mgr_now_us(d) + d->cfg->global.rescan_interval_us;
}

static void flush(struct mdkd *d)
{
	uint64_t reclaimed = 0;
	size_t i;

	d->flush_due = false;
	d->ticks++;
	mdkd_prom_flush(d);
	for (i = 0; i < d->ncgs; i++)
		reclaimed += d->cgs[i]->stats.reclaimed_bytes;
	mdkd_notify("STATUS=managing %zu cgroup%s, %.1f MiB reclaimed", d->ncgs,
		    d->ncgs == 1 ? "" : "s", reclaimed / 1048576.0);
}

/* ---- signals ---- */

static void sig_arm(struct mdkd *d);

static void sig_done(struct mdkd_op *op, int res)
{
	struct mdkd *d =
		(struct mdkd *)((char *)op - offsetof(struct mdkd, sig_op));
	struct signalfd_siginfo *si = (struct signalfd_siginfo *)d->sig_buf;

	d->sig_armed = false;
	if (res == (int)sizeof(*si)) {
		if (si->ssi_signo == SIGHUP) {
			d->reload = true;
		} else {
			log_info("signal %d: stopping", (int)si->ssi_signo);
			d->stop = true;
		}
	}
	if (res != -ECANCELED)
		sig_arm(d);
}

static void sig_arm(struct mdkd *d)
{
	struct io_uring_sqe *sqe;

	if (d->sigfd < 0 || d->sig_armed || d->stop)
		return;
	sqe = mdkd_loop_sqe(&d->loop, &d->sig_op);
	if (!sqe)
		return;
	io_uring_prep_read(sqe, d->sigfd, d->sig_buf,
			   sizeof(struct signalfd_siginfo), 0);
	d->sig_armed = true;
}

static int sig_setup(struct mdkd *d, char *err, size_t errlen)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		snprintf(err, errlen, "sigprocmask: %s", strerror(errno));
		return -errno;
	}
	d->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (d->sigfd < 0) {
		snprintf(err, errlen, "signalfd: %s", strerror(errno));
		return -errno;
	}
	d->sig_op.fn = sig_done;
	signal(SIGPIPE, SIG_IGN);
	sig_arm(d);
	return 0;
}

/* ---- configuration ---- */

int mdkd_apply_config(struct mdkd *d, struct mdkd_config *cfg, char *err,
		      size_t errlen)
{
	struct mdkd_config *old = d->cfg;
	size_t i;

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
	d->cfg = cfg;
	mdkd_log_set_level(cfg->global.log_level);
	mdkd_record_open(d);
	mdkd_config_free(old);
	mdkd_rescan(d);
	return 0;
}

int mdkd_reload_config(struct mdkd *d, char *err, size_t errlen)
{
	struct mdkd_config *cfg;
	int ret;

	mdkd_notify("RELOADING=1\nSTATUS=reloading %s",
		    d->config_path ? d->config_path : "defaults");
	d->reloads++;
	if (!d->config_path) {
		cfg = mdkd_config_new_default();
		ret = cfg ? 0 : -ENOMEM;
		if (ret)
			snprintf(err, errlen, "out of memory");
	} else {
		ret = mdkd_config_load(d->config_path, &cfg, err, errlen);
	}
	if (!ret)
		ret = mdkd_apply_config(d, cfg, err, errlen);
	if (ret) {
		d->reload_failures++;
		snprintf(d->last_reload_error, sizeof(d->last_reload_error),
			 "%s", err);
		log_err("reload: %s; keeping the previous configuration", err);
	} else {
		d->last_reload_error[0] = '\0';
		log_info("reloaded %s: %zu cgroup%s managed",
			 d->config_path ? d->config_path : "defaults", d->ncgs,
			 d->ncgs == 1 ? "" : "s");
	}
	mdkd_notify("READY=1\nSTATUS=managing %zu cgroup%s", d->ncgs,
		    d->ncgs == 1 ? "" : "s");
	return ret;
}

/* ---- runtime settings ---- */

int mdkd_set(struct mdkd *d, const char *path, const char *const keys[],
	     const char *const values[], unsigned int n, bool manage_it,
	     char *err, size_t errlen)
{
	struct mdkd_override *o = ovr_find(d, path), *p;
	char src[MDKD_CGROUP_PATH_MAX + 64];
	struct mdkd_settings set;
	struct mdkd_cgroup *cg = mdkd_find(d, path);
	uint64_t mask = o ? o->mask : 0;
	unsigned int i;
	int ret;

	if (mdkd_cgroup_path_check(path, false, err, errlen))
		return -EINVAL;
	if (!cg && !manage_it) {
		snprintf(
			err, errlen,
			"%s: not managed (see mdkctl cgroup list; mdkctl cgroup create manages one)",
			path);
		return -ENOENT;
	}
	/* Parse everything into a scratch copy first: all or nothing. */
	effective_settings(d, path, &set, src, sizeof(src), NULL);
	for (i = 0; i < n; i++) {
		ret = mdkd_settings_apply(&set, &mask, keys[i], values[i], err,
					  errlen);
		if (ret)
			return ret;
	}
	if (manage_it && !cg) {
		char file[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];

		snprintf(file, sizeof(file), "%s/%s/memory.current",
			 d->cfg->global.cgroup_root, path);
		if (access(file, F_OK)) {
			snprintf(
				err, errlen,
				"%s: %s (does the cgroup exist, with the memory controller on?)",
				path, strerror(errno));
			return -ENOENT;
		}
	}
	if (!o) {
		p = realloc(d->ovr, (d->novr + 1) * sizeof(*p));
		if (!p)
			goto err_nomem;
		d->ovr = p;
		o = &d->ovr[d->novr];
		memset(o, 0, sizeof(*o));
		o->path = strdup(path);
		if (!o->path)
			goto err_nomem;
		d->novr++;
	}
	o->set = set;
	o->mask = mask;
	o->manage |= manage_it;
	for (i = 0; i < n; i++)
		log_info("%s: %s = %s (runtime)", path, keys[i], values[i]);
	effective_settings(d, path, &set, src, sizeof(src), NULL);
	if (cg) {
		mgr_cg_update(cg, &set, src);
	} else {
		d->failed[0] = '\0';
		if (!manage(d, path)) {
			snprintf(err, errlen,
				 "%s: cannot manage it (see the log)", path);
			return -EIO;
		}
	}
	return 0;

err_nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

int mdkd_release(struct mdkd *d, const char *path, char *err, size_t errlen)
{
	struct mdkd_override *o = ovr_find(d, path);

	if (!o && !mdkd_find(d, path)) {
		snprintf(err, errlen, "%s: not managed", path);
		return -ENOENT;
	}
	if (o) {
		free(o->path);
		*o = d->ovr[--d->novr];
	}
	mdkd_rescan(d);
	return 0;
}

/* ---- life cycle ---- */

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
	mgr_refresh_swap(d, mgr_now_us(d));
	if (!d->swap_total)
		log_notice("no swap: reclaim can only drop page cache");
	return 0;
}

struct mdkd *mdkd_new(struct mdkd_config *cfg, const char *config_path,
		      const char *socket_override, bool signals, char *err,
		      size_t errlen)
{
	struct mdkd *d = calloc(1, sizeof(*d));
	int ret;

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->cfg = cfg;
	d->sigfd = -1;
	d->listen_fd = -1;
	d->record_fd = -1;
	d->prom_fd = -1;
	d->read_window = MDKD_READ_WINDOW;
	d->record_op.fn = mdkd_record_done;
	d->prom_write_op.fn = mdkd_prom_write_done;
	d->prom_rename_op.fn = mdkd_prom_rename_done;
	if (config_path) {
		d->config_path = strdup(config_path);
		if (!d->config_path) {
			snprintf(err, errlen, "out of memory");
			goto err_free;
		}
	}
	if (socket_override)
		snprintf(cfg->global.socket, sizeof(cfg->global.socket), "%s",
			 socket_override);
	mdkd_log_set_level(cfg->global.log_level);
	d->started_us = mgr_now_us(d);
	if (check_system(d, err, errlen))
		goto err_free;
	ret = mdkd_restore_journal(cfg->global.state_dir,
				   cfg->global.cgroup_root);
	if (ret < 0)
		log_warn("%s/high-pulse: %s", cfg->global.state_dir,
			 strerror(-ret));
	if (mdkd_loop_init(&d->loop, MDKD_RING_ENTRIES, err, errlen))
		goto err_free;
	d->loop_ready = true;
	if (signals && sig_setup(d, err, errlen))
		goto err_free;
	if (mdkd_control_start(d, cfg->global.socket, err, errlen))
		goto err_free;
	mdkd_record_open(d);
	d->watchdog_us = mdkd_watchdog_usec() / 2;
	d->next_watchdog_us = d->started_us + d->watchdog_us;
	mdkd_rescan(d);
	return d;

err_free:
	d->cfg = NULL; /* the caller still owns it */
	mdkd_free(d);
	return NULL;
}

void mdkd_free(struct mdkd *d)
{
	size_t i;

	if (!d)
		return;
	mdkd_control_stop(d);
	while (d->ncgs)
		mgr_cg_detach(d, d->cgs[d->ncgs - 1]);
	if (d->loop_ready) {
		mdkd_record_kick(d);
		if (mdkd_loop_drain(&d->loop, 5000000))
			log_warn("%u operations still in flight at exit",
				 d->loop.inflight);
	}
	mdkd_control_free(d);
	/* A pulse cut short by the drain leaves its journal entry. */
	if (d->cfg)
		mdkd_restore_journal(d->cfg->global.state_dir,
				     d->cfg->global.cgroup_root);
	for (i = 0; i < d->nzombies; i++)
		if (!d->loop_ready || !d->loop.inflight)
			cg_free(d->zombies[i]);
	free(d->zombies);
	free(d->cgs);
	for (i = 0; i < d->novr; i++)
		free(d->ovr[i].path);
	free(d->ovr);
	/* Whole lines that the drain cancelled: write them now. */
	if (d->record_fd >= 0) {
		if (d->record_out.len && write(d->record_fd, d->record_out.data,
					       d->record_out.len) < 0)
			log_warn("record_file: %s", strerror(errno));
		if (d->record.len &&
		    write(d->record_fd, d->record.data, d->record.len) < 0)
			log_warn("record_file: %s", strerror(errno));
		close(d->record_fd);
	}
	if (d->prom_fd >= 0)
		close(d->prom_fd);
	mdkd_buf_free(&d->record);
	mdkd_buf_free(&d->record_out);
	mdkd_buf_free(&d->prom);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->loop_ready)
		mdkd_loop_exit(&d->loop);
	mdkd_config_free(d->cfg);
	free(d->config_path);
	free(d);
}

int mdkd_run_once(struct mdkd *d, uint64_t deadline_us)
{
	uint64_t now = mgr_now_us(d);
	char err[1024];
	int ret;

	if (d->reload) {
		d->reload = false;
		mdkd_reload_config(d, err, sizeof(err));
	}
	if (now >= d->next_rescan_us)
		mdkd_rescan(d);
	if (d->watchdog_us && now >= d->next_watchdog_us) {
		mdkd_notify("WATCHDOG=1");
		d->next_watchdog_us = now + d->watchdog_us;
	}
	mgr_run_due(d, now);
	sig_arm(d);
	mdkd_control_arm(d);
	ret = mdkd_loop_wait(&d->loop, deadline_us);
	if (ret < 0)
		return ret;
	/* Cgroups that finished may have freed read slots. */
	mgr_run_due(d, mgr_now_us(d));
	if (d->flush_due && !d->reading)
		flush(d);
	return ret;
}

int mdkd_run(struct mdkd *d)
{
	int ret;

	while (!d->stop) {
		uint64_t deadline = mgr_next_deadline(d);

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
	uint64_t now = mgr_now_us(d);
	size_t i;
	int ret;

	for (i = 0; i < d->ncgs; i++)
		d->cgs[i]->next_due_us = now;
	mgr_run_due(d, now);
	for (;;) {
		bool busy = d->reading > 0 || d->record_busy || d->prom_pending;

		for (i = 0; i < d->ncgs && !busy; i++)
			busy = d->cgs[i]->acting ||
			       d->cgs[i]->next_due_us <= now;
		if (!busy)
			break;
		ret = mdkd_loop_wait(&d->loop, mdkd_now_us() + 1000000);
		if (ret < 0)
			return ret;
		mgr_run_due(d, now);
		if (d->flush_due && !d->reading)
			flush(d);
	}
	return 0;
}
