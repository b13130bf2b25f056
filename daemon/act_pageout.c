// SPDX-License-Identifier: GPL-2.0
/*
 * actuator pageout: the swap and zswap back end of policy mode.  The pages
 * the policy picked go to process_madvise(2) with MADV_PAGEOUT, which
 * reclaims them at once: anonymous pages to swap (or zswap), clean file
 * pages dropped, dirty ones written back.  Shared pages (mapped by more
 * than one process) and locked ones are left alone by the kernel; the
 * call cannot say which, so "advised" counts what was handed over.
 *
 * One pidfd per process and action; its pages, sorted by address, become
 * one iovec per run of contiguous pages, at most UIO_MAXIOV a call.  The
 * kernel works through the iovecs in order and stops at the first range
 * it refuses (an unmapped or locked range): it returns the bytes advised
 * before it, or the error when it is the first.  mdkd resumes after the
 * refused range.  Synchronous: the reclaim runs in mdkd's context, as it
 * would in memory.reclaim's writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mdk/util.h>

#include "controller.h"
#include "pages.h"
#include "target.h"
#include "bpf/loader.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static void count_err(struct mdkd_pages_result *r, int err, uint64_t pages)
{
	if (err == ESRCH)
		r->gone += pages;
	else if (err == EPERM)
		r->denied += pages;
	else
		r->failed += pages;
	if (!r->first_error)
		r->first_error = -err;
}

/* Pages [i, j) of @p->out all belong to one process. */
static int pageout_proc(const struct mdkd_page_sys *sys, struct mdkd_pages *p,
			size_t i, size_t j, struct iovec **iov, size_t *cap)
{
	struct mdkd_pages_result *r = &p->res;
	pid_t pid = p->pid_of(p->pid_arg, mdk_sampler_page_id_proc(p->out[i]));
	size_t niov = 0, k, m;
	int fd;

	if (pid <= 0) {
		r->gone += j - i;
		return 0;
	}
	/* Runs of contiguous pages, one iovec each. */
	for (k = i; k < j; k++) {
		uint64_t a = mdk_sampler_page_id_addr(p->out[k]);

		if (niov && (uint64_t)(uintptr_t)(*iov)[niov - 1].iov_base +
					    (*iov)[niov - 1].iov_len ==
				    a) {
			(*iov)[niov - 1].iov_len += MDKD_PAGE_SIZE;
			continue;
		}
		if (mdk_grow((void **)iov, cap, niov + 1, sizeof(**iov)))
			return -ENOMEM;
		(*iov)[niov].iov_base = (void *)(uintptr_t)a;
		(*iov)[niov].iov_len = MDKD_PAGE_SIZE;
		niov++;
	}
	fd = sys->pidfd_open(pid);
	if (fd < 0) {
		count_err(r, errno, j - i);
		return 0;
	}
	for (k = 0; k < niov;) {
		ssize_t ret;

		m = niov - k < MDKD_PAGEOUT_MAX_IOV ? niov - k :
						      MDKD_PAGEOUT_MAX_IOV;
		ret = sys->process_madvise(fd, *iov + k, m, MADV_PAGEOUT);
		r->calls++;
		if (ret < 0) {
			int err = errno;
			uint64_t pages = 0;
			size_t q, upto = err == ESRCH || err == EPERM ? niov :
									k + 1;

			/* The process is gone or closed to us: all of it. */
			for (q = k; q < upto; q++)
				pages += (*iov)[q].iov_len / MDKD_PAGE_SIZE;
			count_err(r, err, pages);
			k = upto;
			continue;
		}
		/* Whole iovecs were advised; the one after them was refused. */
		while (k < niov && (size_t)ret >= (*iov)[k].iov_len && m) {
			ret -= (ssize_t)(*iov)[k].iov_len;
			r->out_done += (*iov)[k].iov_len / MDKD_PAGE_SIZE;
			k++;
			m--;
		}
		if (m) {
			/* A partial range (not seen from the kernels we know)
			 * counts as advised up to where it stopped. */
			uint64_t pages = (*iov)[k].iov_len / MDKD_PAGE_SIZE,
				 part = (uint64_t)ret / MDKD_PAGE_SIZE;

			r->out_done += part;
			count_err(r, EINVAL, pages - part);
			k++;
		}
	}
	sys->close(fd);
	return 0;
}

int mdkd_pageout(const struct mdkd_page_sys *sys, struct mdkd_pages *p,
		 size_t n)
{
	struct iovec *iov = NULL;
	size_t cap = 0, i, j;
	int ret = 0;

	if (n > p->nout)
		n = p->nout;
	for (i = 0; i < n && !ret; i = j) {
		uint32_t proc = mdk_sampler_page_id_proc(p->out[i]);

		for (j = i + 1;
		     j < n && mdk_sampler_page_id_proc(p->out[j]) == proc; j++)
			;
		ret = pageout_proc(sys, p, i, j, &iov, &cap);
	}
	p->res.out_tried += ret ? i : n;
	free(iov);
	return ret;
}

uint64_t mdkd_swap_cache_drop(uint64_t *pending, uint64_t advised,
			      uint64_t swapin, uint64_t swapcached,
			      uint64_t writeback)
{
	uint64_t p = *pending + advised, clean;

	p = p > swapin ? p - swapin : 0;
	if (p > swapcached)
		p = swapcached;
	*pending = p;
	clean = swapcached > writeback ? swapcached - writeback : 0;
	if (p > clean)
		p = clean;
	return p / MDKD_PAGE_SIZE * MDKD_PAGE_SIZE;
}

static int pageout_attach(struct mdkd_target *t, void *state, char *err,
			  size_t errlen)
{
	return mdkd_pages_attach(t, "pageout", err, errlen);
}

static int pageout_apply(struct mdkd_target *t, void *state, uint64_t bytes,
			 struct mdkd_pages *p)
{
	int ret;

	if (!p) {
		mdkd_target_act_done(t, -EINVAL);
		return 1;
	}
	memset(&p->res, 0, sizeof(p->res));
	ret = mdkd_pageout(t->page_sys, p, bytes / MDKD_PAGE_SIZE);
	mdkd_pages_done(t, p, "pageout", false, ret);
	return 1;
}

const struct mdkd_actuator_ops mdkd_act_pageout = {
	.name = "pageout",
	.action = MDKD_ACT_PAGEOUT,
	.swap_backed = true,
	.help = "process_madvise(MADV_PAGEOUT) of the pages mode policy picks (swap, zswap)",
	.state_size = 0,
	.probe = NULL,
	.attach = pageout_attach,
	.apply = pageout_apply,
	.restore = NULL,
	.detach = NULL,
};
