// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Memory nodes: the core (bounds, crash injection, injected round-trip
 * time) over back ends, and the mapped back ends ("mem": anonymous memory,
 * "fd": a MAP_SHARED mapping of a file descriptor).
 *
 * A mapped node is accessed with 64-bit atomic loads and stores, each
 * access followed by a full fence: a node executes the accesses one client
 * sends it in order, as an RDMA queue pair or a CXL device does, and a
 * store followed by a load (the Dekker pattern the protocols use) must not
 * be reordered by the CPU.
 *
 * A mapping whose backing object disappears (a failed pool device, a
 * truncated file) raises SIGBUS on access.  The fd back end runs its
 * accesses under a per-thread sigsetjmp() guard and turns the fault into
 * -EIO, which crashes the node.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mdk/memnode.h>

#include "swarm_int.h"

struct mdk_swarm_memnode {
	const struct mdk_swarm_memnode_ops *ops;
	void *priv;
	uint64_t size;
	uint64_t rtt_ns;
	int crashed; /* atomic */
};

void sw_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A node's size: a positive multiple of 8 bytes, its word. */
static bool size_ok(uint64_t size, char *err, size_t errlen)
{
	if (size >= 8 && size % 8 == 0)
		return true;
	sw_err(err, errlen,
	       "memnode: size %llu is not a positive multiple of 8",
	       (unsigned long long)size);
	return false;
}

struct mdk_swarm_memnode *
mdk_swarm_memnode_new(const struct mdk_swarm_memnode_ops *ops, void *priv,
		      uint64_t size, char *err, size_t errlen)
{
	struct mdk_swarm_memnode *n;

	if (!ops || !ops->read || !ops->write || !ops->cas) {
		sw_err(err, errlen, "memnode: back end lacks read/write/cas");
		return NULL;
	}
	if (!size_ok(size, err, errlen))
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n) {
		sw_err(err, errlen, "memnode: out of memory");
		return NULL;
	}
	n->ops = ops;
	n->priv = priv;
	n->size = size;
	return n;
}

void mdk_swarm_memnode_destroy(struct mdk_swarm_memnode *node)
{
	if (!node)
		return;
	if (node->ops->destroy)
		node->ops->destroy(node->priv);
	free(node);
}

uint64_t mdk_swarm_memnode_size(const struct mdk_swarm_memnode *node)
{
	return node->size;
}

const char *mdk_swarm_memnode_name(const struct mdk_swarm_memnode *node)
{
	return node->ops->name;
}

void mdk_swarm_memnode_set_rtt(struct mdk_swarm_memnode *node, uint64_t rtt_ns)
{
	__atomic_store_n(&node->rtt_ns, rtt_ns, __ATOMIC_RELAXED);
}

uint64_t mdk_swarm_memnode_rtt(const struct mdk_swarm_memnode *node)
{
	return __atomic_load_n(&node->rtt_ns, __ATOMIC_RELAXED);
}

void mdk_swarm_memnode_crash(struct mdk_swarm_memnode *node)
{
	__atomic_store_n(&node->crashed, 1, __ATOMIC_SEQ_CST);
}

bool mdk_swarm_memnode_crashed(struct mdk_swarm_memnode *node)
{
	if (__atomic_load_n(&node->crashed, __ATOMIC_SEQ_CST))
		return true;
	if (node->ops->failed && node->ops->failed(node->priv)) {
		mdk_swarm_memnode_crash(node);
		return true;
	}
	return false;
}

static int check(struct mdk_swarm_memnode *node, uint64_t off, size_t len)
{
	if (__atomic_load_n(&node->crashed, __ATOMIC_ACQUIRE))
		return -EIO;
	if (off % 8 || len % 8)
		return -EINVAL;
	if (off > node->size || len > node->size - off)
		return -ERANGE;
	return 0;
}

static int done(struct mdk_swarm_memnode *node, int ret)
{
	if (ret == -EIO)
		mdk_swarm_memnode_crash(node);
	return ret;
}

int sw_memnode_rd(struct mdk_swarm_memnode *node, uint64_t off, void *buf,
		  size_t len)
{
	int ret = check(node, off, len);

	if (ret)
		return ret;
	return done(node, node->ops->read(node->priv, off, buf, len));
}

int sw_memnode_wr(struct mdk_swarm_memnode *node, uint64_t off, const void *buf,
		  size_t len)
{
	int ret = check(node, off, len);

	if (ret)
		return ret;
	return done(node, node->ops->write(node->priv, off, buf, len));
}

/*
 * A single access, outside a round, is ordered after everything before it
 * and before everything after it.
 */
int mdk_swarm_memnode_read(struct mdk_swarm_memnode *node, uint64_t off,
			   void *buf, size_t len)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return sw_memnode_rd(node, off, buf, len);
}

int mdk_swarm_memnode_write(struct mdk_swarm_memnode *node, uint64_t off,
			    const void *buf, size_t len)
{
	int ret = sw_memnode_wr(node, off, buf, len);

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return ret;
}

int mdk_swarm_memnode_cas(struct mdk_swarm_memnode *node, uint64_t off,
			  uint64_t expect, uint64_t desired, uint64_t *old)
{
	uint64_t found;
	int ret = check(node, off, 8);

	if (ret)
		return ret;
	ret = done(node,
		   node->ops->cas(node->priv, off, expect, desired, &found));
	if (!ret && old)
		*old = found;
	return ret;
}

/* Mapped back ends. */

struct mapped {
	uint64_t *base;
	uint64_t size;
	bool guarded; /* accesses may fault with SIGBUS */
};

static __thread sigjmp_buf *sigbus_guard;
static struct sigaction old_sigbus;
static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;

static void sigbus_handler(int sig, siginfo_t *si, void *uc)
{
	if (sigbus_guard)
		siglongjmp(*sigbus_guard, 1);
	/* Not ours: behave as before we were installed. */
	sigaction(SIGBUS, &old_sigbus, NULL);
	if (!(old_sigbus.sa_flags & SA_SIGINFO) &&
	    old_sigbus.sa_handler == SIG_DFL) {
		raise(sig);
		return;
	}
	if (old_sigbus.sa_flags & SA_SIGINFO)
		old_sigbus.sa_sigaction(sig, si, uc);
	else if (old_sigbus.sa_handler != SIG_IGN)
		old_sigbus.sa_handler(sig);
}

static void sigbus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigbus_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_sigbus);
}

/*
 * Words are loaded with acquire and stored with release semantics, in
 * ascending address order: a reader that sees a client's later store also
 * sees its earlier ones (the protocols store prev before slot, and read
 * slot before prev).  A store followed by a load needs a full fence in
 * between: round.c's exec_op() issues one before a load that follows a
 * store in a batch, and a CAS is one.
 */
static void copy_in(uint64_t *dst, const uint64_t *src, size_t words)
{
	for (size_t i = 0; i < words; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
}

static void copy_out(uint64_t *dst, const uint64_t *src, size_t words)
{
	for (size_t i = 0; i < words; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELEASE);
}

/*
 * The accessors run under the SIGBUS guard only for guarded mappings;
 * sigsetjmp() is not free and anonymous memory cannot fault.  Locals the
 * fault path reads are volatile (longjmp clobbers the others).
 */
static int mapped_read(void *priv, uint64_t off, void *buf, size_t len)
{
	struct mapped *m = priv;
	sigjmp_buf env;
	volatile int faulted = 0;

	if (!m->guarded) {
		copy_in(buf, m->base + off / 8, len / 8);
		return 0;
	}
	if (sigsetjmp(env, 1)) {
		faulted = 1;
	} else {
		sigbus_guard = &env;
		copy_in(buf, m->base + off / 8, len / 8);
	}
	sigbus_guard = NULL;
	return faulted ? -EIO : 0;
}

static int mapped_write(void *priv, uint64_t off, const void *buf, size_t len)
{
	struct mapped *m = priv;
	sigjmp_buf env;
	volatile int faulted = 0;

	if (!m->guarded) {
		copy_out(m->base + off / 8, buf, len / 8);
		return 0;
	}
	if (sigsetjmp(env, 1)) {
		faulted = 1;
	} else {
		sigbus_guard = &env;
		copy_out(m->base + off / 8, buf, len / 8);
	}
	sigbus_guard = NULL;
	return faulted ? -EIO : 0;
}

static int mapped_cas(void *priv, uint64_t off, uint64_t expect,
		      uint64_t desired, uint64_t *old)
{
	struct mapped *m = priv;
	sigjmp_buf env;
	volatile int faulted = 0;
	uint64_t e = expect;

	if (!m->guarded) {
		__atomic_compare_exchange_n(m->base + off / 8, &e, desired,
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		*old = e;
		return 0;
	}
	if (sigsetjmp(env, 1)) {
		faulted = 1;
	} else {
		sigbus_guard = &env;
		__atomic_compare_exchange_n(m->base + off / 8, &e, desired,
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		*old = e;
	}
	sigbus_guard = NULL;
	return faulted ? -EIO : 0;
}

static void mapped_destroy(void *priv)
{
	struct mapped *m = priv;

	munmap(m->base, m->size);
	free(m);
}

static const struct mdk_swarm_memnode_ops mem_ops = {
	.name = "mem",
	.read = mapped_read,
	.write = mapped_write,
	.cas = mapped_cas,
	.failed = NULL,
	.destroy = mapped_destroy,
};

static const struct mdk_swarm_memnode_ops fd_ops = {
	.name = "fd",
	.read = mapped_read,
	.write = mapped_write,
	.cas = mapped_cas,
	.failed = NULL,
	.destroy = mapped_destroy,
};

/*
 * Take the back end out of @node (for back ends that wrap a mapped one),
 * freeing the node itself.
 */
void sw_memnode_steal(struct mdk_swarm_memnode *node,
		      const struct mdk_swarm_memnode_ops **ops, void **priv)
{
	*ops = node->ops;
	*priv = node->priv;
	free(node);
}

struct mdk_swarm_memnode *
sw_memnode_new_mapped(const struct mdk_swarm_memnode_ops *ops, void *base,
		      uint64_t size, bool guarded, char *err, size_t errlen)
{
	struct mdk_swarm_memnode *n;
	struct mapped *m = calloc(1, sizeof(*m));

	if (!m) {
		sw_err(err, errlen, "memnode: out of memory");
		return NULL;
	}
	m->base = base;
	m->size = size;
	m->guarded = guarded;
	if (!ops)
		ops = &fd_ops;
	if (guarded)
		pthread_once(&sigbus_once, sigbus_install);
	n = mdk_swarm_memnode_new(ops, m, size, err, errlen);
	if (!n)
		free(m);
	return n;
}

struct mdk_swarm_memnode *mdk_swarm_memnode_new_mem(uint64_t size, char *err,
						    size_t errlen)
{
	struct mdk_swarm_memnode *n;
	void *base;

	if (!size_ok(size, err, errlen))
		return NULL;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		sw_err(err, errlen, "memnode: mmap of %llu bytes: %s",
		       (unsigned long long)size, strerror(errno));
		return NULL;
	}
	n = sw_memnode_new_mapped(&mem_ops, base, size, false, err, errlen);
	if (!n)
		munmap(base, size);
	return n;
}

struct mdk_swarm_memnode *mdk_swarm_memnode_new_fd(int fd, off_t offset,
						   uint64_t size, char *err,
						   size_t errlen)
{
	struct mdk_swarm_memnode *n;
	void *base;

	if (!size_ok(size, err, errlen))
		return NULL;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	if (base == MAP_FAILED) {
		sw_err(err, errlen,
		       "memnode: mmap of fd %d at offset %lld (%llu bytes): %s",
		       fd, (long long)offset, (unsigned long long)size,
		       strerror(errno));
		return NULL;
	}
	n = sw_memnode_new_mapped(&fd_ops, base, size, true, err, errlen);
	if (!n)
		munmap(base, size);
	return n;
}
