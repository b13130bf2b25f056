// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libCacheSim's oracleGeneral traces into .mdkt traces: the requests are
 * cut into windows by their clock_time, their obj_ids become page ids,
 * and a window's repeated pages collapse into one access.  The input may
 * be zstd-compressed (told by its magic number); it is read as a stream,
 * and memory grows only with the largest window.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

#define ORC_BUF (MDK_ORACLE_RECORD_BYTES * 8192u)
/* Pages one request may cover with MDK_ORACLE_OFFSETS (4 GiB of 4 KiB). */
#define ORC_MAX_SPAN (1u << 20)

/* The requests as a stream of 24-byte records. */
struct orc_in {
	const char *name;
	int fd;
	struct mdk__zin *z;
	uint8_t *buf;
	size_t len, off;
	uint64_t pos; /* offset of the next record (decompressed, if so) */
	bool eof;
};

static int orc_fill(struct orc_in *in, char *err, size_t errlen)
{
	memmove(in->buf, in->buf + in->off, in->len - in->off);
	in->len -= in->off;
	in->off = 0;
	while (in->len < MDK_ORACLE_RECORD_BYTES && !in->eof) {
		ssize_t n;

		if (in->z)
			n = mdk__zin_read(in->z, in->buf + in->len,
					  ORC_BUF - in->len);
		else
			n = read(in->fd, in->buf + in->len, ORC_BUF - in->len);
		if (n < 0 && in->z)
			return mdk_err(err, errlen, (int)n, "%s: %s", in->name,
				       mdk__zin_msg(in->z));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return mdk_err(err, errlen, -errno,
				       "%s: offset %llu: read: %s", in->name,
				       (unsigned long long)in->pos,
				       strerror(errno));
		in->eof = !n;
		in->len += (size_t)n;
	}
	return 0;
}

/* The next record into *@rec: 1, 0 at the end, or -errno. */
static int orc_next(struct orc_in *in, const uint8_t **rec, char *err,
		    size_t errlen)
{
	size_t left = in->len - in->off;
	int ret;

	if (left < MDK_ORACLE_RECORD_BYTES) {
		ret = orc_fill(in, err, errlen);
		if (ret)
			return ret;
		left = in->len;
	}
	if (!left)
		return 0;
	if (left < MDK_ORACLE_RECORD_BYTES)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: offset %llu%s: truncated record (%zu of %u bytes): an oracleGeneral trace is a whole number of %u-byte records",
			in->name, (unsigned long long)in->pos,
			in->z ? " of the decompressed stream" : "", left,
			MDK_ORACLE_RECORD_BYTES, MDK_ORACLE_RECORD_BYTES);
	*rec = in->buf + in->off;
	in->off += MDK_ORACLE_RECORD_BYTES;
	in->pos += MDK_ORACLE_RECORD_BYTES;
	return 1;
}

/* Open @path ("-": standard input); a zstd stream gets a decoder. */
static int orc_open(struct orc_in *in, const char *path, char *err,
		    size_t errlen)
{
	*in = (struct orc_in){ .name = path, .fd = -1 };
	in->buf = malloc(ORC_BUF);
	if (!in->buf)
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	in->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (in->fd < 0)
		return mdk_err(err, errlen, -errno, "%s: %s", path,
			       strerror(errno));
	/* Up to 4 bytes, plain: enough to see zstd's magic number. */
	while (in->len < 4 && !in->eof) {
		ssize_t n = read(in->fd, in->buf + in->len, 4 - in->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return mdk_err(err, errlen, -errno, "%s: read: %s",
				       path, strerror(errno));
		in->eof = !n;
		in->len += (size_t)n;
	}
	if (mdk__is_zstd(in->buf, in->len)) {
		in->z = mdk__zin_new(in->fd, NULL, 0, in->buf, in->len, false);
		if (!in->z)
			return mdk_err(err, errlen, -ENOMEM,
				       "%s: out of memory", path);
		in->len = 0;
	}
	return 0;
}

static void orc_close(struct orc_in *in)
{
	mdk__zin_free(in->z);
	if (in->fd > 0)
		close(in->fd);
	free(in->buf);
}

/* What the import has of the current window. */
struct orc_win {
	const struct mdk_trace_writer_opts *opts;
	unsigned int flags;
	uint32_t t0; /* the first request's clock_time */
	uint64_t cur; /* current window */
	bool have;
	uint64_t *ids;
	size_t n, cap;
};

/* Window of the request at @off with time @t, checked: 0 or -EINVAL. */
static int orc_window(struct orc_in *in, struct orc_win *o, uint32_t t,
		      uint64_t *win, char *err, size_t errlen)
{
	uint64_t off = in->pos - MDK_ORACLE_RECORD_BYTES;

	if (!o->have)
		o->t0 = t;
	if (t < o->t0)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: offset %llu: clock_time %u is before the first request's %u: time may go back only within a window",
			in->name, (unsigned long long)off, t, o->t0);
	*win = (uint64_t)(t - o->t0) * 1000000u / o->opts->window_us;
	if (o->have && *win < o->cur)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: offset %llu: clock_time %u falls in window %llu, after window %llu: time may go back only within a window",
			in->name, (unsigned long long)off, t,
			(unsigned long long)*win, (unsigned long long)o->cur);
	if (*win > MDK_TRACE_MAX_WINDOW ||
	    *win - (o->have ? o->cur : 0) > MDK_TRACE_MAX_GAP)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: offset %llu: clock_time %u (window %llu) is more than %u windows after the previous request",
			in->name, (unsigned long long)off, t,
			(unsigned long long)*win, MDK_TRACE_MAX_GAP);
	return 0;
}

/* Add the pages of request @rec to the current window. */
static int orc_add(struct orc_in *in, struct orc_win *o, const uint8_t *rec,
		   char *err, size_t errlen)
{
	uint64_t id = mdk__get64(rec + 4), first = id, last = id;
	uint32_t size = mdk__get32(rec + 12);

	if (o->flags & MDK_ORACLE_OFFSETS) {
		uint64_t ps = o->opts->page_size, end;

		end = size && id + size - 1 >= id ? id + size - 1 : id;
		first = id / ps;
		last = end / ps;
		if (last - first >= ORC_MAX_SPAN)
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: offset %llu: a request of %u bytes covers more than %u pages of %llu bytes",
				in->name,
				(unsigned long long)(in->pos -
						     MDK_ORACLE_RECORD_BYTES),
				size, ORC_MAX_SPAN, (unsigned long long)ps);
	}
	if (mdk_grow((void **)&o->ids, &o->cap, o->n + (last - first) + 1,
		     sizeof(*o->ids)))
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
			       in->name);
	for (uint64_t p = first;; p++) {
		o->ids[o->n++] = p;
		if (p == last)
			break;
	}
	return 0;
}

static int orc_copy(struct orc_in *in, struct orc_win *o,
		    struct mdk_trace_writer *w, char *err, size_t errlen)
{
	const uint8_t *rec = NULL;
	uint64_t win = 0;
	int ret;

	while ((ret = orc_next(in, &rec, err, errlen)) > 0) {
		ret = orc_window(in, o, mdk__get32(rec), &win, err, errlen);
		if (ret)
			return ret;
		if (o->have && win != o->cur) {
			ret = mdk_trace_writer_put(w, (uint32_t)o->cur, o->ids,
						   o->n, MDK_TRACE_UNSORTED,
						   err, errlen);
			if (ret)
				return ret;
			o->n = 0;
		}
		o->cur = win;
		o->have = true;
		ret = orc_add(in, o, rec, err, errlen);
		if (ret)
			return ret;
	}
	if (!ret && o->have)
		ret = mdk_trace_writer_put(w, (uint32_t)o->cur, o->ids, o->n,
					   MDK_TRACE_UNSORTED, err, errlen);
	return ret;
}

int mdk_trace_import_oracle(const char *in, const char *out,
			    const struct mdk_trace_writer_opts *opts,
			    unsigned int flags, char *err, size_t errlen)
{
	struct orc_win o = { .opts = opts, .flags = flags };
	struct mdk_trace_writer *w = NULL;
	struct orc_in src;
	int ret;

	if (!opts || !opts->window_us)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: importing needs a window length", in);
	if ((flags & MDK_ORACLE_OFFSETS) && !opts->page_size)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: byte offsets need a page size", in);
	ret = orc_open(&src, in, err, errlen);
	if (ret)
		goto out_close;
	ret = mdk_trace_writer_open(out, opts, &w, err, errlen);
	if (ret)
		goto out_close;
	ret = orc_copy(&src, &o, w, err, errlen);
	if (ret) {
		mdk_trace_writer_abort(w);
		unlink(out);
	} else {
		ret = mdk_trace_writer_close(w, err, errlen);
		if (ret)
			unlink(out);
	}
out_close:
	free(o.ids);
	orc_close(&src);
	return ret;
}
