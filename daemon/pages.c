// SPDX-License-Identifier: GPL-2.0
/*
 * What the page actuators share (pages.h): the system calls, and where the
 * CMM-MP node and the DRAM node are.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pages.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

static int real_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static ssize_t real_process_madvise(int pidfd, const struct iovec *iov,
				    size_t n, int advice)
{
	return syscall(SYS_process_madvise, pidfd, iov, n, advice, 0);
}

static long real_move_pages(pid_t pid, unsigned long count, void **pages,
			    const int *nodes, int *status)
{
	/* MPOL_MF_MOVE: pages mapped by this process only, as a policy
	 * decided for this process's pages. */
	return numa_move_pages(pid, count, pages, nodes, status, MPOL_MF_MOVE);
}

const struct mdkd_page_sys mdkd_page_sys_real = {
	.pidfd_open = real_pidfd_open,
	.process_madvise = real_process_madvise,
	.move_pages = real_move_pages,
	.close = close,
};

int mdkd_read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno; /* before close() may change errno */
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return (int)n;
}

int mdkd_cmm_mp_node(const char *sys_root)
{
	char path[4200], buf[32], *end;
	long v;
	int ret;

	snprintf(path, sizeof(path), "%s/kernel/cmm_mp/node",
		 sys_root ? sys_root : "/sys");
	ret = mdkd_read_small(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n') || errno || v < 0 || v > 65535)
		return -EINVAL;
	return (int)v;
}

int mdkd_home_node(const char *sys_root, int tier)
{
	char path[4200], buf[256];
	int node;

	for (node = 0; node < 1024; node++) {
		int ret;

		if (node == tier)
			continue;
		snprintf(path, sizeof(path),
			 "%s/devices/system/node/node%d/cpulist",
			 sys_root ? sys_root : "/sys", node);
		ret = mdkd_read_small(path, buf, sizeof(buf));
		if (ret == -ENOENT && node > 64)
			break;
		if (ret > 0 && buf[0] != '\n')
			return node;
	}
	return -ENOENT;
}
