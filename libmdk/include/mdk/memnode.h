/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_MEMNODE_H
#define MDK_MEMNODE_H

/*
 * Memory nodes: passive memory that answers only read, write and 64-bit
 * compare-and-swap, the model of disaggregated memory SWARM replicates over
 * (mdk/swarm.h).  A node is a back end (struct mdk_swarm_memnode_ops) plus what
 * the core adds to every back end: an injected round-trip time and crash
 * injection (a crashed node stops answering, for good).
 *
 * Offsets and lengths are multiples of 8 bytes; every access is made of
 * single-copy atomic 64-bit loads and stores (a CAS is one atomic
 * instruction), which is what a CXL device or an RDMA NIC guarantees.
 * Nothing orders accesses of different clients: ordering is the protocol's
 * business.  All calls return 0 or a negative errno: -EIO when the node has
 * crashed (or its device failed), -ERANGE for an access outside the node,
 * -EINVAL for a misaligned one.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mdk_swarm_memnode;

/*
 * struct mdk_swarm_memnode_ops - one back end.  Every hook but @destroy is
 * mandatory.  @read/@write/@cas are called with offsets already checked
 * against @size; they return 0, or -EIO when the memory failed (the core
 * then marks the node crashed).  @failed, when set, is polled before each
 * batch of accesses and reports a failure the back end detects by other
 * means (a pool device marked failed).
 */
struct mdk_swarm_memnode_ops {
	const char *name;
	int (*read)(void *priv, uint64_t off, void *buf, size_t len);
	int (*write)(void *priv, uint64_t off, const void *buf, size_t len);
	int (*cas)(void *priv, uint64_t off, uint64_t expect, uint64_t desired,
		   uint64_t *old);
	bool (*failed)(void *priv);
	void (*destroy)(void *priv);
};

/*
 * mdk_swarm_memnode_new() - a node over back end @ops with private data @priv and
 * @size bytes.  The node owns @priv (ops->destroy frees it).  Returns NULL
 * with a message in @err on failure.
 */
struct mdk_swarm_memnode *
mdk_swarm_memnode_new(const struct mdk_swarm_memnode_ops *ops, void *priv,
		      uint64_t size, char *err, size_t errlen);

/*
 * mdk_swarm_memnode_new_mem() - a node of @size bytes of this process's memory,
 * zero-filled (in-process tests and benchmarks).
 */
struct mdk_swarm_memnode *mdk_swarm_memnode_new_mem(uint64_t size, char *err,
						    size_t errlen);

/*
 * mdk_swarm_memnode_new_fd() - a node over a shared mapping of @size bytes of file
 * descriptor @fd at @offset (a memfd, a file, a /dev/cmm_mp shared
 * segment).  The mapping is MAP_SHARED, so every process that maps the same
 * object sees the same node.  @fd may be closed afterwards.  Accesses that
 * fault with SIGBUS (a failed device, a truncated file) make the node
 * crashed instead of killing the process.
 */
struct mdk_swarm_memnode *mdk_swarm_memnode_new_fd(int fd, off_t offset,
						   uint64_t size, char *err,
						   size_t errlen);

/*
 * mdk_swarm_memnode_new_cmm_mp() - a node on device @device of the CMM-MP pool
 * behind @path (NULL: "/dev/cmm_mp"): shares segment @segment of that
 * device (MDK_SWARM_MEMNODE_CMM_MP_LAST: its last one, MDK_SWARM_MEMNODE_CMM_MP_FIRST:
 * its first one; a segment already shared
 * by another process or host is attached as it is, an offline one is
 * zeroed by the module first) and maps its first @bytes (0: all of it).
 * The node's round-trip time starts as the device's emulated latency from
 * this host; a failed device makes the node crashed (device state polled,
 * SIGBUS on access caught).  NULL with a message on failure, also when
 * libmdk was built without the cmm_mp ABI header.
 */
#define MDK_SWARM_MEMNODE_CMM_MP_LAST 0xffffffffU
#define MDK_SWARM_MEMNODE_CMM_MP_FIRST 0xfffffffeU
struct mdk_swarm_memnode *
mdk_swarm_memnode_new_cmm_mp(const char *path, unsigned int device,
			     unsigned int segment, uint64_t bytes, char *err,
			     size_t errlen);

/*
 * mdk_swarm_memnode_cmm_mp_info() - the number of devices of the pool behind
 * @path and its segment size.  0, or a negative errno with a message
 * (-EOPNOTSUPP when built without the cmm_mp ABI header).
 */
int mdk_swarm_memnode_cmm_mp_info(const char *path, unsigned int *nr_devices,
				  uint64_t *segment_bytes, char *err,
				  size_t errlen);

/* mdk_swarm_memnode_destroy() - unmap and free @node (NULL is a no-op). */
void mdk_swarm_memnode_destroy(struct mdk_swarm_memnode *node);

/* mdk_swarm_memnode_size() - the node's size in bytes. */
uint64_t mdk_swarm_memnode_size(const struct mdk_swarm_memnode *node);

/* mdk_swarm_memnode_name() - the back end's name ("mem", "fd", "cmm_mp"). */
const char *mdk_swarm_memnode_name(const struct mdk_swarm_memnode *node);

/*
 * mdk_swarm_memnode_set_rtt() / mdk_swarm_memnode_rtt() - the round-trip time, in
 * nanoseconds, that a round of accesses to this node costs (0 by default:
 * no injected latency).  A client's round waits for the majority-th
 * fastest answering node.
 */
void mdk_swarm_memnode_set_rtt(struct mdk_swarm_memnode *node, uint64_t rtt_ns);
uint64_t mdk_swarm_memnode_rtt(const struct mdk_swarm_memnode *node);

/*
 * mdk_swarm_memnode_crash() - crash @node: from now on it answers nothing (every
 * access returns -EIO).  Crashes are permanent (crash-stop).  Safe to call
 * from any thread while others access the node.
 */
void mdk_swarm_memnode_crash(struct mdk_swarm_memnode *node);

/* mdk_swarm_memnode_crashed() - whether @node has crashed (or failed). */
bool mdk_swarm_memnode_crashed(struct mdk_swarm_memnode *node);

/* Single accesses, without injected latency. */
int mdk_swarm_memnode_read(struct mdk_swarm_memnode *node, uint64_t off,
			   void *buf, size_t len);
int mdk_swarm_memnode_write(struct mdk_swarm_memnode *node, uint64_t off,
			    const void *buf, size_t len);
/*
 * mdk_swarm_memnode_cas() - atomically replace the word at @off by @desired if it
 * equals @expect.  The value found is stored in @old (when not NULL); the
 * CAS succeeded iff *@old == @expect.
 */
int mdk_swarm_memnode_cas(struct mdk_swarm_memnode *node, uint64_t off,
			  uint64_t expect, uint64_t desired, uint64_t *old);

#endif /* MDK_MEMNODE_H */
