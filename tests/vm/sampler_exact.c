// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the sampler's per-window page sets equal the truth exactly
 * (precision and recall 1.0, every window).  A worker in a fresh cgroup
 * touches a known, changing set of pages of four regions every window:
 * private anonymous memory, a shared memfd (shmem file), a read-only
 * mapping of a file on the host's 9p root and a THP region whose huge
 * pages are expanded to their 512 small pages.  Reads and writes alternate
 * (writes take the soft-dirty write fault the TLB flush costs).  An empty
 * window and full windows are among them.  A fifth region is only ever
 * read, so it stays on the shared zero page, which is never reported.
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

#define WINDOWS 8
#define ANON_PAGES 1024
#define SHM_PAGES 512
#define FILE_PAGES 512
#define THP_HUGE 4
#define THP_PAGES (THP_HUGE * 512)
#define ZERO_PAGES 256

enum { R_ANON, R_SHM, R_FILE, R_THP, R_ZERO, NR_REGIONS };

static const char *const region_name[NR_REGIONS] = {
	"private anonymous", "shmem file (memfd)", "9p file (read-only)",
	"THP (expanded)", "zero page (read only)"
};
static const size_t region_pages[NR_REGIONS] = { ANON_PAGES, SHM_PAGES,
						 FILE_PAGES, THP_PAGES,
						 ZERO_PAGES };

static uint64_t hash(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ b * 0xbf58476d1ce4e5b9ULL ^
		     c * 0x94d049bb133111ebULL;

	x ^= x >> 31;
	x *= 0xd6e8feb96c0f0b2dULL;
	return x ^ (x >> 29);
}

/*
 * Is unit @i of region @r touched in window @w?  Units are pages, or huge
 * pages for the THP region.  Window 0 populates everything; window 3 is
 * empty, window 5 full; the others take a varying fraction.
 */
static int touched(int r, size_t i, int w)
{
	if (w == 0 || w == 5)
		return 1;
	if (w == 3)
		return 0;
	return hash(r, i, w) % (w % 4 + 2) == 0;
}

static size_t units(int r)
{
	return r == R_THP ? THP_HUGE : region_pages[r];
}

static char *map_file(void)
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
	p = mmap(NULL, FILE_PAGES * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* The worker: map the regions, then touch window after window. */
static int worker(int cmd, int rsp, void *arg)
{
	char *base[NR_REGIONS] = { 0 }, *raw;
	volatile char sink = 0;
	struct wmsg m = { 0 };
	size_t i, off;
	int r, w, fd;

	base[R_ANON] = mmap(NULL, ANON_PAGES * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(base[R_ANON], ANON_PAGES * PAGE, MADV_NOHUGEPAGE);
	fd = memfd_create("mdk-sampler", 0);
	if (fd < 0 || ftruncate(fd, SHM_PAGES * PAGE))
		return 2;
	base[R_SHM] = mmap(NULL, SHM_PAGES * PAGE, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
	close(fd);
	base[R_FILE] = map_file();
	raw = mmap(NULL, THP_PAGES * PAGE + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base[R_ANON] == MAP_FAILED || base[R_SHM] == MAP_FAILED ||
	    raw == MAP_FAILED)
		return 2;
	base[R_THP] = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	madvise(base[R_THP], THP_PAGES * PAGE, MADV_HUGEPAGE);
	base[R_ZERO] = mmap(NULL, ZERO_PAGES * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base[R_ZERO] == MAP_FAILED)
		return 2;
	madvise(base[R_ZERO], ZERO_PAGES * PAGE, MADV_NOHUGEPAGE);
	for (r = 0; r < NR_REGIONS; r++)
		m.v[r] = (uintptr_t)base[r];
	if (send_msg(rsp, &m))
		return 2;

	while (!recv_msg(cmd, &m) && m.op == 1) {
		w = m.arg;
		for (r = 0; r < NR_REGIONS; r++) {
			if (!base[r])
				continue;
			for (i = 0; i < units(r); i++) {
				if (!touched(r, i, w))
					continue;
				off = i * PAGE;
				/* One small page inside each huge page. */
				if (r == R_THP)
					off = i * HPAGE +
					      hash(r, i, w) % 512 * PAGE;
				if (w == 0 && r == R_THP)
					memset(base[r] + i * HPAGE, 1, HPAGE);
				else if (r != R_FILE && r != R_ZERO &&
					 (w == 0 || (i + w) % 2))
					base[r][off] = (char)w;
				else
					sink += base[r][off];
			}
		}
		if (send_msg(rsp, &m))
			return 2;
	}
	(void)sink;
	return 0;
}

/* AnonHugePages of the worker's VMA at @addr, in kB (-1 if not found). */
static long thp_kb(pid_t pid, uint64_t addr)
{
	unsigned long lo, hi;
	long kb = -1;
	char path[64], line[256];
	int in = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = addr >= lo && addr < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* The truth for region @r in window @w, as page ids of @proc. */
static size_t truth(int r, int w, uint32_t proc, uint64_t base, uint64_t *out)
{
	size_t i, j, n = 0;

	if (r == R_ZERO)
		return 0;
	for (i = 0; i < units(r); i++) {
		if (!touched(r, i, w))
			continue;
		if (r != R_THP) {
			out[n++] = mdk_sampler_page_id(proc, base + i * PAGE);
			continue;
		}
		for (j = 0; j < 512; j++)
			out[n++] = mdk_sampler_page_id(proc, base + i * HPAGE +
								     j * PAGE);
	}
	return n;
}

int main(void)
{
	struct mdk_sampler_opts opts = { .tier_node = -1 };
	struct score tot[NR_REGIONS] = { 0 };
	int exact[NR_REGIONS], sorted = 1, one_proc = 1, others = 1, r, w;
	struct mdk_sampler_window win;
	const struct mdk_sampler_proc *p;
	uint64_t base[NR_REGIONS], *want;
	struct mdk_sampler *s;
	const uint64_t *got;
	struct wmsg m, hello;
	struct worker wk = { 0 };
	uint32_t proc = UINT32_MAX;
	char cg[256], msg[512];
	size_t ng, nw, outside;
	long kb;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	ksft_set_plan(10);

	if (cg_make(cg, sizeof(cg), "mdk-sampler-exact"))
		ksft_exit_fail_msg("mkdir %s: %s\n", cg, strerror(errno));
	opts.cgroup = cg;
	s = mdk_sampler_new(&opts, msg, sizeof(msg));
	ksft_test_result(s != NULL, "sampler loads on cgroup %s%s%s\n", cg,
			 s ? "" : ": ", s ? "" : msg);
	if (!s) {
		rmdir(cg);
		ksft_exit_fail_msg("%s\n", msg);
	}
	if (worker_start(&wk, cg, worker, NULL, &hello))
		ksft_exit_fail_msg("worker did not start\n");
	for (r = 0; r < NR_REGIONS; r++) {
		base[r] = hello.v[r];
		exact[r] = 1;
	}
	if (mdk_sampler_start(s, msg, sizeof(msg)))
		ksft_exit_fail_msg("start: %s\n", msg);
	want = calloc(THP_PAGES + ANON_PAGES, sizeof(*want));

	for (w = 0; w < WINDOWS; w++) {
		m = (struct wmsg){ .op = 1, .arg = w };
		if (worker_call(&wk, &m, &m))
			ksft_exit_fail_msg("worker died in window %d\n", w);
		if (mdk_sampler_next(s, &win, msg, sizeof(msg)))
			ksft_exit_fail_msg("window %d: %s\n", w, msg);
		sorted &= window_sorted(&win);
		one_proc &= win.nr_procs == 1 && win.nr_joined == 0 &&
			    mdk_sampler_nr_procs(s) == 1;
		if (proc == UINT32_MAX && win.nr_pages)
			proc = mdk_sampler_page_id_proc(win.pages[0]);
		outside = win.nr_pages;
		for (r = 0; r < NR_REGIONS; r++) {
			struct score sc;

			if (!base[r])
				continue;
			ng = ids_in(&win, proc, base[r],
				    base[r] + region_pages[r] * PAGE, &got);
			outside -= ng;
			nw = truth(r, w, proc, base[r], want);
			sc = score_sets(got, ng, want, nw);
			tot[r].tp += sc.tp;
			tot[r].fp += sc.fp;
			tot[r].fn += sc.fn;
			if (sc.fp || sc.fn)
				exact[r] = 0;
			ksft_print_msg("window %d %-22s want %5zu got %5zu "
				       "(fp %zu, fn %zu)\n",
				       w, region_name[r], nw, ng, sc.fp, sc.fn);
		}
		others &= outside > 0;
		ksft_print_msg("window %d: %zu pages, %zu outside the regions, "
			       "cpu %.2f ms (walk %.2f, clear %.2f), %llu "
			       "PTE tables\n",
			       w, win.nr_pages, outside, win.cpu_ns / 1e6,
			       win.walk_ns / 1e6, win.clear_ns / 1e6,
			       (unsigned long long)win.ptes_tables);
	}
	kb = thp_kb(wk.pid, base[R_THP]);

	ksft_test_result(sorted, "every window's ids are sorted and unique\n");
	p = mdk_sampler_proc(s, proc);
	ksft_test_result(one_proc && p && p->pid == wk.pid && p->alive &&
				 p->first_window == 0 &&
				 p->last_window == WINDOWS - 1,
			 "one process, numbered %u = pid %d, windows 0-%d\n",
			 proc, wk.pid, WINDOWS - 1);
	ksft_test_result(others, "the worker's own code and stack pages are "
				 "seen every window\n");
	for (r = 0; r < NR_REGIONS; r++) {
		if (r == R_THP)
			ksft_test_result(kb == (long)(THP_PAGES * 4),
					 "the THP region is PMD-mapped "
					 "(AnonHugePages %ld kB)\n",
					 kb);
		if (!base[r]) {
			ksft_test_result_skip("%s: not mapped\n",
					      region_name[r]);
			continue;
		}
		ksft_test_result(exact[r],
				 "%s: precision %.3f recall %.3f over %d "
				 "windows (%zu pages right, %zu extra, %zu "
				 "missed)\n",
				 region_name[r], precision(tot[r]),
				 recall(tot[r]), WINDOWS, tot[r].tp, tot[r].fp,
				 tot[r].fn);
	}

	r = worker_stop(&wk);
	if (r)
		ksft_print_msg("worker exit status 0x%x\n", r);
	mdk_sampler_free(s);
	free(want);
	if (rmdir(cg))
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
	ksft_finished();
}
