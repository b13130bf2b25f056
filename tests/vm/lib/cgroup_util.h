/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the C VM tests that work in a scratch cgroup v2
 * (cgroup_reclaim.c, and the sampler tests through sampler_test.h):
 * making it, moving a process in, reading and writing its files.
 * Defined in cgroup_util.c.
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
int cg_write(const char *cg, const char *file, const char *val);

/* Reads @cg/@file into @buf (NUL-terminated, cut to @len - 1); 0 or -errno. */
int cg_read(const char *cg, const char *file, char *buf, size_t len);

int cg_add(const char *cg, pid_t pid);

/* A fresh cgroup /sys/fs/cgroup/NAME-PID. */
int cg_make(char *cg, size_t len, const char *name);

#endif /* MDK_TESTS_CGROUP_UTIL_H */
