/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_SWARM_H
#define MDK_SWARM_H

/*
 * SWARM-KV: a linearizable key-value store replicated over memory nodes
 * (mdk/memnode.h) that only read, write and compare-and-swap 64-bit words,
 * after SWARM (Murat et al., SOSP'24).  Gets and updates take one round
 * trip in the common case; the store survives the crash of any minority of
 * its nodes.  The same store offers the two baselines of the paper: DM-ABD
 * (ABD over the same memory, two round trips) and RAW (one unreplicated
 * node, no concurrency control).  Documentation/swarm.rst has the protocol,
 * its failure model and its limits.
 *
 * Objects: a store (struct mdk_swarm) over N nodes, formatted once and
 * attached to by any process that maps the same nodes; clients (struct
 * mdk_swarm_client), one per thread, each with its own id.  Every call
 * returns 0 or a negative errno; messages go to the caller's buffer.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/memnode.h>

#define MDK_SWARM_MAX_NODES 9
#define MDK_SWARM_MAX_CLIENTS 1024

enum mdk_swarm_proto {
	MDK_SWARM_PROTO_SWARM = 0, /* Safe-Guess + In-n-Out, one round trip */
	MDK_SWARM_PROTO_ABD = 1, /* DM-ABD: two round trips */
	MDK_SWARM_PROTO_RAW = 2, /* one node, no replication, no control */
};

/*
 * struct mdk_swarm_opts - the layout chosen at format time.  Zero fields
 * take the defaults in brackets.
 * @proto:       protocol [SWARM]
 * @capacity:    number of keys the index must hold [1024]
 * @key_size:    longest key in bytes [24]
 * @value_size:  longest value in bytes [64]
 * @max_clients: clients that may ever attach, ids 0..max_clients-1 [8]
 */
struct mdk_swarm_opts {
	enum mdk_swarm_proto proto;
	uint32_t capacity;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_clients;
};

struct mdk_swarm;
struct mdk_swarm_client;

/*
 * mdk_swarm_node_bytes() - bytes each memory node needs for a store with
 * @opts (defaults applied), or 0 when @opts is invalid.
 */
uint64_t mdk_swarm_node_bytes(const struct mdk_swarm_opts *opts);

/*
 * mdk_swarm_format() - lay out a new store on @nodes[0..@n-1] (1 node for
 * RAW, 1..MDK_SWARM_MAX_NODES otherwise) and return a handle.  Overwrites
 * whatever the nodes held.  The handle does not own the nodes.
 */
struct mdk_swarm *mdk_swarm_format(struct mdk_swarm_memnode **nodes,
				   unsigned int n,
				   const struct mdk_swarm_opts *opts, char *err,
				   size_t errlen);

/*
 * mdk_swarm_attach() - a handle on the store already formatted on @nodes
 * (another process, another host mapping the same segments).  The nodes
 * must be given in the same order as at format time; a majority of them
 * must answer.
 */
struct mdk_swarm *mdk_swarm_attach(struct mdk_swarm_memnode **nodes,
				   unsigned int n, char *err, size_t errlen);

/* mdk_swarm_destroy() - free the handle (not the nodes, not the data). */
void mdk_swarm_destroy(struct mdk_swarm *s);

/* mdk_swarm_opts_get() - the options @s was formatted with. */
void mdk_swarm_opts_get(const struct mdk_swarm *s, struct mdk_swarm_opts *o);

/* mdk_swarm_proto_name() - "swarm", "dm-abd" or "raw" (NULL if unknown). */
const char *mdk_swarm_proto_name(enum mdk_swarm_proto proto);

/*
 * mdk_swarm_client_new() - a client of @s with a fresh id, claimed in the
 * nodes' client table (ids are never reused: a client that crashed keeps
 * its id).  A client is used by one thread at a time.  Returns NULL with
 * a message when every id is taken or no majority answers.
 */
struct mdk_swarm_client *mdk_swarm_client_new(struct mdk_swarm *s, char *err,
					      size_t errlen);

/*
 * mdk_swarm_client_destroy() - finish the client's background work
 * (mdk_swarm_flush()) and free it.
 */
void mdk_swarm_client_destroy(struct mdk_swarm_client *c);

/* mdk_swarm_client_id() - the client's id. */
unsigned int mdk_swarm_client_id(const struct mdk_swarm_client *c);

/*
 * The operations.  Keys are 1..key_size bytes, values 0..value_size bytes.
 *
 * mdk_swarm_get() copies the value into @val (room for *@vlen bytes) and
 * sets *@vlen to its length; -ENOENT when the key is absent (never written,
 * or deleted).  mdk_swarm_insert() writes the key, creating its index entry
 * when needed; mdk_swarm_update() writes it too, but returns -ENOENT
 * without writing when the key has no index entry (it was never inserted);
 * mdk_swarm_delete() writes a tombstone.  Writes are blind: the last
 * linearized write wins.
 *
 * Errors: -EINVAL (bad length), -ENOSPC (index full), -EIO (no majority of
 * nodes answers: the operation may or may not have taken effect),
 * -ECANCELED (the client was crashed by mdk_swarm_client_crash_after(); the
 * operation may or may not take effect), -EOVERFLOW (timestamps exhausted),
 * -EAGAIN (a get retried 100000 times, writes to its key completing all
 * along: it had no effect, try again).
 */
int mdk_swarm_get(struct mdk_swarm_client *c, const void *key, size_t klen,
		  void *val, size_t *vlen);
int mdk_swarm_insert(struct mdk_swarm_client *c, const void *key, size_t klen,
		     const void *val, size_t vlen);
int mdk_swarm_update(struct mdk_swarm_client *c, const void *key, size_t klen,
		     const void *val, size_t vlen);
int mdk_swarm_delete(struct mdk_swarm_client *c, const void *key, size_t klen);

/*
 * mdk_swarm_flush() - send the client's pending background round: the
 * verification of its last write when the post that followed the write
 * missed a majority (a delayed message), which is otherwise piggybacked on
 * the client's next operation.
 */
int mdk_swarm_flush(struct mdk_swarm_client *c);

/*
 * mdk_swarm_warm() - fill the client's cache of index locations with every
 * key present in the store, in bulk reads of the nodes' indexes.  A write
 * to a key whose location the client does not know takes one more round
 * trip (two when it claims an index entry); a get reads the key's buckets
 * instead of its entry, in the same round trip.
 */
int mdk_swarm_warm(struct mdk_swarm_client *c);

/*
 * struct mdk_swarm_op_stats - the cost of the client's last operation:
 * @rtts:       round trips before it returned (its latency in round trips)
 * @bg_rtts:    background rounds it sent without waiting for them (0 or
 *              1): the verification of a write that took the fast path,
 *              posted as it returns; for mdk_swarm_flush(), a verification
 *              still pending
 * @slow:       the slow paths it took, MDK_SWARM_SLOW_* (0: none)
 * @rtt_ns:     the injected round-trip times of its rounds, summed
 * @wait_ns:    the wall time it spent waiting them out (more than @rtt_ns
 *              when the thread was descheduled)
 * @exec_ns:    the wall time it spent executing the nodes' accesses, which
 *              memory nodes do themselves, within a round trip, and this
 *              emulation does on the client's thread
 *
 * Latency minus @wait_ns and @exec_ns, plus @rtt_ns, is the operation's
 * latency on a CPU of its own with memory nodes that answer in @rtt_ns.
 */
struct mdk_swarm_op_stats {
	unsigned int rtts;
	unsigned int bg_rtts;
	unsigned int slow;
	uint64_t rtt_ns;
	uint64_t wait_ns;
	uint64_t exec_ns;
};

/* Slow paths (struct mdk_swarm_op_stats.slow), see Documentation/swarm.rst. */
#define MDK_SWARM_SLOW_WRITEBACK 0x01 /* get: wrote back a committed value */
#define MDK_SWARM_SLOW_REREAD 0x02 /* get: read again after an unverified one */
#define MDK_SWARM_SLOW_ABORTED 0x04 /* get: passed over a guess being aborted */
#define MDK_SWARM_SLOW_LOCKED 0x08 /* get: committed a guess through its lock */
#define MDK_SWARM_SLOW_GUESS 0x10 /* update: the guess was not fresh */
#define MDK_SWARM_SLOW_KEPT 0x20 /* update: a reader had locked the guess */
#define MDK_SWARM_SLOW_RETRY 0x40 /* update: guess aborted, written again */

void mdk_swarm_last_op(const struct mdk_swarm_client *c,
		       struct mdk_swarm_op_stats *st);

/*
 * Test and benchmark knobs.
 *
 * mdk_swarm_client_set_clock_skew(): offset, in microseconds, added to the
 * client's clock (SWARM guesses timestamps from it: skew costs round trips,
 * never safety).
 *
 * mdk_swarm_client_crash_after(): crash the client in the middle of its
 * @rounds-th round from now: only part of that round reaches the nodes,
 * the operation returns -ECANCELED and so do all later calls (a crash in
 * the verification a write posts as it returns comes after the write
 * returned: that write returns 0).
 *
 * mdk_swarm_client_set_chaos(): with probability @ppm per million, each
 * round reaches only a random majority of the live nodes (the others'
 * messages are delayed forever) and accesses are interleaved with yields.
 */
void mdk_swarm_client_set_clock_skew(struct mdk_swarm_client *c,
				     int64_t skew_us);

/*
 * mdk_swarm_client_set_hook(): @fn is called before each node's batch of
 * each of the client's rounds, with the round's index in the current
 * operation (from 1; the verification that a fast-path write posts as it
 * returns is its round 2) and the node; returning false delays that batch
 * forever (it still arrives when the client would otherwise lack a
 * majority; a delayed verification rides on the client's next round).
 * The hook may block: tests use it to schedule clients.
 */
typedef bool (*mdk_swarm_hook_fn)(void *arg, unsigned int round,
				  unsigned int node);
void mdk_swarm_client_set_hook(struct mdk_swarm_client *c, mdk_swarm_hook_fn fn,
			       void *arg);
void mdk_swarm_client_crash_after(struct mdk_swarm_client *c,
				  unsigned int rounds);
void mdk_swarm_client_set_chaos(struct mdk_swarm_client *c, uint32_t ppm,
				uint64_t seed);

#endif /* MDK_SWARM_H */
