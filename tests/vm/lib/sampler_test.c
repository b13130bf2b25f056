// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of sampler_test.h: the worker process and the scoring of windows.
 */
#include "sampler_test.h"

int send_msg(int fd, const struct wmsg *m)
{
	return write(fd, m, sizeof(*m)) == sizeof(*m) ? 0 : -EPIPE;
}

int recv_msg(int fd, struct wmsg *m)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(*m)) {
		n = read(fd, (char *)m + got, sizeof(*m) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		got += n;
	}
	return 0;
}

int worker_start(struct worker *w, const char *cg,
		 int (*fn)(int cmd, int rsp, void *arg), void *arg,
		 struct wmsg *hello)
{
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (!w->pid) {
		close(a[1]);
		close(b[0]);
		if (cg && cg_add(cg, getpid()))
			_exit(3);
		_exit(fn(a[0], b[1], arg));
	}
	close(a[0]);
	close(b[1]);
	w->cmd = a[1];
	w->rsp = b[0];
	return recv_msg(w->rsp, hello);
}

int worker_call(struct worker *w, const struct wmsg *req, struct wmsg *rsp)
{
	int err = send_msg(w->cmd, req);

	return err ? err : recv_msg(w->rsp, rsp);
}

int worker_stop(struct worker *w)
{
	struct wmsg m = { 0 };
	int status = 0;

	if (w->pid <= 0)
		return 0;
	send_msg(w->cmd, &m);
	close(w->cmd);
	close(w->rsp);
	if (waitpid(w->pid, &status, 0) < 0)
		status = -1;
	w->pid = 0;
	return status;
}

size_t ids_range(const struct mdk_sampler_window *w, uint64_t a, uint64_t b,
		 const uint64_t **first)
{
	size_t l = 0, r = w->nr_pages, m, start;

	while (l < r) {
		m = (l + r) / 2;
		if (w->pages[m] < a)
			l = m + 1;
		else
			r = m;
	}
	start = l;
	r = w->nr_pages;
	while (l < r) {
		m = (l + r) / 2;
		if (w->pages[m] < b)
			l = m + 1;
		else
			r = m;
	}
	*first = w->pages + start;
	return l - start;
}

size_t ids_in(const struct mdk_sampler_window *w, uint32_t proc, uint64_t lo,
	      uint64_t hi, const uint64_t **first)
{
	return ids_range(w, mdk_sampler_page_id(proc, lo),
			 mdk_sampler_page_id(proc, hi), first);
}

size_t ids_of(const struct mdk_sampler_window *w, uint32_t proc,
	      const uint64_t **first)
{
	return ids_range(w, (uint64_t)proc << MDK_SAMPLER_PAGE_VPN_BITS,
			 (uint64_t)(proc + 1) << MDK_SAMPLER_PAGE_VPN_BITS,
			 first);
}

struct score score_sets(const uint64_t *got, size_t ng, const uint64_t *want,
			size_t nw)
{
	struct score s = { 0 };
	size_t i = 0, j = 0;

	while (i < ng || j < nw) {
		if (j == nw || (i < ng && got[i] < want[j])) {
			s.fp++;
			i++;
		} else if (i == ng || want[j] < got[i]) {
			s.fn++;
			j++;
		} else {
			s.tp++;
			i++;
			j++;
		}
	}
	return s;
}

double precision(struct score s)
{
	return s.tp + s.fp ? (double)s.tp / (s.tp + s.fp) : 1.0;
}

double recall(struct score s)
{
	return s.tp + s.fn ? (double)s.tp / (s.tp + s.fn) : 1.0;
}

int window_sorted(const struct mdk_sampler_window *w)
{
	size_t i;

	for (i = 1; i < w->nr_pages; i++)
		if (w->pages[i] <= w->pages[i - 1])
			return 0;
	return 1;
}
