// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd's manager: managed cgroups, the per-interval pipeline on the loop,
 * reloads and runtime settings.  See manager.h for the lifetime rules.
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
#include "log.h"
#include "manager.h"
#include "metrics.h"
#include "notify.h"

/* Cgroups read at the same time; each is MDKD_CGF_NR reads in flight. */
#define MDKD_READ_WINDOW 256
#define MDKD_RING_ENTRIES 1024

static void cg_free(struct mdkd_cgroup *cg);
static void read_done(struct mdkd_op *op, int res);
static void act_write_done(struct mdkd_op *op, int res);
static void record_kick(struct mdkd *d);
static int record_open(struct mdkd *d);
static void prom_flush(struct mdkd *d);

static uint64_t now_us(struct mdkd *d)
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
		cg->reads[i].op.fn = read_done;
	}
	for (i = 0; i < MDKD_CG_ACT_OPS; i++) {
		cg->acts[i].cg = cg;
		cg->acts[i].op.fn = act_write_done;
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
	cg->attached_us = now_us(d);
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
static void cg_detach(struct mdkd *d, struct mdkd_cgroup *cg)
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

static void cg_op_done(struct mdkd_cgroup *cg)
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
static void cg_update(struct mdkd_cgroup *cg, const struct mdkd_settings *set,
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
	    cg->next_due_us > now_us(cg->d) + mdkd_mode_interval_us(&cg->set))
		cg->next_due_us =
			now_us(cg->d) + mdkd_mode_interval_us(&cg->set);
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
			cg_detach(d, cg);
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
				cg_detach(d, cg);
				cg = NULL;
			}
		}
		if (!cg) {
			manage(d, want[i]);
			continue;
		}
		effective_settings(d, want[i], &set, src, sizeof(src), NULL);
		cg_update(cg, &set, src);
	}
	for (j = 0; j < nwant; j++)
		free(want[j]);
	free(want);
	d->next_rescan_us = now_us(d) + d->cfg->global.rescan_interval_us;
}

/* ---- the per-interval pipeline ---- */

/* Host swap, for what counts as reclaimable; read at most once a second. */
static void refresh_swap(struct mdkd *d, uint64_t now)
{
	int ret;

	if (d->swap_read_us && now - d->swap_read_us < 1000000)
		return;
	ret = mdkd_meminfo_swap(d->cfg->global.proc_root, &d->swap_total,
				&d->swap_free);
	if (ret) {
		d->swap_total = d->swap_free = 0;
		log_debug("%s/meminfo: %s", d->cfg->global.proc_root,
			  strerror(-ret));
	}
	d->swap_read_us = now;
}

static void start_read(struct mdkd *d, struct mdkd_cgroup *cg, uint64_t now)
{
	int i;

	cg->reading = true;
	cg->reads_left = 0;
	cg->read_err = 0;
	cg->sample.time_us = now;
	for (i = 0; i < MDKD_CGF_NR; i++) {
		struct io_uring_sqe *sqe;

		if (cg->fds[i] < 0)
			continue;
		sqe = mdkd_loop_sqe(&d->loop, &cg->reads[i].op);
		if (!sqe) {
			cg->read_err = -EIO;
			continue;
		}
		/* Offset 0 makes seq_file generate the file afresh. */
		io_uring_prep_read(sqe, cg->fds[i], cg->bufs[i],
				   cg->bufsz[i] - 1, 0);
		cg->reads_left++;
		cg->inflight++;
	}
	d->reading++;
}

static void record_interval(struct mdkd_cgroup *cg)
{
	struct mdkd *d = cg->d;

	if (d->record_fd < 0 || cg->dec.reason == MDKD_R_BASELINE)
		return;
	mdkd_record_csv(cg, now_us(d) - d->started_us, &d->record);
	record_kick(d);
}

static void decide(struct mdkd *d, struct mdkd_cgroup *cg)
{
	const char *bufs[MDKD_CGF_NR];
	struct mdkd_sample s = cg->sample;
	char err[256];
	int i, ret;

	for (i = 0; i < MDKD_CGF_NR; i++) {
		bufs[i] = cg->fds[i] >= 0 ? cg->bufs[i] : NULL;
		if (bufs[i])
			cg->bufs[i][cg->lens[i]] = '\0';
	}
	ret = mdkd_cgroup_parse(&s, bufs, cg->lens, err, sizeof(err));
	if (ret) {
		cg->stats.read_errors++;
		log_warn("%s: %s", cg->path, err);
		return;
	}
	s.host_swap_total_bytes = d->swap_total;
	s.host_swap_free_bytes = d->swap_free;
	if (cg->ctl.mode->observe)
		cg->ctl.mode->observe(cg, cg->ctl.mode_state, &s);
	mdkd_ctl_step(&cg->ctl, &cg->set, &s, &cg->iv, &cg->dec);
	cg->sample = s;
	cg->have_sample = true;
	d->flush_due = true;
	if (cg->dec.reason == MDKD_R_BASELINE)
		return;
	cg->stats.intervals++;
	cg->stats.swapin_bytes += cg->iv.swapin_bytes;
	cg->stats.swapout_bytes += cg->iv.swapout_bytes;
	cg->stats.refaults += cg->iv.refaults;
	log_debug(
		"%s: current %llu floor %llu psi some %.4f%% io %.4f%%: %s %llu",
		cg->path, (unsigned long long)s.current_bytes,
		(unsigned long long)cg->iv.floor_bytes, cg->iv.mem_some * 100,
		cg->iv.io_some * 100, mdkd_reason_names[cg->dec.reason],
		(unsigned long long)cg->dec.reclaim_bytes);
	if (!cg->dec.reclaim_bytes || !cg->act) {
		record_interval(cg);
		return;
	}
	cg->acting = true;
	cg->act_bytes = cg->dec.reclaim_bytes;
	cg->act_start_us = now_us(d);
	cg->stats.reclaim_requests++;
	cg->stats.requested_bytes += cg->act_bytes;
	ret = cg->act->apply(cg, cg->act_state, cg->act_bytes, cg->dec.pages);
	if (ret < 0)
		mdkd_cgroup_act_done(cg, ret);
}

static void read_done(struct mdkd_op *op, int res)
{
	struct mdkd_cg_op *r = (struct mdkd_cg_op *)op;
	struct mdkd_cgroup *cg = r->cg;
	struct mdkd *d = cg->d;

	if (res < 0) {
		if (!cg->read_err) {
			cg->read_err = res;
			cg->read_err_file = r->idx;
		}
	} else if ((size_t)res >= cg->bufsz[r->idx] - 1) {
		/* Maybe cut short: a larger buffer from the next interval. */
		char *p = realloc(cg->bufs[r->idx], 2 * cg->bufsz[r->idx]);

		if (p) {
			cg->bufs[r->idx] = p;
			cg->bufsz[r->idx] *= 2;
		}
		if (!cg->read_err) {
			cg->read_err = -EMSGSIZE;
			cg->read_err_file = r->idx;
		}
	} else {
		cg->lens[r->idx] = (size_t)res;
	}
	if (--cg->reads_left == 0 && !cg->detached) {
		cg->reading = false;
		d->reading--;
		if (cg->read_err == -ENODEV || cg->read_err == -ENOENT) {
			log_notice("%s: cgroup removed; no longer managed",
				   cg->path);
			cg_detach(d, cg);
		} else if (cg->read_err) {
			cg->stats.read_errors++;
			if (cg->read_err != -EMSGSIZE)
				log_warn("%s/%s: read: %s", cg->path,
					 mdkd_cgroup_files[cg->read_err_file]
						 .name,
					 strerror(-cg->read_err));
		} else {
			decide(d, cg);
		}
	}
	cg_op_done(cg);
}

static void act_write_done(struct mdkd_op *op, int res)
{
	struct mdkd_cg_op *w = (struct mdkd_cg_op *)op;
	struct mdkd_cgroup *cg = w->cg;
	mdkd_act_fn fn = w->fn;

	w->fn = NULL;
	if (fn && cg->act)
		fn(cg, cg->act_state, res);
	cg_op_done(cg);
}

int mdkd_cgroup_queue_write(struct mdkd_cgroup *cg, int fd, const void *buf,
			    size_t len, bool link, mdkd_act_fn fn)
{
	struct io_uring_sqe *sqe;
	int i;

	for (i = 0; i < MDKD_CG_ACT_OPS; i++)
		if (!cg->acts[i].fn)
			break;
	if (i == MDKD_CG_ACT_OPS)
		return -EBUSY;
	sqe = mdkd_loop_sqe(&cg->d->loop, &cg->acts[i].op);
	if (!sqe)
		return -EIO;
	/* Offset -1: the file position (cgroup files ignore it). */
	io_uring_prep_write(sqe, fd, buf, (unsigned int)len, (uint64_t)-1);
	if (link)
		sqe->flags |= IOSQE_IO_HARDLINK;
	cg->acts[i].fn = fn;
	cg->inflight++;
	return 0;
}

void mdkd_cgroup_act_done(struct mdkd_cgroup *cg, int result)
{
	struct mdkd *d = cg->d;

	cg->acting = false;
	cg->act_result = result;
	cg->act_us = now_us(d) - cg->act_start_us;
	if (!result) {
		cg->stats.reclaimed_bytes += cg->act_bytes;
	} else {
		cg->stats.reclaim_failures++;
		if (result == -EAGAIN)
			cg->stats.eagain++;
		else if (result == -EBUSY)
			cg->stats.ebusy++;
		else if (result != -ECANCELED && !cg->detached)
			log_warn("%s: %s %llu bytes: %s", cg->path,
				 cg->act ? cg->act->name : "action",
				 (unsigned long long)cg->act_bytes,
				 strerror(-result));
	}
	mdkd_ctl_result(&cg->ctl, &cg->set, cg->act_bytes, result);
	if (cg->detached)
		return;
	record_interval(cg);
	d->flush_due = true;
	/* A settings change may have asked for another actuator meanwhile. */
	cg_update(cg, &cg->set, cg->source);
}

static void run_due(struct mdkd *d, uint64_t now)
{
	bool swap_fresh = false;
	size_t i;

	for (i = 0; i < d->ncgs && d->reading < d->read_window; i++) {
		struct mdkd_cgroup *cg = d->cgs[i];

		if (cg->reading || cg->next_due_us > now)
			continue;
		cg->next_due_us += mdkd_mode_interval_us(&cg->set);
		if (cg->next_due_us <= now)
			cg->next_due_us = now + mdkd_mode_interval_us(&cg->set);
		if (cg->acting) {
			/* Still carrying out the last decision: skip one. */
			cg->stats.busy_skips++;
			log_debug("%s: busy with the previous action",
				  cg->path);
			continue;
		}
		if (!swap_fresh) {
			refresh_swap(d, now);
			swap_fresh = true;
		}
		start_read(d, cg, now);
	}
}

static uint64_t next_deadline(struct mdkd *d)
{
	uint64_t t = d->next_rescan_us;
	size_t i;

	if (d->watchdog_us && d->next_watchdog_us < t)
		t = d->next_watchdog_us;
	/* With every read slot taken, the next completion wakes us anyway. */
	if (d->reading >= d->read_window)
		return t;
	for (i = 0; i < d->ncgs; i++)
		if (!d->cgs[i]->reading && d->cgs[i]->next_due_us < t)
			t = d->cgs[i]->next_due_us;
	return t;
}

/* ---- recording: CSV lines and the Prometheus file, written async ---- */

static void record_done(struct mdkd_op *op, int res)
{
	struct mdkd *d =
		(struct mdkd *)((char *)op - offsetof(struct mdkd, record_op));

	if (res < 0)
		log_warn("%s: write: %s", d->record_path, strerror(-res));
	else if ((size_t)res < d->record_out.len)
		log_warn("%s: short write (%d of %zu bytes)", d->record_path,
			 res, d->record_out.len);
	d->record_busy = false;
	mdkd_buf_reset(&d->record_out);
	if (strcmp(d->cfg->global.record_file, d->record_path))
		record_open(d);
	record_kick(d);
}

static void record_kick(struct mdkd *d)
{
	struct io_uring_sqe *sqe;
	struct mdkd_buf t;

	if (d->record_busy || !d->record.len || d->record_fd < 0)
		return;
	sqe = mdkd_loop_sqe(&d->loop, &d->record_op);
	if (!sqe)
		return;
	t = d->record_out;
	d->record_out = d->record;
	d->record = t;
	mdkd_buf_reset(&d->record);
	/* O_APPEND: each write lands at the end, whole lines only. */
	io_uring_prep_write(sqe, d->record_fd, d->record_out.data,
			    (unsigned int)d->record_out.len, (uint64_t)-1);
	d->record_busy = true;
}

static int record_open(struct mdkd *d)
{
	const char *path = d->cfg->global.record_file;
	struct stat st;
	int fd;

	if (!strcmp(path, d->record_path))
		return 0;
	if (d->record_fd >= 0 && !d->record_busy) {
		close(d->record_fd);
		d->record_fd = -1;
	} else if (d->record_fd >= 0) {
		return 0; /* switch once the write in flight is done */
	}
	d->record_path[0] = '\0';
	if (!*path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_err("record_file %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!fstat(fd, &st) && !st.st_size &&
	    write(fd, mdkd_record_header, strlen(mdkd_record_header)) < 0)
		log_warn("record_file %s: %s", path, strerror(errno));
	d->record_fd = fd;
	snprintf(d->record_path, sizeof(d->record_path), "%s", path);
	return 0;
}

static void prom_done(struct mdkd *d, int res, const char *what)
{
	if (res < 0 && res != d->prom_err)
		log_warn("prometheus_file %s: %s: %s",
			 d->cfg->global.prometheus_file, what, strerror(-res));
	if (res < 0)
		d->prom_err = res;
	if (--d->prom_pending)
		return;
	close(d->prom_fd);
	d->prom_fd = -1;
	/* Metrics changed while the last file was being written. */
	if (d->prom_dirty) {
		d->prom_dirty = false;
		prom_flush(d);
	}
}

static void prom_write_done(struct mdkd_op *op, int res)
{
	struct mdkd *d = (struct mdkd *)((char *)op -
					 offsetof(struct mdkd, prom_write_op));

	if (res >= 0 && (size_t)res < d->prom.len)
		res = -EIO;
	prom_done(d, res, "write");
}

static void prom_rename_done(struct mdkd_op *op, int res)
{
	struct mdkd *d = (struct mdkd *)((char *)op -
					 offsetof(struct mdkd, prom_rename_op));

	if (!res)
		d->prom_err = 0;
	prom_done(d, res == -ECANCELED ? 0 : res, "rename");
}

/*
 * Write FILE.tmp, then rename it over FILE (linked SQEs: the rename runs
 * only after a complete write), so node_exporter never reads half a file.
 */
static void prom_flush(struct mdkd *d)
{
	const char *path = d->cfg->global.prometheus_file;
	struct io_uring_sqe *sqe;

	if (!*path)
		return;
	if (d->prom_pending) {
		d->prom_dirty = true;
		return;
	}
	mdkd_buf_reset(&d->prom);
	mdkd_prometheus_text(d, &d->prom);
	if (d->prom.error)
		return;
	snprintf(d->prom_tmp, sizeof(d->prom_tmp), "%s.tmp", path);
	d->prom_fd = open(d->prom_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0644);
	if (d->prom_fd < 0) {
		if (-errno != d->prom_err)
			log_warn("prometheus_file %s: %s", d->prom_tmp,
				 strerror(errno));
		d->prom_err = -errno;
		return;
	}
	sqe = mdkd_loop_sqe(&d->loop, &d->prom_write_op);
	if (!sqe) {
		close(d->prom_fd);
		d->prom_fd = -1;
		return;
	}
	io_uring_prep_write(sqe, d->prom_fd, d->prom.data,
			    (unsigned int)d->prom.len, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = mdkd_loop_sqe(&d->loop, &d->prom_rename_op);
	if (!sqe) {
		d->prom_pending = 1;
		return;
	}
	io_uring_prep_rename(sqe, d->prom_tmp, path);
	d->prom_pending = 2;
}

static void flush(struct mdkd *d)
{
	uint64_t reclaimed = 0;
	size_t i;

	d->flush_due = false;
	d->ticks++;
	prom_flush(d);
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
	record_open(d);
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
		cg_update(cg, &set, src);
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

/* ---- crash recovery ---- */

int mdkd_restore_journal(const char *state_dir, const char *cgroup_root)
{
	char dir[MDKD_PATH_MAX + 16];
	struct dirent *de;
	int restored = 0;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s/high-pulse", state_dir);
	dh = opendir(dir);
	if (!dh)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dh))) {
		char file[sizeof(dir) + 256], high[MDKD_PATH_MAX * 2 + 32];
		char path[MDKD_CGROUP_PATH_MAX], orig[32], target[32], cur[32];
		ssize_t n;
		FILE *f;
		int fd;

		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		f = fopen(file, "re");
		if (!f)
			continue;
		if (!fgets(path, sizeof(path), f) ||
		    !fgets(orig, sizeof(orig), f) ||
		    !fgets(target, sizeof(target), f)) {
			fclose(f);
			log_warn("%s: malformed journal entry; removed", file);
			unlink(file);
			continue;
		}
		fclose(f);
		path[strcspn(path, "\n")] = '\0';
		snprintf(high, sizeof(high), "%s/%s/memory.high", cgroup_root,
			 path);
		fd = open(high, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			/* The cgroup is gone, and its limit with it. */
			unlink(file);
			continue;
		}
		n = pread(fd, cur, sizeof(cur) - 1, 0);
		cur[n > 0 ? n : 0] = '\0';
		close(fd);
		/* Only a value we set is ours to put back. */
		if (!strcmp(cur, target)) {
			fd = open(high, O_WRONLY | O_TRUNC | O_CLOEXEC);
			if (fd < 0 || write(fd, orig, strlen(orig)) < 0) {
				log_err("%s: cannot restore memory.high: %s",
					path, strerror(errno));
				if (fd >= 0)
					close(fd);
				continue;
			}
			close(fd);
			orig[strcspn(orig, "\n")] = '\0';
			log_notice(
				"%s: restored memory.high to %s after an interrupted pulse",
				path, orig);
			restored++;
		}
		unlink(file);
	}
	closedir(dh);
	return restored;
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
	refresh_swap(d, now_us(d));
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
	d->record_op.fn = record_done;
	d->prom_write_op.fn = prom_write_done;
	d->prom_rename_op.fn = prom_rename_done;
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
	d->started_us = now_us(d);
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
	record_open(d);
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
		cg_detach(d, d->cgs[d->ncgs - 1]);
	if (d->loop_ready) {
		record_kick(d);
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
	uint64_t now = now_us(d);
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
	run_due(d, now);
	sig_arm(d);
	mdkd_control_arm(d);
	ret = mdkd_loop_wait(&d->loop, deadline_us);
	if (ret < 0)
		return ret;
	/* Cgroups that finished may have freed read slots. */
	run_due(d, now_us(d));
	if (d->flush_due && !d->reading)
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
	uint64_t now = now_us(d);
	size_t i;
	int ret;

	for (i = 0; i < d->ncgs; i++)
		d->cgs[i]->next_due_us = now;
	run_due(d, now);
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
		run_due(d, now);
		if (d->flush_due && !d->reading)
			flush(d);
	}
	return 0;
}
