// SPDX-License-Identifier: GPL-2.0
/* Policy mode, swap back end: the swap-cache drop (mode_policy_int.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller.h"
#include "log.h"
#include "loop.h"
#include "mode_policy_int.h"
#include "pages.h"
#include "target.h"

/* memory.stat's swapcached of @st's cgroup now, or -errno. */
static int64_t swapcached(struct policy_state *st)
{
	struct mdkd_memstat ms;
	char buf[8192], err[128];
	ssize_t n;
	int fd;

	fd = openat(st->t->dirfd, "memory.stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	if (mdkd_memstat_parse(buf, (size_t)n, &ms, err, sizeof(err)) ||
	    !ms.has_swapcached)
		return -ENOENT;
	return (int64_t)ms.swapcached;
}

/* memory.reclaim of @bytes from @fd, anon pages where the kernel can. */
static int reclaim_write(struct policy_state *st, int fd, uint64_t bytes)
{
	char buf[48];
	int len;

	if (!st->drop_probed) {
		/* Linux 6.9 on; EINVAL before. */
		int ret = mdkd_reclaim_swappiness_probe(st->t->dirfd);

		if (ret < 0)
			return ret;
		st->drop_anon_only = ret;
		st->drop_probed = true;
		log_info(
			"%s: drop_swap_cache: memory.reclaim %s", st->t->path,
			ret ? "of anon pages only (swappiness=200)" :
			      "takes no swappiness: the kernel's choice of pages");
	}
	len = snprintf(buf, sizeof(buf), "%" PRIu64 "%s", bytes,
		       st->drop_anon_only ? " swappiness=200" : "");
	return write(fd, buf, len) == len ? 0 : -errno;
}

/*
 * The sampler's before_reset hook, swap back end.  A page MADV_PAGEOUT
 * writes to a swap device is under writeback when the call returns, so it
 * stays in the swap cache, charged to the cgroup, until the kernel
 * reclaims again; the end of its writeback normally moves it to the tail
 * of the inactive list.  One memory.reclaim of those written back takes
 * them first (mdkd_swap_cache_drop()).  zswap frees the pages it stores
 * at once, but those it rejects (compressing poorly, or over a limit) go
 * to the device and stay cached like the others.  With swappiness=200
 * (Linux 6.9 on) the kernel scans anon pages (file pages only when no
 * anon is left to scan): file pages, which the policy did not pick and
 * which come back at once, are left alone.  One write, not several: a
 * page the kernel's scan spared as referenced has lost its Accessed bit
 * to that scan, and the next scan, soon after, takes it.  It runs here,
 * while the Accessed bits are this window's: after the sampler's reset
 * the kernel would see every page idle and take pages in use, and its
 * scan would clear the bits the next walk needs.
 */
void mdkd_policy_drop_swap_cache(void *arg, const struct mdk_sampler_window *w)
{
	struct policy_state *st = arg;
	/* The interval's memory.stat, read as the window ended. */
	const struct mdkd_memstat *ms = &st->cur->stat;
	uint64_t bytes, t0;
	int64_t after;
	int fd, ret;

	bytes = st->advised_bytes;
	st->advised_bytes = 0;
	/*
	 * What the kernel's reclaim takes besides the swap cache comes back
	 * as promotions of pages no setting picked: the curves count them
	 * as measured, so that they price the drop (evaluator.h).
	 */
	if (st->eval)
		mdk_eval_count_unacted(st->eval, st->t->set->drop_swap_cache);
	if (!ms->has_swapcached)
		return;
	/* Kept with the drop off too: turned on, it drops what is there. */
	bytes = mdkd_swap_cache_drop(
		&st->pending_bytes, bytes,
		w->have_counters ? w->swapin_pages * MDKD_PAGE_SIZE : 0,
		ms->swapcached, ms->file_writeback);
	if (bytes < MDKD_PAGE_SIZE || !st->t->set->drop_swap_cache)
		return;
	fd = openat(st->t->dirfd, "memory.reclaim", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		mdkd_policy_error(st, "drop_swap_cache: memory.reclaim: %s",
				  strerror(errno));
		return;
	}
	t0 = mdkd_now_us();
	ret = reclaim_write(st, fd, bytes);
	if (ret == -EAGAIN)
		st->tot.drop_short++;
	else if (ret)
		mdkd_policy_error(st, "drop_swap_cache: memory.reclaim: %s",
				  strerror(-ret));
	close(fd);
	st->tot.drop_us += mdkd_now_us() - t0;
	st->tot.drops++;
	st->tot.drop_bytes += bytes;
	/* Asked once: what the kernel took instead is not asked again. */
	st->pending_bytes -= bytes;
	after = swapcached(st);
	if (after >= 0 && (uint64_t)after < ms->swapcached)
		st->tot.drop_freed += ms->swapcached - (uint64_t)after;
	log_debug("%s: drop_swap_cache: memory.reclaim %" PRIu64
		  " (swapcached %" PRIu64 ", %" PRIu64
		  " under writeback): swapcached %" PRId64,
		  st->t->path, bytes, ms->swapcached, ms->file_writeback,
		  after);
}
