// SPDX-License-Identifier: GPL-2.0
/* Page-outs past zswap: see zswap_off.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "target.h"
#include "zswap_off.h"

#define ZSWAP_MAX "memory.zswap.max"

bool mdkd_zswap_off_able(int dirfd)
{
	return faccessat(dirfd, ZSWAP_MAX, W_OK, 0) == 0;
}

int mdkd_zswap_off(struct mdkd_target *t, struct mdkd_zswap_off *z)
{
	ssize_t n;
	int ret;

	z->fd = openat(t->dirfd, ZSWAP_MAX, O_RDWR | O_CLOEXEC);
	if (z->fd < 0)
		return -errno;
	n = pread(z->fd, z->orig, sizeof(z->orig) - 1, 0);
	if (n <= 0 || z->orig[n - 1] != '\n') {
		ret = n < 0 ? -errno : -EIO;
		goto err;
	}
	z->orig[n] = '\0';
	snprintf(z->journal, sizeof(z->journal), "%s/zswap-off/%llu",
		 t->state_dir, (unsigned long long)t->id);
	ret = mdkd_journal_write(t->state_dir, "zswap-off", z->journal, t->path,
				 z->orig, "0\n");
	if (ret)
		goto err;
	if (pwrite(z->fd, "0", 1, 0) != 1) {
		ret = -errno;
		unlink(z->journal);
		goto err;
	}
	return 0;
err:
	close(z->fd);
	z->fd = -1;
	return ret;
}

int mdkd_zswap_on(struct mdkd_target *t, struct mdkd_zswap_off *z)
{
	size_t len = strlen(z->orig);
	int ret = 0;

	if (z->fd < 0)
		return 0;
	if (pwrite(z->fd, z->orig, len, 0) != (ssize_t)len) {
		ret = -errno;
		log_err("%s: could not restore " ZSWAP_MAX
			" to %.*s: %s (journal %s kept)",
			t->path, (int)len - 1, z->orig, strerror(-ret),
			z->journal);
	} else {
		unlink(z->journal);
	}
	close(z->fd);
	z->fd = -1;
	return ret;
}
