// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace reader's byte source: a file or pipe read through a buffer,
 * or memory, either of them possibly zstd-compressed (decompressed into
 * the buffer), and the failure every later call repeats.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

#define RD_BUF (1u << 20)

/*
 * Make @len bytes at the current position contiguous; *@p points to them.
 * Returns the number available (less than @len only at the end of the
 * data), or -errno.
 */
ssize_t mdk__rd_get(struct mdk_trace_reader *r, size_t len, const uint8_t **p)
{
	if (r->mem) {
		uint64_t left = r->size - r->pos;
		size_t n = left < len ? (size_t)left : len;

		*p = r->mem + r->pos;
		r->pos += n;
		return (ssize_t)n;
	}
	if (r->buflen - r->bufoff < len && !r->eof) {
		if (r->bufcap < len) {
			size_t ncap = MDK_MAX(len, (size_t)RD_BUF);
			uint8_t *nb = malloc(ncap);

			if (!nb)
				return -ENOMEM;
			if (r->buflen > r->bufoff)
				memcpy(nb, r->buf + r->bufoff,
				       r->buflen - r->bufoff);
			free(r->buf);
			r->buf = nb;
			r->bufcap = ncap;
		} else if (r->buflen > r->bufoff) {
			memmove(r->buf, r->buf + r->bufoff,
				r->buflen - r->bufoff);
		}
		r->buflen -= r->bufoff;
		r->bufoff = 0;
		while (r->buflen < len && !r->eof) {
			ssize_t n;

			if (r->z)
				n = mdk__zin_read(r->z, r->buf + r->buflen,
						  r->bufcap - r->buflen);
			else
				n = read(r->fd, r->buf + r->buflen,
					 r->bufcap - r->buflen);
			if (n < 0 && r->z)
				return n;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (!n)
				r->eof = true;
			r->buflen += (size_t)n;
		}
	}
	*p = r->buf + r->bufoff;
	len = MDK_MIN(len, r->buflen - r->bufoff);
	r->bufoff += len;
	r->pos += len;
	return (ssize_t)len;
}

int mdk__rd_seek(struct mdk_trace_reader *r, uint64_t off)
{
	if (r->z) {
		/* The buffer is dropped: the stream goes to @off. */
		int ret = off > r->size ? -EINVAL : mdk__zin_seek(r->z, off);

		if (ret)
			return ret;
		r->bufoff = r->buflen = 0;
		r->eof = false;
	} else if (!r->mem) {
		if (lseek(r->fd, (off_t)off, SEEK_SET) < 0)
			return -errno;
		r->bufoff = r->buflen = 0;
		r->eof = false;
	} else if (off > r->size) {
		return -EINVAL;
	}
	r->pos = off;
	return 0;
}

/* Read exactly @len bytes at @off (seekable sources) into @dst. */
int mdk__rd_pread(struct mdk_trace_reader *r, uint64_t off, void *dst,
		  size_t len)
{
	size_t done = 0;

	if (r->z) {
		if (off > r->size || len > r->size - off)
			return -ENODATA;
		return mdk__zin_pread(r->z, off, dst, len);
	}
	if (r->mem) {
		if (off > r->size || len > r->size - off)
			return -ENODATA;
		memcpy(dst, r->mem + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t n = pread(r->fd, (uint8_t *)dst + done, len - done,
				  (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			return -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

/* Record a failure ("NAME: " + message) and keep the reader failed. */
int mdk__rd_fail(struct mdk_trace_reader *r, char *err, size_t errlen, int ret,
		 const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (r->z && *mdk__zin_msg(r->z)) {
		snprintf(msg, sizeof(msg), "%s", mdk__zin_msg(r->z));
	} else {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	r->failed = ret;
	return mdk_err(err, errlen, ret, "%s: %s", r->name, msg);
}
