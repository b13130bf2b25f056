// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of sampler/sampler.bpf.c and the window logic around it: which
 * processes belong to the target, walking each one (the iterator, one pass
 * per fill of the record map), turning records into page ids, resetting
 * the Accessed bits with /proc/PID/clear_refs, and the promotion counters.
 * Documentation/sampler.rst explains the design; sampler/loader.h the API.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sampler.h"
#include "loader.h"
#include "sampler.skel.h"

#define DEFAULT_MAX_RECS 16384
/* The tier bitmap covers physical addresses up to 64 TiB (at least). */
#define TIER_PHYS_BITS 46
/* Longest /proc or /sys root taken (paths under it fit PATH_MAX). */
#define ROOT_MAX 1024

struct proc_ent {
	struct mdkd_sampler_proc pub;
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

struct mdkd_sampler {
	struct sampler_bpf *skel;
	char *cgroup;
	char proc_root[ROOT_MAX];
	char sys_root[ROOT_MAX];
	unsigned int flags;
	int tier_node;
	void (*before_reset)(void *arg, const struct mdkd_sampler_window *w);
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
	struct mdkd_page_run *runs; /* MDKD_SAMPLER_RUNS */
	size_t nr_runs, cap_runs;
	bool sorted; /* ids or runs ascend, without repeats */

	/* The window being ended. */
	struct mdkd_sampler_window cur;

	struct sampler_counts last;
	uint64_t window;
	uint64_t window_start_ns;
	bool started;
};

static void set_msg(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Grow *@p (of *@cap elements of @size) to hold @need. */
static int grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = reallocarray(*(void **)p, n, size);
	if (!q)
		return -ENOMEM;
	*(void **)p = q;
	*cap = n;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_run(const void *a, const void *b)
{
	const struct mdkd_page_run *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* Sort and drop duplicates. */
static size_t sort_unique_pids(pid_t *p, size_t n)
{
	size_t i, j = 0;

	qsort(p, n, sizeof(*p), cmp_pid);
	for (i = 0; i < n; i++)
		if (!j || p[j - 1] != p[i])
			p[j++] = p[i];
	return j;
}

int mdkd_read_pids(const char *path, pid_t **pids, size_t *nr, size_t *cap,
		   char *msg, size_t len)
{
	unsigned int line = 0;
	char buf[64], *end;
	int err = 0;
	FILE *f;
	long v;

	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return err;
	}
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		errno = 0;
		v = strtol(buf, &end, 10);
		if (end == buf || (*end && *end != '\n') || errno || v <= 0 ||
		    v > INT_MAX) {
			set_msg(msg, len, "%s:%u: expected a PID, got '%.*s'",
				path, line, (int)strcspn(buf, "\n"), buf);
			err = -EINVAL;
			break;
		}
		err = grow(pids, cap, *nr + 1, sizeof(**pids));
		if (err) {
			set_msg(msg, len, "%s: out of memory", path);
			break;
		}
		(*pids)[(*nr)++] = v;
	}
	if (!err && ferror(f)) {
		err = -EIO;
		set_msg(msg, len, "%s: read error", path);
	}
	fclose(f);
	return err;
}

static int cgroup_walk(const char *dir, pid_t **pids, size_t *nr, size_t *cap,
		       char *msg, size_t len, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err;
	DIR *d;

	if (depth > 64) {
		set_msg(msg, len, "%s: cgroup tree deeper than 64", dir);
		return -ELOOP;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	err = mdkd_read_pids(path, pids, nr, cap, msg, len);
	if (err)
		return err;
	d = opendir(dir);
	if (!d) {
		/* Removed between reading its procs and listing it. */
		return errno == ENOENT ? 0 : -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		err = cgroup_walk(path, pids, nr, cap, msg, len, depth + 1);
		/* A child cgroup removed meanwhile is no error. */
		if (err == -ENOENT)
			err = 0;
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int mdkd_cgroup_pids(const char *dir, pid_t **pids, size_t *nr, size_t *cap,
		     char *msg, size_t len)
{
	size_t first = *nr;
	int err;

	err = cgroup_walk(dir, pids, nr, cap, msg, len, 0);
	if (err)
		return err;
	*nr = first + sort_unique_pids(*pids + first, *nr - first);
	return 0;
}

static int read_u64_file(const char *path, int base, uint64_t *v, char *msg,
			 size_t len)
{
	char buf[64], *end;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, base);
	if (end == buf || (*end && *end != '\n') || errno) {
		set_msg(msg, len, "%s:1: expected a number, got '%.*s'", path,
			(int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	return 0;
}

/* SYS/devices/system/memory/block_size_bytes (hex, no 0x). */
static int memory_block_bytes(const char *sys_root, uint64_t *bytes, char *msg,
			      size_t len)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path),
		 "%s/devices/system/memory/block_size_bytes", sys_root);
	err = read_u64_file(path, 16, bytes, msg, len);
	if (err)
		return err;
	if (*bytes < 4096 || (*bytes & (*bytes - 1))) {
		set_msg(msg, len, "%s:1: expected a power of two >= 4096",
			path);
		return -EINVAL;
	}
	return 0;
}

int mdkd_node_blocks(const char *sys_root, int node, uint64_t *bitmap,
		     size_t nwords, uint64_t *block_bytes, char *msg,
		     size_t len)
{
	char path[PATH_MAX], *end;
	struct dirent *de;
	unsigned long b;
	int err;
	DIR *d;

	err = memory_block_bytes(sys_root, block_bytes, msg, len);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d", sys_root,
		 node);
	d = opendir(path);
	if (!d) {
		err = -errno;
		set_msg(msg, len, "%s: %s (no NUMA node %d?)", path,
			strerror(errno), node);
		return err;
	}
	memset(bitmap, 0, nwords * sizeof(*bitmap));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "memory", 6) || !de->d_name[6])
			continue;
		errno = 0;
		b = strtoul(de->d_name + 6, &end, 10);
		if (*end || errno)
			continue; /* memory_failure, memory_side_cache... */
		if (b / 64 >= nwords) {
			set_msg(msg, len,
				"%s/%s: block beyond the %zu-word map", path,
				de->d_name, nwords);
			err = -E2BIG;
			break;
		}
		bitmap[b / 64] |= 1ULL << (b % 64);
	}
	closedir(d);
	return err;
}

/*
 * Check @nr records and count their pages (*@pages) and the runs they can
 * make at most (*@runs).
 */
static int check_recs(const struct sampler_rec *recs, size_t nr,
		      uint64_t *pages, uint64_t *runs)
{
	size_t i;
	unsigned int j;

	*pages = *runs = 0;
	for (i = 0; i < nr; i++) {
		const struct sampler_rec *r = &recs[i];
		unsigned int bits = 0;

		if (r->addr & 4095 || r->addr >> (MDKD_PAGE_VPN_BITS + 12))
			return -EINVAL;
		switch (r->kind) {
		case SAMPLER_REC_PTE:
			if (r->addr & ((1ULL << 21) - 1))
				return -EINVAL;
			for (j = 0; j < SAMPLER_PTRS_PER_TABLE / 64; j++)
				bits += __builtin_popcountll(r->bits[j]);
			if (bits != r->nr_pages)
				return -EINVAL;
			*runs += bits < SAMPLER_PTRS_PER_TABLE / 2 ?
					 bits :
					 SAMPLER_PTRS_PER_TABLE / 2;
			break;
		case SAMPLER_REC_HUGE:
			if (!r->nr_pages || (r->addr >> 12) + r->nr_pages >
						    1ULL << MDKD_PAGE_VPN_BITS)
				return -EINVAL;
			(*runs)++;
			break;
		default:
			return -EINVAL;
		}
		if (r->nr_tier > r->nr_pages)
			return -EINVAL;
		*pages += r->nr_pages;
	}
	return 0;
}

/* Two ids, for fill_ids() (GCC and Clang vector extensions). */
typedef uint64_t id_pair __attribute__((vector_size(16)));

/*
 * ids[0 .. nr) = first, first + 1, ...: 512 of them for every accessed
 * huge page, so eight at a time (at -O2 the compiler does not vectorize
 * a loop of unknown length itself).
 */
static void fill_ids(uint64_t *ids, uint64_t first, uint64_t nr)
{
	id_pair a = { first, first + 1 }, b = a + 2, c = a + 4, d = a + 6;
	const id_pair step = { 8, 8 };
	uint64_t j;

	for (j = 0; j + 8 <= nr; j += 8) {
		memcpy(ids + j, &a, sizeof(a));
		memcpy(ids + j + 2, &b, sizeof(b));
		memcpy(ids + j + 4, &c, sizeof(c));
		memcpy(ids + j + 6, &d, sizeof(d));
		a += step;
		b += step;
		c += step;
		d += step;
	}
	for (; j < nr; j++)
		ids[j] = first + j;
}

/*
 * Append the ids of checked records; *@sorted is cleared when one does
 * not come after everything before it (ids within a record ascend).
 */
static void expand_ids(const struct sampler_rec *recs, size_t nr, uint32_t proc,
		       uint64_t *ids, size_t *n, bool *sorted)
{
	uint64_t base = (uint64_t)proc << MDKD_PAGE_VPN_BITS, vpn;
	size_t i, k = *n, k0;
	unsigned int j;

	for (i = 0; i < nr; i++) {
		const struct sampler_rec *r = &recs[i];

		vpn = r->addr >> 12;
		k0 = k;
		if (r->kind == SAMPLER_REC_HUGE) {
			fill_ids(ids + k, base | vpn, r->nr_pages);
			k += r->nr_pages;
		} else {
			for (j = 0; j < SAMPLER_PTRS_PER_TABLE / 64; j++) {
				uint64_t w = r->bits[j];

				while (w) {
					ids[k++] = base | (vpn + j * 64 +
							   __builtin_ctzll(w));
					w &= w - 1;
				}
			}
		}
		if (k0 && k > k0 && ids[k0] <= ids[k0 - 1])
			*sorted = false;
	}
	*n = k;
}

int mdkd_sampler_expand(const struct sampler_rec *recs, size_t nr,
			uint32_t proc, uint64_t *ids, size_t cap, size_t *n)
{
	uint64_t need, runs;
	bool sorted = true;
	int err;

	err = check_recs(recs, nr, &need, &runs);
	if (err)
		return err;
	if (need > cap - *n)
		return -ENOSPC;
	expand_ids(recs, nr, proc, ids, n, &sorted);
	return 0;
}

/* Append the run [first, first + nr), joined to the last one if it
 * continues it; *@sorted cleared when it does not come after it. */
static void put_run(struct mdkd_page_run *runs, size_t *n, uint64_t first,
		    uint64_t nr, bool *sorted)
{
	struct mdkd_page_run *last = *n ? &runs[*n - 1] : NULL;

	if (last && last->first + last->nr == first) {
		last->nr += nr;
		return;
	}
	if (last && first < last->first + last->nr)
		*sorted = false;
	runs[*n].first = first;
	runs[(*n)++].nr = nr;
}

static void expand_runs(const struct sampler_rec *recs, size_t nr,
			uint32_t proc, struct mdkd_page_run *runs, size_t *n,
			bool *sorted)
{
	uint64_t base = (uint64_t)proc << MDKD_PAGE_VPN_BITS, vpn, w, x;
	unsigned int j, b, len;
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct sampler_rec *r = &recs[i];

		vpn = base | r->addr >> 12;
		if (r->kind == SAMPLER_REC_HUGE) {
			put_run(runs, n, vpn, r->nr_pages, sorted);
			continue;
		}
		for (j = 0; j < SAMPLER_PTRS_PER_TABLE / 64; j++) {
			w = r->bits[j];
			while (w) {
				b = __builtin_ctzll(w);
				x = ~(w >> b);
				len = x ? (unsigned int)__builtin_ctzll(x) :
					  64 - b;
				put_run(runs, n, vpn + j * 64 + b, len, sorted);
				w = b + len < 64 ? w & ~0ULL << (b + len) : 0;
			}
		}
	}
}

int mdkd_sampler_expand_runs(const struct sampler_rec *recs, size_t nr,
			     uint32_t proc, struct mdkd_page_run *runs,
			     size_t cap, size_t *n)
{
	uint64_t pages, need;
	bool sorted = true;
	int err;

	err = check_recs(recs, nr, &pages, &need);
	if (err)
		return err;
	if (need > cap - *n)
		return -ENOSPC;
	expand_runs(recs, nr, proc, runs, n, &sorted);
	return 0;
}

static int parse_pid_list(const char *s, pid_t **pids, size_t *nr)
{
	size_t cap = *nr;
	const char *p = s;
	char *end;
	long v;

	while (*p) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT_MAX ||
		    (*end && *end != ','))
			return -EINVAL;
		if (grow(pids, &cap, *nr + 1, sizeof(**pids)))
			return -ENOMEM;
		(*pids)[(*nr)++] = v;
		p = *end ? end + 1 : end;
	}
	return *nr ? 0 : -EINVAL;
}

int mdkd_sampler_parse_target(const char *s, char *cgroup, size_t len,
			      pid_t **pids, size_t *nr)
{
	struct stat st;

	cgroup[0] = '\0';
	if (strspn(s, "0123456789,") == strlen(s))
		return parse_pid_list(s, pids, nr);
	if (s[0] == '/')
		snprintf(cgroup, len, "%s", s);
	else
		snprintf(cgroup, len, "/sys/fs/cgroup/%s", s);
	if (stat(cgroup, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	return 0;
}

/* The depth of cgroup @path below the root of its cgroup2 mount. */
static int cgroup_level(const char *path, uint32_t *level, char *msg,
			size_t len)
{
	char buf[PATH_MAX], *p;
	struct statfs sfs;
	struct stat st;
	dev_t dev;

	if (!realpath(path, buf) || stat(buf, &st) || statfs(buf, &sfs)) {
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		set_msg(msg, len, "%s: not a cgroup v2 directory", path);
		return -ENOTDIR;
	}
	dev = st.st_dev;
	*level = 0;
	while ((p = strrchr(buf, '/')) && p != buf) {
		*p = '\0';
		if (stat(buf, &st) || st.st_dev != dev)
			break;
		(*level)++;
	}
	return 0;
}

static int open_clear_refs(struct mdkd_sampler *s, pid_t pid)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/clear_refs", s->proc_root, pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void read_comm(struct mdkd_sampler *s, pid_t pid, char comm[16])
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/comm", s->proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/*
 * Reset the Accessed bits (1) and flush the TLB (4, which also clears the
 * soft-dirty bits): see Documentation/sampler.rst for why both.
 */
static int clear_bits(struct mdkd_sampler *s, struct proc_ent *e)
{
	if (e->clear_fd < 0)
		return -ESRCH;
	if (write(e->clear_fd, "1", 1) != 1)
		return -errno;
	if (!(s->flags & MDKD_SAMPLER_NO_FLUSH) &&
	    write(e->clear_fd, "4", 1) != 1)
		return -errno;
	return 0;
}

/* A walk in progress over one process. */
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

/* One pass from wk->resume (UINT64_MAX: no pages, only the task). */
static int walk_pass(struct mdkd_sampler *s, struct walker *wk)
{
	struct sampler_bpf__bss *bss = s->skel->bss;
	uint64_t t0;
	char buf[64];
	ssize_t n;
	int fd;

	bss->resume_addr = wk->resume;
	bss->nr_recs = 0;
	bss->full = 0;
	bss->stop_addr = 0;
	bss->walk_tid = 0;
	bss->walk_mm = 0;
	bss->walk_start_ns = 0;
	bss->walk_tables = 0;
	bss->walk_resident = wk->resident;
	bss->pass_gen++;
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	fd = bpf_iter_create(bpf_link__fd(wk->link));
	if (fd < 0)
		return -errno;
	/* The program writes nothing to the seq file: one read runs it. */
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0 || (n < 0 && errno == EINTR));
	n = n < 0 ? -errno : 0;
	close(fd);
	s->cur.bpf_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	if (n)
		return n;
	wk->id.tid = bss->walk_tid;
	wk->id.mm = bss->walk_mm;
	wk->id.start_ns = bss->walk_start_ns;
	wk->nr = bss->nr_recs;
	wk->more = bss->full;
	wk->next = bss->stop_addr;
	s->cur.ptes_tables += bss->walk_tables;
	return 0;
}

static void uncache_links(struct mdkd_sampler *s)
{
	uint32_t i;

	for (i = 0; i < s->nr_procs; i++) {
		bpf_link__destroy(s->procs[i].link);
		s->procs[i].link = NULL;
	}
	s->no_link_cache = true;
}

/*
 * Begin walking process @pid and run the first pass, over its pages when
 * @pages, else only to learn who the task is.  The iterator attached to
 * the PID is taken from *@cache, or attached and, with @cache, kept there
 * for the next windows: attaching and detaching cost about as much as
 * walking a small process.  Short of files, the sampler stops keeping
 * them.
 */
static int walk_begin(struct mdkd_sampler *s, pid_t pid,
		      struct bpf_link **cache, bool pages, struct walker *wk)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info linfo;
	int err;

	memset(wk, 0, sizeof(*wk));
	wk->t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (cache && *cache) {
		wk->link = *cache;
		wk->cached = true;
	} else {
		memset(&linfo, 0, sizeof(linfo));
		linfo.task.pid = pid;
		opts.link_info = &linfo;
		opts.link_info_len = sizeof(linfo);
		wk->link = bpf_program__attach_iter(s->skel->progs.sample_vma,
						    &opts);
		if (!wk->link && (errno == EMFILE || errno == ENFILE) &&
		    !s->no_link_cache) {
			uncache_links(s);
			wk->link = bpf_program__attach_iter(
				s->skel->progs.sample_vma, &opts);
		}
		if (!wk->link)
			return -errno;
		if (cache && !s->no_link_cache) {
			*cache = wk->link;
			wk->cached = true;
		}
	}
	wk->resume = pages ? 0 : UINT64_MAX;
	err = walk_pass(s, wk);
	if (err && !wk->cached)
		bpf_link__destroy(wk->link);
	wk->link = err ? NULL : wk->link;
	return err;
}

/* Give the walk's iterator to @e to keep (see walk_begin()). */
static void walk_keep(struct mdkd_sampler *s, struct walker *wk,
		      struct proc_ent *e)
{
	if (wk->cached || s->no_link_cache || e->link)
		return;
	e->link = wk->link;
	wk->cached = true;
}

/*
 * Finish the walk: when @report, turn every pass's records into page ids
 * of process number @proc (appended to s->ids); then detach.
 */
static int walk_finish(struct mdkd_sampler *s, struct walker *wk, uint32_t proc,
		       bool report)
{
	uint64_t need, runs;
	uint32_t i;
	int err = 0;

	if (report && wk->resume == UINT64_MAX) {
		/* The first pass only identified the task. */
		wk->resume = 0;
		err = walk_pass(s, wk);
	}
	while (report && !err) {
		err = check_recs(s->recs, wk->nr, &need, &runs);
		if (err)
			break;
		for (i = 0; i < wk->nr; i++)
			s->cur.tier_pages += s->recs[i].nr_tier;
		if (s->flags & MDKD_SAMPLER_RUNS) {
			err = grow(&s->runs, &s->cap_runs, s->nr_runs + runs,
				   sizeof(*s->runs));
			if (!err)
				expand_runs(s->recs, wk->nr, proc, s->runs,
					    &s->nr_runs, &s->sorted);
		} else {
			err = grow(&s->ids, &s->cap_ids, s->nr_ids + need,
				   sizeof(*s->ids));
			if (!err)
				expand_ids(s->recs, wk->nr, proc, s->ids,
					   &s->nr_ids, &s->sorted);
		}
		if (err || !wk->more)
			break;
		if (wk->next <= wk->resume && wk->resume) {
			err = -EIO; /* no progress; the program rules it out */
			break;
		}
		wk->resume = wk->next;
		err = walk_pass(s, wk);
	}
	if (!wk->cached)
		bpf_link__destroy(wk->link);
	wk->link = NULL;
	s->cur.walk_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - wk->t0;
	return err;
}

static int clear_timed(struct mdkd_sampler *s, struct proc_ent *e)
{
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int err = clear_bits(s, e);

	s->cur.clear_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return err;
}

/* A new process number for @pid (owning @fd); NULL when out of numbers. */
static struct proc_ent *new_proc(struct mdkd_sampler *s, pid_t pid, int fd,
				 const struct ident *id, uint64_t valid_window)
{
	size_t cap = s->cap_procs;
	struct proc_ent *e;

	if (s->nr_procs >= MDKD_SAMPLER_MAX_PROCS)
		return NULL;
	if (grow(&s->procs, &cap, s->nr_procs + 1, sizeof(*s->procs)))
		return NULL;
	s->cap_procs = cap;
	e = &s->procs[s->nr_procs];
	memset(e, 0, sizeof(*e));
	e->pub.id = s->nr_procs++;
	e->pub.pid = pid;
	e->pub.start_ns = id->start_ns;
	e->pub.first_window = UINT64_MAX;
	e->pub.last_window = UINT64_MAX;
	e->pub.alive = true;
	e->clear_fd = fd;
	e->mm = id->mm;
	e->valid_window = valid_window;
	read_comm(s, pid, e->pub.comm);
	if (!s->cgroup) {
		__u32 key = pid;
		__u8 one = 1;

		bpf_map__update_elem(s->skel->maps.target_pids, &key,
				     sizeof(key), &one, sizeof(one), BPF_ANY);
	}
	return e;
}

/* The process behind @e left the target (or exited). */
static void drop_proc(struct mdkd_sampler *s, struct proc_ent *e)
{
	pid_t *p, pid = e->pub.pid;
	__u32 key = pid;

	if (e->clear_fd >= 0)
		close(e->clear_fd);
	e->clear_fd = -1;
	bpf_link__destroy(e->link);
	e->link = NULL;
	if (!e->pub.alive)
		return;
	e->pub.alive = false;
	s->cur.nr_left++;
	if (s->cgroup)
		return;
	bpf_map__delete_elem(s->skel->maps.target_pids, &key, sizeof(key), 0);
	p = bsearch(&pid, s->pids, s->nr_pids, sizeof(pid), cmp_pid);
	if (p) {
		memmove(p, p + 1, (s->pids + s->nr_pids - p - 1) * sizeof(pid));
		s->nr_pids--;
	}
}

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct live *live_find(struct mdkd_sampler *s, pid_t pid)
{
	struct live key = { .pid = pid };

	return bsearch(&key, s->live, s->nr_live, sizeof(*s->live), cmp_live);
}

static int live_add(struct mdkd_sampler *s, size_t *n, struct proc_ent *e)
{
	if (grow(&s->next_live, &s->cap_next_live, *n + 1,
		 sizeof(*s->next_live)))
		return -ENOMEM;
	s->next_live[*n].pid = e->pub.pid;
	s->next_live[*n].id = e->pub.id;
	(*n)++;
	e->seen = s->window + 1;
	return 0;
}

/*
 * @e is a member for the next window: reset its bits now, or with a
 * before_reset hook once every process is walked (reset_members()).
 */
static int keep_member(struct mdkd_sampler *s, size_t *nl, struct proc_ent *e)
{
	if (!s->before_reset && clear_timed(s, e)) {
		/* Exited after the walk: reported for this window, gone. */
		drop_proc(s, e);
		return 0;
	}
	return live_add(s, nl, e);
}

/* The resets keep_member() left for after the hook; @nl as it says. */
static void reset_members(struct mdkd_sampler *s, size_t *nl)
{
	size_t i, j;

	for (i = j = 0; i < *nl; i++) {
		struct proc_ent *e = &s->procs[s->next_live[i].id];

		if (clear_timed(s, e)) {
			drop_proc(s, e);
			continue;
		}
		s->next_live[j++] = s->next_live[i];
	}
	*nl = j;
}

/* The target's processes now, into s->members (sorted, unique). */
static int gather(struct mdkd_sampler *s, char *msg, size_t len)
{
	int err;

	s->nr_members = 0;
	if (s->cgroup) {
		err = mdkd_cgroup_pids(s->cgroup, &s->members, &s->nr_members,
				       &s->cap_members, msg, len);
		if (err == -ENOENT)
			set_msg(msg, len, "cgroup %s is gone", s->cgroup);
		return err;
	}
	if (!s->nr_pids) {
		set_msg(msg, len, "every process of the PID set has exited");
		return -ENOENT;
	}
	if (grow(&s->members, &s->cap_members, s->nr_pids, sizeof(pid_t)))
		return -ENOMEM;
	memcpy(s->members, s->pids, s->nr_pids * sizeof(pid_t));
	s->nr_members = s->nr_pids;
	return 0;
}

static void mark_reported(struct mdkd_sampler *s, struct proc_ent *e)
{
	if (e->pub.first_window == UINT64_MAX)
		e->pub.first_window = s->window;
	e->pub.last_window = s->window;
	s->cur.nr_procs++;
}

/*
 * A process not a member at the last window boundary (or, with @starting,
 * every process at window 0's start).  Its bits count for this window only
 * if it started after the window's start: a fork starts with every
 * Accessed bit clear, an exec with a fresh address space.  Otherwise they
 * may be older, so it is only reset now; with MDKD_SAMPLER_MET_RESIDENT
 * its resident pages are reported instead (in window 0 at the start).
 */
static int sample_fresh(struct mdkd_sampler *s, pid_t pid, size_t *nl,
			bool starting, char *msg, size_t len)
{
	struct proc_ent *e;
	struct walker wk;
	bool report, met;
	int fd, err;

	fd = open_clear_refs(s, pid);
	if (fd < 0) {
		if (fd == -ENOENT || fd == -ESRCH)
			return 0; /* exited already */
		set_msg(msg, len, "%s/%d/clear_refs: %s", s->proc_root, pid,
			strerror(-fd));
		return fd;
	}
	err = walk_begin(s, pid, NULL, !starting, &wk);
	if (err) {
		close(fd);
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (!wk.id.tid) {
		/* Exited, or a zombie without an mm: try again next time. */
		walk_finish(s, &wk, 0, false);
		close(fd);
		return 0;
	}
	report = !starting && wk.id.start_ns >= s->window_start_ns;
	met = !report && (s->flags & MDKD_SAMPLER_MET_RESIDENT);
	if (met) {
		/* Walk again, from the start, for the resident pages. */
		wk.resident = true;
		wk.resume = UINT64_MAX;
	}
	e = new_proc(s, pid, fd, &wk.id,
		     starting || report ? s->window : s->window + 1);
	if (!e) {
		walk_finish(s, &wk, 0, false);
		close(fd);
		set_msg(msg, len, "out of process numbers (%u) or memory",
			MDKD_SAMPLER_MAX_PROCS);
		return -ENOSPC;
	}
	walk_keep(s, &wk, e);
	err = walk_finish(s, &wk, e->pub.id, report || met);
	if (err) {
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (report || met)
		mark_reported(s, e);
	if (!starting) {
		s->cur.nr_joined++;
		if (!report)
			s->cur.nr_stale++;
	}
	return keep_member(s, nl, e);
}

/* A process that was a member at the last window boundary. */
static int sample_known(struct mdkd_sampler *s, uint32_t id, size_t *nl,
			char *msg, size_t len)
{
	struct proc_ent *e = &s->procs[id], *n;
	pid_t pid = e->pub.pid;
	struct walker wk;
	bool report = e->valid_window <= s->window;
	int err;

	err = walk_begin(s, pid, &e->link, report, &wk);
	if (err) {
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (!wk.id.tid) {
		walk_finish(s, &wk, 0, false);
		return keep_member(s, nl, e); /* a zombie: no pages */
	}
	if (wk.id.start_ns != e->pub.start_ns) {
		/* The PID names another process now. */
		walk_finish(s, &wk, 0, false);
		drop_proc(s, e);
		return sample_fresh(s, pid, nl, false, msg, len);
	}
	if (wk.id.mm != e->mm) {
		/*
		 * exec: a new address space, every bit of it younger than
		 * our last walk, under a new number; the clear_refs file
		 * goes with it.
		 */
		n = new_proc(s, pid, e->clear_fd, &wk.id, s->window);
		e = &s->procs[id]; /* new_proc() may move the table */
		if (!n) {
			walk_finish(s, &wk, 0, false);
			set_msg(msg, len, "out of process numbers or memory");
			return -ENOSPC;
		}
		e->clear_fd = -1;
		n->link = e->link; /* attached to the PID, not to the mm */
		e->link = NULL;
		e->pub.alive = false;
		s->cur.nr_left++;
		s->cur.nr_joined++;
		e = n;
		report = true;
	}
	err = walk_finish(s, &wk, e->pub.id, report);
	if (err) {
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (report)
		mark_reported(s, e);
	return keep_member(s, nl, e);
}

/* Walk every member; called at window boundaries. */
static int sample_all(struct mdkd_sampler *s, bool starting, char *msg,
		      size_t len)
{
	size_t i, nl = 0, nk = 0;
	struct live *l;
	uint32_t *known;
	int err;

	err = gather(s, msg, len);
	if (err)
		return err;
	err = grow(&s->known, &s->cap_known, s->nr_members, sizeof(*known));
	if (err)
		return err;
	known = s->known;
	/* Known processes first, by number, then the new ones by PID: ids
	 * come out sorted unless an exec or a reused PID renumbers one. */
	for (i = 0; i < s->nr_members; i++) {
		l = live_find(s, s->members[i]);
		if (l)
			known[nk++] = l->id;
	}
	qsort(known, nk, sizeof(*known), cmp_u32);
	for (i = 0; i < nk && !err; i++)
		err = sample_known(s, known[i], &nl, msg, len);
	for (i = 0; i < s->nr_members && !err; i++)
		if (!live_find(s, s->members[i]))
			err = sample_fresh(s, s->members[i], &nl, starting, msg,
					   len);
	if (err)
		return err;
	if (s->before_reset) {
		uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

		/* Window 0's start has nothing walked for the hook to see. */
		if (!starting)
			s->before_reset(s->before_reset_arg, &s->cur);
		s->cur.hook_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		reset_members(s, &nl);
	}
	/* Members at the last boundary that are not any more. */
	for (i = 0; i < s->nr_live; i++) {
		struct proc_ent *e = &s->procs[s->live[i].id];

		if (e->seen != s->window + 1 && e->pub.alive)
			drop_proc(s, e);
	}
	qsort(s->next_live, nl, sizeof(*s->next_live), cmp_live);
	l = s->live;
	s->live = s->next_live;
	s->next_live = l;
	i = s->cap_live;
	s->cap_live = s->cap_next_live;
	s->cap_next_live = i;
	s->nr_live = nl;
	return 0;
}

/* Refresh the tier node's block bitmap (memory is hot-added later). */
static int refresh_tier(struct mdkd_sampler *s, char *msg, size_t len)
{
	uint64_t bytes;
	size_t i;
	int err;

	if (s->tier_node < 0)
		return 0;
	err = mdkd_node_blocks(s->sys_root, s->tier_node, s->tier_scratch,
			       s->tier_words, &bytes, msg, len);
	if (err)
		return err;
	for (i = 0; i < s->tier_words; i++)
		if (s->tier[i] != s->tier_scratch[i])
			s->tier[i] = s->tier_scratch[i];
	return 0;
}

int mdkd_sampler_start(struct mdkd_sampler *s, char *msg, size_t len)
{
	int err;

	if (s->started) {
		set_msg(msg, len, "sampler already started");
		return -EALREADY;
	}
	memset(&s->cur, 0, sizeof(s->cur));
	s->window = 0;
	s->window_start_ns = clock_ns(CLOCK_BOOTTIME);
	s->nr_ids = 0;
	s->nr_runs = 0;
	s->sorted = true;
	err = refresh_tier(s, msg, len);
	if (!err)
		err = sample_all(s, true, msg, len);
	if (err)
		return err;
	s->last = s->skel->bss->counts;
	s->started = true;
	return 0;
}

int mdkd_sampler_next(struct mdkd_sampler *s, struct mdkd_sampler_window *w,
		      char *msg, size_t len)
{
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), now, i, j, end;
	struct sampler_counts c;
	int err;

	if (!s->started) {
		set_msg(msg, len, "sampler not started");
		return -EINVAL;
	}
	now = clock_ns(CLOCK_BOOTTIME);
	memset(&s->cur, 0, sizeof(s->cur));
	/* Window 0 keeps what start() met (MDKD_SAMPLER_MET_RESIDENT). */
	if (s->window) {
		s->nr_ids = 0;
		s->nr_runs = 0;
		s->sorted = true;
	}
	/* The counters first: the before_reset hook sees them. */
	c = s->skel->bss->counts;
	s->cur.have_counters = s->have_counters;
	s->cur.swapin_pages = c.swapin_pages - s->last.swapin_pages;
	s->cur.file_refault_pages =
		c.file_refault_pages - s->last.file_refault_pages;
	s->cur.promote_pages = c.promote_pages - s->last.promote_pages;
	s->cur.promote_events = c.promote_events - s->last.promote_events;
	err = refresh_tier(s, msg, len);
	if (!err)
		err = sample_all(s, false, msg, len);
	if (err)
		return err; /* the counts go to the next window */
	s->last = c;
	/* Sorted unless a process was renumbered; walks never repeat a page
	 * except when the iterator re-finds a VMA after dropping mmap_lock. */
	if (!s->sorted && (s->flags & MDKD_SAMPLER_RUNS)) {
		qsort(s->runs, s->nr_runs, sizeof(*s->runs), cmp_run);
		for (i = j = 0; i < s->nr_runs; i++) {
			struct mdkd_page_run *last = j ? &s->runs[j - 1] : NULL;

			if (last &&
			    s->runs[i].first <= last->first + last->nr) {
				end = s->runs[i].first + s->runs[i].nr;
				if (end > last->first + last->nr)
					last->nr = end - last->first;
			} else {
				s->runs[j++] = s->runs[i];
			}
		}
		s->nr_runs = j;
	} else if (!s->sorted) {
		qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_u64);
		for (i = j = 0; i < s->nr_ids; i++)
			if (!j || s->ids[j - 1] != s->ids[i])
				s->ids[j++] = s->ids[i];
		s->nr_ids = j;
	}
	if (s->flags & MDKD_SAMPLER_RUNS) {
		s->cur.runs = s->runs;
		s->cur.nr_runs = s->nr_runs;
		for (i = 0; i < s->nr_runs; i++)
			s->cur.nr_pages += s->runs[i].nr;
	} else {
		s->cur.pages = s->ids;
		s->cur.nr_pages = s->nr_ids;
	}
	s->cur.index = s->window;
	s->cur.start_ns = s->window_start_ns;
	s->cur.end_ns = now;
	s->cur.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0 - s->cur.hook_ns;
	*w = s->cur;
	s->window++;
	s->window_start_ns = now;
	return 0;
}

int mdkd_sampler_add_pid(struct mdkd_sampler *s, pid_t pid)
{
	char path[PATH_MAX];
	int err;

	if (s->cgroup)
		return -EINVAL;
	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/%d", s->proc_root, pid);
	if (access(path, F_OK))
		return -ESRCH;
	if (bsearch(&pid, s->pids, s->nr_pids, sizeof(pid), cmp_pid))
		return 0;
	err = grow(&s->pids, &s->cap_pids, s->nr_pids + 1, sizeof(pid));
	if (err)
		return err;
	s->pids[s->nr_pids++] = pid;
	qsort(s->pids, s->nr_pids, sizeof(pid), cmp_pid);
	return 0;
}

const struct mdkd_sampler_proc *mdkd_sampler_proc(const struct mdkd_sampler *s,
						  uint32_t id)
{
	return id < s->nr_procs ? &s->procs[id].pub : NULL;
}

uint32_t mdkd_sampler_nr_procs(const struct mdkd_sampler *s)
{
	return s->nr_procs;
}

int mdkd_sampler_write_procs(const struct mdkd_sampler *s, const char *path)
{
	const struct mdkd_sampler_proc *p;
	uint32_t id;
	FILE *f;

	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "proc,pid,comm,first_window,last_window\n");
	for (id = 0; id < s->nr_procs; id++) {
		p = &s->procs[id].pub;
		fprintf(f, "%u,%d,%s,", p->id, p->pid, p->comm);
		if (p->first_window == UINT64_MAX)
			fprintf(f, ",\n");
		else
			fprintf(f, "%" PRIu64 ",%" PRIu64 "\n", p->first_window,
				p->last_window);
	}
	return fclose(f) ? -errno : 0;
}

/*
 * The running kernel's BTF, parsed once per process (about a second under
 * TCG): every sampler picks its hooks from it.
 */
static struct btf *vmlinux_btf;
static pthread_once_t vmlinux_btf_once = PTHREAD_ONCE_INIT;

static void load_vmlinux_btf(void)
{
	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf)
		vmlinux_btf = NULL; /* libbpf_get_error() style: keep NULL */
}

static bool kernel_has_func(const struct btf *btf, const char *name)
{
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) >= 0;
}

/* Pick the fault counters' hooks for this kernel (core_fixes.bpf.h). */
static void choose_hooks(struct mdkd_sampler *s, const struct btf *btf)
{
	struct sampler_bpf *k = s->skel;
	bool counters = !(s->flags & MDKD_SAMPLER_NO_COUNTERS);
	bool nr = kernel_has_func(btf, "swap_free_nr");
	bool folio = kernel_has_func(btf, "migrate_misplaced_folio");
	bool promo = counters && s->tier_node >= 0;

	bpf_program__set_autoload(k->progs.swap_free_nr_enter, counters && nr);
	bpf_program__set_autoload(k->progs.swap_free_enter,
				  counters && !nr &&
					  kernel_has_func(btf, "swap_free"));
	bpf_program__set_autoload(
		k->progs.refault_enter,
		counters && kernel_has_func(btf, "workingset_refault"));
	bpf_program__set_autoload(k->progs.misplaced_folio_enter,
				  promo && folio);
	bpf_program__set_autoload(k->progs.misplaced_folio_exit,
				  promo && folio);
	bpf_program__set_autoload(
		k->progs.misplaced_page_enter,
		promo && !folio &&
			kernel_has_func(btf, "migrate_misplaced_page"));
	bpf_program__set_autoload(
		k->progs.misplaced_page_exit,
		bpf_program__autoload(k->progs.misplaced_page_enter));
	/* Without the swap-in hook (no BTF for it) there are no counters. */
	s->have_counters = bpf_program__autoload(k->progs.swap_free_nr_enter) ||
			   bpf_program__autoload(k->progs.swap_free_enter);
}

static void *map_mmap(struct bpf_map *map, size_t *bytes)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	void *p;

	*bytes = (size_t)bpf_map__value_size(map) * bpf_map__max_entries(map);
	*bytes = (*bytes + pg - 1) / pg * pg;
	p = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(map), 0);
	return p == MAP_FAILED ? NULL : p;
}

struct mdkd_sampler *mdkd_sampler_new(const struct mdkd_sampler_opts *opts,
				      char *msg, size_t len)
{
	uint32_t level = 0;
	uint64_t block_bytes = 0;
	struct mdkd_sampler *s;
	struct stat st;
	size_t i;
	int err;

	if (!opts->cgroup && !opts->nr_pids) {
		set_msg(msg, len, "no target: give a cgroup or PIDs");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		set_msg(msg, len, "out of memory");
		return NULL;
	}
	s->flags = opts->flags;
	s->before_reset = opts->before_reset;
	s->before_reset_arg = opts->before_reset_arg;
	s->tier_node = opts->tier_node;
	s->max_recs = opts->max_recs ? opts->max_recs : DEFAULT_MAX_RECS;
	if (snprintf(s->proc_root, sizeof(s->proc_root), "%s",
		     opts->proc_root ? opts->proc_root : "/proc") >= ROOT_MAX ||
	    snprintf(s->sys_root, sizeof(s->sys_root), "%s",
		     opts->sys_root ? opts->sys_root : "/sys") >= ROOT_MAX) {
		set_msg(msg, len, "/proc or /sys root longer than %d bytes",
			ROOT_MAX - 1);
		goto err_free;
	}

	/* Validate the target before any side effect. */
	if (opts->cgroup) {
		err = cgroup_level(opts->cgroup, &level, msg, len);
		if (err)
			goto err_free;
		if (stat(opts->cgroup, &st)) {
			set_msg(msg, len, "%s: %s", opts->cgroup,
				strerror(errno));
			goto err_free;
		}
		s->cgroup = strdup(opts->cgroup);
		if (!s->cgroup) {
			set_msg(msg, len, "out of memory");
			goto err_free;
		}
	} else {
		for (i = 0; i < opts->nr_pids; i++) {
			err = mdkd_sampler_add_pid(s, opts->pids[i]);
			if (err) {
				set_msg(msg, len, "process %d: %s",
					opts->pids[i], strerror(-err));
				goto err_free;
			}
		}
	}
	if (s->tier_node >= 0) {
		err = memory_block_bytes(s->sys_root, &block_bytes, msg, len);
		if (err)
			goto err_free;
		s->tier_words =
			((1ULL << TIER_PHYS_BITS) / block_bytes + 63) / 64;
		s->tier_scratch = calloc(s->tier_words, sizeof(uint64_t));
		if (!s->tier_scratch) {
			set_msg(msg, len, "out of memory");
			goto err_free;
		}
		/* Fail now on a node that does not exist. */
		err = mdkd_node_blocks(s->sys_root, s->tier_node,
				       s->tier_scratch, s->tier_words,
				       &block_bytes, msg, len);
		if (err)
			goto err_free;
	}

	s->skel = sampler_bpf__open();
	if (!s->skel) {
		set_msg(msg, len, "opening the BPF sampler: %s",
			strerror(errno));
		goto err_free;
	}
	s->skel->rodata->targ_max_recs = s->max_recs;
	bpf_map__set_max_entries(s->skel->maps.recs, s->max_recs);
	if (s->tier_node >= 0) {
		s->skel->rodata->targ_tier = true;
		s->skel->rodata->targ_block_shift =
			__builtin_ctzll(block_bytes) - 12;
		s->skel->rodata->targ_tier_words = s->tier_words;
		bpf_map__set_max_entries(s->skel->maps.tier_blocks,
					 s->tier_words);
	}
	if (s->cgroup) {
		s->skel->rodata->targ_cgroup_id = st.st_ino;
		s->skel->rodata->targ_cgroup_level = level;
	}
	/* Without BTF no fentry program loads either: the load says so. */
	pthread_once(&vmlinux_btf_once, load_vmlinux_btf);
	choose_hooks(s, vmlinux_btf);

	err = sampler_bpf__load(s->skel);
	if (err) {
		set_msg(msg, len,
			"loading the BPF sampler: %s (needs root, BTF and "
			"x86-64; run with -v for libbpf's log)",
			strerror(-err));
		goto err_destroy;
	}
	err = sampler_bpf__attach(s->skel);
	if (err) {
		set_msg(msg, len, "attaching the BPF sampler: %s",
			strerror(-err));
		goto err_destroy;
	}
	s->recs = map_mmap(s->skel->maps.recs, &s->recs_bytes);
	if (!s->recs) {
		set_msg(msg, len, "mapping the record map: %s",
			strerror(errno));
		goto err_destroy;
	}
	if (s->tier_node >= 0) {
		s->tier = map_mmap(s->skel->maps.tier_blocks, &s->tier_bytes);
		if (!s->tier) {
			set_msg(msg, len, "mapping the tier map: %s",
				strerror(errno));
			goto err_unmap_recs;
		}
	}
	return s;

err_unmap_recs:
	munmap(s->recs, s->recs_bytes);
err_destroy:
	sampler_bpf__destroy(s->skel);
err_free:
	free(s->tier_scratch);
	free(s->pids);
	free(s->cgroup);
	free(s);
	return NULL;
}

void mdkd_sampler_free(struct mdkd_sampler *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_procs; i++) {
		if (s->procs[i].clear_fd >= 0)
			close(s->procs[i].clear_fd);
		bpf_link__destroy(s->procs[i].link);
	}
	if (s->tier)
		munmap(s->tier, s->tier_bytes);
	munmap(s->recs, s->recs_bytes);
	sampler_bpf__destroy(s->skel);
	free(s->procs);
	free(s->live);
	free(s->next_live);
	free(s->pids);
	free(s->members);
	free(s->known);
	free(s->ids);
	free(s->runs);
	free(s->tier_scratch);
	free(s->cgroup);
	free(s);
}
