// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The .mdkt access-bit trace: streaming writer and reader.  The layout is
 * documented byte by byte in Documentation/trace-format.rst; the constants
 * below are its single definition in code.
 *
 * Both sides keep bounded state: the writer one block and the index, the
 * reader one block (and the page map with MDK_TRACE_DENSE).  The reader
 * trusts nothing: every length is checked against the file before use,
 * every block's CRC-32 before decoding, and each failure names the file,
 * the offset and what was expected.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <mdk/trace.h>

#include "internal.h"

static const uint8_t file_magic[8] = { 0x89, 'M',  'D',	 'K',
				       'T',  '\r', '\n', 0x1a };
#define HDR_BYTES 48 /* fixed part of the file header */
#define BLK_BYTES 24 /* block header */
#define FTR_BYTES 32 /* footer */
#define IDX_ENTRY_BYTES 16 /* one index entry */
#define BLK_MAGIC 0x424b444du /* "MDKB" little-endian */
#define IDX_MAGIC 0x494b444du /* "MDKI" */
#define FTR_MAGIC 0x454b444du /* "MDKE" */
#define BLK_F_CONT 0x1u /* the block continues the previous block's window */
#define HDR_F_REQUIRED 0xffff0000u /* flags a reader must understand */
#define MAX_DESC 65535u
/*
 * Windows between two stored ones are empty, and the reader hands each
 * out: a jump of more than MDK_TRACE_MAX_GAP windows is taken for
 * corruption rather than a recorder's pause.
 */
#define MAX_GAP MDK_TRACE_MAX_GAP
/* A block must fit the reader's buffer: refuse absurd sizes up front. */
#define MAX_BLOCK_IDS (1u << 26)
#define MAX_PAYLOAD (10u * MAX_BLOCK_IDS)

static uint32_t crc(uint32_t c, const void *p, size_t n)
{
	return (uint32_t)crc32_z(c, p, n);
}

/* ------------------------------------------------------------------ */
/* Writer */

struct idx_entry {
	uint64_t offset;
	uint32_t window;
	uint32_t count;
};

struct mdk_trace_writer {
	int fd;
	char *path;
	uint8_t *out; /* output buffer */
	size_t outlen;
	uint64_t off; /* file offset of out[0] */
	uint8_t *blk; /* current block: header + payload */
	size_t blklen;
	uint32_t blkcount;
	bool in_window;
	bool wrote_block; /* a block of the current window is out */
	uint32_t window;
	uint64_t last_id;
	bool have_last;
	struct idx_entry *idx;
	size_t nidx, idxcap;
	uint64_t records;
	uint64_t *sortbuf;
	size_t sortcap;
	int error; /* sticky: the first failure */
	char errmsg[256];
};

#define OUT_BYTES (1u << 20)
#define BLK_CAP (BLK_BYTES + (size_t)MDK_TRACE_BLOCK_IDS * 10)

static int wr_fail(struct mdk_trace_writer *w, int ret, const char *what)
{
	if (!w->error) {
		w->error = ret;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s: %s: %s", w->path,
			 what, strerror(-ret));
	}
	return ret;
}

static int wr_error(struct mdk_trace_writer *w, char *err, size_t errlen)
{
	return mdk_err(err, errlen, w->error, "%s", w->errmsg);
}

static int wr_flush(struct mdk_trace_writer *w)
{
	size_t done = 0;

	if (w->error)
		return w->error;
	while (done < w->outlen) {
		ssize_t n = write(w->fd, w->out + done, w->outlen - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return wr_fail(w, -errno, "write");
		}
		done += (size_t)n;
	}
	w->off += w->outlen;
	w->outlen = 0;
	return 0;
}

static int wr_bytes(struct mdk_trace_writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;
	int ret;

	while (n) {
		size_t k = MDK_MIN(n, OUT_BYTES - w->outlen);

		memcpy(w->out + w->outlen, b, k);
		w->outlen += k;
		b += k;
		n -= k;
		if (w->outlen == OUT_BYTES) {
			ret = wr_flush(w);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static uint64_t wr_pos(const struct mdk_trace_writer *w)
{
	return w->off + w->outlen;
}

/* Write out the block being filled (possibly empty). */
static int wr_block(struct mdk_trace_writer *w)
{
	uint8_t *h = w->blk;
	uint32_t payload = (uint32_t)(w->blklen - BLK_BYTES);

	mdk__put32(h, BLK_MAGIC);
	mdk__put32(h + 4, w->window);
	mdk__put32(h + 8, w->blkcount);
	mdk__put32(h + 12, payload);
	mdk__put32(h + 16, w->wrote_block ? BLK_F_CONT : 0);
	mdk__put32(h + 20, crc(crc(0, h, 20), h + BLK_BYTES, payload));
	w->wrote_block = true;
	w->blkcount = 0;
	w->blklen = BLK_BYTES;
	return wr_bytes(w, h, BLK_BYTES + payload);
}

static int wr_end_window(struct mdk_trace_writer *w)
{
	int ret = 0;

	if (w->in_window && (w->blkcount || !w->wrote_block))
		ret = wr_block(w);
	w->in_window = false;
	return ret;
}

int mdk_trace_writer_open(const char *path,
			  const struct mdk_trace_writer_opts *opts,
			  struct mdk_trace_writer **out, char *err,
			  size_t errlen)
{
	static const struct mdk_trace_writer_opts none;
	struct mdk_trace_writer *w;
	uint8_t hdr[HDR_BYTES];
	size_t dlen, hbytes;
	uint32_t c;
	int ret;

	if (!opts)
		opts = &none;
	dlen = opts->desc ? strlen(opts->desc) : 0;
	if (dlen > MAX_DESC)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: description of %zu bytes is longer than %u",
			       path, dlen, MAX_DESC);
	if (opts->flags & HDR_F_REQUIRED)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: unknown trace flags 0x%x", path,
			       opts->flags);
	w = calloc(1, sizeof(*w));
	if (!w)
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	w->path = strdup(path);
	w->out = malloc(OUT_BYTES);
	w->blk = malloc(BLK_CAP);
	if (!w->path || !w->out || !w->blk) {
		ret = mdk_err(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto err_free;
	}
	w->blklen = BLK_BYTES;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		ret = mdk_err(err, errlen, -errno, "%s: %s", path,
			      strerror(errno));
		goto err_free;
	}

	hbytes = (HDR_BYTES + dlen + 7) & ~(size_t)7;
	memcpy(hdr, file_magic, 8);
	mdk__put16(hdr + 8, MDK_TRACE_VERSION_MAJOR);
	mdk__put16(hdr + 10, MDK_TRACE_VERSION_MINOR);
	mdk__put32(hdr + 12, (uint32_t)hbytes);
	mdk__put64(hdr + 16, opts->window_us);
	mdk__put32(hdr + 24, opts->page_size);
	mdk__put32(hdr + 28, opts->flags);
	mdk__put64(hdr + 32, opts->start_us);
	mdk__put16(hdr + 40, (uint16_t)dlen);
	mdk__put16(hdr + 42, 0);
	c = crc(0, hdr, 44);
	c = crc(c, opts->desc ? opts->desc : "", dlen);
	mdk__put32(hdr + 44, c);
	wr_bytes(w, hdr, HDR_BYTES);
	wr_bytes(w, opts->desc ? opts->desc : "", dlen);
	wr_bytes(w, "\0\0\0\0\0\0\0", hbytes - HDR_BYTES - dlen);
	if (w->error) {
		ret = wr_error(w, err, errlen);
		close(w->fd);
		goto err_free;
	}
	*out = w;
	return 0;

err_free:
	free(w->blk);
	free(w->out);
	free(w->path);
	free(w);
	return ret;
}

int mdk_trace_writer_begin(struct mdk_trace_writer *w, uint32_t window,
			   char *err, size_t errlen)
{
	int ret;

	if (w->error)
		return wr_error(w, err, errlen);
	if (window > MDK_TRACE_MAX_WINDOW)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: window %u is above the maximum %u", w->path,
			       window, MDK_TRACE_MAX_WINDOW);
	if (w->nidx && window <= w->window)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: window %u after window %u: windows must increase",
			w->path, window, w->window);
	if (window - (w->nidx ? w->window : 0) > MAX_GAP)
		return mdk_err(
			err, errlen, -EINVAL,
			"%s: window %u after window %u: more than %u empty windows between them",
			w->path, window, w->nidx ? w->window : 0, MAX_GAP);
	ret = wr_end_window(w);
	if (ret)
		return wr_error(w, err, errlen);
	if (mdk_grow((void **)&w->idx, &w->idxcap, w->nidx + 1,
		     sizeof(*w->idx)))
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
			       w->path);
	w->idx[w->nidx].offset = wr_pos(w);
	w->idx[w->nidx].window = window;
	w->idx[w->nidx].count = 0;
	w->nidx++;
	w->window = window;
	w->in_window = true;
	w->wrote_block = false;
	w->have_last = false;
	return 0;
}

int mdk_trace_writer_add(struct mdk_trace_writer *w, const uint64_t *ids,
			 size_t n, char *err, size_t errlen)
{
	struct idx_entry *e;
	size_t i;

	if (w->error)
		return wr_error(w, err, errlen);
	if (!w->in_window)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: page ids added before any window began",
			       w->path);
	e = &w->idx[w->nidx - 1];
	if (n > UINT32_MAX - e->count)
		return mdk_err(err, errlen, -E2BIG,
			       "%s: window %u has more than %u page ids",
			       w->path, w->window, UINT32_MAX);
	for (i = 0; i < n; i++) {
		uint64_t id = ids[i];

		if (w->have_last && id <= w->last_id)
			return mdk_err(
				err, errlen, -EINVAL,
				"%s: window %u: page id %llu after %llu: ids must strictly increase",
				w->path, w->window, (unsigned long long)id,
				(unsigned long long)w->last_id);
		w->blklen +=
			mdk__uleb_put(w->blk + w->blklen,
				      w->blkcount ? id - w->last_id - 1 : id);
		w->last_id = id;
		w->have_last = true;
		w->blkcount++;
		e->count++;
		w->records++;
		if (w->blkcount == MDK_TRACE_BLOCK_IDS && wr_block(w))
			return wr_error(w, err, errlen);
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mdk_trace_writer_put(struct mdk_trace_writer *w, uint32_t window,
			 const uint64_t *ids, size_t n, unsigned int flags,
			 char *err, size_t errlen)
{
	size_t i, k;
	int ret;

	ret = mdk_trace_writer_begin(w, window, err, errlen);
	if (ret || !(flags & MDK_TRACE_UNSORTED))
		return ret ? ret : mdk_trace_writer_add(w, ids, n, err, errlen);
	if (mdk_grow((void **)&w->sortbuf, &w->sortcap, n, sizeof(*w->sortbuf)))
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
			       w->path);
	memcpy(w->sortbuf, ids, n * sizeof(*ids));
	qsort(w->sortbuf, n, sizeof(*ids), cmp_u64);
	for (i = k = 0; i < n; i++)
		if (!k || w->sortbuf[i] != w->sortbuf[k - 1])
			w->sortbuf[k++] = w->sortbuf[i];
	return mdk_trace_writer_add(w, w->sortbuf, k, err, errlen);
}

static void wr_free(struct mdk_trace_writer *w)
{
	free(w->sortbuf);
	free(w->idx);
	free(w->blk);
	free(w->out);
	free(w->path);
	free(w);
}

int mdk_trace_writer_close(struct mdk_trace_writer *w, char *err, size_t errlen)
{
	uint8_t b[FTR_BYTES];
	uint64_t idx_off;
	uint32_t c;
	size_t i;
	int ret;

	wr_end_window(w);
	idx_off = wr_pos(w);
	mdk__put32(b, IDX_MAGIC);
	mdk__put32(b + 4, (uint32_t)w->nidx);
	c = crc(0, b, 8);
	wr_bytes(w, b, 8);
	for (i = 0; i < w->nidx; i++) {
		mdk__put64(b, w->idx[i].offset);
		mdk__put32(b + 8, w->idx[i].window);
		mdk__put32(b + 12, w->idx[i].count);
		c = crc(c, b, IDX_ENTRY_BYTES);
		wr_bytes(w, b, IDX_ENTRY_BYTES);
	}
	mdk__put32(b, c);
	wr_bytes(w, b, 4);

	mdk__put32(b, FTR_MAGIC);
	mdk__put32(b + 4, w->nidx ? w->window + 1 : 0);
	mdk__put64(b + 8, idx_off);
	mdk__put64(b + 16, w->records);
	mdk__put32(b + 24, 0);
	mdk__put32(b + 28, crc(0, b, 28));
	wr_bytes(w, b, FTR_BYTES);
	wr_flush(w);
	if (close(w->fd) && !w->error)
		wr_fail(w, -errno, "close");
	ret = w->error ? wr_error(w, err, errlen) : 0;
	wr_free(w);
	return ret;
}

void mdk_trace_writer_abort(struct mdk_trace_writer *w)
{
	if (!w)
		return;
	wr_end_window(w);
	wr_flush(w);
	close(w->fd);
	wr_free(w);
}

/* ------------------------------------------------------------------ */
/* Reader */

struct mdk_trace_reader {
	char *name;
	unsigned int flags;
	int fd; /* -1 for memory */
	const uint8_t *mem; /* memory source */
	uint64_t size; /* file size (seekable) or memory length */
	bool seekable;
	uint64_t pos; /* file offset of the next unread byte */
	uint8_t *buf; /* read buffer (fd only) */
	size_t bufcap, bufoff, buflen;
	bool eof;

	struct mdk_trace_info info;
	char *desc;
	uint64_t data_off; /* first block */
	struct idx_entry *idx;
	uint32_t nidx;
	uint64_t idx_off;
	uint32_t next_idx; /* index entry expected at the next window start */

	/* position in the stream */
	bool started; /* a block was read */
	uint32_t window; /* window of the last block */
	uint32_t win_count; /* ids of that window so far */
	uint64_t last_id;
	bool have_last;
	uint32_t next_window; /* next window to hand out */
	bool pending; /* a block was read but not yet returned */
	struct mdk_trace_chunk pend;
	bool blocks_done; /* index or end met */
	uint32_t total_windows; /* known at the end */
	uint64_t records;
	int failed;

	uint64_t *ids;
	uint32_t *pages;
	size_t idcap;
	struct mdk_pagemap *pm;
};

#define RD_BUF (1u << 20)

/*
 * Make @len bytes at the current position contiguous; *@p points to them.
 * Returns the number available (less than @len only at the end of the
 * data), or -errno.
 */
static ssize_t rd_get(struct mdk_trace_reader *r, size_t len, const uint8_t **p)
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
			ssize_t n = read(r->fd, r->buf + r->buflen,
					 r->bufcap - r->buflen);

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

static int rd_seek(struct mdk_trace_reader *r, uint64_t off)
{
	if (!r->mem) {
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
static int rd_pread(struct mdk_trace_reader *r, uint64_t off, void *dst,
		    size_t len)
{
	size_t done = 0;

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

static int rd_fail(struct mdk_trace_reader *r, char *err, size_t errlen,
		   int ret, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Record a failure ("NAME: " + message) and keep the reader failed. */
static int rd_fail(struct mdk_trace_reader *r, char *err, size_t errlen,
		   int ret, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->failed = ret;
	return mdk_err(err, errlen, ret, "%s: %s", r->name, msg);
}

static int rd_header(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	const uint8_t *h, *d;
	uint32_t hbytes, c, flags;
	uint16_t dlen;
	ssize_t n;

	n = rd_get(r, HDR_BYTES, &h);
	if (n < 0)
		return rd_fail(r, err, errlen, (int)n, "read: %s",
			       strerror((int)-n));
	if (n < 8 || memcmp(h, file_magic, 8))
		return rd_fail(
			r, err, errlen, -EINVAL,
			"offset 0: not an mdk trace (expected the magic \\x89MDKT\\r\\n\\x1a)");
	if (n < HDR_BYTES)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %zd: truncated header (expected %u bytes, file has %zd)",
			n, HDR_BYTES, n);
	r->info.version_major = mdk__get16(h + 8);
	r->info.version_minor = mdk__get16(h + 10);
	if (r->info.version_major != MDK_TRACE_VERSION_MAJOR)
		return rd_fail(
			r, err, errlen, -EPROTONOSUPPORT,
			"offset 8: format version %u.%u, this libmdk reads %u.x",
			r->info.version_major, r->info.version_minor,
			MDK_TRACE_VERSION_MAJOR);
	hbytes = mdk__get32(h + 12);
	r->info.window_us = mdk__get64(h + 16);
	r->info.page_size = mdk__get32(h + 24);
	flags = mdk__get32(h + 28);
	r->info.flags = flags;
	r->info.start_us = mdk__get64(h + 32);
	dlen = mdk__get16(h + 40);
	c = crc(0, h, 44);
	if (hbytes != ((HDR_BYTES + dlen + 7u) & ~7u))
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset 12: header length %u does not match a %u-byte description (expected %u)",
			hbytes, dlen, (HDR_BYTES + dlen + 7u) & ~7u);
	if (mdk__get16(h + 42))
		return rd_fail(r, err, errlen, -EBADMSG,
			       "offset 42: reserved header field is not zero");
	{
		uint32_t stored = mdk__get32(h + 44);

		n = rd_get(r, hbytes - HDR_BYTES, &d);
		if (n < 0)
			return rd_fail(r, err, errlen, (int)n, "read: %s",
				       strerror((int)-n));
		if ((size_t)n < hbytes - HDR_BYTES)
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %u: truncated header description (expected %u bytes)",
				HDR_BYTES, hbytes - HDR_BYTES);
		c = crc(c, d, dlen);
		if (c != stored)
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset 44: bad header checksum (stored 0x%08x, computed 0x%08x)",
				stored, c);
	}
	if (flags & HDR_F_REQUIRED)
		return rd_fail(r, err, errlen, -EPROTONOSUPPORT,
			       "offset 28: unknown required flags 0x%x",
			       flags & HDR_F_REQUIRED);
	r->desc = malloc((size_t)dlen + 1);
	if (!r->desc)
		return rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	memcpy(r->desc, d, dlen);
	r->desc[dlen] = 0;
	/* Descriptions are text: keep NULs out of C strings. */
	r->info.desc = r->desc;
	r->data_off = hbytes;
	return 0;
}

/* Load footer and index of a seekable trace; 0 with none when allowed. */
static int rd_index(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	uint8_t f[FTR_BYTES], *ib;
	uint64_t foff, ioff, ibytes;
	uint32_t c, n, i, prevw = 0;
	int ret;

	if (r->size < r->data_off + FTR_BYTES)
		goto none;
	foff = r->size - FTR_BYTES;
	ret = rd_pread(r, foff, f, FTR_BYTES);
	if (ret)
		return rd_fail(r, err, errlen, ret, "offset %llu: read: %s",
			       (unsigned long long)foff, strerror(-ret));
	if (mdk__get32(f) != FTR_MAGIC)
		goto none;
	c = crc(0, f, 28);
	if (c != mdk__get32(f + 28))
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: bad footer checksum (stored 0x%08x, computed 0x%08x)",
			(unsigned long long)foff, mdk__get32(f + 28), c);
	ioff = mdk__get64(f + 8);
	if (ioff < r->data_off || ioff > foff - 12)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: footer's index offset %llu is outside the file's data (%llu..%llu)",
			(unsigned long long)foff + 8, (unsigned long long)ioff,
			(unsigned long long)r->data_off,
			(unsigned long long)foff - 12);
	ibytes = foff - ioff;
	ib = malloc(ibytes);
	if (!ib)
		return rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	ret = rd_pread(r, ioff, ib, ibytes);
	if (ret) {
		free(ib);
		return rd_fail(r, err, errlen, ret, "offset %llu: read: %s",
			       (unsigned long long)ioff, strerror(-ret));
	}
	n = mdk__get32(ib + 4);
	if (mdk__get32(ib) != IDX_MAGIC ||
	    ibytes != 12 + (uint64_t)n * IDX_ENTRY_BYTES) {
		free(ib);
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: expected the index (\"MDKI\", %llu bytes before the footer)",
			(unsigned long long)ioff, (unsigned long long)ibytes);
	}
	c = crc(0, ib, 8 + (size_t)n * IDX_ENTRY_BYTES);
	if (c != mdk__get32(ib + 8 + (size_t)n * IDX_ENTRY_BYTES)) {
		free(ib);
		return rd_fail(r, err, errlen, -EBADMSG,
			       "offset %llu: bad index checksum",
			       (unsigned long long)ioff);
	}
	r->idx = malloc(((size_t)n + 1) * sizeof(*r->idx));
	if (!r->idx) {
		free(ib);
		return rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	}
	r->info.records = 0;
	for (i = 0; i < n; i++) {
		const uint8_t *e = ib + 8 + (size_t)i * IDX_ENTRY_BYTES;

		r->idx[i].offset = mdk__get64(e);
		r->idx[i].window = mdk__get32(e + 8);
		r->idx[i].count = mdk__get32(e + 12);
		if ((i && r->idx[i].window <= prevw) ||
		    r->idx[i].offset < r->data_off ||
		    r->idx[i].offset >= ioff ||
		    (i && r->idx[i].offset <= r->idx[i - 1].offset)) {
			free(ib);
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: index entry %u (window %u at offset %llu) is out of order or outside the data",
				(unsigned long long)ioff + 8 +
					(unsigned long long)i * IDX_ENTRY_BYTES,
				i, r->idx[i].window,
				(unsigned long long)r->idx[i].offset);
		}
		prevw = r->idx[i].window;
		r->info.records += r->idx[i].count;
	}
	free(ib);
	r->nidx = n;
	r->idx_off = ioff;
	r->info.windows = mdk__get32(f + 4);
	if (mdk__get64(f + 16) != r->info.records ||
	    (n && r->info.windows <= r->idx[n - 1].window) ||
	    (n && r->info.windows - r->idx[n - 1].window > MAX_GAP) ||
	    (!n && r->info.windows))
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: footer (%u windows, %llu records) disagrees with the index",
			(unsigned long long)foff, r->info.windows,
			(unsigned long long)mdk__get64(f + 16));
	r->info.indexed = true;
	return 0;

none:
	if (r->flags & MDK_TRACE_PARTIAL)
		return 0;
	return rd_fail(
		r, err, errlen, -EBADMSG,
		"offset %llu: no footer (expected \"MDKE\" in the last %u bytes): the trace was not closed; read it as a partial trace to use the blocks it has",
		(unsigned long long)r->size, FTR_BYTES);
}

static int rd_open(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	int ret;

	if (r->flags & MDK_TRACE_DENSE) {
		r->pm = mdk__pagemap_new();
		if (!r->pm)
			return rd_fail(r, err, errlen, -ENOMEM,
				       "out of memory");
	}
	ret = rd_header(r, err, errlen);
	if (ret)
		return ret;
	if (r->seekable) {
		ret = rd_index(r, err, errlen);
		if (ret)
			return ret;
		ret = rd_seek(r, r->data_off);
		if (ret)
			return rd_fail(r, err, errlen, ret, "seek: %s",
				       strerror(-ret));
	}
	return 0;
}

static struct mdk_trace_reader *rd_alloc(const char *name, unsigned int flags)
{
	struct mdk_trace_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->name = strdup(name);
	if (!r->name) {
		free(r);
		return NULL;
	}
	r->fd = -1;
	r->flags = flags;
	r->info.desc = "";
	return r;
}

int mdk_trace_reader_open(const char *path, unsigned int flags,
			  struct mdk_trace_reader **out, char *err,
			  size_t errlen)
{
	struct mdk_trace_reader *r = rd_alloc(path, flags);
	struct stat st;
	int ret;

	if (!r)
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = mdk_err(err, errlen, -errno, "%s: %s", path,
			      strerror(errno));
		goto err_close;
	}
	if (fstat(r->fd, &st)) {
		ret = mdk_err(err, errlen, -errno, "%s: stat: %s", path,
			      strerror(errno));
		goto err_close;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = mdk_err(err, errlen, -EISDIR, "%s: is a directory", path);
		goto err_close;
	}
	r->seekable = S_ISREG(st.st_mode);
	r->size = (uint64_t)st.st_size;
	if (r->seekable)
		posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	ret = rd_open(r, err, errlen);
	if (ret)
		goto err_close;
	*out = r;
	return 0;

err_close:
	mdk_trace_reader_close(r);
	return ret;
}

int mdk_trace_reader_open_mem(const void *buf, size_t len, const char *name,
			      unsigned int flags, struct mdk_trace_reader **out,
			      char *err, size_t errlen)
{
	struct mdk_trace_reader *r = rd_alloc(name ? name : "<memory>", flags);
	int ret;

	if (!r)
		return mdk_err(err, errlen, -ENOMEM, "out of memory");
	r->mem = buf ? buf : (const void *)"";
	r->size = len;
	r->seekable = true;
	ret = rd_open(r, err, errlen);
	if (ret) {
		mdk_trace_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

const struct mdk_trace_info *
mdk_trace_reader_info(const struct mdk_trace_reader *r)
{
	return &r->info;
}

void mdk_trace_reader_close(struct mdk_trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	mdk__pagemap_free(r->pm);
	free(r->ids);
	free(r->pages);
	free(r->idx);
	free(r->buf);
	free(r->desc);
	free(r->name);
	free(r);
}

/* Slow path of a varint: returns bytes used, 0 if malformed. */
static size_t uleb_slow(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *s = p;
	unsigned int shift = 0;
	uint64_t v = 0;

	for (;;) {
		uint8_t b;

		if (p == end)
			return 0;
		b = *p++;
		if (shift == 63 && b > 1)
			return 0;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return 0;
	}
	*out = v;
	return (size_t)(p - s);
}

/* Decode @count ids from @len payload bytes; returns 0 or an error. */
static int rd_decode(struct mdk_trace_reader *r, const uint8_t *p, size_t len,
		     uint32_t count, uint64_t boff, char *err, size_t errlen)
{
	const uint8_t *start = p, *end = p + len;
	uint64_t *ids = r->ids, id, v;
	uint32_t i;
	size_t k;

	if (!count)
		goto check_end;
	/* The first id of a block is absolute. */
	k = uleb_slow(p, end, &v);
	if (!k)
		goto bad_varint;
	p += k;
	if (r->have_last && v <= r->last_id)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u: block starts at page id %llu after %llu: ids must strictly increase",
			(unsigned long long)boff, r->window,
			(unsigned long long)v, (unsigned long long)r->last_id);
	id = ids[0] = v;
	for (i = 1; i < count; i++) {
		if (mdk_likely(p < end && *p < 0x80)) {
			v = *p++;
		} else {
			k = uleb_slow(p, end, &v);
			if (!k)
				goto bad_varint;
			p += k;
		}
		if (mdk_unlikely(v >= UINT64_MAX - id))
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: window %u: page id %u overflows 64 bits",
				(unsigned long long)boff, r->window, i);
		id += v + 1;
		ids[i] = id;
	}
	r->last_id = id;
	r->have_last = true;
check_end:
	if (p != end)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: block of window %u: %u page ids use %zu of the %zu payload bytes",
			(unsigned long long)boff, r->window, count,
			(size_t)(p - start), len);
	return 0;

bad_varint:
	return rd_fail(
		r, err, errlen, -EBADMSG,
		"offset %llu: block of window %u: page id varint at payload byte %zu is truncated or longer than 64 bits (%u page ids in %zu bytes)",
		(unsigned long long)boff, r->window, (size_t)(p - start), count,
		len);
}

/* Check the stream's end against the footer/index. */
static int rd_check_end(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	if (r->info.indexed) {
		if (r->next_idx &&
		    r->idx[r->next_idx - 1].count != r->win_count)
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: window %u has %u page ids, the index says %u",
				(unsigned long long)r->pos, r->window,
				r->win_count, r->idx[r->next_idx - 1].count);
		if (r->next_idx != r->nidx)
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: the index lists %u windows, the data has %u",
				(unsigned long long)r->pos, r->nidx,
				r->next_idx);
		if (r->records != r->info.records)
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: the index counts %llu page ids, the data has %llu",
				(unsigned long long)r->pos,
				(unsigned long long)r->info.records,
				(unsigned long long)r->records);
		r->total_windows = r->info.windows;
	} else {
		r->total_windows = r->started ? r->window + 1 : 0;
	}
	return 0;
}

/*
 * Read an index section met while streaming from a pipe: it ends the
 * blocks; its footer gives W.
 */
static int rd_stream_index(struct mdk_trace_reader *r, uint64_t ioff, char *err,
			   size_t errlen)
{
	const uint8_t *p;
	uint8_t e[8];
	uint32_t n = 0, i, c;
	ssize_t got;

	got = rd_get(r, 4, &p);
	if (got < 4)
		goto truncated;
	n = mdk__get32(p);
	mdk__put32(e, IDX_MAGIC);
	mdk__put32(e + 4, n);
	c = crc(0, e, 8);
	r->info.records = 0;
	for (i = 0; i < n; i++) {
		got = rd_get(r, IDX_ENTRY_BYTES, &p);
		if (got < IDX_ENTRY_BYTES)
			goto truncated;
		c = crc(c, p, IDX_ENTRY_BYTES);
		r->info.records += mdk__get32(p + 12);
	}
	got = rd_get(r, 4 + FTR_BYTES, &p);
	if (got < 4 + FTR_BYTES)
		goto truncated;
	if (c != mdk__get32(p) || mdk__get32(p + 4) != FTR_MAGIC ||
	    crc(0, p + 4, 28) != mdk__get32(p + 32) ||
	    mdk__get64(p + 12) != ioff)
		return rd_fail(r, err, errlen, -EBADMSG,
			       "offset %llu: bad index or footer checksum",
			       (unsigned long long)ioff);
	r->info.windows = mdk__get32(p + 8);
	if (n != r->next_idx || r->info.records != r->records ||
	    (r->started && r->info.windows <= r->window) ||
	    (r->started && r->info.windows - r->window > MAX_GAP) ||
	    (!r->started && r->info.windows))
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: index (%u windows, %llu ids) disagrees with the data (%u, %llu)",
			(unsigned long long)ioff, n,
			(unsigned long long)r->info.records, r->next_idx,
			(unsigned long long)r->records);
	r->total_windows = r->info.windows;
	r->info.indexed = true;
	return 0;

truncated:
	return rd_fail(
		r, err, errlen, -EBADMSG,
		"offset %llu: truncated index (expected %u entries and the footer)",
		(unsigned long long)ioff, n);
}

/* Read the next block into r->pend; 0 when the blocks ended. */
/* A block header as read, with the bytes its checksum covers. */
struct blk_hdr {
	uint8_t raw[20];
	uint32_t magic, window, count, bytes, flags, stored;
};

static void blk_parse(const uint8_t *h, struct blk_hdr *bh)
{
	memcpy(bh->raw, h, sizeof(bh->raw));
	bh->magic = mdk__get32(h);
	bh->window = mdk__get32(h + 4);
	bh->count = mdk__get32(h + 8);
	bh->bytes = mdk__get32(h + 12);
	bh->flags = mdk__get32(h + 16);
	bh->stored = mdk__get32(h + 20);
}

/* The header on its own: magic, flags, sizes, window number. */
static int blk_check_fields(struct mdk_trace_reader *r, uint64_t boff,
			    const struct blk_hdr *bh, char *err, size_t errlen)
{
	if (bh->magic != BLK_MAGIC)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: expected a block (\"MDKB\"), found 0x%08x",
			(unsigned long long)boff, bh->magic);
	if (bh->flags & ~BLK_F_CONT)
		return rd_fail(r, err, errlen, -EBADMSG,
			       "offset %llu: unknown block flags 0x%x",
			       (unsigned long long)boff + 16, bh->flags);
	if (bh->count > MAX_BLOCK_IDS || bh->bytes > MAX_PAYLOAD ||
	    bh->bytes < bh->count || bh->bytes > 10ull * bh->count)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: block of window %u: %u page ids in %u bytes is impossible (expected 1 to 10 bytes an id, at most %u ids)",
			(unsigned long long)boff, bh->window, bh->count,
			bh->bytes, MAX_BLOCK_IDS);
	if (bh->window > MDK_TRACE_MAX_WINDOW)
		return rd_fail(r, err, errlen, -EBADMSG,
			       "offset %llu: window %u is above the maximum %u",
			       (unsigned long long)boff + 4, bh->window,
			       MDK_TRACE_MAX_WINDOW);
	return 0;
}

/* The block's window against the previous block's. */
static int blk_check_order(struct mdk_trace_reader *r, uint64_t boff,
			   const struct blk_hdr *bh, char *err, size_t errlen)
{
	uint32_t window = bh->window;

	if (bh->flags & BLK_F_CONT) {
		if (!r->started || window != r->window)
			return rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: block continues window %u but the previous block was %s%u",
				(unsigned long long)boff, window,
				r->started ? "of window " : "none, ",
				r->started ? r->window : 0);
	} else if (r->started && window <= r->window) {
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u after window %u: windows out of order (expected a window above %u)",
			(unsigned long long)boff, window, r->window, r->window);
	} else if (window - (r->started ? r->window : 0) > MAX_GAP) {
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u after window %u: a gap of more than %u empty windows is taken for corruption",
			(unsigned long long)boff, window,
			r->started ? r->window : 0, MAX_GAP);
	}
	return 0;
}

/* The payload into @p, checked against the header's checksum. */
static int blk_read_payload(struct mdk_trace_reader *r, uint64_t boff,
			    const struct blk_hdr *bh, const uint8_t **p,
			    char *err, size_t errlen)
{
	ssize_t n = rd_get(r, bh->bytes, p);
	uint32_t c;

	if (n < 0)
		return rd_fail(r, err, errlen, (int)n, "offset %llu: read: %s",
			       (unsigned long long)boff, strerror((int)-n));
	if ((uint32_t)n < bh->bytes)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: truncated block of window %u: payload needs %u bytes, file has %zd",
			(unsigned long long)boff, bh->window, bh->bytes, n);
	c = crc(crc(0, bh->raw, sizeof(bh->raw)), *p, bh->bytes);
	if (c != bh->stored)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: bad checksum in block of window %u (stored 0x%08x, computed 0x%08x)",
			(unsigned long long)boff, bh->window, bh->stored, c);
	return 0;
}

/* A new window: it must be the next the index lists. */
static int rd_window_begins(struct mdk_trace_reader *r, uint64_t boff,
			    uint32_t window, char *err, size_t errlen)
{
	if (r->info.indexed &&
	    (r->next_idx >= r->nidx || r->idx[r->next_idx].window != window ||
	     r->idx[r->next_idx].offset != boff))
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u is not where the index puts its entry %u",
			(unsigned long long)boff, window, r->next_idx);
	if (r->info.indexed && r->next_idx &&
	    r->idx[r->next_idx - 1].count != r->win_count)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u has %u page ids, the index says %u",
			(unsigned long long)boff, r->window, r->win_count,
			r->idx[r->next_idx - 1].count);
	r->next_idx++;
	r->have_last = false;
	r->win_count = 0;
	return 0;
}

/* Room for @count ids (and their pages, with a page map). */
static int rd_reserve_ids(struct mdk_trace_reader *r, uint32_t count, char *err,
			  size_t errlen)
{
	/* pages (with a page map) grows alike; idcap moves once both have */
	size_t c1 = r->idcap, c2 = r->idcap;

	if (count <= r->idcap)
		return 0;
	if (mdk_grow((void **)&r->ids, &c1, count, sizeof(*r->ids)) ||
	    (r->pm &&
	     mdk_grow((void **)&r->pages, &c2, count, sizeof(*r->pages))))
		return rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	r->idcap = c1;
	return 0;
}

/* Decode the payload and leave its ids pending; returns 1, or an error. */
static int rd_block_ids(struct mdk_trace_reader *r, uint64_t boff,
			const struct blk_hdr *bh, const uint8_t *p, char *err,
			size_t errlen)
{
	uint32_t count = bh->count;
	int ret;

	r->window = bh->window;
	r->started = true;
	ret = rd_decode(r, p, bh->bytes, count, boff, err, errlen);
	if (ret)
		return ret;
	if (r->pm && count) {
		ret = mdk__pagemap_map(r->pm, r->ids, count, r->pages);
		if (ret)
			return rd_fail(r, err, errlen, ret,
				       "offset %llu: too many distinct pages",
				       (unsigned long long)boff);
	}
	r->win_count += count;
	r->records += count;
	r->pend.window = bh->window;
	r->pend.n = count;
	r->pend.ids = r->ids;
	r->pend.pages = r->pm ? r->pages : NULL;
	r->pend.offset = boff;
	r->pend.window_end = false;
	r->pending = true;
	return 1;
}

/*
 * Where the blocks end instead of a header in the @n bytes at @h: 1 when
 * a header follows, else what rd_block() returns.
 */
static int rd_blocks_end(struct mdk_trace_reader *r, uint64_t boff,
			 const uint8_t *h, ssize_t n, char *err, size_t errlen)
{
	if (n < 0)
		return rd_fail(r, err, errlen, (int)n, "offset %llu: read: %s",
			       (unsigned long long)boff, strerror((int)-n));
	if (n == 0 && (r->flags & MDK_TRACE_PARTIAL) && !r->info.indexed) {
		r->blocks_done = true;
		return rd_check_end(r, err, errlen);
	}
	if (n >= 4 && mdk__get32(h) == IDX_MAGIC && !r->seekable) {
		/* Pipe: step back over what rd_get() consumed past the magic. */
		r->bufoff -= (size_t)n - 4;
		r->pos -= (uint64_t)n - 4;
		r->blocks_done = true;
		return rd_stream_index(r, boff, err, errlen);
	}
	if (n >= 4 && mdk__get32(h) == IDX_MAGIC &&
	    (r->flags & MDK_TRACE_PARTIAL) && !r->info.indexed) {
		/* A partial read that reached an index it did not load. */
		r->blocks_done = true;
		return rd_check_end(r, err, errlen);
	}
	if (n < BLK_BYTES)
		return rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: truncated: expected a %u-byte block header%s, found %zd bytes",
			(unsigned long long)boff, BLK_BYTES,
			r->info.indexed || r->seekable ? "" : " or the index",
			n);
	return 1;
}

static int rd_block(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	const uint8_t *h, *p;
	uint64_t boff = r->pos;
	struct blk_hdr bh;
	ssize_t n;
	int ret;

	if (r->info.indexed && r->seekable && boff == r->idx_off) {
		r->blocks_done = true;
		return rd_check_end(r, err, errlen);
	}
	n = rd_get(r, BLK_BYTES, &h);
	ret = rd_blocks_end(r, boff, h, n, err, errlen);
	if (ret != 1)
		return ret;
	/* Copy what the checksum covers before rd_get() moves the buffer. */
	blk_parse(h, &bh);
	ret = blk_check_fields(r, boff, &bh, err, errlen);
	if (!ret)
		ret = blk_check_order(r, boff, &bh, err, errlen);
	if (!ret)
		ret = blk_read_payload(r, boff, &bh, &p, err, errlen);
	if (!ret && !(bh.flags & BLK_F_CONT))
		ret = rd_window_begins(r, boff, bh.window, err, errlen);
	if (!ret)
		ret = rd_reserve_ids(r, bh.count, err, errlen);
	if (ret)
		return ret;
	return rd_block_ids(r, boff, &bh, p, err, errlen);
}

/* Does the block after the current one continue its window? */
static bool rd_next_is_cont(struct mdk_trace_reader *r, uint32_t window)
{
	const uint8_t *h;
	ssize_t n;

	if (r->blocks_done ||
	    (r->info.indexed && r->seekable && r->pos == r->idx_off))
		return false;
	n = rd_get(r, BLK_BYTES, &h);
	if (n <= 0)
		return false;
	/* Step back: rd_get() left the bytes in place. */
	if (!r->mem)
		r->bufoff -= (size_t)n;
	r->pos -= (uint64_t)n;
	return n == BLK_BYTES && mdk__get32(h) == BLK_MAGIC &&
	       (mdk__get32(h + 16) & BLK_F_CONT) && mdk__get32(h + 4) == window;
}

int mdk_trace_reader_next(struct mdk_trace_reader *r, struct mdk_trace_chunk *c,
			  char *err, size_t errlen)
{
	int ret;

	if (r->failed)
		return mdk_err(err, errlen, r->failed,
			       "%s: reader failed earlier", r->name);
	if (!r->pending && !r->blocks_done) {
		ret = rd_block(r, err, errlen);
		if (ret < 0)
			return ret;
	}
	if (r->pending) {
		if (r->pend.window > r->next_window) {
			/* A gap: hand out the empty window first. */
			memset(c, 0, sizeof(*c));
			c->window = r->next_window++;
			c->window_end = true;
			return 1;
		}
		*c = r->pend;
		r->pending = false;
		c->window_end = !rd_next_is_cont(r, c->window);
		if (c->window_end)
			r->next_window = c->window + 1;
		return 1;
	}
	if (r->next_window < r->total_windows) {
		memset(c, 0, sizeof(*c));
		c->window = r->next_window++;
		c->window_end = true;
		return 1;
	}
	return 0;
}

int mdk_trace_reader_seek(struct mdk_trace_reader *r, uint32_t window,
			  char *err, size_t errlen)
{
	uint32_t lo = 0, hi, i;
	int ret;

	if (!r->info.indexed || !r->seekable)
		return mdk_err(err, errlen, -ENOTSUP,
			       "%s: seeking needs a seekable, indexed trace",
			       r->name);
	if (window >= r->info.windows)
		return mdk_err(err, errlen, -ERANGE,
			       "%s: window %u is past the end (%u windows)",
			       r->name, window, r->info.windows);
	/* The first stored window at or after @window. */
	hi = r->nidx;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->idx[mid].window < window)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	ret = rd_seek(r, i < r->nidx ? r->idx[i].offset : r->idx_off);
	if (ret)
		return rd_fail(r, err, errlen, ret, "seek: %s", strerror(-ret));
	r->failed = 0;
	r->pending = false;
	r->blocks_done = false;
	r->started = i > 0;
	r->window = i > 0 ? r->idx[i - 1].window : 0;
	r->win_count = i > 0 ? r->idx[i - 1].count : 0;
	r->have_last = false;
	r->next_idx = i;
	r->next_window = window;
	r->records = 0;
	for (uint32_t k = 0; k < i; k++)
		r->records += r->idx[k].count;
	return 0;
}

uint32_t mdk_trace_reader_windows(const struct mdk_trace_reader *r)
{
	return r->next_window;
}

uint64_t mdk_trace_reader_pages(const struct mdk_trace_reader *r)
{
	return r->pm ? mdk__pagemap_pages(r->pm) : 0;
}

uint64_t mdk_trace_reader_records(const struct mdk_trace_reader *r)
{
	return r->records;
}

uint64_t mdk_trace_reader_slots(const struct mdk_trace_reader *r)
{
	return r->pm ? mdk__pagemap_slots(r->pm) : 0;
}
