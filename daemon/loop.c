// SPDX-License-Identifier: GPL-2.0
/* mdkd's event loop on liburing: see loop.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "loop.h"

uint64_t mdkd_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t mdkd_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int mdkd_loop_init(struct mdkd_loop *l, unsigned int entries, char *err,
		   size_t errlen)
{
	struct io_uring_params p;
	int ret;

	memset(l, 0, sizeof(*l));
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = entries * 4;
	ret = io_uring_queue_init_params(entries, &l->ring, &p);
	if (ret < 0) {
		snprintf(err, errlen, "io_uring_queue_init: %s%s",
			 strerror(-ret),
			 ret == -EPERM ? " (io_uring disabled by sysctl?)" :
					 "");
		return ret;
	}
	/*
	 * Without these the loop would need a timeout SQE per wait and could
	 * lose completions on CQ overflow; both exist since 5.11.
	 */
	if (!(p.features & IORING_FEAT_EXT_ARG) ||
	    !(p.features & IORING_FEAT_NODROP)) {
		io_uring_queue_exit(&l->ring);
		snprintf(
			err, errlen,
			"io_uring lacks EXT_ARG or NODROP (kernel older than 5.11)");
		return -EOPNOTSUPP;
	}
	return 0;
}

void mdkd_loop_exit(struct mdkd_loop *l)
{
	io_uring_queue_exit(&l->ring);
}

struct io_uring_sqe *mdkd_loop_sqe(struct mdkd_loop *l, struct mdkd_op *op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) {
		if (io_uring_submit(&l->ring) < 0)
			return NULL;
		sqe = io_uring_get_sqe(&l->ring);
		if (!sqe)
			return NULL;
	}
	io_uring_sqe_set_data(sqe, op);
	l->inflight++;
	return sqe;
}

static int dispatch(struct mdkd_loop *l)
{
	struct io_uring_cqe *cqe;
	int n = 0;

	while (!io_uring_peek_cqe(&l->ring, &cqe)) {
		struct mdkd_op *op = io_uring_cqe_get_data(cqe);
		int res = cqe->res;

		/* Seen before the callback: it may queue and submit more. */
		io_uring_cqe_seen(&l->ring, cqe);
		l->inflight--;
		if (op)
			op->fn(op, res);
		n++;
	}
	return n;
}

int mdkd_loop_wait(struct mdkd_loop *l, uint64_t deadline_us)
{
	struct __kernel_timespec ts = { 0 };
	struct io_uring_cqe *cqe;
	uint64_t now;
	int ret;

	now = mdkd_now_us();
	if (deadline_us > now) {
		ts.tv_sec = (deadline_us - now) / 1000000;
		ts.tv_nsec = (deadline_us - now) % 1000000 * 1000;
	}
	if (!ts.tv_sec && !ts.tv_nsec) {
		ret = io_uring_submit(&l->ring);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return ret;
		return dispatch(l);
	}
	ret = io_uring_submit_and_wait_timeout(&l->ring, &cqe, 1, &ts, NULL);
	if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN &&
	    ret != -EBUSY)
		return ret;
	return dispatch(l);
}

unsigned int mdkd_loop_drain(struct mdkd_loop *l, uint64_t timeout_us)
{
	uint64_t end = mdkd_now_us() + timeout_us;
	struct io_uring_sqe *sqe;

	if (!l->inflight)
		return 0;
	sqe = mdkd_loop_sqe(l, NULL);
	if (sqe)
		io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	while (l->inflight && mdkd_now_us() < end)
		if (mdkd_loop_wait(l, end) < 0)
			break;
	return l->inflight;
}
