// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the sampler's tier residency (STAR's numerator) and its
 * NUMA promotion counter are exact.
 * BPF derives the node of each accessed page from the PFN in its page
 * table entry and the tier node's memory blocks, which userspace reads
 * from /sys.  Part 1, on any machine: a fake /sys declares 2 MiB memory
 * blocks and puts every other one of node 0's on a fake tier node; a
 * worker touches changing sets of small and huge (THP) pages; tier_pages
 * must equal the count, over the very pages reported, of those whose PFN
 * (from /proc/PID/pagemap) lies in those blocks.  Part 2, on a second node
 * with memory: a numa=fake=2 boot's, or else the bench's CMM-MP node
 * after cmm_mp.ko hot-adds a pool segment into it (unloaded again at the
 * end): every other one of the worker's pages moves there with
 * move_pages(); tier_pages must equal the reported pages that
 * move_pages() places on it; then, with NUMA balancing on, the pages that
 * NUMA hinting faults bring back to node 0 must equal promote_pages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <numa.h>
#include <numaif.h>

#include "kselftest.h"
#include "bpf/loader.h"
#include "lib/sampler_test.h"

#define NPAGES 2048
#define THP_HUGE 4
#define WINDOWS 3
#define FAKE_BLOCK (2UL << 20)

enum { OP_TOUCH = 1, OP_MOVE, OP_SPIN };

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ULL + b * 0xbf58476d1ce4e5b9ULL;

	x ^= x >> 31;
	x *= 0xd6e8feb96c0f0b2dULL;
	return x ^ (x >> 29);
}

struct regions {
	char *small; /* NPAGES small pages */
	char *huge; /* THP_HUGE huge pages */
};

static int worker(int cmd, int rsp, void *arg)
{
	struct regions r;
	struct wmsg m = { 0 };
	void *pages[NPAGES];
	int nodes[NPAGES], status[NPAGES];
	cpu_set_t cpus;
	char *raw;
	size_t i, n;
	time_t until;

	/* Stay on CPU 0 (node 0): pages elsewhere are then misplaced. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	r.small = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	raw = mmap(NULL, (THP_HUGE + 1) * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r.small == MAP_FAILED || raw == MAP_FAILED)
		return 2;
	madvise(r.small, NPAGES * PAGE, MADV_NOHUGEPAGE);
	memset(r.small, 1, NPAGES * PAGE);
	r.huge = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	madvise(r.huge, THP_HUGE * HPAGE, MADV_HUGEPAGE);
	memset(r.huge, 1, THP_HUGE * HPAGE);
	m.v[0] = (uintptr_t)r.small;
	m.v[1] = (uintptr_t)r.huge;
	if (send_msg(rsp, &m))
		return 2;
	while (!recv_msg(cmd, &m) && m.op) {
		switch (m.op) {
		case OP_TOUCH:
			for (i = 0; i < NPAGES; i++)
				if (mix(i, m.arg) % 3)
					r.small[i * PAGE]++;
			for (i = 0; i < THP_HUGE; i++)
				if (mix(i + NPAGES, m.arg) % 2)
					r.huge[i * HPAGE + PAGE]++;
			break;
		case OP_MOVE:
			/* Every other small page to node arg. */
			for (i = n = 0; i < NPAGES; i += 2, n++) {
				pages[n] = r.small + i * PAGE;
				nodes[n] = m.arg;
			}
			m.v[0] = 0;
			if (!numa_move_pages(0, n, pages, nodes, status,
					     MPOL_MF_MOVE))
				for (i = 0; i < n; i++)
					m.v[0] += status[i] == m.arg;
			break;
		case OP_SPIN:
			/* Touch everything for arg seconds. */
			until = time(NULL) + m.arg;
			while (time(NULL) < until)
				for (i = 0; i < NPAGES; i++)
					r.small[i * PAGE]++;
			break;
		}
		if (send_msg(rsp, &m))
			return 2;
	}
	return 0;
}

/* PFN of the page at @addr in @pid (0 if not present). */
static uint64_t pfn_of(int fd, uint64_t addr)
{
	uint64_t e;

	if (pread(fd, &e, sizeof(e), addr / PAGE * sizeof(e)) != sizeof(e) ||
	    !(e >> 63))
		return 0;
	return e & ((1ULL << 55) - 1);
}

static int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	err = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f))
		err = -errno;
	return err;
}

/* The process number the sampler gave @pid. */
static int64_t proc_of(struct mdk_sampler *s, pid_t pid)
{
	uint32_t id;

	for (id = 0; id < mdk_sampler_nr_procs(s); id++)
		if (mdk_sampler_proc(s, id)->pid == pid)
			return id;
	return -1;
}

/*
 * A fake /sys under @root: 2 MiB blocks; node 1 holds the even blocks
 * below @max_pfn.
 */
static int fake_sys(char *root, size_t len, uint64_t max_pfn)
{
	char path[512];
	uint64_t b, nblocks = max_pfn * PAGE / FAKE_BLOCK + 1;
	FILE *f;

	snprintf(root, len, "%s/mdk-star-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(root))
		return -errno;
	snprintf(path, sizeof(path), "%s/devices", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/memory", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/node", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/node/node1", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path),
		 "%s/devices/system/memory/block_size_bytes", root);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%lx\n", FAKE_BLOCK);
	fclose(f);
	for (b = 0; b < nblocks; b += 2) {
		snprintf(path, sizeof(path),
			 "%s/devices/system/node/node1/memory%llu", root,
			 (unsigned long long)b);
		f = fopen(path, "w");
		if (!f)
			return -errno;
		fclose(f);
	}
	return 0;
}

static void rm_fake_sys(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", root);
}

/* Highest PFN of node 0's memory blocks (real /sys). */
static uint64_t max_pfn(void)
{
	static uint64_t bm[1 << 14];
	uint64_t bytes, i, top = 0;
	char msg[256];

	if (mdk_sampler_node_blocks("/sys", 0, bm, 1 << 14, &bytes, msg,
				    sizeof(msg)))
		return 0;
	for (i = 0; i < (1 << 14) * 64ULL; i++)
		if (bm[i / 64] >> (i % 64) & 1)
			top = i;
	return (top + 1) * (bytes / PAGE);
}

static void part_fake(void)
{
	struct mdk_sampler_opts opts = { .tier_node = 1 };
	struct mdk_sampler_window win;
	struct worker wk = { 0 };
	uint64_t pfn, want, mid = 0;
	int64_t proc;
	int exact = 1, split = 1, w, fd;
	char cg[256], root[256], msg[256], path[64];
	struct mdk_sampler *s;
	struct wmsg m, hello;
	size_t i;

	if (cg_make(cg, sizeof(cg), "mdk-sampler-star"))
		ksft_exit_fail_msg("mkdir %s: %s\n", cg, strerror(errno));
	if (fake_sys(root, sizeof(root), max_pfn()))
		ksft_exit_fail_msg("fake /sys: %s\n", strerror(errno));
	if (worker_start(&wk, cg, worker, NULL, &hello))
		ksft_exit_fail_msg("worker did not start\n");
	opts.cgroup = cg;
	opts.sys_root = root;
	s = mdk_sampler_new(&opts, msg, sizeof(msg));
	ksft_test_result(s != NULL, "sampler loads with a tier node%s%s\n",
			 s ? "" : ": ", s ? "" : msg);
	if (!s)
		ksft_exit_fail_msg("%s\n", msg);
	if (mdk_sampler_start(s, msg, sizeof(msg)))
		ksft_exit_fail_msg("start: %s\n", msg);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", wk.pid);
	for (w = 0; w < WINDOWS; w++) {
		m = (struct wmsg){ .op = OP_TOUCH, .arg = w };
		if (worker_call(&wk, &m, &m) ||
		    mdk_sampler_next(s, &win, msg, sizeof(msg)))
			ksft_exit_fail_msg("window %d: %s\n", w, msg);
		proc = proc_of(s, wk.pid);
		fd = open(path, O_RDONLY);
		want = 0;
		for (i = 0; i < win.nr_pages; i++) {
			if (mdk_sampler_page_id_proc(win.pages[i]) != proc)
				continue;
			pfn = pfn_of(fd,
				     mdk_sampler_page_id_addr(win.pages[i]));
			want += pfn && !(pfn * PAGE / FAKE_BLOCK % 2);
		}
		close(fd);
		ksft_print_msg("window %d: %zu pages, tier_pages %llu, from "
			       "pagemap %llu\n",
			       w, win.nr_pages,
			       (unsigned long long)win.tier_pages,
			       (unsigned long long)want);
		exact &= win.tier_pages == want;
		split &= want > 0 && want < win.nr_pages;
		mid += want;
	}
	ksft_test_result(exact,
			 "tier_pages equals the pagemap count over "
			 "%d windows\n",
			 WINDOWS);
	ksft_test_result(split,
			 "the fake tier holds some but not all pages "
			 "(%llu in all)\n",
			 (unsigned long long)mid);
	worker_stop(&wk);
	mdk_sampler_free(s);
	rm_fake_sys(root);
	if (rmdir(cg))
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
}

/* A node with memory other than node 0, or -1. */
static int second_node(void)
{
	int n;

	if (numa_available() < 0)
		return -1;
	for (n = 1; n <= numa_max_node(); n++)
		if (numa_node_size64(n, NULL) > 0)
			return n;
	return -1;
}

/* Where the worker's small pages are: counts on @node; node of each. */
static size_t nodes_of(pid_t pid, uint64_t base, int node, int *status)
{
	static void *pages[NPAGES];
	size_t i, k = 0;

	for (i = 0; i < NPAGES; i++)
		pages[i] = (void *)(uintptr_t)(base + i * PAGE);
	if (numa_move_pages(pid, NPAGES, pages, NULL, status, 0))
		return 0;
	for (i = 0; i < NPAGES; i++)
		k += status[i] == node;
	return k;
}

static void part_node(int node)
{
	struct mdk_sampler_opts opts = { .tier_node = node };
	static int before[NPAGES], after[NPAGES];
	struct mdk_sampler_window win;
	struct worker wk = { 0 };
	uint64_t moved, want = 0, back = 0;
	char cg[256], msg[256], old[16] = "0";
	struct mdk_sampler *s;
	struct wmsg m, hello;
	void *page;
	int64_t proc;
	int st, f;
	size_t i;

	if (cg_make(cg, sizeof(cg), "mdk-sampler-star-node"))
		ksft_exit_fail_msg("mkdir %s: %s\n", cg, strerror(errno));
	if (worker_start(&wk, cg, worker, NULL, &hello))
		ksft_exit_fail_msg("worker did not start\n");
	m = (struct wmsg){ .op = OP_MOVE, .arg = node };
	if (worker_call(&wk, &m, &m))
		ksft_exit_fail_msg("worker died\n");
	moved = m.v[0];
	opts.cgroup = cg;
	s = mdk_sampler_new(&opts, msg, sizeof(msg));
	if (!s || mdk_sampler_start(s, msg, sizeof(msg)))
		ksft_exit_fail_msg("sampler: %s\n", msg);
	m = (struct wmsg){ .op = OP_TOUCH, .arg = 1 };
	if (worker_call(&wk, &m, &m) ||
	    mdk_sampler_next(s, &win, msg, sizeof(msg)))
		ksft_exit_fail_msg("window: %s\n", msg);
	proc = proc_of(s, wk.pid);
	for (i = 0; i < win.nr_pages; i++) {
		if (mdk_sampler_page_id_proc(win.pages[i]) != proc)
			continue;
		page = (void *)(uintptr_t)mdk_sampler_page_id_addr(
			win.pages[i]);
		if (!numa_move_pages(wk.pid, 1, &page, NULL, &st, 0))
			want += st == node;
	}
	ksft_test_result(moved > 0 && win.tier_pages == want,
			 "node %d: tier_pages %llu == %llu reported pages "
			 "there (%llu moved), STAR %.3f\n",
			 node, (unsigned long long)win.tier_pages,
			 (unsigned long long)want, (unsigned long long)moved,
			 win.nr_pages ? (double)win.tier_pages / win.nr_pages :
					0.0);

	/* NUMA balancing brings them back to the worker's node 0. */
	f = open("/proc/sys/kernel/numa_balancing", O_RDONLY);
	if (f >= 0) {
		if (read(f, old, sizeof(old) - 1) < 0)
			strcpy(old, "0");
		close(f);
	}
	nodes_of(wk.pid, hello.v[0], node, before);
	if (write_file("/proc/sys/kernel/numa_balancing", "1")) {
		ksft_test_result_skip("NUMA balancing cannot be enabled\n");
	} else {
		/* Touch in 2 s rounds until none is left there (60 s at
		 * most): hinting faults need two scans of the task. */
		for (i = 0; i < 30; i++) {
			m = (struct wmsg){ .op = OP_SPIN, .arg = 2 };
			if (worker_call(&wk, &m, &m))
				ksft_exit_fail_msg("worker died\n");
			if (!nodes_of(wk.pid, hello.v[0], node, after))
				break;
		}
		if (mdk_sampler_next(s, &win, msg, sizeof(msg)))
			ksft_exit_fail_msg("window: %s\n", msg);
		nodes_of(wk.pid, hello.v[0], node, after);
		for (i = 0; i < NPAGES; i++)
			back += before[i] == node && after[i] == 0;
		ksft_test_result(back > 0 && win.promote_pages == back,
				 "node %d: promote_pages %llu (%llu faults) "
				 "== %llu pages back on node 0\n",
				 node, (unsigned long long)win.promote_pages,
				 (unsigned long long)win.promote_events,
				 (unsigned long long)back);
		write_file("/proc/sys/kernel/numa_balancing", old);
	}
	worker_stop(&wk);
	mdk_sampler_free(s);
	if (rmdir(cg))
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
}

/*
 * The bench's CMM-MP pool: load cmm_mp.ko and online one segment into the
 * pool's node (tests/vm/kmod_*.sh do the same).  Returns the node, or -1.
 */
static int pool_up(void)
{
	const char *build = getenv("MDK_BUILD"),
		   *node = getenv("MDK_POOL_NODE");
	char cmd[1024];
	struct utsname u;

	if (!build || !node || !getenv("MDK_POOL_BASE") || uname(&u))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "insmod %s/kmod/%s/cmm_mp.ko 2>/dev/null && "
		 "%s/bin/mdkctl pool online 0 >/dev/null",
		 build, u.release, build);
	if (system(cmd)) {
		ksft_print_msg("no pool segment online: %s\n", cmd);
		/* Loaded but not onlined, or not loaded: make sure. */
		if (system("rmmod cmm_mp 2>/dev/null") < 0)
			ksft_print_msg("rmmod: %s\n", strerror(errno));
		return -1;
	}
	return atoi(node);
}

static void pool_down(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s/bin/mdkctl pool offline all >/dev/null; "
		 "rmmod cmm_mp",
		 getenv("MDK_BUILD"));
	if (system(cmd))
		ksft_print_msg("could not take the pool down\n");
}

int main(void)
{
	int node, pool = 0;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	ksft_set_plan(5);
	part_fake();
	node = second_node();
	if (node < 0) {
		node = pool_up();
		pool = node >= 0;
		if (pool && numa_node_size64(node, NULL) <= 0) {
			pool_down();
			node = -1;
			pool = 0;
		}
		if (pool)
			ksft_print_msg("cmm_mp.ko onlined a pool segment into "
				       "node %d (the CMM-MP node)\n",
				       node);
	}
	if (node < 0) {
		ksft_test_result_skip("no second NUMA node with memory: "
				      "residency on a real node untested\n");
		ksft_test_result_skip("no second NUMA node with memory: "
				      "promotions untested\n");
	} else {
		ksft_print_msg("second node with memory: %d\n", node);
		part_node(node);
	}
	if (pool)
		pool_down();
	ksft_finished();
}
