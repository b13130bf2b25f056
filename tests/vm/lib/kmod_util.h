/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the kmod_* C tests: loading cmm_mp.ko with finit_module(2) and
 * unloading it with delete_module(2) (no insmod/rmmod processes, which
 * cost a good part of a second each under TCG), sysfs reads, and the
 * kernel log since a mark (/dev/kmsg).
 * Defined in kmod_util.c.
 */
#ifndef MDK_KMOD_UTIL_H
#define MDK_KMOD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CMM_MP_SYS "/sys/kernel/cmm_mp"

/* Path of cmm_mp.ko for the running kernel, or NULL. */
const char *kmod_path(void);

/* finit_module(2) with @params; 0 or -errno. */
int kmod_load(const char *params);

/* delete_module(2); 0 or -errno (-EWOULDBLOCK while in use). */
int kmod_unload(void);

int kmod_loaded(void);

/*
 * Why a test of the module cannot run here, or NULL: it needs root, the
 * module built for the running kernel and, with @have_pool, the VM's
 * CMM-MP pool (tests/vm/run -p SIZE).
 */
const char *kmod_skip_reason(bool have_pool);

/* Reads sysfs/proc file @path into @buf (newline stripped); 0 or -errno. */
int read_text(const char *path, char *buf, size_t len);

/* Writes @text to sysfs file @path; 0 or -errno. */
int write_text_file(const char *path, const char *text);

/* A /sys/kernel/cmm_mp attribute, relative path; "" when unreadable. */
const char *cmm_attr(const char *rel);

/* Whether the whole file @path contains @needle. */
int file_has(const char *path, const char *needle);

/*
 * The kernel log from now on: kmsg_open() positions a reader at the end,
 * kmsg_read() appends the messages logged since (text only) to @buf.
 */
int kmsg_open(void);

void kmsg_read(int fd, char *buf, size_t len);

/* Lines of @log that contain @needle. */
int count_lines(const char *log, const char *needle);

#endif /* MDK_KMOD_UTIL_H */
