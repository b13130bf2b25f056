// SPDX-License-Identifier: GPL-2.0
/*
 * actuator high-pulse: the fallback for kernels without memory.reclaim
 * (before 5.19), in the manner of senpai.py.  One action writes
 * memory.high = memory.current - amount, which makes the kernel reclaim
 * down to it in the writer's context, then writes the previous value back:
 * two writes linked with IOSQE_IO_HARDLINK, so the restore runs even when
 * the first write fails.
 *
 * This is not stateless as memory.reclaim is: while the pulse runs the
 * cgroup has a limit, and a daemon killed in between would leave it.  So
 * before each pulse the actuator writes a journal entry
 * (STATE_DIR/high-pulse/<cgroup inode>: path, previous value, pulse
 * value) and deletes it once the value is back.  mdkd replays the journal
 * at start and "mdkd --restore" (the unit's ExecStopPost=) replays it after
 * any exit, kill -9 included: a cgroup whose memory.high still reads the
 * pulse value gets its previous value back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controller.h"
#include "journal.h"
#include "log.h"
#include "target.h"

struct high_state {
	int fd;
	char orig[32]; /* memory.high before mdkd touched it */
	char target[32];
	size_t orig_len, target_len;
	char journal[MDKD_PATH_MAX + 64];
	int pulse_res;
	unsigned int pending;
};

static int high_probe(int dirfd, char *err, size_t errlen)
{
	if (faccessat(dirfd, "memory.high", F_OK, 0)) {
		snprintf(err, errlen, "memory.high: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int high_attach(struct mdkd_target *t, void *state, char *err,
		       size_t errlen)
{
	struct high_state *st = state;
	ssize_t n;

	st->fd = openat(t->dirfd, "memory.high", O_RDWR | O_CLOEXEC);
	if (st->fd < 0) {
		snprintf(err, errlen, "memory.high: %s", strerror(errno));
		return -errno;
	}
	n = pread(st->fd, st->orig, sizeof(st->orig) - 2, 0);
	if (n <= 0) {
		snprintf(err, errlen, "memory.high: cannot read it");
		close(st->fd);
		st->fd = -1;
		return n < 0 ? -errno : -EIO;
	}
	st->orig[n] = '\0';
	st->orig[strcspn(st->orig, "\n")] = '\0';
	if (strcmp(st->orig, "max"))
		log_notice("%s: memory.high is %s; pulses restore it to that",
			   t->path, st->orig);
	st->orig_len = strlen(st->orig);
	st->orig[st->orig_len++] = '\n';
	st->orig[st->orig_len] = '\0';
	snprintf(st->journal, sizeof(st->journal), "%s/high-pulse/%llu",
		 t->state_dir, (unsigned long long)t->id);
	return 0;
}

static void high_done(struct mdkd_target *t, void *state, int res)
{
	struct high_state *st = state;

	if (st->pending == 2) {
		st->pulse_res = res < 0 ? res : 0;
		st->pending = 1;
		return;
	}
	st->pending = 0;
	if (res == -ECANCELED) {
		/* Shutdown cancelled the restore: mdkd replays the journal. */
	} else if (res < 0) {
		log_err("%s: could not restore memory.high to %.*s: %s (journal %s kept)",
			t->path, (int)st->orig_len - 1, st->orig,
			strerror(-res), st->journal);
	} else {
		unlink(st->journal);
	}
	mdkd_target_act_done(t, st->pulse_res);
}

static int high_apply(struct mdkd_target *t, void *state, uint64_t bytes,
		      struct mdkd_pages *pages)
{
	struct high_state *st = state;
	uint64_t cur = t->sample->current_bytes, target;
	int ret;

	target = cur > bytes ? (cur - bytes) & ~(MDKD_PAGE_SIZE - 1) : 0;
	st->target_len = (size_t)snprintf(st->target, sizeof(st->target),
					  "%llu\n", (unsigned long long)target);
	ret = mdkd_journal_write(t->state_dir, "high-pulse", st->journal,
				 t->path, st->orig, st->target);
	if (ret) {
		/* Without the journal a crash could leave the limit: skip. */
		log_err("%s: cannot write the journal %s: %s; not pulsing",
			t->path, st->journal, strerror(-ret));
		return ret;
	}
	st->pending = 2;
	ret = mdkd_target_queue_write(t, st->fd, st->target, st->target_len,
				      true, high_done);
	if (!ret)
		ret = mdkd_target_queue_write(t, st->fd, st->orig, st->orig_len,
					      false, high_done);
	if (ret) {
		st->pending = 0;
		unlink(st->journal);
	}
	return ret;
}

static void high_restore(struct mdkd_target *t, void *state)
{
	struct high_state *st = state;

	if (st->fd < 0 || !st->pending)
		return;
	/* A pulse was cut short (exit): put the value back now. */
	if (pwrite(st->fd, st->orig, st->orig_len, 0) == (ssize_t)st->orig_len)
		unlink(st->journal);
	else
		log_err("%s: could not restore memory.high: %s (journal %s kept)",
			t->path, strerror(errno), st->journal);
}

static void high_detach(struct mdkd_target *t, void *state)
{
	struct high_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
}

const struct mdkd_actuator_ops mdkd_act_high_pulse = {
	.name = "high-pulse",
	.action = MDKD_ACT_RECLAIM,
	.swap_backed = true,
	.help = "lower memory.high for one write, then restore it (kernels without memory.reclaim)",
	.state_size = sizeof(struct high_state),
	.probe = high_probe,
	.attach = high_attach,
	.apply = high_apply,
	.restore = high_restore,
	.detach = high_detach,
};
