/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's event loop on liburing.  Every asynchronous operation (cgroup file
 * reads, memory.reclaim writes, control-socket accept/recv/send, signalfd
 * reads, metrics writes) is an SQE whose user_data points at a struct
 * mdkd_op embedded in its owner; the loop calls op->fn with the CQE's
 * result.  The owner keeps the op (and its buffers) alive until then.  The
 * loop's only timer is the wait itself: mdkd_loop_wait() sleeps until the
 * next CQE or the deadline the caller computed, whichever comes first.
 */
#ifndef MDKD_LOOP_H
#define MDKD_LOOP_H

#include <stdint.h>

#include <liburing.h>

struct mdkd_op;
typedef void (*mdkd_op_fn)(struct mdkd_op *op, int res);

struct mdkd_op {
	mdkd_op_fn fn;
};

struct mdkd_loop {
	struct io_uring ring;
	unsigned int inflight; /* SQEs whose CQE has not been seen */
};

/*
 * mdkd_loop_init() - a ring of @entries SQEs (and 4x as many CQEs).
 * Return: 0, or -errno with the reason in @err.
 */
int mdkd_loop_init(struct mdkd_loop *l, unsigned int entries, char *err,
		   size_t errlen);
void mdkd_loop_exit(struct mdkd_loop *l);

/*
 * mdkd_loop_sqe() - an SQE whose completion goes to @op (NULL: ignored),
 * submitting queued SQEs first when the submission queue is full.
 * Return: the SQE, or NULL when the ring is broken.
 */
struct io_uring_sqe *mdkd_loop_sqe(struct mdkd_loop *l, struct mdkd_op *op);

/*
 * mdkd_loop_wait() - submit what is queued, wait until at least one
 * completion arrives or CLOCK_MONOTONIC reaches @deadline_us (0: do not
 * wait), and dispatch every completion available.  Return: the number of
 * completions dispatched, or -errno on a ring failure.
 */
int mdkd_loop_wait(struct mdkd_loop *l, uint64_t deadline_us);

/*
 * mdkd_loop_drain() - cancel everything in flight and dispatch completions
 * until none is left or @timeout_us passed.  Return: the operations still
 * in flight (0 normally).
 */
unsigned int mdkd_loop_drain(struct mdkd_loop *l, uint64_t timeout_us);

/* mdkd_now_us() - CLOCK_MONOTONIC in microseconds. */
uint64_t mdkd_now_us(void);

/* The daemon's clock: mdkd_now_us() unless the tests set @now. */
struct mdkd_clock {
	uint64_t (*now)(void *data);
	/* The process's CPU time (CLOCK_PROCESS_CPUTIME_ID), microseconds. */
	uint64_t (*cpu)(void *data);
	void *data;
};

static inline uint64_t mdkd_clock_now(const struct mdkd_clock *c)
{
	return c->now ? c->now(c->data) : mdkd_now_us();
}

uint64_t mdkd_cpu_us(void);

static inline uint64_t mdkd_clock_cpu(const struct mdkd_clock *c)
{
	return c->cpu ? c->cpu(c->data) : mdkd_cpu_us();
}

#endif /* MDKD_LOOP_H */
