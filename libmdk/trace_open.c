// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Opening a trace: the header, and for a seekable trace the footer and
 * the index, all checked before the first block is read.  The reader
 * trusts nothing: every length is checked against the file before use,
 * every checksum before the bytes are believed, and each failure names
 * the file, the offset and what was expected.
 *
 * A zstd-compressed trace (told by its magic number, whatever its name)
 * is decompressed as it is read.  From a regular file or memory it is
 * decompressed once more at open, for its length, footer and index, and
 * reads as a plain file does (seeking decompresses from the start
 * again); from a pipe it reads as a pipe does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

static int rd_header(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	const uint8_t *h, *d;
	uint32_t hbytes, c, flags;
	uint16_t dlen;
	ssize_t n;

	n = mdk__rd_get(r, HDR_BYTES, &h);
	if (n < 0)
		return mdk__rd_fail(r, err, errlen, (int)n, "read: %s",
				    strerror((int)-n));
	if (n < 8 || memcmp(h, FILE_MAGIC, 8))
		return mdk__rd_fail(
			r, err, errlen, -EINVAL,
			"offset 0: not an mdk trace (expected the magic \\x89MDKT\\r\\n\\x1a)");
	if (n < HDR_BYTES)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %zd: truncated header (expected %u bytes, file has %zd)",
			n, HDR_BYTES, n);
	r->info.version_major = mdk__get16(h + 8);
	r->info.version_minor = mdk__get16(h + 10);
	if (r->info.version_major != MDK_TRACE_VERSION_MAJOR)
		return mdk__rd_fail(
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
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset 12: header length %u does not match a %u-byte description (expected %u)",
			hbytes, dlen, (HDR_BYTES + dlen + 7u) & ~7u);
	if (mdk__get16(h + 42))
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset 42: reserved header field is not zero");
	{
		uint32_t stored = mdk__get32(h + 44);

		n = mdk__rd_get(r, hbytes - HDR_BYTES, &d);
		if (n < 0)
			return mdk__rd_fail(r, err, errlen, (int)n, "read: %s",
					    strerror((int)-n));
		if ((size_t)n < hbytes - HDR_BYTES)
			return mdk__rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %u: truncated header description (expected %u bytes)",
				HDR_BYTES, hbytes - HDR_BYTES);
		c = crc(c, d, dlen);
		if (c != stored)
			return mdk__rd_fail(
				r, err, errlen, -EBADMSG,
				"offset 44: bad header checksum (stored 0x%08x, computed 0x%08x)",
				stored, c);
	}
	if (flags & HDR_F_REQUIRED)
		return mdk__rd_fail(r, err, errlen, -EPROTONOSUPPORT,
				    "offset 28: unknown required flags 0x%x",
				    flags & HDR_F_REQUIRED);
	r->desc = malloc((size_t)dlen + 1);
	if (!r->desc)
		return mdk__rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	memcpy(r->desc, d, dlen);
	r->desc[dlen] = 0;
	/* Descriptions are text: keep NULs out of C strings. */
	r->info.desc = r->desc;
	r->data_off = hbytes;
	return 0;
}

/*
 * The footer of a seekable trace into @f, checked, and the offset of the
 * index it points to into *@ioff: 0, 1 when there is no footer, or an
 * error.
 */
static int rd_footer(struct mdk_trace_reader *r, uint8_t *f, uint64_t *ioff,
		     char *err, size_t errlen)
{
	uint64_t foff;
	uint32_t c;
	int ret;

	if (r->size < r->data_off + FTR_BYTES)
		return 1;
	foff = r->size - FTR_BYTES;
	ret = mdk__rd_pread(r, foff, f, FTR_BYTES);
	if (ret)
		return mdk__rd_fail(r, err, errlen, ret,
				    "offset %llu: read: %s",
				    (unsigned long long)foff, strerror(-ret));
	if (mdk__get32(f) != FTR_MAGIC)
		return 1;
	c = crc(0, f, 28);
	if (c != mdk__get32(f + 28))
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: bad footer checksum (stored 0x%08x, computed 0x%08x)",
			(unsigned long long)foff, mdk__get32(f + 28), c);
	*ioff = mdk__get64(f + 8);
	if (*ioff < r->data_off || *ioff > foff - 12)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: footer's index offset %llu is outside the file's data (%llu..%llu)",
			(unsigned long long)foff + 8, (unsigned long long)*ioff,
			(unsigned long long)r->data_off,
			(unsigned long long)foff - 12);
	return 0;
}

/*
 * The index section of @ibytes bytes at @ioff, read into @ib: its magic
 * and checksum, then its entries into r->idx, each after the previous
 * one and inside the data.  0 or an error.
 */
static int rd_index_entries(struct mdk_trace_reader *r, const uint8_t *ib,
			    uint64_t ibytes, uint64_t ioff, char *err,
			    size_t errlen)
{
	uint32_t n = mdk__get32(ib + 4), c, i, prevw = 0;

	if (mdk__get32(ib) != IDX_MAGIC ||
	    ibytes != 12 + (uint64_t)n * IDX_ENTRY_BYTES)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: expected the index (\"MDKI\", %llu bytes before the footer)",
			(unsigned long long)ioff, (unsigned long long)ibytes);
	c = crc(0, ib, 8 + (size_t)n * IDX_ENTRY_BYTES);
	if (c != mdk__get32(ib + 8 + (size_t)n * IDX_ENTRY_BYTES))
		return mdk__rd_fail(r, err, errlen, -EBADMSG,
				    "offset %llu: bad index checksum",
				    (unsigned long long)ioff);
	r->idx = malloc(((size_t)n + 1) * sizeof(*r->idx));
	if (!r->idx)
		return mdk__rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	r->info.records = 0;
	for (i = 0; i < n; i++) {
		const uint8_t *e = ib + 8 + (size_t)i * IDX_ENTRY_BYTES;

		r->idx[i].offset = mdk__get64(e);
		r->idx[i].window = mdk__get32(e + 8);
		r->idx[i].count = mdk__get32(e + 12);
		if ((i && r->idx[i].window <= prevw) ||
		    r->idx[i].offset < r->data_off ||
		    r->idx[i].offset >= ioff ||
		    (i && r->idx[i].offset <= r->idx[i - 1].offset))
			return mdk__rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: index entry %u (window %u at offset %llu) is out of order or outside the data",
				(unsigned long long)ioff + 8 +
					(unsigned long long)i * IDX_ENTRY_BYTES,
				i, r->idx[i].window,
				(unsigned long long)r->idx[i].offset);
		prevw = r->idx[i].window;
		r->info.records += r->idx[i].count;
	}
	r->nidx = n;
	return 0;
}

/* Load footer and index of a seekable trace; 0 with none when allowed. */
static int rd_index(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	uint8_t f[FTR_BYTES], *ib;
	uint64_t foff = r->size - FTR_BYTES, ioff = 0, ibytes;
	uint32_t n;
	int ret;

	ret = rd_footer(r, f, &ioff, err, errlen);
	if (ret == 1)
		goto none;
	if (ret)
		return ret;
	ibytes = foff - ioff;
	ib = malloc(ibytes);
	if (!ib)
		return mdk__rd_fail(r, err, errlen, -ENOMEM, "out of memory");
	ret = mdk__rd_pread(r, ioff, ib, ibytes);
	if (ret)
		ret = mdk__rd_fail(r, err, errlen, ret, "offset %llu: read: %s",
				   (unsigned long long)ioff, strerror(-ret));
	else
		ret = rd_index_entries(r, ib, ibytes, ioff, err, errlen);
	free(ib);
	if (ret)
		return ret;
	n = r->nidx;
	r->idx_off = ioff;
	r->info.windows = mdk__get32(f + 4);
	if (mdk__get64(f + 16) != r->info.records ||
	    (n && r->info.windows <= r->idx[n - 1].window) ||
	    (n && r->info.windows - r->idx[n - 1].window > MAX_GAP) ||
	    (!n && r->info.windows))
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: footer (%u windows, %llu records) disagrees with the index",
			(unsigned long long)foff, r->info.windows,
			(unsigned long long)mdk__get64(f + 16));
	r->info.indexed = true;
	return 0;

none:
	if (r->flags & MDK_TRACE_PARTIAL)
		return 0;
	return mdk__rd_fail(
		r, err, errlen, -EBADMSG,
		"offset %llu: no footer (expected \"MDKE\" in the last %u bytes): the trace was not closed; read it as a partial trace to use the blocks it has",
		(unsigned long long)r->size, FTR_BYTES);
}

/*
 * A compressed file (or memory) is decompressed once at open for its
 * length and its last bytes, so that the footer and index are checked
 * up front as in a plain file; seeking decompresses again and skips.
 */
static int rd_zsize(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	int ret = mdk__zin_size(r->z, &r->size);

	if (!ret)
		ret = mdk__zin_seek(r->z, 0);
	if (ret)
		return mdk__rd_fail(r, err, errlen, ret, "%s", strerror(-ret));
	return 0;
}

/*
 * Look at the first bytes of the file: a zstd stream gets a decoder in
 * front of it; a pipe's bytes, once read, go into the plain buffer.
 */
static int rd_sniff(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	uint8_t pre[4];
	size_t n = 0;

	if (r->seekable) {
		ssize_t k = pread(r->fd, pre, sizeof(pre), 0);

		n = k > 0 ? (size_t)k : 0;
	} else {
		while (n < sizeof(pre)) {
			ssize_t k = read(r->fd, pre + n, sizeof(pre) - n);

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return mdk__rd_fail(r, err, errlen, -errno,
						    "read: %s",
						    strerror(errno));
			if (!k)
				break;
			n += (size_t)k;
		}
	}
	if (mdk__is_zstd(pre, n)) {
		r->z = mdk__zin_new(r->fd, NULL, 0, r->seekable ? NULL : pre,
				    r->seekable ? 0 : n,
				    r->flags & MDK_TRACE_PARTIAL);
		if (!r->z)
			return mdk__rd_fail(r, err, errlen, -ENOMEM,
					    "out of memory");
		return r->seekable ? rd_zsize(r, err, errlen) : 0;
	}
	if (!r->seekable && n) {
		r->buf = malloc(1u << 20);
		if (!r->buf)
			return mdk__rd_fail(r, err, errlen, -ENOMEM,
					    "out of memory");
		r->bufcap = 1u << 20;
		memcpy(r->buf, pre, n);
		r->buflen = n;
	}
	return 0;
}

static int rd_open(struct mdk_trace_reader *r, char *err, size_t errlen)
{
	int ret;

	if (r->flags & MDK_TRACE_DENSE) {
		r->pm = mdk__pagemap_new();
		if (!r->pm)
			return mdk__rd_fail(r, err, errlen, -ENOMEM,
					    "out of memory");
	}
	ret = rd_header(r, err, errlen);
	if (ret)
		return ret;
	if (r->seekable) {
		ret = rd_index(r, err, errlen);
		if (ret)
			return ret;
		ret = mdk__rd_seek(r, r->data_off);
		if (ret)
			return mdk__rd_fail(r, err, errlen, ret, "seek: %s",
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
	ret = rd_sniff(r, err, errlen);
	if (!ret)
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
	if (mdk__is_zstd(r->mem, len)) {
		/* Decompressed into the buffer; seeks decompress again. */
		r->z = mdk__zin_new(-1, r->mem, len, NULL, 0,
				    flags & MDK_TRACE_PARTIAL);
		r->mem = NULL;
		if (!r->z) {
			mdk_trace_reader_close(r);
			return mdk_err(err, errlen, -ENOMEM, "out of memory");
		}
		ret = rd_zsize(r, err, errlen);
	} else {
		ret = 0;
	}
	if (!ret)
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
	mdk__zin_free(r->z);
	mdk__pagemap_free(r->pm);
	free(r->ids);
	free(r->pages);
	free(r->idx);
	free(r->buf);
	free(r->desc);
	free(r->name);
	free(r);
}
