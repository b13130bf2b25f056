/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake cgroup2 tree and procfs in a temporary directory, for the unit
 * tests of the daemon: plain files with the names and formats of the
 * kernel's.  memory.reclaim and memory.high are regular files, so what
 * mdkd writes to them can be read back (one line per write).
 * Defined in fakecg.c.
 */
#ifndef MDK_TESTS_FAKECG_H
#define MDK_TESTS_FAKECG_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fakecg {
	char top[PATH_MAX]; /* the temporary directory */
	char root[PATH_MAX]; /* top/cgroup: the cgroup2 mount */
	char proc[PATH_MAX]; /* top/proc */
	char state[PATH_MAX]; /* top/state */
	char sock[PATH_MAX]; /* top/mdkd.sock */
	char conf[PATH_MAX]; /* top/mdkd.conf */
};

int fake_write(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Contents of @path in a static buffer ("" when unreadable). */
const char *fake_read(const char *path);

void fake_mkdirs(const char *path);

void fake_psi(const char *path, uint64_t some_us, uint64_t full_us);

void fake_file(const struct fakecg *f, const char *cg, const char *name,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A cgroup of @anon + @file bytes, split evenly over active/inactive. */
void fake_cgroup(const struct fakecg *f, const char *cg, uint64_t anon,
		 uint64_t file);

void fake_rmtree(const char *path);

/*
 * fake_setup() - a tree with the root's files, /proc/meminfo with 1 GiB of
 * free swap, and a configuration file holding @conf after a [global]
 * section that points mdkd at the fake tree.
 */
void fake_setup(struct fakecg *f, const char *conf);

void fake_teardown(struct fakecg *f);

#endif /* MDK_TESTS_FAKECG_H */
