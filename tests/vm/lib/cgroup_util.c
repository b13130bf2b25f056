// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of cgroup_util.h: a scratch cgroup v2 and its files.
 */
#include "cgroup_util.h"

int cg_write(const char *cg, const char *file, const char *val)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

int cg_read(const char *cg, const char *file, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int cg_add(const char *cg, pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", pid);
	return cg_write(cg, "cgroup.procs", buf);
}

int cg_make(char *cg, size_t len, const char *name)
{
	snprintf(cg, len, "/sys/fs/cgroup/%s-%d", name, getpid());
	if (mkdir(cg, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}
