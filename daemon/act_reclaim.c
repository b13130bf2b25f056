// SPDX-License-Identifier: GPL-2.0
/*
 * actuator reclaim: write the decision to the cgroup's memory.reclaim
 * (Linux 5.19+), asynchronously on the loop.  Stateless: it sets no limit,
 * so nothing outlives the daemon.  The kernel answers EAGAIN when it
 * reclaimed less than asked (the cgroup has little cold memory left); the
 * core turns EAGAIN and EBUSY into a back-off.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "controller.h"
#include "log.h"
#include "target.h"

struct reclaim_state {
	int fd;
	char buf[48];
	size_t len;
};

static int reclaim_probe(int dirfd, char *err, size_t errlen)
{
	if (faccessat(dirfd, "memory.reclaim", F_OK, 0)) {
		snprintf(err, errlen,
			 "memory.reclaim: %s (it exists since Linux 5.19)",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

static int reclaim_attach(struct mdkd_target *t, void *state, char *err,
			  size_t errlen)
{
	struct reclaim_state *st = state;

	st->fd = openat(t->dirfd, "memory.reclaim", O_WRONLY | O_CLOEXEC);
	if (st->fd < 0) {
		snprintf(err, errlen, "memory.reclaim: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static void reclaim_done(struct mdkd_target *t, void *state, int res)
{
	struct reclaim_state *st = state;

	if (res >= 0 && (size_t)res != st->len)
		res = -EIO;
	mdkd_target_act_done(t, res < 0 ? res : 0);
}

static int reclaim_apply(struct mdkd_target *t, void *state, uint64_t bytes,
			 struct mdkd_pages *pages)
{
	struct reclaim_state *st = state;

	/* The kernel strips the newline; a fake tree gets one line a write. */
	if (t->swappiness >= 0)
		st->len = (size_t)snprintf(st->buf, sizeof(st->buf),
					   "%llu swappiness=%d\n",
					   (unsigned long long)bytes,
					   t->swappiness);
	else
		st->len = (size_t)snprintf(st->buf, sizeof(st->buf), "%llu\n",
					   (unsigned long long)bytes);
	return mdkd_target_queue_write(t, st->fd, st->buf, st->len, false,
				       reclaim_done);
}

static void reclaim_detach(struct mdkd_target *t, void *state)
{
	struct reclaim_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
}

const struct mdkd_actuator_ops mdkd_act_reclaim = {
	.name = "reclaim",
	.action = MDKD_ACT_RECLAIM,
	.swap_backed = true,
	.help = "write the amount to memory.reclaim (stateless, Linux 5.19+)",
	.state_size = sizeof(struct reclaim_state),
	.probe = reclaim_probe,
	.attach = reclaim_attach,
	.apply = reclaim_apply,
	.restore = NULL,
	.detach = reclaim_detach,
};
