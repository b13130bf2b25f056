// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the sampler's promotion counters count, per window and for
 * the target only, exactly the pages this system reclaimed that the
 * target then touched.  Swap: a worker in a fresh cgroup pages out 512
 * anonymous pages with MADV_PAGEOUT (real swap on the bench's disk), then
 * touches a third of them: swapin_pages equals the number of touched pages
 * /proc/self/pagemap showed as swapped just before.  File: it maps 2 MiB
 * of a file on the host's 9p root with MADV_RANDOM (no read-around),
 * pages it out, then touches a third: file_refault_pages equals the
 * touched pages mincore() showed evicted.  A cgroup sampler and a PID-set
 * sampler count the same; the test's own swap-ins and refaults, outside
 * the target, count for neither.  NUMA promotions need a second memory
 * node and are left to sampler_star.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kselftest.h"
#include "bpf/loader.h"
#include "lib/sampler_test.h"

#define ANON_PAGES 512
#define FILE_PAGES 512

enum {
	OP_PAGEOUT_ANON = 1,
	OP_TOUCH_ANON,
	OP_PAGEOUT_FILE,
	OP_TOUCH_FILE,
};

static uint64_t pattern(size_t i)
{
	return (i + 7) * 0x9e3779b97f4a7c15ULL;
}

static char *map_file(size_t pages, off_t off)
{
	struct utsname u;
	char path[300];
	char *p;
	int fd;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/vmlinuz-%s", u.release);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, pages * PAGE, PROT_READ, MAP_PRIVATE, fd, off);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, pages * PAGE, MADV_RANDOM);
	return p;
}

/* Pages of [p, p + n pages) that pagemap says are swapped out. */
static size_t swapped(const char *p, size_t n, unsigned char *out)
{
	uint64_t e;
	size_t i, k = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	for (i = 0; i < n; i++) {
		off_t off = ((uintptr_t)p / PAGE + i) * sizeof(e);

		out[i] = pread(fd, &e, sizeof(e), off) == sizeof(e) &&
			 (e >> 62 & 1);
		k += out[i];
	}
	close(fd);
	return k;
}

/* Pages of [p, p + n pages) not in the page cache. */
static size_t evicted(char *p, size_t n, unsigned char *out)
{
	size_t i, k = 0;

	if (mincore(p, n * PAGE, out))
		return 0;
	for (i = 0; i < n; i++) {
		out[i] = !(out[i] & 1);
		k += out[i];
	}
	return k;
}

static int touch_third(size_t i)
{
	return i % 3 == 1;
}

/* Page out, then touch a third: the truth, in the same terms as BPF. */
static void pageout(char *p, size_t n, unsigned char *st, int anon,
		    struct wmsg *m)
{
	madvise(p, n * PAGE, MADV_PAGEOUT);
	m->v[0] = anon ? swapped(p, n, st) : evicted(p, n, st);
}

static void touch(char *p, size_t n, unsigned char *st, int anon,
		  struct wmsg *m)
{
	volatile uint64_t sink = 0;
	size_t i;

	if (anon)
		swapped(p, n, st);
	else
		evicted(p, n, st);
	m->v[0] = m->v[1] = 0;
	for (i = 0; i < n; i++) {
		if (!touch_third(i))
			continue;
		m->v[0] += st[i];
		if (anon)
			m->v[1] += ((uint64_t *)(p + i * PAGE))[0] !=
				   pattern(i);
		else
			sink += p[i * PAGE];
	}
	(void)sink;
}

struct regions {
	char *anon, *file;
	unsigned char st[ANON_PAGES > FILE_PAGES ? ANON_PAGES : FILE_PAGES];
};

/* @file_off: where in the file (the test and the worker map apart:
 * MADV_PAGEOUT leaves pages mapped twice alone). */
static int setup(struct regions *r, off_t file_off)
{
	size_t i;

	r->anon = mmap(NULL, ANON_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->anon == MAP_FAILED)
		return -1;
	madvise(r->anon, ANON_PAGES * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < ANON_PAGES; i++)
		((uint64_t *)(r->anon + i * PAGE))[0] = pattern(i);
	r->file = map_file(FILE_PAGES, file_off);
	if (r->file)
		for (i = 0; i < FILE_PAGES; i++)
			(void)*(volatile char *)(r->file + i * PAGE);
	return 0;
}

static int do_op(struct regions *r, struct wmsg *m)
{
	switch (m->op) {
	case OP_PAGEOUT_ANON:
		pageout(r->anon, ANON_PAGES, r->st, 1, m);
		break;
	case OP_TOUCH_ANON:
		touch(r->anon, ANON_PAGES, r->st, 1, m);
		break;
	case OP_PAGEOUT_FILE:
		if (r->file)
			pageout(r->file, FILE_PAGES, r->st, 0, m);
		break;
	case OP_TOUCH_FILE:
		if (r->file)
			touch(r->file, FILE_PAGES, r->st, 0, m);
		break;
	default:
		return -1;
	}
	return 0;
}

static int worker(int cmd, int rsp, void *arg)
{
	static struct regions r;
	struct wmsg m = { 0 };

	if (setup(&r, 0))
		return 2;
	m.v[0] = r.file != NULL;
	if (send_msg(rsp, &m))
		return 2;
	while (!recv_msg(cmd, &m) && m.op) {
		if (do_op(&r, &m) || send_msg(rsp, &m))
			return 2;
	}
	return 0;
}

static int have_swap(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 1;
}

struct pair {
	struct mdk_sampler *cg, *pid;
	struct mdk_sampler_window a, b;
};

static void end_window(struct pair *p, int w)
{
	char msg[256];

	if (mdk_sampler_next(p->cg, &p->a, msg, sizeof(msg)) ||
	    mdk_sampler_next(p->pid, &p->b, msg, sizeof(msg)))
		ksft_exit_fail_msg("window %d: %s\n", w, msg);
	ksft_print_msg("window %d: swapins %llu/%llu, file refaults "
		       "%llu/%llu (cgroup/PID-set samplers)\n",
		       w, (unsigned long long)p->a.swapin_pages,
		       (unsigned long long)p->b.swapin_pages,
		       (unsigned long long)p->a.file_refault_pages,
		       (unsigned long long)p->b.file_refault_pages);
}

int main(void)
{
	struct mdk_sampler_opts opts = { .tier_node = -1 };
	struct wmsg m, hello;
	struct worker wk = { 0 };
	static struct regions self;
	uint64_t out_anon, truth_anon, bad, out_file = 0, truth_file = 0;
	int swap, file, zero_out;
	char cg[256], msg[256];
	struct pair p;
	pid_t pid;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	swap = have_swap();
	if (!swap)
		ksft_exit_skip("no swap enabled\n");
	ksft_set_plan(9);

	if (cg_make(cg, sizeof(cg), "mdk-sampler-faults"))
		ksft_exit_fail_msg("mkdir %s: %s\n", cg, strerror(errno));
	if (worker_start(&wk, cg, worker, NULL, &hello))
		ksft_exit_fail_msg("worker did not start\n");
	file = hello.v[0];
	opts.cgroup = cg;
	p.cg = mdk_sampler_new(&opts, msg, sizeof(msg));
	if (!p.cg)
		ksft_exit_fail_msg("cgroup sampler: %s\n", msg);
	opts.cgroup = NULL;
	pid = wk.pid;
	opts.pids = &pid;
	opts.nr_pids = 1;
	p.pid = mdk_sampler_new(&opts, msg, sizeof(msg));
	if (!p.pid)
		ksft_exit_fail_msg("PID-set sampler: %s\n", msg);
	if (mdk_sampler_start(p.cg, msg, sizeof(msg)) ||
	    mdk_sampler_start(p.pid, msg, sizeof(msg)))
		ksft_exit_fail_msg("start: %s\n", msg);

	/* Window 0: page the anonymous region out. */
	m = (struct wmsg){ .op = OP_PAGEOUT_ANON };
	if (worker_call(&wk, &m, &m))
		ksft_exit_fail_msg("worker died\n");
	out_anon = m.v[0];
	end_window(&p, 0);
	zero_out = p.a.swapin_pages == 0 && p.b.swapin_pages == 0;
	ksft_test_result(out_anon > ANON_PAGES / 2,
			 "MADV_PAGEOUT swapped out %llu of %d anonymous "
			 "pages\n",
			 (unsigned long long)out_anon, ANON_PAGES);

	/* Window 1: touch a third of it. */
	m = (struct wmsg){ .op = OP_TOUCH_ANON };
	if (worker_call(&wk, &m, &m))
		ksft_exit_fail_msg("worker died\n");
	truth_anon = m.v[0];
	bad = m.v[1];
	end_window(&p, 1);
	ksft_test_result(truth_anon > 0 && p.a.swapin_pages == truth_anon,
			 "cgroup sampler: swapin_pages %llu == %llu swapped "
			 "pages touched\n",
			 (unsigned long long)p.a.swapin_pages,
			 (unsigned long long)truth_anon);
	ksft_test_result(p.b.swapin_pages == truth_anon,
			 "PID-set sampler: swapin_pages %llu == %llu\n",
			 (unsigned long long)p.b.swapin_pages,
			 (unsigned long long)truth_anon);
	ksft_test_result(bad == 0, "swapped-in data intact (%llu bad)\n",
			 (unsigned long long)bad);

	/* Windows 2 and 3: the same for the file mapping. */
	if (file) {
		m = (struct wmsg){ .op = OP_PAGEOUT_FILE };
		if (worker_call(&wk, &m, &m))
			ksft_exit_fail_msg("worker died\n");
		out_file = m.v[0];
		end_window(&p, 2);
		zero_out &= p.a.file_refault_pages == 0 &&
			    p.b.file_refault_pages == 0;
		m = (struct wmsg){ .op = OP_TOUCH_FILE };
		if (worker_call(&wk, &m, &m))
			ksft_exit_fail_msg("worker died\n");
		truth_file = m.v[0];
		end_window(&p, 3);
		ksft_test_result(out_file > FILE_PAGES / 2,
				 "MADV_PAGEOUT evicted %llu of %d file "
				 "pages\n",
				 (unsigned long long)out_file, FILE_PAGES);
		ksft_test_result(truth_file > 0 &&
					 p.a.file_refault_pages == truth_file &&
					 p.b.file_refault_pages == truth_file,
				 "file_refault_pages %llu/%llu == %llu "
				 "evicted pages touched\n",
				 (unsigned long long)p.a.file_refault_pages,
				 (unsigned long long)p.b.file_refault_pages,
				 (unsigned long long)truth_file);
	} else {
		ksft_test_result_skip("no file to map\n");
		ksft_test_result_skip("no file to map\n");
	}
	ksft_test_result(zero_out, "paging out counts no promotions\n");

	/* Window 4: the test itself, outside the target, does the same. */
	if (setup(&self, FILE_PAGES * PAGE))
		ksft_exit_fail_msg("mmap failed\n");
	m = (struct wmsg){ .op = OP_PAGEOUT_ANON };
	do_op(&self, &m);
	m.op = OP_TOUCH_ANON;
	do_op(&self, &m);
	truth_anon = m.v[0];
	truth_file = 0;
	if (self.file) {
		m.op = OP_PAGEOUT_FILE;
		do_op(&self, &m);
		m.op = OP_TOUCH_FILE;
		do_op(&self, &m);
		truth_file = m.v[0];
	}
	end_window(&p, 4);
	ksft_test_result(
		truth_anon && !p.a.swapin_pages && !p.b.swapin_pages &&
			!p.a.file_refault_pages && !p.b.file_refault_pages,
		"the test's own %llu swap-ins and %llu refaults, "
		"outside the target, are not counted\n",
		(unsigned long long)truth_anon, (unsigned long long)truth_file);

	ksft_test_result(worker_stop(&wk) == 0, "worker exited cleanly\n");
	mdk_sampler_free(p.cg);
	mdk_sampler_free(p.pid);
	if (rmdir(cg))
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
	ksft_finished();
}
