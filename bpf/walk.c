// SPDX-License-Identifier: GPL-2.0
/*
 * One process's walk: the iterator sample_vma attached to its PID, run
 * once per pass; a pass stops when the record map is full and the next
 * one goes on from where it stopped, after the records became ids
 * (ids.c).  The first pass also tells who the task is (thread, mm, start
 * time), for procs.c to tell a reused PID or an exec.
 */
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sampler_int.h"
#include "sampler.skel.h"

/* One pass from wk->resume (UINT64_MAX: no pages, only the task). */
static int walk_pass(struct mdk_sampler *s, struct walker *wk)
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

static void uncache_links(struct mdk_sampler *s)
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
int sampler__walk_begin(struct mdk_sampler *s, pid_t pid,
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

/* Give the walk's iterator to @e to keep (see sampler__walk_begin()). */
void sampler__walk_keep(struct mdk_sampler *s, struct walker *wk,
			struct proc_ent *e)
{
	if (wk->cached || s->no_link_cache || e->link)
		return;
	e->link = wk->link;
	wk->cached = true;
}

/*
 * Finish the walk: when @report, turn every pass's records into page ids
 * of process number @proc (sampler__ids_add()); then detach.
 */
int sampler__walk_finish(struct mdk_sampler *s, struct walker *wk,
			 uint32_t proc, bool report)
{
	int err = 0;

	if (report && wk->resume == UINT64_MAX) {
		/* The first pass only identified the task. */
		wk->resume = 0;
		err = walk_pass(s, wk);
	}
	while (report && !err) {
		err = sampler__ids_add(s, proc, wk->nr);
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
