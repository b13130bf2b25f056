/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampler's internals, shared by the loader's sources in bpf/ and
 * by nothing else (never installed, never included outside bpf/):
 * struct mdk_sampler, the process table's entries, the walker, and the
 * functions one piece calls in another.  The pieces:
 *
 *	loader.c  the BPF skeleton (open, hooks, load, attach, maps),
 *		  windows start and next, the counters, free
 *	target.c  what the target is: a parsed command line target, the
 *		  PIDs of a cgroup subtree or of the PID set now
 *	procs.c   the target's processes across windows: numbers, meeting,
 *		  exec, reused PIDs, leaving, resetting their bits
 *	walk.c    one process's walk: the iterator, one pass per fill of
 *		  the record map
 *	ids.c     records into page ids or runs, sorted and unique
 *	tier.c    the tier node's memory blocks, for STAR
 *
 * Functions here are named sampler__*(): libmdk-sampler.a is linked into
 * programs with names of their own.
 */
#ifndef MDK_BPF_SAMPLER_INT_H
#define MDK_BPF_SAMPLER_INT_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>

#include <mdk/util.h>

#include "sampler.h"
#include "loader.h"

/* Longest /proc or /sys root taken (paths under it fit PATH_MAX). */
#define ROOT_MAX 1024

struct bpf_link;
struct sampler_bpf;

/* A process number's entry (procs.c). */
struct proc_ent {
	struct mdk_sampler_proc pub;
	int clear_fd; /* /proc/PID/clear_refs; -1 once gone */
	struct bpf_link *link; /* the iterator attached to its PID, or NULL */
	uint64_t mm; /* mm_struct the walk saw */
	uint64_t valid_window; /* first window its bits are complete for */
	uint64_t seen; /* last window it was a member in, + 1 */
};

/* A member of the target now: pid -> process number. */
struct live {
	pid_t pid;
	uint32_t id;
};

/* What one walk pass saw of the task. */
struct ident {
	uint32_t tid;
	uint64_t mm;
	uint64_t start_ns;
};

struct mdk_sampler {
	struct sampler_bpf *skel;
	char *cgroup;
	char proc_root[ROOT_MAX];
	char sys_root[ROOT_MAX];
	unsigned int flags;
	int tier_node;
	void (*before_reset)(void *arg, const struct mdk_sampler_window *w);
	void *before_reset_arg;
	bool have_counters;
	bool no_link_cache; /* out of files once: attach per walk */

	struct sampler_rec *recs; /* mmap of the recs map */
	size_t recs_bytes;
	uint32_t max_recs;
	uint64_t *tier; /* mmap of tier_blocks */
	uint64_t *tier_scratch;
	size_t tier_words;
	size_t tier_bytes;

	struct proc_ent *procs; /* by process number */
	uint32_t nr_procs, cap_procs;
	struct live *live; /* sorted by pid */
	size_t nr_live, cap_live;
	pid_t *pids; /* the PID set (PID mode), sorted */
	size_t nr_pids, cap_pids;

	/* Scratch, reused every window. */
	pid_t *members;
	size_t nr_members, cap_members;
	struct live *next_live;
	size_t cap_next_live;
	uint32_t *known;
	size_t cap_known;
	uint64_t *ids;
	size_t nr_ids, cap_ids;
	struct mdk_sampler_page_run *runs; /* MDK_SAMPLER_RUNS */
	size_t nr_runs, cap_runs;
	bool sorted; /* ids or runs ascend, without repeats */

	/* The window being ended. */
	struct mdk_sampler_window cur;

	struct sampler_counts last;
	uint64_t window;
	uint64_t window_start_ns;
	bool started;
};

/* A walk in progress over one process (walk.c). */
struct walker {
	struct bpf_link *link;
	bool cached; /* link belongs to a proc_ent, which detaches it */
	struct ident id;
	uint32_t nr; /* records of the last pass, in s->recs */
	bool more; /* the pass stopped early, go on from next */
	uint64_t next;
	uint64_t resume; /* where the last pass started */
	bool resident; /* passes record every resident page */
	uint64_t t0;
};

static inline void set_msg(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void set_msg(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* target.c */
int sampler__cgroup_level(const char *path, uint32_t *level, char *msg,
			  size_t len);
int sampler__gather(struct mdk_sampler *s, char *msg, size_t len);

/* procs.c */
int sampler__sample_all(struct mdk_sampler *s, bool starting, char *msg,
			size_t len);

/* walk.c */
int sampler__walk_begin(struct mdk_sampler *s, pid_t pid,
			struct bpf_link **cache, bool pages, struct walker *wk);
void sampler__walk_keep(struct mdk_sampler *s, struct walker *wk,
			struct proc_ent *e);
int sampler__walk_finish(struct mdk_sampler *s, struct walker *wk,
			 uint32_t proc, bool report);

/* ids.c */
void sampler__ids_reset(struct mdk_sampler *s);
int sampler__ids_add(struct mdk_sampler *s, uint32_t proc, uint32_t nr);
void sampler__ids_deliver(struct mdk_sampler *s);

/* tier.c */
int sampler__tier_init(struct mdk_sampler *s, uint64_t *block_bytes, char *msg,
		       size_t len);
int sampler__tier_refresh(struct mdk_sampler *s, char *msg, size_t len);

#endif /* MDK_BPF_SAMPLER_INT_H */
