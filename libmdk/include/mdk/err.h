/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Error messages, the one way mdk explains a failure: every call that can
 * fail on its input takes a buffer (char *err, size_t errlen) and leaves
 * the reason in it.  Shared by libmdk, the daemon and the CLI.
 */
#ifndef MDK_ERR_H
#define MDK_ERR_H

#include <stdarg.h>
#include <stddef.h>

/*
 * mdk_err() - format a message into the caller's buffer (if any) and
 * return @ret, so that "return mdk_err(err, errlen, -EINVAL, ...)" both
 * explains and fails.
 */
int mdk_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int mdk_verr(char *err, size_t errlen, int ret, const char *fmt, va_list ap);

#endif
