// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Rounds: the unit of cost.  A client builds one batch of accesses per
 * node, sends them all at once and waits for a majority of the nodes to
 * answer; that is one round trip, whatever the batch holds (the memory
 * node executes a batch in order: "ordered pipelined" accesses).  The
 * round then costs the injected round-trip time of the majority-th fastest
 * answering node.  A background round (sw_post()) is sent the same way but
 * not waited for: it costs no round trip.
 *
 * Nodes are executed one after the other by the client's thread; a
 * crashed node answers nothing.  Chaos mode drops the batches of a random
 * minority (their messages are delayed forever, which the protocols must
 * tolerate as they tolerate a crash) and yields between accesses so that
 * clients interleave more.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "swarm_int.h"

uint64_t sw_rand(struct mdk_swarm_client *c)
{
	return mdk_splitmix64(&c->rng);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t sw_now_us(struct mdk_swarm_client *c)
{
	struct timespec ts;
	int64_t us;

	clock_gettime(CLOCK_REALTIME, &ts);
	us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + c->skew_us -
	     (int64_t)c->s->h.epoch_us;
	return us > 0 ? (uint64_t)us : 0;
}

/*
 * The guess: the loosely synchronized clock, but never below what this
 * client has already used or seen (a client behind the others' clocks
 * catches up after one failed guess).
 */
uint64_t sw_next_ts(struct mdk_swarm_client *c)
{
	uint64_t ts = sw_now_us(c);

	if (ts <= c->last_ts)
		ts = c->last_ts + 1;
	c->last_ts = ts;
	return ts;
}

void sw_see_ts(struct mdk_swarm_client *c, uint64_t id)
{
	uint64_t ts = sw_id_ts(id);

	if (ts > c->last_ts)
		c->last_ts = ts;
}

void sw_round_begin(struct mdk_swarm_client *c)
{
	for (unsigned int i = 0; i < c->s->n; i++)
		c->b[i].n = 0;
	c->nwords = 0;
}

static struct sw_op *add(struct mdk_swarm_client *c, unsigned int node)
{
	struct sw_batch *b = &c->b[node];

	/* Batches are sized for the largest round a protocol builds. */
	if (b->n >= SW_MAX_OPS)
		__builtin_trap();
	return &b->ops[b->n++];
}

void sw_add_rd(struct mdk_swarm_client *c, unsigned int node, uint64_t off,
	       void *buf, size_t len)
{
	struct sw_op *op = add(c, node);

	op->kind = SW_RD;
	op->off = off;
	op->buf = buf;
	op->len = len;
}

void sw_add_wr(struct mdk_swarm_client *c, unsigned int node, uint64_t off,
	       const void *buf, size_t len)
{
	struct sw_op *op = add(c, node);

	op->kind = SW_WR;
	op->off = off;
	op->buf = (void *)buf;
	op->len = len;
}

struct sw_op *sw_add_cas(struct mdk_swarm_client *c, unsigned int node,
			 uint64_t off, uint64_t expect, uint64_t desired)
{
	struct sw_op *op = add(c, node);

	op->kind = SW_CAS;
	op->off = off;
	op->len = 8;
	op->expect = expect;
	op->desired = desired;
	op->old = ~expect;
	return op;
}

/* A word that lives until the round is over, for small writes. */
uint64_t *sw_word(struct mdk_swarm_client *c, uint64_t v)
{
	if (c->nwords >= 4 * SW_MAX_OPS)
		__builtin_trap();
	c->words[c->nwords] = v;
	return &c->words[c->nwords++];
}

/*
 * One access of a batch.  Accesses of a batch are ordered: loads acquire,
 * stores release (memnode.c), and a load after a store gets a full fence
 * first (the timestamp lock relies on store-then-load on both sides).
 */
static int exec_op(struct mdk_swarm_memnode *n, struct sw_op *op,
		   bool after_store)
{
	switch (op->kind) {
	case SW_RD:
		if (after_store)
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return sw_memnode_rd(n, op->off, op->buf, op->len);
	case SW_WR:
		return sw_memnode_wr(n, op->off, op->buf, op->len);
	default:
		return mdk_swarm_memnode_cas(n, op->off, op->expect,
					     op->desired, &op->old);
	}
}

static uint64_t wait_ns(uint64_t ns)
{
	uint64_t start = mono_ns(), end = start + ns;
	uint64_t now;

	/*
	 * Long waits sleep; short ones spin (a sleep wakes up tens of
	 * microseconds late), yielding so that clients sharing a CPU keep
	 * running.
	 */
	while ((now = mono_ns()) < end) {
		if (end - now > 200000) {
			struct timespec ts = { 0, (long)(end - now - 100000) };

			nanosleep(&ts, NULL);
		} else {
			sched_yield();
		}
	}
	return now - start;
}

/*
 * Between two accesses of a chaos round: often a yield, sometimes a slow
 * message (100 us, long enough for other clients to finish whole
 * operations in between).
 */
static void chaos_pause(struct mdk_swarm_client *c)
{
	uint64_t r = sw_rand(c);

	if (r % 64 == 0) {
		struct timespec ts = { 0, 100000 };

		nanosleep(&ts, NULL);
	} else if (r % 4 == 0) {
		sched_yield();
	}
}

/* Chaos: drop the batches of up to as many live nodes as a majority spares. */
static uint32_t chaos_drops(struct mdk_swarm_client *c)
{
	struct mdk_swarm *s = c->s;
	unsigned int live = 0, drop_max;
	uint32_t drop = 0;

	for (unsigned int i = 0; i < s->n; i++)
		if (!mdk_swarm_memnode_crashed(s->nodes[i]))
			live++;
	drop_max = live > s->quorum ? live - s->quorum : 0;
	for (unsigned int k = 0; k < drop_max; k++)
		drop |= 1U << (sw_rand(c) % s->n);
	return drop;
}

/* The first @nops accesses of node @i's batch: 0, or the failed one's error. */
static int exec_batch(struct mdk_swarm_client *c, unsigned int i,
		      unsigned int nops, bool chaos)
{
	struct sw_batch *b = &c->b[i];
	int ret = 0;

	for (unsigned int k = 0; k < nops && !ret; k++) {
		ret = exec_op(c->s->nodes[i], &b->ops[k],
			      k && b->ops[k - 1].kind == SW_WR);
		if (chaos)
			chaos_pause(c);
	}
	return ret;
}

/* Node @i answered: its round trip time goes into @rtt. */
static void answer(struct mdk_swarm_client *c, unsigned int i, uint64_t *rtt,
		   unsigned int *nans)
{
	c->b[i].answered = true;
	c->answered |= 1U << i;
	rtt[(*nans)++] = mdk_swarm_memnode_rtt(c->s->nodes[i]);
}

/*
 * The majority-th fastest answer ends the round (a round sent to fewer
 * nodes waits for all of them); callers check that enough nodes answered.
 */
static void wait_quorum(struct mdk_swarm_client *c, uint64_t *rtt,
			unsigned int nans)
{
	uint64_t t;

	for (unsigned int i = 1; i < nans; i++)
		for (unsigned int k = i; k > 0 && rtt[k - 1] > rtt[k]; k--) {
			t = rtt[k];
			rtt[k] = rtt[k - 1];
			rtt[k - 1] = t;
		}
	t = rtt[(nans < c->s->quorum ? nans : c->s->quorum) - 1];
	c->last.rtt_ns += t;
	if (t)
		c->last.wait_ns += wait_ns(t);
}

/*
 * Run the round built with sw_add_*().  @post: the batches are only sent,
 * not waited for (a background round: no round trip is counted, and
 * batches delayed by chaos or a hook are not delivered late).
 */
static int run_round(struct mdk_swarm_client *c, bool post)
{
	struct mdk_swarm *s = c->s;
	uint64_t rtt[MDK_SWARM_MAX_NODES];
	unsigned int nans = 0, round;
	uint32_t drop = 0;
	uint64_t t_exec;
	bool crash = false, chaos = false;

	if (c->dead)
		return -ECANCELED;
	if (c->crash_in && --c->crash_in == 0)
		crash = true;
	round = post ? c->last.rtts + 1 : ++c->last.rtts;
	if (c->chaos_ppm && sw_rand(c) % 1000000 < c->chaos_ppm) {
		chaos = true;
		drop = chaos_drops(c);
	}

	c->answered = 0;
	t_exec = mono_ns();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned int i = 0; i < s->n; i++) {
		struct sw_batch *b = &c->b[i];
		unsigned int nops = b->n;

		b->answered = false;
		if (b->n && c->hook && !c->hook(c->hook_arg, round, i))
			drop |= 1U << i;
		if (!b->n || (drop & (1U << i)))
			continue;
		if (crash) {
			/* Part of the round leaves before the client dies. */
			if (sw_rand(c) % 2)
				continue;
			nops = b->n ? (unsigned int)(sw_rand(c) % (b->n + 1)) :
				      0;
		}
		if (mdk_swarm_memnode_crashed(s->nodes[i]) ||
		    exec_batch(c, i, nops, chaos) || crash)
			continue;
		answer(c, i, rtt, &nans);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (crash) {
		c->dead = true;
		return -ECANCELED;
	}
	/*
	 * Chaos only delays messages: a client that lacks a majority waits,
	 * and the delayed batches arrive after all.
	 */
	for (unsigned int i = 0; i < s->n && nans < s->quorum && !post; i++)
		if (c->b[i].n && (drop & (1U << i)) &&
		    !mdk_swarm_memnode_crashed(s->nodes[i]) &&
		    !exec_batch(c, i, c->b[i].n, false))
			answer(c, i, rtt, &nans);
	c->last.exec_ns += mono_ns() - t_exec;
	if (nans && !post)
		wait_quorum(c, rtt, nans);
	return (int)nans;
}

int sw_round(struct mdk_swarm_client *c)
{
	return run_round(c, false);
}

int sw_post(struct mdk_swarm_client *c)
{
	return run_round(c, true);
}
