// SPDX-License-Identifier: GPL-2.0
/*
 * The probe of one back end (tier.h): a child process in the probe
 * cgroup allocates the pages, fills them, sends them to the back end and
 * times touching them again, a round at a time, in the manner of Intel
 * MLC.  The clock is read once a batch (the round's pages, in a shuffled
 * order so that swap readahead does not serve them in advance), and the
 * kernel's counters checked around it to see that the pages did come back
 * from the back end being measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/host.h"
#include "daemon/pages.h"
#include "tier.h"

#define PAGE 4096UL

/* What the child sends back through its pipe. */
struct probe_result {
	int err;
	uint64_t ns[TIER_ROUNDS_MAX];
	char why[512];
};

const char *tier_backend_name(enum tier_backend b)
{
	static const char *const names[] = { "cxl", "zswap", "swap" };

	return names[b];
}

const char *tier_backend_how(enum tier_backend b)
{
	static const char *const how[] = {
		"pages moved to the CMM-MP node (move_pages), each read whole there, then moved back to DRAM",
		"half text, half zero pages, MADV_PAGEOUT with zswap on, read back (zswpin)",
		"random pages (zswap rejects them), MADV_PAGEOUT, swap cache dropped with memory.reclaim, read back (pswpin)",
	};

	return how[b];
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Page contents.  Random words for swap (lzo and lz4 cannot shrink them:
 * zswap rejects them); for zswap a realistic compressible page: its first
 * half words of a small vocabulary, like text, the rest zero.
 */
static void fill(enum tier_backend b, char *mem, unsigned long pages,
		 uint64_t *seed)
{
	static const char *const words[] = { "the ", "memory ", "page ",
					     "of ",  "cold ",	"data, ",
					     "and ", "a ",	"tier.\n" };
	unsigned long i;
	size_t o, w;

	for (i = 0; i < pages; i++) {
		char *p = mem + i * PAGE;

		if (b != TIER_ZSWAP) {
			for (o = 0; o < PAGE; o += 8) {
				uint64_t x = xorshift(seed);

				memcpy(p + o, &x, 8);
			}
			continue;
		}
		memset(p, 0, PAGE);
		for (o = 0; o < PAGE / 2; o += w) {
			const char *s = words[xorshift(seed) % 9];

			w = strlen(s);
			if (o + w > PAGE / 2)
				break;
			memcpy(p + o, s, w);
		}
	}
}

static int vmstat(const struct tier_probe *p, const char *key, uint64_t *v)
{
	char path[256], buf[16384];

	snprintf(path, sizeof(path), "%s/vmstat", p->proc_root);
	if (mdkd_read_small(path, buf, sizeof(buf)) < 0)
		return -errno;
	return mdkd_host_vmstat(buf, key, v);
}

static int cg_write(const struct tier_probe *p, const char *file,
		    const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", p->cgroup, file);
	return tier_write_file(path, val);
}

/*
 * Drop the swap cache of the pages just written to the device: one
 * memory.reclaim of the cgroup's whole charge, once writeback ended.
 */
static void drop_swap_cache(const struct tier_probe *p, unsigned long pages)
{
	char buf[32];
	int i;

	for (i = 0; i < 20; i++) {
		usleep(50000);
		snprintf(buf, sizeof(buf), "%lu", pages * PAGE);
		if (cg_write(p, "memory.reclaim", buf) == 0)
			break;
	}
}

/* Touch every page once in the order @perm, one byte each: the round's ns. */
static uint64_t touch(char *mem, const unsigned long *perm, unsigned long pages)
{
	volatile char sink = 0;
	unsigned long i;
	uint64_t t0 = now_ns();

	for (i = 0; i < pages; i++)
		sink += mem[perm[i] * PAGE];
	(void)sink;
	return now_ns() - t0;
}

#define FAIL(r, e, ...)                                            \
	do {                                                       \
		(r)->err = (e);                                    \
		snprintf((r)->why, sizeof((r)->why), __VA_ARGS__); \
		return;                                            \
	} while (0)

/* A swap or zswap round: out with MADV_PAGEOUT, back by touching. */
static void round_swap(const struct tier_probe *p, char *mem,
		       const unsigned long *perm, uint64_t *ns,
		       struct probe_result *r)
{
	const char *name = tier_backend_name(p->b);
	uint64_t sin0, sin1, zin0 = 0, zin1 = 0;
	unsigned long n = p->pages;
	bool has_z;

	if (madvise(mem, n * PAGE, MADV_PAGEOUT))
		FAIL(r, -errno, "%s: MADV_PAGEOUT: %s (Linux 5.4 or later)",
		     name, strerror(errno));
	if (p->b == TIER_SWAP)
		drop_swap_cache(p, n);
	has_z = vmstat(p, "zswpin", &zin0) == 0;
	if (vmstat(p, "pswpin", &sin0))
		FAIL(r, -ENOENT, "%s: no pswpin in /proc/vmstat", name);
	*ns = touch(mem, perm, n);
	vmstat(p, "pswpin", &sin1);
	if (has_z)
		vmstat(p, "zswpin", &zin1);
	if (p->b == TIER_SWAP &&
	    (sin1 - sin0 < n * 9 / 10 || (has_z && zin1 - zin0 > n / 10)))
		FAIL(r, -EIO,
		     "swap: of %lu pages touched, %llu came from the swap device (pswpin), %llu from zswap (zswpin): they did not reach the device",
		     n, (unsigned long long)(sin1 - sin0),
		     (unsigned long long)(zin1 - zin0));
	if (p->b == TIER_ZSWAP && !has_z)
		FAIL(r, -ENOENT,
		     "zswap: no zswpin in /proc/vmstat: cannot tell the pages came from zswap");
	if (p->b == TIER_ZSWAP && zin1 - zin0 < n * 9 / 10)
		FAIL(r, -EIO,
		     "zswap: of %lu pages touched, %llu came from zswap (zswpin), %llu from the swap device: zswap did not keep them (is its pool full?)",
		     n, (unsigned long long)(zin1 - zin0),
		     (unsigned long long)(sin1 - sin0));
}

/* Returns the pages not moved (the first one's status in *@bad), or -errno. */
static int move_all(char *mem, unsigned long n, int node, void **addrs,
		    int *nodes, int *status, int *bad)
{
	unsigned long i, moved = 0;

	for (i = 0; i < n; i++) {
		addrs[i] = mem + i * PAGE;
		nodes[i] = node;
	}
	if (numa_move_pages(0, n, addrs, nodes, status, MPOL_MF_MOVE) < 0)
		return -errno;
	for (i = n; i-- > 0;) {
		moved += status[i] == node;
		if (status[i] != node)
			*bad = status[i];
	}
	return (int)(n - moved);
}

/*
 * A cxl round: the pages moved to the node, then each read whole there
 * (the accesses made before promotion) and all moved back to DRAM (the
 * promotion): both inside the clock.
 */
static void round_cxl(const struct tier_probe *p, char *mem,
		      const unsigned long *perm, uint64_t *ns,
		      struct probe_result *r)
{
	unsigned long n = p->pages, i, w;
	void **addrs = calloc(n, sizeof(*addrs));
	int *nodes = calloc(n, sizeof(*nodes));
	int *status = calloc(n, sizeof(*status));
	volatile uint64_t sink = 0;
	uint64_t t0;
	int left, bad = 0;

	if (!addrs || !nodes || !status) {
		r->err = -ENOMEM;
		snprintf(r->why, sizeof(r->why), "cxl: out of memory");
		goto out;
	}
	left = move_all(mem, n, p->node, addrs, nodes, status, &bad);
	if (left) {
		r->err = left < 0 ? left : -ENOSPC;
		snprintf(
			r->why, sizeof(r->why),
			"cxl: move_pages to node %d: %s%d of %lu pages did not move (status %d: %s)",
			p->node, left < 0 ? strerror(-left) : "",
			left < 0 ? 0 : left, n, bad,
			bad < 0 ? strerror(-bad) : "on another node");
		goto out;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		const uint64_t *q = (const uint64_t *)(mem + perm[i] * PAGE);

		for (w = 0; w < PAGE / 8; w++)
			sink += q[w];
	}
	left = move_all(mem, n, p->home, addrs, nodes, status, &bad);
	*ns = now_ns() - t0;
	(void)sink;
	if (left) {
		r->err = left < 0 ? left : -EIO;
		snprintf(r->why, sizeof(r->why),
			 "cxl: move_pages back to node %d failed", p->home);
	}
out:
	free(addrs);
	free(nodes);
	free(status);
}

/* The child: join the cgroup, run the rounds, report in @r. */
static void child(const struct tier_probe *p, struct probe_result *r)
{
	unsigned long n = p->pages, i, j, *perm;
	uint64_t seed = 0x9e3779b97f4a7c15ull, ns;
	unsigned int k;
	char *mem;
	int ret;

	ret = cg_write(p, "cgroup.procs", "0");
	if (ret)
		FAIL(r, ret, "%s: joining %s: %s", tier_backend_name(p->b),
		     p->cgroup, strerror(-ret));
	/* 6.12: keep the random pages off zswap; let the others in */
	cg_write(p, "memory.zswap.max", p->b == TIER_SWAP ? "0" : "max");
	perm = calloc(n, sizeof(*perm));
	if (!perm)
		FAIL(r, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = xorshift(&seed) % (i + 1);
		ns = perm[i];
		perm[i] = perm[j];
		perm[j] = ns;
	}
	for (k = 0; k < p->rounds && !r->err; k++) {
		mem = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			FAIL(r, -errno, "mmap of %lu pages: %s", n,
			     strerror(errno));
		/* small pages, as the daemon moves them (before the faults) */
		madvise(mem, n * PAGE, MADV_NOHUGEPAGE);
		fill(p->b, mem, n, &seed);
		if (p->b == TIER_CXL)
			round_cxl(p, mem, perm, &r->ns[k], r);
		else
			round_swap(p, mem, perm, &r->ns[k], r);
		r->ns[k] /= n;
		munmap(mem, n * PAGE);
	}
	free(perm);
}

int tier_probe_run(const struct tier_probe *p, uint64_t *round_ns, char *why,
		   size_t whylen)
{
	struct probe_result *r;
	int fd[2], st;
	ssize_t got = 0, k;
	pid_t pid;

	r = calloc(1, sizeof(*r));
	if (!r || pipe2(fd, O_CLOEXEC)) {
		free(r);
		snprintf(why, whylen, "%s", strerror(errno));
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		child(p, r);
		k = write(fd[1], r, sizeof(*r));
		_exit(k == (ssize_t)sizeof(*r) ? 0 : 1);
	}
	close(fd[1]);
	tier_cgroup_child(pid > 0 ? pid : 0);
	while (pid > 0 && got < (ssize_t)sizeof(*r)) {
		k = read(fd[0], (char *)r + got, sizeof(*r) - (size_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += k;
	}
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	tier_cgroup_child(0);
	if (pid < 0 || got != (ssize_t)sizeof(*r)) {
		r->err = -ECHILD;
		snprintf(r->why, sizeof(r->why), "%s: the probe process died",
			 tier_backend_name(p->b));
	}
	memcpy(round_ns, r->ns, p->rounds * sizeof(*round_ns));
	snprintf(why, whylen, "%s", r->why);
	st = r->err;
	free(r);
	return st;
}
