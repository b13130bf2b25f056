// SPDX-License-Identifier: GPL-2.0
/* mdkd's signals: see signals.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "signals.h"

static void sig_done(struct mdkd_op *op, int res)
{
	struct mdkd_signals *s =
		(struct mdkd_signals *)((char *)op -
					offsetof(struct mdkd_signals, op));
	struct signalfd_siginfo *si = (struct signalfd_siginfo *)s->buf;
	bool more = true;

	s->armed = false;
	if (res == (int)sizeof(*si))
		more = s->fn(s->arg, (int)si->ssi_signo);
	if (res != -ECANCELED && more)
		mdkd_signals_arm(s);
}

void mdkd_signals_init(struct mdkd_signals *s)
{
	s->fd = -1;
	s->armed = false;
}

void mdkd_signals_arm(struct mdkd_signals *s)
{
	struct io_uring_sqe *sqe;

	if (s->fd < 0 || s->armed)
		return;
	sqe = mdkd_loop_sqe(s->loop, &s->op);
	if (!sqe)
		return;
	io_uring_prep_read(sqe, s->fd, s->buf, sizeof(struct signalfd_siginfo),
			   0);
	s->armed = true;
}

int mdkd_signals_setup(struct mdkd_signals *s, struct mdkd_loop *loop,
		       mdkd_signal_fn fn, void *arg, char *err, size_t errlen)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		snprintf(err, errlen, "sigprocmask: %s", strerror(errno));
		return -errno;
	}
	s->fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (s->fd < 0) {
		snprintf(err, errlen, "signalfd: %s", strerror(errno));
		return -errno;
	}
	s->loop = loop;
	s->fn = fn;
	s->arg = arg;
	s->op.fn = sig_done;
	signal(SIGPIPE, SIG_IGN);
	mdkd_signals_arm(s);
	return 0;
}

void mdkd_signals_close(struct mdkd_signals *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
