/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the C VM tests that work in a scratch cgroup v2
 * (cgroup_reclaim.c, and the sampler tests through sampler_test.h):
 * making it, moving a process in, reading and writing its files.
 */
#ifndef MDK_TESTS_CGROUP_UTIL_H
#define MDK_TESTS_CGROUP_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Writes @val to @cg/@file; 0 or -errno. */
static inline int cg_write(const char *cg, const char *file, const char *val)
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

/* Reads @cg/@file into @buf (NUL-terminated, cut to @len - 1); 0 or -errno. */
static inline int cg_read(const char *cg, const char *file, char *buf,
			  size_t len)
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

static inline int cg_add(const char *cg, pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", pid);
	return cg_write(cg, "cgroup.procs", buf);
}

/* A fresh cgroup /sys/fs/cgroup/NAME-PID. */
static inline int cg_make(char *cg, size_t len, const char *name)
{
	snprintf(cg, len, "/sys/fs/cgroup/%s-%d", name, getpid());
	if (mkdir(cg, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

#endif /* MDK_TESTS_CGROUP_UTIL_H */
