// SPDX-License-Identifier: GPL-2.0
/* A growable text buffer: see buf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/util.h>

#include "buf.h"

static int reserve(struct mdkd_buf *b, size_t more)
{
	if (b->error)
		return b->error;
	if (more > SIZE_MAX - b->len - 1 ||
	    mdk_grow((void **)&b->data, &b->cap, b->len + more + 1, 1))
		b->error = -ENOMEM;
	return b->error;
}

int mdkd_buf_append(struct mdkd_buf *b, const void *data, size_t len)
{
	if (reserve(b, len))
		return b->error;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int mdkd_buf_printf(struct mdkd_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (reserve(b, 128))
		return b->error;
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= b->cap - b->len) {
		if (reserve(b, n))
			return b->error;
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
	return 0;
}

void mdkd_buf_reset(struct mdkd_buf *b)
{
	b->len = 0;
	b->error = 0;
	if (b->data)
		b->data[0] = '\0';
}

void mdkd_buf_free(struct mdkd_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
