// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP live: the refit of the live learner (live.c), on the window's
 * path or in a worker thread.  A fit of XGBoost's trees to 65,536 rows
 * takes up to a second, longer than mdkd can hold its loop, so the
 * learner copies the horizon's labelled rows into the job's own set and
 * the thread fits and assesses the model there, while the windows go on
 * keyed by the current model.  The learner takes the result at a later
 * window (mdk__lopp_fit_collect()).  One job, so at most one fit is in
 * flight; its set is the learner's to fill only while the job is idle.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mdk/lopp.h>

#include "learn_int.h"

enum fit_state { FIT_IDLE, FIT_RUNNING, FIT_DONE };

struct mdk__lopp_fit {
	struct mdk_lopp_set *set;
	double rho;
	unsigned int kind;
	/* state, hold and the result are under lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum fit_state state;
	bool thread; /* state != FIT_IDLE: a thread to join */
	bool hold; /* the test hook: the worker waits while set */
	pthread_t tid;
	struct mdk_lopp_model *model;
	struct mdk_lopp_quality quality;
	int ret;
	char err[MDK__LOPP_FIT_ERR];
};

int mdk__lopp_fit_new(size_t rows, struct mdk__lopp_fit **out)
{
	struct mdk__lopp_fit *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	if (mdk_lopp_set_new(rows, &f->set)) {
		free(f);
		return -ENOMEM;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	*out = f;
	return 0;
}

void mdk__lopp_fit_free(struct mdk__lopp_fit *f)
{
	if (!f)
		return;
	mdk__lopp_fit_hold(f, false);
	if (f->thread)
		pthread_join(f->tid, NULL);
	mdk_lopp_model_free(f->model);
	mdk_lopp_set_free(f->set);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

struct mdk_lopp_set *mdk__lopp_fit_set(struct mdk__lopp_fit *f)
{
	return mdk__lopp_fit_busy(f) ? NULL : f->set;
}

/* The fit and its assessment, on the job's set; no lock held. */
static void fit_run(struct mdk__lopp_fit *f)
{
	struct mdk_lopp_fit_opts fo = { .kind = (enum mdk_lopp_kind)f->kind };
	struct mdk_lopp_quality q = { 0 };
	struct mdk_lopp_model *m = NULL;
	char err[MDK__LOPP_FIT_ERR];
	int ret;

	ret = mdk_lopp_fit_with(f->set, f->rho, &fo, &m, err, sizeof(err));
	if (!ret && mdk_lopp_assess(m, f->set, 0.5, &q)) {
		mdk_lopp_model_free(m);
		m = NULL;
		ret = mdk_err(err, sizeof(err), -ENOMEM, "out of memory");
	}
	pthread_mutex_lock(&f->lock);
	f->model = m;
	f->quality = q;
	f->ret = ret;
	if (ret)
		snprintf(f->err, sizeof(f->err), "%s", err);
	f->state = FIT_DONE;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void *fit_worker(void *arg)
{
	struct mdk__lopp_fit *f = arg;

	pthread_mutex_lock(&f->lock);
	while (f->hold)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
	fit_run(f);
	return NULL;
}

void mdk__lopp_fit_start(struct mdk__lopp_fit *f, double rho, unsigned int kind,
			 bool async)
{
	f->rho = rho;
	f->kind = kind;
	pthread_mutex_lock(&f->lock);
	f->state = FIT_RUNNING;
	pthread_mutex_unlock(&f->lock);
	/* No thread to be had: fit here, late rather than never. */
	if (async && !pthread_create(&f->tid, NULL, fit_worker, f)) {
		f->thread = true;
		return;
	}
	fit_run(f);
}

bool mdk__lopp_fit_busy(struct mdk__lopp_fit *f)
{
	bool busy;

	pthread_mutex_lock(&f->lock);
	busy = f->state != FIT_IDLE;
	pthread_mutex_unlock(&f->lock);
	return busy;
}

void mdk__lopp_fit_wait(struct mdk__lopp_fit *f)
{
	pthread_mutex_lock(&f->lock);
	while (f->state == FIT_RUNNING)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

int mdk__lopp_fit_collect(struct mdk__lopp_fit *f, struct mdk_lopp_model **m,
			  struct mdk_lopp_quality *q, char *err, size_t errlen)
{
	bool done;

	pthread_mutex_lock(&f->lock);
	done = f->state == FIT_DONE;
	pthread_mutex_unlock(&f->lock);
	if (!done)
		return 0;
	if (f->thread)
		pthread_join(f->tid, NULL);
	f->thread = false;
	pthread_mutex_lock(&f->lock);
	f->state = FIT_IDLE;
	pthread_mutex_unlock(&f->lock);
	if (f->ret)
		return mdk_err(err, errlen, f->ret, "%s", f->err);
	*m = f->model;
	*q = f->quality;
	f->model = NULL;
	return 1;
}

void mdk__lopp_fit_hold(struct mdk__lopp_fit *f, bool hold)
{
	pthread_mutex_lock(&f->lock);
	f->hold = hold;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}
