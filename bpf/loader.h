/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page Accessed-bit sampler: every window, the set of 4 KiB pages each
 * process of a target (a cgroup v2 subtree, or a set of PIDs) accessed,
 * plus the target's promotions (swap-ins, file refaults, NUMA promotions
 * off the tier node) and the residency of the accessed pages on the tier
 * node (STAR).  BPF (bpf/sampler.bpf.c) walks the page tables; this is the
 * API of its loader (bpf/loader.c and the files bpf/sampler_int.h
 * lists).  Shared by mdkd and mdkctl through libmdk-sampler.a.
 * Documentation/sampler.rst has the design, exactness and side effects.
 *
 * Windows are ended by the caller: mdk_sampler_start() begins window 0,
 * each mdk_sampler_next() ends the current window, delivers it and begins
 * the next.  Nothing here sleeps or keeps threads.
 */
#ifndef MDK_BPF_LOADER_H
#define MDK_BPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Page ids.  A page is (process, 4 KiB virtual page); its id is
 *
 *	id = proc << 44 | vaddr >> 12
 *
 * proc (20 bits) is the sampler's number for the process, given in order
 * of first sight from 0 and never reused within one sampler, so a reused
 * PID or an exec (a new address space) gets a new number;
 * mdk_sampler_proc() maps it back to the PID.  vaddr >> 12 takes 44 bits,
 * enough for the whole x86-64 user half with 5-level paging (below 2^56;
 * with 4-level paging, 2^47).  A raw PID does not fit beside it:
 * pid_max reaches 2^22.  Ids sort by process, then by address.
 */
#define MDK_SAMPLER_PAGE_VPN_BITS 44
#define MDK_SAMPLER_PAGE_PROC_BITS 20
#define MDK_SAMPLER_MAX_PROCS (1U << MDK_SAMPLER_PAGE_PROC_BITS)

static inline uint64_t mdk_sampler_page_id(uint32_t proc, uint64_t vaddr)
{
	return (uint64_t)proc << MDK_SAMPLER_PAGE_VPN_BITS | vaddr >> 12;
}

static inline uint32_t mdk_sampler_page_id_proc(uint64_t id)
{
	return id >> MDK_SAMPLER_PAGE_VPN_BITS;
}

static inline uint64_t mdk_sampler_page_id_addr(uint64_t id)
{
	return (id & ((1ULL << MDK_SAMPLER_PAGE_VPN_BITS) - 1)) << 12;
}

/*
 * A run of consecutive page ids, first .. first + nr - 1: pages of one
 * process at consecutive addresses.  A transparent huge page is (part of)
 * one run of 512; MDK_SAMPLER_RUNS delivers windows this way.
 */
struct mdk_sampler_page_run {
	uint64_t first;
	uint64_t nr;
};

/* Sampler options (zero them, then fill what you need). */
enum {
	/*
	 * Do not also write 4 to clear_refs: no TLB flush at the window
	 * start, so no extra write faults, but pages whose translation stays
	 * cached in a TLB are missed (recall below 1; see the docs).
	 */
	MDK_SAMPLER_NO_FLUSH = 1 << 0,
	/* Do not attach the fault counters (swap-ins, refaults, promotions). */
	MDK_SAMPLER_NO_COUNTERS = 1 << 1,
	/*
	 * Deliver each window's pages as runs of consecutive ids (w->runs)
	 * instead of one id per page (w->pages is NULL then, w->nr_pages
	 * still counts the pages): the same set, without the per-page work
	 * of writing 512 ids for every accessed huge page.
	 */
	MDK_SAMPLER_RUNS = 1 << 2,
	/*
	 * A process met with bits older than the window (each one there at
	 * the start, one moved in or added later) has its resident pages
	 * reported as accessed in the window it is met in (window 0 at the
	 * start) instead of nothing: for page policies, memory idle since
	 * before the sampler saw it is then known and can be moved.  Those
	 * windows are no longer the exact accesses.
	 */
	MDK_SAMPLER_MET_RESIDENT = 1 << 3,
};

struct mdk_sampler_window;

struct mdk_sampler_opts {
	/* Target: a cgroup v2 directory (its whole subtree), or ... */
	const char *cgroup;
	/* ... when cgroup is NULL, these processes (more with _add_pid()). */
	const pid_t *pids;
	size_t nr_pids;
	/* NUMA node of the tier (the CMM-MP node) for STAR and promotions;
	 * -1 for none.  0 is a valid node: set it to -1 explicitly. */
	int tier_node;
	unsigned int flags;
	/* Roots of /proc and /sys (NULL: "/proc", "/sys"); tests use fakes
	 * for the node and memory block files. */
	const char *proc_root;
	const char *sys_root;
	/* Capacity of the record map, in PTE tables per walk pass (0: 16384,
	 * 1.4 MiB); a process needing more takes several passes. */
	unsigned int max_recs;
	/*
	 * Called by mdk_sampler_next() once every process is walked and
	 * before any bit is reset (NULL: each process is reset right after
	 * its walk).  The kernel's own reclaim may run here without hiding
	 * accesses from the sampler: it tests and clears the Accessed bits
	 * of the pages it scans, and sees this window's bits, not the reset
	 * ones.  An access between a process's walk and its reset is lost
	 * either way; the hook widens that gap by its own run time.  @w is
	 * the window being ended: its promotion counters (read as the window
	 * ends, before the walks) and process counts are final, its pages not
	 * yet.
	 */
	void (*before_reset)(void *arg, const struct mdk_sampler_window *w);
	void *before_reset_arg;
};

/* What one window saw.  Owned by the sampler; valid until the next call. */
struct mdk_sampler_window {
	uint64_t index; /* window number, from 0 */
	uint64_t start_ns; /* CLOCK_BOOTTIME at the window's start and end */
	uint64_t end_ns;
	const uint64_t *pages; /* sorted, unique page ids */
	size_t nr_pages;
	/* Accessed pages resident on the tier node: STAR = tier_pages /
	 * nr_pages.  0 without a tier node. */
	uint64_t tier_pages;
	/* Promotions during the window (see bpf/sampler.h); valid when
	 * have_counters. */
	bool have_counters;
	uint64_t swapin_pages;
	uint64_t file_refault_pages;
	uint64_t promote_pages;
	uint64_t promote_events;
	/* Processes: sampled in this window; new since the last window; of
	 * those, new with bits older than the window (reported from the
	 * next, and in this one only with MDK_SAMPLER_MET_RESIDENT); gone
	 * since the last window.  An exec counts as one left (the old
	 * number) and one joined. */
	unsigned int nr_procs;
	unsigned int nr_joined;
	unsigned int nr_stale;
	unsigned int nr_left;
	/* Cost of this mdk_sampler_next(): CPU time of the calling thread
	 * (user + system), and its parts: the walks (bpf_ns of it inside the
	 * BPF iterator, the rest turning records into ids), the clear_refs
	 * writes. */
	uint64_t cpu_ns;
	uint64_t walk_ns;
	uint64_t bpf_ns;
	uint64_t clear_ns;
	uint64_t hook_ns; /* before_reset, not counted in cpu_ns */
	uint64_t ptes_tables; /* PTE tables the walks read */
	/* With MDK_SAMPLER_RUNS, instead of pages: the pages as sorted,
	 * disjoint, non-adjacent runs (their nr add up to nr_pages). */
	const struct mdk_sampler_page_run *runs;
	size_t nr_runs;
};

/* A process the sampler has seen. */
struct mdk_sampler_proc {
	uint32_t id; /* the proc field of its page ids */
	pid_t pid;
	uint64_t start_ns; /* start time, CLOCK_BOOTTIME */
	uint64_t first_window, last_window; /* windows it was sampled in */
	bool alive; /* still a member of the target */
	char comm[16];
};

/* A sampler is used by one thread at a time. */
struct mdk_sampler;

/*
 * mdk_sampler_new() - load and attach the BPF programs for a target.
 * Needs CAP_SYS_ADMIN (BPF, /proc/PID/clear_refs of other users'
 * processes).  Keeps one open file per sampled process.
 *
 * Return: the sampler, or NULL with a message in @msg.
 */
struct mdk_sampler *mdk_sampler_new(const struct mdk_sampler_opts *opts,
				    char *msg, size_t len);

/*
 * mdk_sampler_start() - begin window 0: find the target's processes and
 * reset their Accessed bits.
 *
 * Return: 0 on success, negative error code otherwise (message in @msg).
 */
int mdk_sampler_start(struct mdk_sampler *s, char *msg, size_t len);

/*
 * mdk_sampler_next() - end the current window and begin the next one:
 * walk every process of the target, fill @w, reset the bits.  Processes
 * that joined since the last call are reported from this window when they
 * started after its start (a fork's page tables start with the Accessed
 * bits clear), else from the next one.  A process that left (exited, or
 * moved out of the cgroup) during the window is not reported for it.
 *
 * Return: 0 on success, negative error code otherwise (message in @msg).
 * -ENOENT when the target is gone (cgroup removed, every PID exited).
 */
int mdk_sampler_next(struct mdk_sampler *s, struct mdk_sampler_window *w,
		     char *msg, size_t len);

/*
 * mdk_sampler_add_pid() - add a process to a PID-set sampler; it is
 * sampled from the next window on.
 *
 * Return: 0 on success, -EINVAL for a cgroup sampler, -ESRCH when the
 * process does not exist, other negative error codes on failure.
 */
int mdk_sampler_add_pid(struct mdk_sampler *s, pid_t pid);

/* mdk_sampler_proc() - the process numbered @id, or NULL. */
const struct mdk_sampler_proc *mdk_sampler_proc(const struct mdk_sampler *s,
						uint32_t id);

/* mdk_sampler_nr_procs() - how many process numbers were given out. */
uint32_t mdk_sampler_nr_procs(const struct mdk_sampler *s);

/*
 * mdk_sampler_write_procs() - write the process numbers to @path as CSV,
 * "proc,pid,comm,first_window,last_window" (windows empty for a process
 * never reported), for mdkctl sample and record --procs.
 *
 * Return: 0 or a negative error code (errno of fopen() or fclose()).
 */
int mdk_sampler_write_procs(const struct mdk_sampler *s, const char *path);

/* mdk_sampler_free() - detach, unload, close.  NULL is fine. */
void mdk_sampler_free(struct mdk_sampler *s);

/*
 * Helpers, exposed for the unit tests and for mdkctl.
 */

struct sampler_rec;

/*
 * mdk_sampler_expand() - append the page ids of @nr records of process
 * @proc to @ids (of @cap entries, *@n used).
 *
 * Return: 0, or -ENOSPC when @cap is too small (nothing appended then),
 * -EINVAL for a malformed record.
 */
int mdk_sampler_expand(const struct sampler_rec *recs, size_t nr, uint32_t proc,
		       uint64_t *ids, size_t cap, size_t *n);

/*
 * mdk_sampler_expand_runs() - the same as runs: append the pages of @nr
 * records of process @proc to @runs (of @cap entries, *@n used), joining a
 * run to the last one when it continues it.  At most one run per record
 * for huge records, at most 256 for PTE records.
 *
 * Return: 0, or -ENOSPC when @cap may be too small (nothing appended
 * then), -EINVAL for a malformed record.
 */
int mdk_sampler_expand_runs(const struct sampler_rec *recs, size_t nr,
			    uint32_t proc, struct mdk_sampler_page_run *runs,
			    size_t cap, size_t *n);

/*
 * mdk_sampler_read_pids() - parse a cgroup.procs-style file (one PID a line)
 * into a growing array (*@pids, *@nr used, *@cap allocated).
 *
 * Return: 0, -errno when the file cannot be read, -EINVAL for a bad line
 * (@msg names file:line).
 */
int mdk_sampler_read_pids(const char *path, pid_t **pids, size_t *nr,
			  size_t *cap, char *msg, size_t len);

/*
 * mdk_sampler_cgroup_pids() - the PIDs of cgroup @dir and of all its
 * descendants, sorted and unique, appended as by mdk_sampler_read_pids().
 *
 * Return: 0, or negative error code (-ENOENT when @dir is gone).
 */
int mdk_sampler_cgroup_pids(const char *dir, pid_t **pids, size_t *nr,
			    size_t *cap, char *msg, size_t len);

/*
 * mdk_sampler_node_blocks() - the memory blocks of NUMA node @node, as a bitmap
 * (bit b of word b / 64 for block b) of @nwords words, from
 * SYS/devices/system/node/nodeN/memoryB and the block size from
 * SYS/devices/system/memory/block_size_bytes.  Blocks beyond the bitmap
 * are reported as -E2BIG.
 *
 * Return: 0 with *@block_bytes set, negative error code otherwise.
 */
int mdk_sampler_node_blocks(const char *sys_root, int node, uint64_t *bitmap,
			    size_t nwords, uint64_t *block_bytes, char *msg,
			    size_t len);

/*
 * mdk_sampler_parse_target() - a command line target: digits and commas
 * are PIDs (appended to *@pids, *@nr), anything else a cgroup directory,
 * absolute or relative to /sys/fs/cgroup, written to @cgroup.
 *
 * Return: 0; -EINVAL for a malformed PID list; -ENOENT when the cgroup
 * directory does not exist (its path is in @cgroup).
 */
int mdk_sampler_parse_target(const char *s, char *cgroup, size_t len,
			     pid_t **pids, size_t *nr);

#endif /* MDK_BPF_LOADER_H */
