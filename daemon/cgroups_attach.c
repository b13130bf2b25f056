// SPDX-License-Identifier: GPL-2.0
/*
 * One managed cgroup: attach (its files, its mode, its actuator), settings
 * changes, stop and free.  See cgroups.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroups.h"
#include "log.h"
#include "registry.h"

/* What the mode and the actuator of @cg see of it. */
static void target_init(struct mdkd_cgroup *cg)
{
	struct mdkd_cgroups *tbl = cg->tbl;

	cg->t.path = cg->path;
	cg->t.id = cg->id;
	cg->t.dirfd = cg->dirfd;
	cg->t.set = &cg->set;
	cg->t.sample = &cg->sample;
	cg->t.cgroup_root = tbl->cgroup_root;
	cg->t.sys_root = tbl->sys_root;
	cg->t.proc_root = tbl->proc_root;
	cg->t.state_dir = tbl->state_dir;
	cg->t.page_sys = tbl->page_sys;
	cg->t.policy_source = tbl->policy_source;
	cg->t.swappiness = -1;
	cg->t.ops = tbl->target_ops;
	cg->t.tiers = tbl->tiers;
	cg->t.host = tbl->host;
	cg->t.limits = tbl->limits;
	cg->t.tier_costs = tbl->tier_costs;
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
		ret = a->attach(&cg->t, state, err, errlen);
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
		cg->act->restore(&cg->t, cg->act_state);
	if (cg->act->detach)
		cg->act->detach(&cg->t, cg->act_state);
	free(cg->act_state);
	cg->act = NULL;
	cg->act_state = NULL;
}

struct mdkd_cgroup *mdkd_cgroup_attach(struct mdkd_cgroups *tbl,
				       const char *path,
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
	cg->tbl = tbl;
	cg->dirfd = -1;
	for (i = 0; i < MDKD_CGF_NR; i++)
		cg->fds[i] = -1;
	cg->path = strdup(path);
	if (!cg->path)
		goto err_free;
	snprintf(full, sizeof(full), "%s/%s", tbl->cgroup_root, path);
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
	}
	for (i = 0; i < MDKD_CG_ACT_OPS; i++)
		cg->acts[i].cg = cg;
	cg->set = *set;
	snprintf(cg->source, sizeof(cg->source), "%s", source);
	target_init(cg);
	cg->lim.held = MDKD_R_RECLAIM;
	if (mdkd_ctl_init(&cg->ctl, set->mode)) {
		snprintf(err, errlen, "out of memory");
		goto err_close;
	}
	if (set->mode->start) {
		ret = set->mode->start(&cg->t, cg->ctl.mode_state, err, errlen);
		if (ret)
			goto err_ctl;
	}
	if (choose_actuator(set, cg->dirfd, &a, err, errlen) ||
	    act_attach(cg, a, err, errlen))
		goto err_mode;
	cg->attached_us = mdkd_clock_now(tbl->clock);
	cg->next_due_us = cg->attached_us;
	return cg;

err_mode:
	if (set->mode->stop)
		set->mode->stop(&cg->t, cg->ctl.mode_state);
err_ctl:
	mdkd_ctl_destroy(&cg->ctl);
err_close:
	mdkd_cgroup_free(cg);
	return NULL;
err_free:
	free(cg);
err_nomem:
	snprintf(err, errlen, "out of memory");
	return NULL;
}

void mdkd_cgroup_free(struct mdkd_cgroup *cg)
{
	int i;

	if (cg->act && cg->act->detach)
		cg->act->detach(&cg->t, cg->act_state);
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

void mdkd_cgroup_update(struct mdkd_cgroup *cg, const struct mdkd_settings *set,
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
			old->stop(&cg->t, cg->ctl.mode_state);
		if (mdkd_ctl_set_mode(&cg->ctl, mode)) {
			log_err("%s: out of memory switching to mode %s; observing only",
				cg->path, mode->name);
			mdkd_ctl_set_mode(&cg->ctl, &mdkd_mode_off);
		} else if (mode->start &&
			   mode->start(&cg->t, cg->ctl.mode_state, err,
				       sizeof(err))) {
			log_err("%s: mode %s: %s; observing only", cg->path,
				mode->name, err);
			mdkd_ctl_set_mode(&cg->ctl, &mdkd_mode_off);
		}
		log_info("%s: mode %s -> %s", cg->path, old->name,
			 cg->ctl.mode->name);
	}
	cg->set.mode = cg->ctl.mode;
	if (mdkd_mode_interval_us(&cg->set) < mdkd_mode_interval_us(&prev) &&
	    cg->next_due_us > mdkd_clock_now(cg->tbl->clock) +
				      mdkd_mode_interval_us(&cg->set))
		cg->next_due_us = mdkd_clock_now(cg->tbl->clock) +
				  mdkd_mode_interval_us(&cg->set);
	if (cg->ctl.mode == old && old->update)
		old->update(&cg->t, cg->ctl.mode_state, &prev);
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

void mdkd_cgroup_stop(struct mdkd_cgroup *cg)
{
	if (cg->act && cg->act->restore)
		cg->act->restore(&cg->t, cg->act_state);
	if (cg->ctl.mode->stop)
		cg->ctl.mode->stop(&cg->t, cg->ctl.mode_state);
}
