// SPDX-License-Identifier: GPL-2.0
/*
 * The table of managed cgroups: lookup, rescans against the configuration,
 * runtime overrides, detach and the cgroups detached with operations in
 * flight.  See cgroups.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mdk/util.h>

#include "cgroups.h"
#include "log.h"
#include "mode_policy.h"
#include "pages.h"

void mdkd_cgroups_init(struct mdkd_cgroups *tbl, const struct mdkd_config *cfg,
		       struct mdkd_loop *loop, const struct mdkd_clock *clock,
		       const struct mdkd_target_ops *ops, void *ops_arg)
{
	memset(tbl, 0, sizeof(*tbl));
	tbl->cfg = cfg;
	tbl->loop = loop;
	tbl->clock = clock;
	snprintf(tbl->cgroup_root, sizeof(tbl->cgroup_root), "%s",
		 cfg->global.cgroup_root);
	snprintf(tbl->state_dir, sizeof(tbl->state_dir), "%s",
		 cfg->global.state_dir);
	snprintf(tbl->sys_root, sizeof(tbl->sys_root), "%s",
		 cfg->global.sys_root);
	snprintf(tbl->proc_root, sizeof(tbl->proc_root), "%s",
		 cfg->global.proc_root);
	tbl->page_sys = &mdkd_page_sys_real;
	tbl->policy_source = &mdkd_policy_source_sampler;
	tbl->target_ops = ops;
	tbl->target_arg = ops_arg;
}

void mdkd_cgroups_detach_all(struct mdkd_cgroups *tbl)
{
	while (tbl->n)
		mdkd_cgroups_detach(tbl, tbl->cgs[tbl->n - 1]);
}

void mdkd_cgroups_free(struct mdkd_cgroups *tbl, bool idle)
{
	size_t i;

	for (i = 0; i < tbl->nzombies; i++)
		if (idle)
			mdkd_cgroup_free(tbl->zombies[i]);
	free(tbl->zombies);
	free(tbl->cgs);
	for (i = 0; i < tbl->novr; i++)
		free(tbl->ovr[i].path);
	free(tbl->ovr);
}

/* Index of @path in tbl->cgs, or where it would go (as -1 - index). */
static long cg_index(struct mdkd_cgroups *tbl, const char *path)
{
	size_t lo = 0, hi = tbl->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(tbl->cgs[mid]->path, path);

		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1 - (long)lo;
}

struct mdkd_cgroup *mdkd_cgroups_find(struct mdkd_cgroups *tbl,
				      const char *path)
{
	long i = cg_index(tbl, path);

	return i >= 0 ? tbl->cgs[i] : NULL;
}

static struct mdkd_override *ovr_find(struct mdkd_cgroups *tbl,
				      const char *path)
{
	size_t i;

	for (i = 0; i < tbl->novr; i++)
		if (!strcmp(tbl->ovr[i].path, path))
			return &tbl->ovr[i];
	return NULL;
}

/* The settings of @path: configuration, then runtime overrides. */
static int effective_settings(struct mdkd_cgroups *tbl, const char *path,
			      struct mdkd_settings *set, char *src,
			      size_t srclen, bool *wanted)
{
	struct mdkd_override *o = ovr_find(tbl, path);
	int n = mdkd_config_settings_for(tbl->cfg, path, set, src, srclen);

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

static int cg_insert(struct mdkd_cgroups *tbl, struct mdkd_cgroup *cg)
{
	long i = cg_index(tbl, cg->path);
	struct mdkd_cgroup **p;

	if (i >= 0)
		return -EEXIST;
	i = -1 - i;
	if (mdk_grow((void **)&tbl->cgs, &tbl->cgs_cap, tbl->n + 1,
		     sizeof(*tbl->cgs)))
		return -ENOMEM;
	p = tbl->cgs;
	memmove(&p[i + 1], &p[i], (tbl->n - i) * sizeof(*p));
	p[i] = cg;
	tbl->n++;
	return 0;
}

void mdkd_cgroups_detach(struct mdkd_cgroups *tbl, struct mdkd_cgroup *cg)
{
	long i = cg_index(tbl, cg->path);

	if (i >= 0 && tbl->cgs[i] == cg) {
		memmove(&tbl->cgs[i], &tbl->cgs[i + 1],
			(tbl->n - i - 1) * sizeof(*tbl->cgs));
		tbl->n--;
	}
	cg->detached = true;
	mdkd_cgroup_stop(cg);
	if (cg->reading) {
		cg->reading = false;
		tbl->reading--;
	}
	if (!cg->inflight) {
		mdkd_cgroup_free(cg);
		return;
	}
	/* Its SQEs must reach the kernel before the fds may close. */
	io_uring_submit(&tbl->loop->ring);
	if (mdk_grow((void **)&tbl->zombies, &tbl->zombies_cap,
		     tbl->nzombies + 1, sizeof(*tbl->zombies))) {
		/* Leak rather than free memory the kernel may use. */
		log_err("%s: out of memory; leaking it", cg->path);
		return;
	}
	tbl->zombies[tbl->nzombies++] = cg;
}

void mdkd_cgroup_op_done(struct mdkd_cgroup *cg)
{
	struct mdkd_cgroups *tbl = cg->tbl;
	size_t i;

	cg->inflight--;
	if (!cg->detached || cg->inflight)
		return;
	for (i = 0; i < tbl->nzombies; i++)
		if (tbl->zombies[i] == cg) {
			tbl->zombies[i] = tbl->zombies[--tbl->nzombies];
			break;
		}
	mdkd_cgroup_free(cg);
}

/* Attach @path unless it is already managed; log failures once. */
static struct mdkd_cgroup *manage(struct mdkd_cgroups *tbl, const char *path)
{
	char src[MDKD_CGROUP_PATH_MAX + 64], err[1024];
	struct mdkd_settings set;
	struct mdkd_cgroup *cg;

	effective_settings(tbl, path, &set, src, sizeof(src), NULL);
	cg = mdkd_cgroup_attach(tbl, path, &set, src, err, sizeof(err));
	if (!cg) {
		if (strcmp(tbl->failed, path)) {
			log_err("%s: cannot manage it: %s", path, err);
			snprintf(tbl->failed, sizeof(tbl->failed), "%s", path);
		}
		return NULL;
	}
	if (cg_insert(tbl, cg)) {
		mdkd_cgroup_free(cg);
		return NULL;
	}
	if (!strcmp(tbl->failed, path))
		tbl->failed[0] = '\0';
	log_info("%s: managed (mode %s, actuator %s, interval %.3gs, from %s)",
		 path, cg->ctl.mode->name, cg->act ? cg->act->name : "none",
		 mdkd_mode_interval_us(&cg->set) / 1e6, cg->source);
	return cg;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The paths the configuration and the runtime overrides want managed,
 * sorted, into *@out (duplicates possible).  Return: how many.
 */
static size_t wanted(struct mdkd_cgroups *tbl, char ***out)
{
	const char *root = tbl->cgroup_root;
	char **want = NULL, **paths;
	size_t nwant = 0, cwant = 0, i;
	unsigned int nomem;
	int n;

	for (i = 0; i < tbl->cfg->nsections; i++) {
		const struct mdkd_section *s = &tbl->cfg->sections[i];

		n = mdkd_cgroup_resolve(root, s->pattern, &paths, &nomem);
		if (n < 0) {
			log_warn("[cgroup %s]: %s", s->pattern, strerror(-n));
			continue;
		}
		if (nomem)
			log_debug(
				"[cgroup %s]: %u match(es) without the memory controller",
				s->pattern, nomem);
		if (mdk_grow((void **)&want, &cwant, nwant + n + 1,
			     sizeof(*want))) {
			while (n)
				free(paths[--n]);
			free(paths);
			continue;
		}
		memcpy(want + nwant, paths, n * sizeof(*paths));
		nwant += n;
		free(paths);
	}
	for (i = 0; i < tbl->novr; i++) {
		char file[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];

		if (!tbl->ovr[i].manage)
			continue;
		snprintf(file, sizeof(file), "%s/%s/memory.current", root,
			 tbl->ovr[i].path);
		if (access(file, F_OK))
			continue;
		if (mdk_grow((void **)&want, &cwant, nwant + 1, sizeof(*want)))
			continue;
		want[nwant] = strdup(tbl->ovr[i].path);
		if (want[nwant])
			nwant++;
	}
	if (want)
		qsort(want, nwant, sizeof(*want), cmp_str);
	*out = want;
	return nwant;
}

void mdkd_cgroups_rescan(struct mdkd_cgroups *tbl)
{
	const char *root = tbl->cgroup_root;
	char **want;
	size_t nwant = wanted(tbl, &want), i, j;

	/* Released: managed but no longer wanted. */
	for (i = 0; i < tbl->n;) {
		struct mdkd_cgroup *cg = tbl->cgs[i];

		if (!want ||
		    !bsearch(&cg->path, want, nwant, sizeof(*want), cmp_str)) {
			log_info(
				"%s: no longer matches the configuration: released",
				cg->path);
			mdkd_cgroups_detach(tbl, cg);
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
		cg = mdkd_cgroups_find(tbl, want[i]);
		if (cg) {
			snprintf(full, sizeof(full), "%s/%s", root, want[i]);
			if (!stat(full, &st) && st.st_ino != cg->id) {
				log_notice(
					"%s: removed and created again: starting afresh",
					cg->path);
				mdkd_cgroups_detach(tbl, cg);
				cg = NULL;
			}
		}
		if (!cg) {
			manage(tbl, want[i]);
			continue;
		}
		effective_settings(tbl, want[i], &set, src, sizeof(src), NULL);
		mdkd_cgroup_update(cg, &set, src);
	}
	for (j = 0; j < nwant; j++)
		free(want[j]);
	free(want);
	tbl->next_rescan_us = mdkd_clock_now(tbl->clock) +
			      tbl->cfg->global.rescan_interval_us;
}

int mdkd_cgroups_set(struct mdkd_cgroups *tbl, const char *path,
		     const char *const keys[], const char *const values[],
		     unsigned int n, bool manage_it, char *err, size_t errlen)
{
	struct mdkd_override *o = ovr_find(tbl, path);
	char src[MDKD_CGROUP_PATH_MAX + 64];
	struct mdkd_settings set;
	struct mdkd_cgroup *cg = mdkd_cgroups_find(tbl, path);
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
	effective_settings(tbl, path, &set, src, sizeof(src), NULL);
	for (i = 0; i < n; i++) {
		ret = mdkd_settings_apply(&set, &mask, keys[i], values[i], err,
					  errlen);
		if (ret)
			return ret;
	}
	if (manage_it && !cg) {
		char file[MDKD_PATH_MAX + MDKD_CGROUP_PATH_MAX];

		snprintf(file, sizeof(file), "%s/%s/memory.current",
			 tbl->cgroup_root, path);
		if (access(file, F_OK)) {
			snprintf(
				err, errlen,
				"%s: %s (does the cgroup exist, with the memory controller on?)",
				path, strerror(errno));
			return -ENOENT;
		}
	}
	if (!o) {
		if (mdk_grow((void **)&tbl->ovr, &tbl->ovr_cap, tbl->novr + 1,
			     sizeof(*tbl->ovr)))
			goto err_nomem;
		o = &tbl->ovr[tbl->novr];
		memset(o, 0, sizeof(*o));
		o->path = strdup(path);
		if (!o->path)
			goto err_nomem;
		tbl->novr++;
	}
	o->set = set;
	o->mask = mask;
	o->manage |= manage_it;
	for (i = 0; i < n; i++)
		log_info("%s: %s = %s (runtime)", path, keys[i], values[i]);
	effective_settings(tbl, path, &set, src, sizeof(src), NULL);
	if (cg) {
		mdkd_cgroup_update(cg, &set, src);
	} else {
		tbl->failed[0] = '\0';
		if (!manage(tbl, path)) {
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

int mdkd_cgroups_release(struct mdkd_cgroups *tbl, const char *path, char *err,
			 size_t errlen)
{
	struct mdkd_override *o = ovr_find(tbl, path);

	if (!o && !mdkd_cgroups_find(tbl, path)) {
		snprintf(err, errlen, "%s: not managed", path);
		return -ENOENT;
	}
	if (o) {
		free(o->path);
		*o = tbl->ovr[--tbl->novr];
	}
	mdkd_cgroups_rescan(tbl);
	return 0;
}
