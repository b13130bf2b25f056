/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the sampler VM tests (tests/vm/sampler_*.c): a scratch cgroup
 * (cgroup_util.h), a worker process driven over a pair of pipes one
 * message at a time, and the comparison of a delivered window with the
 * truth.
 * Defined in sampler_test.c.
 */
#ifndef MDK_TESTS_SAMPLER_TEST_H
#define MDK_TESTS_SAMPLER_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup_util.h"
#include "bpf/loader.h"

#define PAGE 4096UL
#define HPAGE (2UL << 20)

/* One request or reply between the test and a worker. */
struct wmsg {
	int op;
	int arg;
	uint64_t v[8];
};

struct worker {
	pid_t pid;
	int cmd; /* test -> worker */
	int rsp; /* worker -> test */
};

int send_msg(int fd, const struct wmsg *m);

int recv_msg(int fd, struct wmsg *m);

/*
 * Fork a worker running @fn(cmd_fd, rsp_fd, @arg); it joins cgroup @cg
 * first when @cg is not NULL.  Returns 0 once it sent its first message
 * (into @hello).
 */
int worker_start(struct worker *w, const char *cg,
		 int (*fn)(int cmd, int rsp, void *arg), void *arg,
		 struct wmsg *hello);

int worker_call(struct worker *w, const struct wmsg *req, struct wmsg *rsp);

/* Tell the worker to exit (op 0) and reap it; returns its exit status. */
int worker_stop(struct worker *w);

/* The delivered ids in [a, b). */
size_t ids_range(const struct mdk_sampler_window *w, uint64_t a, uint64_t b,
		 const uint64_t **first);

/* The delivered ids of process @proc inside [lo, hi). */
size_t ids_in(const struct mdk_sampler_window *w, uint32_t proc, uint64_t lo,
	      uint64_t hi, const uint64_t **first);

/* All delivered ids of process @proc. */
size_t ids_of(const struct mdk_sampler_window *w, uint32_t proc,
	      const uint64_t **first);

/* Score sorted @got against sorted @want: true and false positives,
 * false negatives. */
struct score {
	size_t tp, fp, fn;
};

struct score score_sets(const uint64_t *got, size_t ng, const uint64_t *want,
			size_t nw);

double precision(struct score s);

double recall(struct score s);

/* Is the window's set sorted and free of duplicates? */
int window_sorted(const struct mdk_sampler_window *w);

#endif /* MDK_TESTS_SAMPLER_TEST_H */
