// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The whole-trace curves on several threads, mdk_mpc_run_threads().
 *
 * The intervals of different pages are independent and every histogram
 * is a sum over intervals, so the pages are cut into T parts, each thread
 * feeds its own stream and generators with the accesses of its part, and
 * the generators' histograms are summed at the end: the curves are those
 * of one thread, exactly.  A part is a hash of the page id's 2 MiB region
 * (id >> MDK_LOPP_REGION_SHIFT): parts are even whatever the id layout,
 * a page map leaf (64 ids) stays in one part, and L-OPP's per-region
 * features see every page of their region.  U(w) and first(w) are sums
 * over pages as well, so each part counts its own.
 *
 * Decoding and page mapping are shared too.  The trace goes in batches of
 * T windows; in each step thread t decodes window t of the next batch
 * (its own reader, seeking by the index) and sorts its ids into T
 * buffers, one per part, while it feeds part t of the current batch's
 * windows, in window order, through its own page map.  One barrier a
 * step; the buffers are double: the batch decoded and the batch fed.
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
#include <sys/mman.h>
#include <unistd.h>

#include <mdk/lopp.h>
#include <mdk/trace.h>

#include "mpc_int.h"

#define ERRLEN 512

/* A window's ids, sorted. */
struct win_buf {
	uint64_t *ids;
	size_t n, cap;
};

#define HUGE_PAGE ((size_t)2 << 20)

/*
 * Room for @need ids in @b: mapped in 2 MiB pages where the kernel
 * allows, since a fault per 4 KiB page of these buffers (tens of MiB,
 * written once a step) would cost more than the copy into them.
 */
static int win_grow(struct win_buf *b, size_t need)
{
	size_t bytes, len;
	uint8_t *p, *a;

	if (need <= b->cap)
		return 0;
	need = MDK_MAX(need, b->cap * 2);
	if (need > SIZE_MAX / sizeof(*b->ids) - 2 * HUGE_PAGE)
		return -ENOMEM;
	bytes = (need * sizeof(*b->ids) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	len = bytes + HUGE_PAGE;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	a = (uint8_t *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + len > a + bytes)
		munmap(a + bytes, (size_t)(p + len - (a + bytes)));
	madvise(a, bytes, MADV_HUGEPAGE);
	if (b->ids) {
		memcpy(a, b->ids, b->n * sizeof(*b->ids));
		munmap(b->ids, b->cap * sizeof(*b->ids));
	}
	b->ids = (uint64_t *)a;
	b->cap = bytes / sizeof(*b->ids);
	return 0;
}

static void win_free(struct win_buf *b)
{
	if (b->ids)
		munmap(b->ids, b->cap * sizeof(*b->ids));
}

struct shared {
	const char *trace;
	uint32_t W;
	unsigned int T;
	unsigned int M; /* windows a thread decodes a step */
	uint32_t K; /* windows a step: T x M */
	size_t np;
	uint64_t *bound; /* part q: regions bound[q - 1] <= r < bound[q] */
	struct win_buf *buf; /* [2][K windows] */
	struct mdk__run **runs; /* each thread's generators */
	pthread_barrier_t bar;
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

static int fail(struct worker *wk, int ret)
{
	wk->ret = ret;
	atomic_store(&wk->sh->failed, 1);
	return ret;
}

/* Window @w into @b, from the index (@seek) or the next window.  */
static int read_window(struct mdk_trace_reader *r, uint32_t w, bool seek,
		       struct win_buf *b, char *err, size_t errlen)
{
	struct mdk_trace_chunk c;
	int ret;

	b->n = 0;
	ret = seek ? mdk_trace_reader_seek(r, w, err, errlen) : 0;
	if (ret)
		return ret;
	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		if (c.window != w)
			break;
		if (win_grow(b, b->n + c.n))
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		memcpy(b->ids + b->n, c.ids, c.n * sizeof(*b->ids));
		b->n += c.n;
		if (c.window_end)
			break;
	}
	return ret < 0 ? ret : 0;
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
 * a sample of the trace (every 64th access of up to 16 windows spread
 * over it).  Any cut gives the same curves; an even one, the speed.
 */
static int cut_parts(struct shared *sh, struct mdk_trace_reader *r, char *err,
		     size_t errlen)
{
	uint32_t nw = MDK_MIN(sh->W, 16u), k;
	struct win_buf b = { 0 };
	uint64_t *smp = NULL;
	size_t n = 0, cap = 0, i;
	unsigned int q;
	int ret = 0;

	for (k = 0; !ret && k < nw; k++) {
		ret = read_window(r, (uint32_t)((uint64_t)k * sh->W / nw), true,
				  &b, err, errlen);
		if (!ret && mdk_grow((void **)&smp, &cap, n + b.n / 64 + 1,
				     sizeof(*smp)))
			ret = mdk_err(err, errlen, -ENOMEM, "out of memory");
		for (i = 0; !ret && i < b.n; i += 64)
			smp[n++] = b.ids[i] >> MDK_LOPP_REGION_SHIFT;
	}
	win_free(&b);
	if (!ret) {
		qsort(smp, n, sizeof(*smp), cmp_u64);
		for (q = 1; q < sh->T; q++)
			sh->bound[q - 1] = n ? smp[n * q / sh->T] : 0;
	}
	free(smp);
	return ret;
}

/* This thread's part of windows @w0.. of buffer set @set. */
static int feed(struct worker *wk, uint32_t w0, unsigned int set)
{
	struct shared *sh = wk->sh;
	unsigned int wl, q = wk->id;
	int ret;

	for (wl = 0; wl < sh->K && w0 + wl < sh->W; wl++) {
		const struct win_buf *b = &sh->buf[(size_t)set * sh->K + wl];
		size_t lo = q ? region_start(b->ids, b->n, sh->bound[q - 1]) :
				0;
		size_t hi = q + 1 < sh->T ?
				    region_start(b->ids, b->n, sh->bound[q]) :
				    b->n;
		struct mdk_trace_chunk c = { .window = w0 + wl,
					     .window_end = true,
					     .n = hi > lo ? hi - lo : 0,
					     .ids = b->ids + lo };

		if (mdk_grow((void **)&wk->pages, &wk->pcap, c.n ? c.n : 1,
			     sizeof(*wk->pages)))
			return mdk_err(wk->err, ERRLEN, -ENOMEM,
				       "out of memory");
		ret = mdk__pagemap_map(wk->pm, c.ids, c.n, wk->pages);
		if (ret)
			return mdk_err(wk->err, ERRLEN, ret, "%s: page map: %s",
				       sh->trace, strerror(-ret));
		c.pages = wk->pages;
		ret = mdk__run_chunk(sh->runs[q], &c, wk->err, ERRLEN);
		if (ret)
			return ret;
	}
	return 0;
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

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct shared *sh = wk->sh;
	uint32_t nb = (sh->W + sh->K - 1) / sh->K, step, k;

	/* Every thread passes every barrier, failed or not. */
	for (step = 0; step <= nb; step++) {
		/* Windows wk->id x M.. of the batch: one seek, then in turn. */
		for (k = 0; step < nb && k < sh->M; k++) {
			uint32_t wl = wk->id * sh->M + k, w = step * sh->K + wl;
			int ret;

			if (w >= sh->W || atomic_load(&sh->failed))
				break;
			ret = read_window(
				wk->r, w, !k,
				&sh->buf[(size_t)(step & 1) * sh->K + wl],
				wk->err, ERRLEN);
			if (ret)
				fail(wk, ret);
		}
		if (step > 0 && !atomic_load(&sh->failed)) {
			int ret = feed(wk, (step - 1) * sh->K, (step - 1) & 1);

			if (ret)
				fail(wk, ret);
		}
		pthread_barrier_wait(&sh->bar);
	}
	if (!atomic_load(&sh->failed)) {
		int ret = mdk__run_tails(sh->runs[wk->id], wk->err, ERRLEN);

		if (ret)
			fail(wk, ret);
	}
	pthread_barrier_wait(&sh->bar);
	if (!atomic_load(&sh->failed))
		merge(wk);
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

/* Each thread's reader, page map and generators. */
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
		ret = mdk__run_gens(rn, pols, err, errlen);
		if (ret)
			return ret;
		wk[t].pm = mdk__pagemap_new();
		wk[t].src = calloc(sh->T, sizeof(*wk[t].src));
		if (!wk[t].pm || !wk[t].src)
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
	}
	sh->buf = calloc(2 * (size_t)sh->K, sizeof(*sh->buf));
	sh->bound = calloc(sh->T, sizeof(*sh->bound));
	if (!sh->buf || !sh->bound)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
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
	for (i = 0; sh->buf && i < 2 * (size_t)sh->K; i++)
		win_free(&sh->buf[i]);
	free(sh->buf);
	free(sh->bound);
	free(sh->runs);
	free(wk);
}

int mdk_mpc_run_threads(const char *trace, struct mdk_policy *const *pols,
			size_t np, unsigned int flags, unsigned int nthreads,
			struct mdk_point **pts, size_t *npts, char *err,
			size_t errlen)
{
	struct shared sh = { .trace = trace, .np = np };
	struct worker *wk;
	size_t i;
	int ret;

	if (nthreads > MDK_MPC_THREADS_MAX)
		return mdk_err(
			err, errlen, -EINVAL,
			"curves: %u threads (expected 0 for every CPU, or 1..%u)",
			nthreads, MDK_MPC_THREADS_MAX);
	sh.T = nthreads ? nthreads : mdk_mpc_threads_online();
	sh.M = 1;
	sh.K = sh.T * sh.M;
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
	if (!ret) {
		pthread_barrier_init(&sh.bar, NULL, sh.T);
		ret = run_threads(&sh, wk, err, errlen);
		pthread_barrier_destroy(&sh.bar);
	}
	if (!ret) {
		mdk__run_derive(sh.runs[0]);
		ret = mdk__run_eval(sh.runs[0], flags, pts, npts, err, errlen);
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
