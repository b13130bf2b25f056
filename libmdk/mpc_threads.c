// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The whole-trace curves on several threads, mdk_mpc_run_threads().
 *
 * The intervals of different pages are independent and every histogram
 * is a sum over intervals, so the pages are cut into T parts, each thread
 * feeds its own page map, stream and generators with the accesses of its
 * part, and the generators' histograms are summed at the end: the curves
 * are those of one thread, exactly.  U(w) and first(w) are sums over
 * pages as well, so each part counts its own.  A part is a range of 2 MiB
 * regions of ids (id >> MDK_LOPP_REGION_SHIFT), cut where a sample of the
 * accesses puts as many in each: a page map leaf (64 ids) stays in one
 * part, L-OPP's per-region features see every page of their region, and
 * a part's ids are contiguous in every (sorted) window.
 *
 * Decoding is shared too.  A thread feeds its part of every window in
 * order as soon as the window is in a ring of 2T window buffers, and in
 * between takes the next window nobody took, once its buffer is free, and
 * decodes it there (its own reader, seeking by the index; no copy, the
 * blocks decode in place, mdk__rd_window_into()): the thread with the
 * lighter part decodes more, which evens out the cut's imbalance.  It
 * waits only when it can do neither, so one thread set back by the
 * scheduler holds the others up only once the ring is full.  A buffer is
 * reused once every thread fed its window.
 *
 * Memory per thread: its generators (a copy of each fed policy's
 * histograms), its part of the page state and page map, and two windows'
 * ids (8 bytes a record).  The merge is T slices summed in parallel, each
 * thread adding every thread's slice t into the first thread's.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/lopp.h>
#include <mdk/trace.h>

#include "mpc_int.h"

#define ERRLEN 512

/* A window's ids, sorted, in 2 MiB pages (mdk__mpc_huge_zalloc()). */
struct win_buf {
	uint64_t *ids;
	size_t n, cap, map;
};

/* Room for @need ids in @b (its ids dropped); 0 or -ENOMEM. */
static int win_grow(struct win_buf *b, size_t need)
{
	uint64_t *ids;
	size_t map;

	if (need <= b->cap)
		return 0;
	/* Windows differ a little: an eighth more spares most regrowths. */
	need += need / 8;
	if (need > SIZE_MAX / sizeof(*ids))
		return -ENOMEM;
	ids = mdk__mpc_huge_zalloc(need * sizeof(*ids), &map);
	if (!ids)
		return -ENOMEM;
	if (b->ids)
		mdk__mpc_huge_free(b->ids, b->map);
	b->ids = ids;
	b->cap = need;
	b->map = map;
	return 0;
}

static void win_free(struct win_buf *b)
{
	if (b->ids)
		mdk__mpc_huge_free(b->ids, b->map);
}

struct shared {
	const char *trace;
	uint32_t W;
	unsigned int T;
	uint32_t R; /* window buffers: a ring of 2 x T */
	size_t np;
	uint64_t *bound; /* part q: regions bound[q - 1] <= r < bound[q] */
	struct win_buf *buf; /* [R]: window w in buf[w % R] */
	atomic_uint *ready; /* [R]: w + 1 once window w is in buf[w % R] */
	atomic_uint *fed; /* [R]: threads done with the window it holds */
	struct mdk__run **runs; /* each thread's generators */
	unsigned int flags; /* evaluation flags */
	struct mdk_point **pts; /* the points of policy i, by thread who[i] */
	size_t *npts;
	unsigned int *who;
	pthread_mutex_t mu; /* with cv: waiting for a window or a buffer */
	pthread_cond_t cv;
	pthread_barrier_t bar;
	atomic_uint next; /* the next window to decode */
	atomic_int failed;
};

struct worker {
	struct shared *sh;
	unsigned int id;
	pthread_t th;
	struct mdk_trace_reader *r; /* ids only: no page map */
	struct mdk_pagemap *pm; /* this part's ids to its page indices */
	uint32_t *pages;
	size_t pcap;
	struct mdk_mpc **src; /* the other threads' generators, to merge */
	int ret;
	char err[ERRLEN];
};

unsigned int mdk_mpc_threads_online(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)MDK_MIN(n, (long)MDK_MPC_THREADS_MAX) : 1;
}

/* Wake the waiting threads: a window or a buffer became available. */
static void wake(struct shared *sh)
{
	pthread_mutex_lock(&sh->mu);
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
}

static int fail(struct worker *wk, int ret)
{
	wk->ret = ret;
	atomic_store(&wk->sh->failed, 1);
	wake(wk->sh);
	return ret;
}

/* Window @w into @b, found by the index and decoded in place. */
static int read_window(struct mdk_trace_reader *r, uint32_t w,
		       struct win_buf *b, char *err, size_t errlen)
{
	int ret = mdk__rd_window_into(r, w, b->ids, b->cap, &b->n, err, errlen);

	if (ret == 1) {
		if (win_grow(b, b->n))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		ret = mdk__rd_window_into(r, w, b->ids, b->cap, &b->n, err,
					  errlen);
	}
	return ret;
}

/* The first of the @n sorted @ids in region @reg or after. */
static size_t region_start(const uint64_t *ids, size_t n, uint64_t reg)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((ids[mid] >> MDK_LOPP_REGION_SHIFT) < reg)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The parts: T ranges of regions holding about as many accesses each in
 * a sample of the trace (up to 8192 accesses, evenly spaced, of each of
 * up to 8 windows spread over it).  Any cut gives the same curves; an
 * even one, the speed.
 */
static int cut_parts(struct shared *sh, struct mdk_trace_reader *r, char *err,
		     size_t errlen)
{
	uint32_t nw = MDK_MIN(sh->W, 8u), k;
	struct win_buf *b = &sh->buf[0]; /* free until the pass */
	uint64_t *smp = NULL;
	size_t n = 0, cap = 0, i, step;
	unsigned int q;
	int ret = 0;

	for (k = 0; !ret && k < nw; k++) {
		ret = read_window(r, (uint32_t)((uint64_t)k * sh->W / nw), b,
				  err, errlen);
		step = MDK_MAX(b->n / 8192, (size_t)1);
		if (!ret && mdk_grow((void **)&smp, &cap, n + b->n / step + 1,
				     sizeof(*smp)))
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		for (i = 0; !ret && i < b->n; i += step)
			smp[n++] = b->ids[i] >> MDK_LOPP_REGION_SHIFT;
	}
	if (!ret) {
		qsort(smp, n, sizeof(*smp), cmp_u64);
		for (q = 1; q < sh->T; q++)
			sh->bound[q - 1] = n ? smp[n * q / sh->T] : 0;
	}
	free(smp);
	return ret;
}

/* This thread's part of window @w (in its buffer). */
static int feed(struct worker *wk, uint32_t w)
{
	struct shared *sh = wk->sh;
	const struct win_buf *b = &sh->buf[w % sh->R];
	unsigned int q = wk->id;
	size_t lo = q ? region_start(b->ids, b->n, sh->bound[q - 1]) : 0;
	size_t hi = q + 1 < sh->T ? region_start(b->ids, b->n, sh->bound[q]) :
				    b->n;
	struct mdk_trace_chunk c = { .window = w,
				     .window_end = true,
				     .n = hi > lo ? hi - lo : 0,
				     .ids = b->ids + lo };
	int ret;

	if (mdk_grow((void **)&wk->pages, &wk->pcap, c.n ? c.n : 1,
		     sizeof(*wk->pages)))
		return mdk_err(wk->err, ERRLEN, -ENOMEM, "out of memory");
	ret = mdk__pagemap_map(wk->pm, c.ids, c.n, wk->pages);
	if (ret)
		return mdk_err(wk->err, ERRLEN, ret, "%s: page map: %s",
			       sh->trace, strerror(-ret));
	c.pages = wk->pages;
	return mdk__run_chunk(sh->runs[q], &c, wk->err, ERRLEN);
}

/* Slice wk->id of every fed generator: the other threads' added in. */
static void merge(struct worker *wk)
{
	struct shared *sh = wk->sh;
	struct mdk__run *r0 = sh->runs[0];
	unsigned int t;
	size_t i;

	for (i = 0; i < sh->np; i++) {
		if (r0->from[i] != SIZE_MAX)
			continue; /* derived after the merge */
		for (t = 1; t < sh->T; t++)
			wk->src[t - 1] = sh->runs[t]->gens[i];
		mdk__mpc_merge(r0->gens[i], wk->src, sh->T - 1, wk->id, sh->T);
	}
}

/*
 * Window @w's buffer is free: never used, or window w - R in it (not
 * still being decoded) and fed by every thread.
 */
static bool buf_free(const struct shared *sh, uint32_t w)
{
	uint32_t s = w % sh->R;

	return w < sh->R || (atomic_load(&sh->ready[s]) == w - sh->R + 1 &&
			     atomic_load(&sh->fed[s]) >= sh->T);
}

/*
 * Decode the next window nobody took if its buffer is free: 1 done, 0
 * not yet, -errno.  The thread with the lighter part decodes more.
 */
static int try_decode(struct worker *wk)
{
	struct shared *sh = wk->sh;
	unsigned int w = atomic_load(&sh->next);
	uint32_t s = w % sh->R;
	int ret;

	if (w >= sh->W || !buf_free(sh, w) ||
	    !atomic_compare_exchange_strong(&sh->next, &w, w + 1))
		return 0;
	ret = read_window(wk->r, w, &sh->buf[s], wk->err, ERRLEN);
	if (ret)
		return ret;
	atomic_store(&sh->fed[s], 0);
	atomic_store(&sh->ready[s], w + 1);
	wake(sh);
	return 1;
}

/*
 * The pass: feed this thread's part of every window in order, decode the
 * next free window into the ring, and wait only when it can do neither --
 * a thread set back by the scheduler holds the others up only once the
 * ring is full.
 */
static void pass(struct worker *wk)
{
	struct shared *sh = wk->sh;
	uint32_t fw = 0;

	while (fw < sh->W && !atomic_load(&sh->failed)) {
		bool progress = false;
		int ret;

		while (fw < sh->W &&
		       atomic_load(&sh->ready[fw % sh->R]) == fw + 1) {
			ret = feed(wk, fw);
			if (ret) {
				fail(wk, ret);
				return;
			}
			/* The last thread to feed it frees the buffer. */
			if (atomic_fetch_add(&sh->fed[fw % sh->R], 1) + 1 ==
			    sh->T)
				wake(sh);
			fw++;
			progress = true;
		}
		ret = try_decode(wk);
		if (ret < 0) {
			fail(wk, ret);
			return;
		}
		if (ret)
			progress = true;
		if (progress)
			continue;
		pthread_mutex_lock(&sh->mu);
		while (!atomic_load(&sh->failed) &&
		       !(fw < sh->W &&
			 atomic_load(&sh->ready[fw % sh->R]) == fw + 1) &&
		       !(atomic_load(&sh->next) < sh->W &&
			 buf_free(sh, atomic_load(&sh->next))))
			pthread_cond_wait(&sh->cv, &sh->mu);
		pthread_mutex_unlock(&sh->mu);
	}
}

/* Every thread's histograms into the first's, then its curves. */
static void finish(struct worker *wk)
{
	struct shared *sh = wk->sh;
	struct mdk__run *r0 = sh->runs[0];
	size_t i;

	merge(wk);
	pthread_barrier_wait(&sh->bar);
	mdk__run_derive_part(r0, wk->id, sh->T);
	pthread_barrier_wait(&sh->bar);
	mdk__run_derive_finish(r0, wk->id, sh->T);
	pthread_barrier_wait(&sh->bar);
	for (i = 0; i < sh->np && !atomic_load(&sh->failed); i++) {
		long n;

		if (sh->who[i] != wk->id)
			continue;
		n = mdk_mpc_eval(r0->gens[i], 0, r0->W - 1, sh->flags,
				 &sh->pts[i], wk->err, ERRLEN);
		if (n < 0)
			fail(wk, (int)n);
		else
			sh->npts[i] = (size_t)n;
	}
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct shared *sh = wk->sh;

	pass(wk);
	if (!atomic_load(&sh->failed)) {
		int ret = mdk__run_tails(sh->runs[wk->id], wk->err, ERRLEN);

		if (ret)
			fail(wk, ret);
	}
	pthread_barrier_wait(&sh->bar);
	/* The same for all: the flag is not set past the barrier. */
	if (!atomic_load(&sh->failed))
		finish(wk);
	return NULL;
}

/* Threads wait at the gate until all are made (or one could not be). */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state; /* 0 wait, 1 go, -1 abort */
};

struct start {
	struct worker *wk;
	struct gate *g;
};

static void *thread_main(void *arg)
{
	struct start *st = arg;
	int state;

	pthread_mutex_lock(&st->g->mu);
	while (!st->g->state)
		pthread_cond_wait(&st->g->cv, &st->g->mu);
	state = st->g->state;
	pthread_mutex_unlock(&st->g->mu);
	return state > 0 ? worker_main(st->wk) : NULL;
}

static void gate_open(struct gate *g, int state)
{
	pthread_mutex_lock(&g->mu);
	g->state = state;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* Threads 1..T-1 made and run, thread 0 the caller's. */
static int run_threads(struct shared *sh, struct worker *wk, char *err,
		       size_t errlen)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0 };
	struct start *st = calloc(sh->T, sizeof(*st));
	unsigned int t, made = 1;
	int ret = 0;

	if (!st)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	for (t = 1; t < sh->T; t++, made++) {
		st[t] = (struct start){ &wk[t], &g };
		ret = pthread_create(&wk[t].th, NULL, thread_main, &st[t]);
		if (ret) {
			ret = mdk_err(err, errlen, -ret,
				      "curves: thread %u of %u: %s", t + 1,
				      sh->T, strerror(ret));
			break;
		}
	}
	gate_open(&g, ret ? -1 : 1);
	if (!ret)
		worker_main(&wk[0]);
	for (t = 1; t < made; t++)
		pthread_join(wk[t].th, NULL);
	for (t = 0; !ret && t < sh->T; t++)
		if (wk[t].ret)
			ret = mdk_err(err, errlen, wk[t].ret, "%s", wk[t].err);
	free(st);
	return ret;
}

/*
 * Who evaluates which policy: the longest first (a window's row walk and
 * its settings), each to the thread with the least so far.
 */
static void deal_evals(struct shared *sh)
{
	const struct mdk__run *r0 = sh->runs[0];
	uint64_t load[MDK_MPC_THREADS_MAX] = { 0 };
	bool *done = calloc(sh->np ? sh->np : 1, sizeof(*done));
	size_t k, i, best;
	unsigned int t, least;

	for (k = 0; k < sh->np; k++) {
		uint64_t c = 0, ci;

		for (i = 0, best = SIZE_MAX; i < sh->np; i++) {
			const struct mdk_mpc *m = r0->gens[i];

			ci = (uint64_t)m->g.cap * (m->g.cells + m->g.nset);
			if ((done && done[i]) || (best != SIZE_MAX && ci <= c))
				continue;
			best = i;
			c = ci;
		}
		if (!done)
			best = k; /* no memory to sort: in turn */
		for (t = 1, least = 0; t < sh->T; t++)
			if (load[t] < load[least])
				least = t;
		sh->who[best] = least;
		load[least] += c;
		if (done)
			done[best] = true;
	}
	free(done);
}

/*
 * Each thread's reader, page map and generators: 0, -errno, or 1 when the
 * trace cannot be sought in (read it on one thread).
 */
static int setup(struct shared *sh, struct worker *wk,
		 struct mdk_policy *const *pols, char *err, size_t errlen)
{
	unsigned int t;
	int ret;

	for (t = 0; t < sh->T; t++) {
		struct mdk__run *rn = calloc(1, sizeof(*rn));

		sh->runs[t] = rn;
		wk[t].sh = sh;
		wk[t].id = t;
		if (!rn)
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		rn->np = sh->np;
		ret = mdk__run_open(rn, sh->trace, 0, err, errlen);
		if (ret)
			return ret;
		/* The reader is the thread's; the run keeps its W. */
		wk[t].r = rn->r;
		rn->r = NULL;
		sh->W = rn->W;
		/* Threads seek; a reader that cannot is read on one thread. */
		if (!t && mdk_trace_reader_seek(wk[t].r, 0, err, errlen))
			return 1;
		ret = mdk__run_gens(rn, pols, err, errlen);
		if (ret)
			return ret;
		wk[t].pm = mdk__pagemap_new();
		wk[t].src = calloc(sh->T, sizeof(*wk[t].src));
		if (!wk[t].pm || !wk[t].src)
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	sh->buf = calloc(sh->R, sizeof(*sh->buf));
	sh->ready = calloc(sh->R, sizeof(*sh->ready));
	sh->fed = calloc(sh->R, sizeof(*sh->fed));
	sh->bound = calloc(sh->T, sizeof(*sh->bound));
	sh->who = calloc(sh->np ? sh->np : 1, sizeof(*sh->who));
	if (!sh->buf || !sh->ready || !sh->fed || !sh->bound || !sh->who)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	deal_evals(sh);
	return cut_parts(sh, wk[0].r, err, errlen);
}

static void teardown(struct shared *sh, struct worker *wk)
{
	size_t i;
	unsigned int t;

	for (t = 0; t < sh->T; t++) {
		if (sh->runs[t])
			mdk__run_free(sh->runs[t]);
		mdk_trace_reader_close(wk[t].r);
		if (wk[t].pm)
			mdk__pagemap_free(wk[t].pm);
		free(wk[t].pages);
		free(wk[t].src);
	}
	for (i = 0; sh->buf && i < sh->R; i++)
		win_free(&sh->buf[i]);
	free(sh->buf);
	free(sh->ready);
	free(sh->fed);
	free(sh->bound);
	free(sh->who);
	free(sh->runs);
	free(wk);
}

int mdk_mpc_run_threads(const char *trace, struct mdk_policy *const *pols,
			size_t np, unsigned int flags, unsigned int nthreads,
			struct mdk_point **pts, size_t *npts, char *err,
			size_t errlen)
{
	struct shared sh = { .trace = trace,
			     .np = np,
			     .flags = flags,
			     .pts = pts,
			     .npts = npts };
	struct worker *wk;
	size_t i;
	int ret;

	if (nthreads > MDK_MPC_THREADS_MAX)
		return mdk_err(
			err, errlen, -EINVAL,
			"curves: %u threads (expected 0 for every CPU, or 1..%u)",
			nthreads, MDK_MPC_THREADS_MAX);
	sh.T = nthreads ? nthreads : mdk_mpc_threads_online();
	/* The ring holds two windows a thread. */
	sh.R = 2 * sh.T;
	if (sh.T == 1)
		return mdk_mpc_run(trace, pols, np, flags, pts, npts, err,
				   errlen);
	for (i = 0; i < np; i++) {
		pts[i] = NULL;
		npts[i] = 0;
	}
	wk = calloc(sh.T, sizeof(*wk));
	sh.runs = calloc(sh.T, sizeof(*sh.runs));
	if (!wk || !sh.runs) {
		free(wk);
		free(sh.runs);
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	ret = setup(&sh, wk, pols, err, errlen);
	if (ret == 1) {
		teardown(&sh, wk);
		return mdk_mpc_run(trace, pols, np, flags, pts, npts, err,
				   errlen);
	}
	if (!ret) {
		pthread_mutex_init(&sh.mu, NULL);
		pthread_cond_init(&sh.cv, NULL);
		pthread_barrier_init(&sh.bar, NULL, sh.T);
		ret = run_threads(&sh, wk, err, errlen);
		pthread_barrier_destroy(&sh.bar);
		pthread_cond_destroy(&sh.cv);
		pthread_mutex_destroy(&sh.mu);
	}
	if (ret)
		for (i = 0; i < np; i++) {
			free(pts[i]);
			pts[i] = NULL;
			npts[i] = 0;
		}
	teardown(&sh, wk);
	return ret;
}
