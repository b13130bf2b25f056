// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The .mdkt trace writer: windows of sorted page ids, delta-encoded into
 * checksummed blocks, then the index and the footer at close.  It keeps
 * bounded state: one block and the index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

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
	memcpy(hdr, FILE_MAGIC, 8);
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
