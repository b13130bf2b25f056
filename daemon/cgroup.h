/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 access for mdkd: path checks, glob resolution, the files read
 * each interval and their parsing into one struct mdkd_sample.  Every
 * function takes the cgroup2 mount (@root) and /proc (@proc) as
 * parameters, so the unit tests point them at fake trees.
 */
#ifndef MDKD_CGROUP_H
#define MDKD_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psi.h"

#define MDKD_PAGE_SIZE 4096ULL
#define MDKD_CGROUP_PATH_MAX 4096
#define MDKD_PATH_MAX 4096 /* a root or a file of the configuration */

/* The files of a managed cgroup that mdkd reads every interval. */
enum mdkd_cgroup_file {
	MDKD_CGF_CURRENT, /* memory.current */
	MDKD_CGF_STAT, /* memory.stat */
	MDKD_CGF_PRESSURE, /* memory.pressure */
	MDKD_CGF_IO_PRESSURE, /* io.pressure, optional */
	MDKD_CGF_MIN, /* memory.min */
	MDKD_CGF_SWAP_CURRENT, /* memory.swap.current, optional */
	MDKD_CGF_SWAP_MAX, /* memory.swap.max, optional */
	MDKD_CGF_NR,
};

struct mdkd_cgroup_file_desc {
	const char *name;
	bool required;
	size_t bufsize; /* read buffer: a full buffer means "grow it" */
};

extern const struct mdkd_cgroup_file_desc mdkd_cgroup_files[MDKD_CGF_NR];

/* The memory.stat keys mdkd uses, in bytes or events. */
struct mdkd_memstat {
	uint64_t anon, file;
	uint64_t active_anon, inactive_anon, active_file, inactive_file;
	uint64_t unevictable;
	uint64_t workingset_refault_anon, workingset_refault_file;
	uint64_t pgsteal;
	uint64_t swapcached; /* bytes in the swap cache; Linux 6.1+ */
	uint64_t file_writeback; /* bytes under writeback, swap's too */
	uint64_t pswpin, pswpout; /* pages; only newer kernels have them */
	bool has_swapcached, has_pswp;
};

/* One reading of a cgroup, taken once per interval. */
struct mdkd_sample {
	uint64_t time_us; /* CLOCK_MONOTONIC */
	uint64_t current_bytes; /* memory.current */
	uint64_t min_bytes; /* memory.min */
	uint64_t swap_current_bytes; /* memory.swap.current, 0 if absent */
	uint64_t swap_max_bytes; /* memory.swap.max, UINT64_MAX for "max" */
	bool has_swap; /* memory.swap.* present (swap accounting on) */
	bool has_io; /* io.pressure present */
	struct mdkd_memstat stat;
	struct mdkd_psi mem, io;
	/* Host swap (/proc/meminfo), filled by the caller. */
	uint64_t host_swap_total_bytes, host_swap_free_bytes;
};

/*
 * mdkd_cgroup_path_check() - is @path a valid cgroup path relative to the
 * cgroup2 mount: not empty, no leading or doubled '/', no "." or ".."
 * component, no control character, '\\', '[' or ']', shorter than
 * MDKD_CGROUP_PATH_MAX; '*' and '?' only when @glob.  Return: 0 or -EINVAL
 * with the reason in @err.
 */
int mdkd_cgroup_path_check(const char *path, bool glob, char *err,
			   size_t errlen);

/* mdkd_cgroup_is_glob() - does @pattern contain '*' or '?'. */
bool mdkd_cgroup_is_glob(const char *pattern);

/*
 * mdkd_cgroup_resolve() - the cgroups under @root matching @pattern
 * (glob(3) rules for '*' and '?'; a literal path matches itself if it
 * exists), relative to @root, sorted.  Only directories that have
 * memory.current (the memory controller is on for them) are returned;
 * *@nomem counts the matched directories without it.  Return: the number
 * of paths stored in a malloc'ed array at *@paths (free each and the
 * array), or -errno.
 */
int mdkd_cgroup_resolve(const char *root, const char *pattern, char ***paths,
			unsigned int *nomem);

/*
 * mdkd_cgroup_parse() - turn the contents of the files read in one
 * interval into @s.  @bufs[i] / @lens[i] hold file i of enum
 * mdkd_cgroup_file, or NULL when that optional file is absent.
 * Return: 0, or -EINVAL with "file: reason" in @err.
 */
int mdkd_cgroup_parse(struct mdkd_sample *s, const char *const bufs[],
		      const size_t lens[], char *err, size_t errlen);

/*
 * mdkd_memstat_parse() - the keys of struct mdkd_memstat from the text of
 * memory.stat.  Unknown keys are ignored; anon, file and the four LRU
 * sizes are required.  Return: 0 or -EINVAL with the reason in @err.
 */
int mdkd_memstat_parse(const char *buf, size_t len, struct mdkd_memstat *st,
		       char *err, size_t errlen);

/*
 * mdkd_parse_u64_file() - a file holding one number or "max" (memory.min,
 * memory.current, memory.swap.max); "max" reads as UINT64_MAX.
 * Return: 0 or -EINVAL.
 */
int mdkd_parse_u64_file(const char *buf, size_t len, uint64_t *val);

/*
 * mdkd_reclaim_swappiness_probe() - whether memory.reclaim of the cgroup
 * at @dirfd takes "swappiness=" (Linux 6.9+): one write asking for 0 bytes
 * with it.  Return: 1 yes, 0 no (EINVAL), -errno when it cannot tell.
 */
int mdkd_reclaim_swappiness_probe(int dirfd);

/*
 * mdkd_reclaimable_bytes() - what reclaim can take from the cgroup: its
 * file cache, plus its anonymous memory when it may swap (host swap free,
 * memory.swap.max above the swap it uses).  Unevictable memory never
 * counts.
 */
uint64_t mdkd_reclaimable_bytes(const struct mdkd_sample *s);

#endif /* MDKD_CGROUP_H */
