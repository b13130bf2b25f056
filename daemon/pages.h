/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page actuators: what mdkd's policy mode (mode_policy.c) hands to the
 * actuator that moves its pages, and the two that do.
 *
 *  - pageout (act_pageout.c): process_madvise(MADV_PAGEOUT) on a pidfd,
 *    contiguous pages batched into one iovec each, for the swap and zswap
 *    back end;
 *  - migrate (act_migrate.c): move_pages(2) (libnuma) to the CMM-MP node
 *    for the CXL back end, and back to a DRAM node for the pages of that
 *    node the window saw accessed again.
 *
 * Pages are the sampler's ids (proc << 44 | vaddr >> 12, bpf/loader.h); the
 * mode maps proc numbers to PIDs.  The system calls go through struct
 * mdkd_page_sys so that the unit tests can stand in for the kernel.
 */
#ifndef MDKD_PAGES_H
#define MDKD_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct mdkd_actuator_ops;
struct mdkd_target;

/* What happened to the pages of one action. */
struct mdkd_pages_result {
	uint64_t out_tried; /* pages of out[] the actuator tried (a prefix) */
	uint64_t out_done; /* advised (pageout) or now on the node (migrate) */
	uint64_t back_done; /* back[] pages now on the DRAM node */
	uint64_t failed; /* pages refused (unmapped, locked, busy, shared) */
	uint64_t gone; /* pages of processes that exited (ESRCH) */
	uint64_t denied; /* pages of processes we may not touch (EPERM) */
	uint64_t calls; /* system calls made */
	int first_error; /* the first errno seen (negative), 0 if none */
};

/* One decision of policy mode. */
struct mdkd_pages {
	const uint64_t *out; /* sorted ids to move out (reclaim or demote) */
	size_t nout;
	const uint64_t *back; /* sorted ids to bring back to DRAM (CXL) */
	size_t nback;
	int tier_node; /* migrate: where out[] goes */
	int home_node; /* migrate: where back[] goes */
	/* The PID of proc number @proc, or 0 when it is gone. */
	pid_t (*pid_of)(void *arg, uint32_t proc);
	void *pid_arg;
	struct mdkd_pages_result res; /* filled by the actuator */
	/* Actuator tier (backend auto): the page-outs, a list of their own
	 * (its out, nout and res), itself followed by the next; NULL: none. */
	struct mdkd_pages *pageout;
	/* A page-out list for the swap device past zswap (zswap_off.h). */
	bool zswap_off;
};

/* The system calls the actuators make (the real ones by default). */
struct mdkd_page_sys {
	int (*pidfd_open)(pid_t pid);
	ssize_t (*process_madvise)(int pidfd, const struct iovec *iov, size_t n,
				   int advice);
	long (*move_pages)(pid_t pid, unsigned long count, void **pages,
			   const int *nodes, int *status);
	int (*close)(int fd);
};

/* The real ones; each daemon hands its table to the actuators through
 * struct mdkd_target (the unit tests hand a fake to the functions). */
extern const struct mdkd_page_sys mdkd_page_sys_real;

/* The page actuators: one per back end, and tier for backend auto. */
extern const struct mdkd_actuator_ops mdkd_act_pageout;
extern const struct mdkd_actuator_ops mdkd_act_migrate;
extern const struct mdkd_actuator_ops mdkd_act_tier;

/* Most iovecs per process_madvise() call (the kernel's UIO_MAXIOV). */
#define MDKD_PAGEOUT_MAX_IOV 1024
/* Most pages per move_pages() call. */
#define MDKD_MIGRATE_BATCH 4096

/*
 * mdkd_pageout() - MADV_PAGEOUT the first @n pages of @p->out, a process
 * at a time: one pidfd, runs of contiguous pages as one iovec each, at
 * most MDKD_PAGEOUT_MAX_IOV iovecs a call.  A partial result (the kernel
 * stops at the first range it refuses) is resumed after the refused
 * range, whose pages count as failed; EPERM skips the process (denied),
 * ESRCH too (gone).  Adds to @p->res.
 * Return: 0, or -ENOMEM.
 */
int mdkd_pageout(const struct mdkd_page_sys *sys, struct mdkd_pages *p,
		 size_t n);

/*
 * mdkd_swap_cache_drop() - how much of the swap cache to reclaim at a
 * window's end.  *@pending holds the bytes page-outs put in the swap
 * cache and not yet dropped; the last window advised @advised more and
 * faulted @swapin back in (mapped, in use: not to drop).  The swap cache
 * holds @swapcached bytes now, @writeback of them still being written
 * (the kernel skips those).  Updates *@pending (at most @swapcached) and
 * returns the part of it not under writeback, in whole pages.
 */
uint64_t mdkd_swap_cache_drop(uint64_t *pending, uint64_t advised,
			      uint64_t swapin, uint64_t swapcached,
			      uint64_t writeback);

/*
 * mdkd_migrate() - move the first @n pages of @p->out to @p->tier_node and
 * every page of @p->back to @p->home_node with move_pages(2), at most
 * MDKD_MIGRATE_BATCH pages a call; per-page statuses say which moved.
 * The pages a failed migration leaves unreported (the kernel stops the
 * call there) are queried, and those not moved tried again.
 * Adds to @p->res.
 * Return: 0, or -ENOMEM.
 */
int mdkd_migrate(const struct mdkd_page_sys *sys, struct mdkd_pages *p,
		 size_t n);

/*
 * mdkd_read_small() - the start of the small file @path (a sysfs or procfs
 * file) into @buf, at most @len - 1 bytes, NUL-terminated.
 * Return: the bytes read, or -errno.
 */
int mdkd_read_small(const char *path, char *buf, size_t len);

/*
 * mdkd_cmm_mp_node() - the NUMA node of the CMM-MP pool, from
 * SYS/kernel/cmm_mp/node (cmm_mp.ko loaded).
 * Return: the node, or a negative error code (-ENOENT: not loaded).
 */
int mdkd_cmm_mp_node(const char *sys_root);

/*
 * mdkd_home_node() - the lowest NUMA node with CPUs other than @tier
 * (SYS/devices/system/node/nodeN/cpulist not empty), where pages promoted
 * back from the tier go.  Return: the node, or -ENOENT.
 */
int mdkd_home_node(const char *sys_root, int tier);

/*
 * mdkd_pages_attach() - the attach check both page actuators make: @t's
 * mode picks pages.  Return: 0 or -EINVAL with the reason in @err.
 */
int mdkd_pages_attach(const struct mdkd_target *t, const char *name, char *err,
		      size_t errlen);

/*
 * mdkd_pages_done() - end a page actuator's action (@ret from
 * mdkd_pageout() or mdkd_migrate(); @promotes: migrate's): log refused pages, count what moved
 * out as the action's bytes, turn "nothing moved, an error seen" into
 * that error and report the result.
 */
void mdkd_pages_done(struct mdkd_target *t, const struct mdkd_pages *p,
		     const char *name, bool promotes, int ret);

#endif /* MDKD_PAGES_H */
