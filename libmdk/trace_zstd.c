// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * zstd streams: compressed input, decompressed as it is read (libzstd's
 * streaming decoder between a file, or memory, and the trace and
 * oracleGeneral readers), and a file compressed into a .zst.  Memory
 * stays bounded by the decoder's window and one buffer each way, whatever
 * the size of the stream.  A compressed stream has no offsets to seek
 * to: a file or memory is decompressed again from the start and skipped
 * through, a pipe is read in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace_int.h"

#define ZIN_SLICE 4096u
/* What mdk__zin_size() keeps of the end: a footer and a 1 MiB index. */
#define ZIN_TAIL (1u << 20)
#define ZIN_CHUNK (64u << 10)

struct mdk__zin {
	ZSTD_DCtx *dctx;
	int fd; /* -1: memory */
	uint8_t *in;
	size_t incap;
	ZSTD_inBuffer ib;
	uint64_t consumed; /* compressed bytes before ib.src */
	size_t last; /* decoder's last hint: 0 at the end of a frame */
	bool in_eof, partial;
	int failed;
	char msg[256];
	const void *mem; /* memory source (fd -1) */
	size_t memlen;
	uint64_t out_pos; /* decompressed bytes handed out */
	uint8_t *tail; /* the stream's last bytes, kept by mdk__zin_size() */
	size_t tail_len;
	uint64_t tail_off;
};

bool mdk__is_zstd(const uint8_t *p, size_t n)
{
	uint32_t m;

	if (n < 4)
		return false;
	m = mdk__get32(p);
	/* A frame, or a skippable frame (which zstd may put first). */
	return m == ZSTD_MAGICNUMBER ||
	       (m & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
}

struct mdk__zin *mdk__zin_new(int fd, const void *mem, size_t memlen,
			      const uint8_t *pre, size_t npre, bool partial)
{
	struct mdk__zin *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->dctx = ZSTD_createDCtx();
	z->fd = fd;
	z->partial = partial;
	z->last = 1; /* a frame is expected */
	z->mem = mem;
	z->memlen = memlen;
	if (fd < 0) {
		z->ib = (ZSTD_inBuffer){ mem, memlen, 0 };
		z->in_eof = true;
	} else {
		z->incap = MDK_MAX(ZSTD_DStreamInSize(), npre);
		z->in = malloc(z->incap);
		if (z->in && npre)
			memcpy(z->in, pre, npre);
		z->ib = (ZSTD_inBuffer){ z->in, npre, 0 };
	}
	if (!z->dctx || (fd >= 0 && !z->in)) {
		mdk__zin_free(z);
		return NULL;
	}
	return z;
}

void mdk__zin_free(struct mdk__zin *z)
{
	if (!z)
		return;
	ZSTD_freeDCtx(z->dctx);
	free(z->tail);
	free(z->in);
	free(z);
}

static ssize_t zin_fail(struct mdk__zin *z, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static ssize_t zin_fail(struct mdk__zin *z, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(z->msg, sizeof(z->msg), fmt, ap);
	va_end(ap);
	z->failed = ret;
	return ret;
}

/* Read more compressed bytes once the decoder took all it had. */
static int zin_refill(struct mdk__zin *z)
{
	ssize_t n;

	do
		n = read(z->fd, z->in, z->incap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return (int)zin_fail(z, -errno,
				     "compressed offset %llu: read: %s",
				     (unsigned long long)z->consumed,
				     strerror(errno));
	z->consumed += z->ib.size;
	z->ib = (ZSTD_inBuffer){ z->in, (size_t)n, 0 };
	z->in_eof = !n;
	return 0;
}

/*
 * One call of the decoder on at most ZIN_SLICE input bytes, so that an
 * error can be placed within that many bytes of the compressed stream.
 */
static size_t zin_step(struct mdk__zin *z, ZSTD_outBuffer *ob)
{
	size_t from = z->ib.pos, ret;
	ZSTD_inBuffer part = { z->ib.src, MDK_MIN(z->ib.size, from + ZIN_SLICE),
			       from };

	ret = ZSTD_decompressStream(z->dctx, ob, &part);
	if (ZSTD_isError(ret))
		zin_fail(z, -EBADMSG, "compressed bytes %llu..%llu: zstd: %s",
			 (unsigned long long)(z->consumed + from),
			 (unsigned long long)(z->consumed + part.size),
			 ZSTD_getErrorName(ret));
	else
		z->ib.pos = part.pos;
	return ret;
}

ssize_t mdk__zin_read(struct mdk__zin *z, void *dst, size_t len)
{
	ZSTD_outBuffer ob = { dst, len, 0 };

	if (z->failed)
		return z->failed;
	for (;;) {
		size_t ret;

		if (z->ib.pos == z->ib.size && !z->in_eof && zin_refill(z))
			return z->failed;
		/* At the end of a frame, with no more input: the end. */
		if (z->ib.pos == z->ib.size && z->in_eof && !z->last)
			return 0;
		ret = zin_step(z, &ob);
		if (ZSTD_isError(ret))
			return z->failed;
		z->last = ret;
		z->out_pos += ob.pos;
		if (ob.pos)
			return (ssize_t)ob.pos;
		if (z->ib.pos == z->ib.size && z->in_eof)
			break;
	}
	/* The input ended: inside a frame, the stream was cut short. */
	if (z->last && !z->partial)
		return zin_fail(
			z, -EBADMSG,
			"compressed offset %llu: truncated zstd stream (the last frame is not complete)",
			(unsigned long long)(z->consumed + z->ib.pos));
	return 0;
}

/*
 * Seeking in a compressed file: decompress from the start again (the
 * file, a regular one, from offset 0, or the memory) and skip.
 */
static int zin_rewind(struct mdk__zin *z)
{
	if (z->failed)
		return z->failed;
	ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
	if (z->fd >= 0) {
		if (lseek(z->fd, 0, SEEK_SET) < 0)
			return (int)zin_fail(z, -errno, "seek: %s",
					     strerror(errno));
		z->ib = (ZSTD_inBuffer){ z->in, 0, 0 };
		z->in_eof = false;
	} else {
		z->ib = (ZSTD_inBuffer){ z->mem, z->memlen, 0 };
	}
	z->consumed = 0;
	z->last = 1;
	z->out_pos = 0;
	return 0;
}

/* Read exactly @len bytes (-ENODATA: the stream ends first). */
static int zin_read_all(struct mdk__zin *z, uint8_t *dst, size_t len)
{
	while (len) {
		ssize_t n = mdk__zin_read(z, dst, len);

		if (n < 0)
			return (int)n;
		if (!n)
			return -ENODATA;
		dst += n;
		len -= (size_t)n;
	}
	return 0;
}

int mdk__zin_seek(struct mdk__zin *z, uint64_t off)
{
	uint8_t scratch[16384];
	int ret;

	if (off < z->out_pos) {
		ret = zin_rewind(z);
		if (ret)
			return ret;
	}
	while (z->out_pos < off) {
		size_t n = (size_t)MDK_MIN(off - z->out_pos,
					   (uint64_t)sizeof(scratch));

		ret = zin_read_all(z, scratch, n);
		if (ret)
			return ret;
	}
	return 0;
}

int mdk__zin_pread(struct mdk__zin *z, uint64_t off, void *dst, size_t len)
{
	int ret;

	if (z->tail && off >= z->tail_off &&
	    off + len <= z->tail_off + z->tail_len) {
		memcpy(dst, z->tail + (off - z->tail_off), len);
		return 0;
	}
	ret = mdk__zin_seek(z, off);
	return ret ? ret : zin_read_all(z, dst, len);
}

int mdk__zin_size(struct mdk__zin *z, uint64_t *size)
{
	size_t cap = ZIN_TAIL + ZIN_CHUNK;
	int ret = zin_rewind(z);

	if (ret)
		return ret;
	free(z->tail);
	z->tail = malloc(cap);
	if (!z->tail)
		return -ENOMEM;
	z->tail_len = 0;
	z->tail_off = 0;
	for (;;) {
		ssize_t n;

		if (z->tail_len + ZIN_CHUNK > cap) {
			size_t drop = z->tail_len - ZIN_TAIL;

			memmove(z->tail, z->tail + drop, ZIN_TAIL);
			z->tail_len = ZIN_TAIL;
			z->tail_off += drop;
		}
		n = mdk__zin_read(z, z->tail + z->tail_len, ZIN_CHUNK);
		if (n < 0)
			return (int)n;
		if (!n)
			break;
		z->tail_len += (size_t)n;
	}
	*size = z->out_pos;
	return 0;
}

const char *mdk__zin_msg(const struct mdk__zin *z)
{
	return z->msg;
}

/* Write all @len bytes at @p to @fd. */
static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Compress what @in holds into @ofd, one input buffer at a time. */
static int zout_copy(ZSTD_CCtx *cc, int in, int ofd, uint8_t *ib, size_t icap,
		     uint8_t *obuf, size_t ocap, const char *out, char *err,
		     size_t errlen)
{
	uint64_t off = 0;

	for (;;) {
		ssize_t n = pread(in, ib, icap, (off_t)off);
		ZSTD_EndDirective end = n > 0 ? ZSTD_e_continue : ZSTD_e_end;
		ZSTD_inBuffer zi = { ib, n > 0 ? (size_t)n : 0, 0 };
		size_t left;
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return mdk_err(err, errlen, -errno, "%s: read: %s", out,
				       strerror(errno));
		off += (uint64_t)zi.size;
		do {
			ZSTD_outBuffer zo = { obuf, ocap, 0 };

			left = ZSTD_compressStream2(cc, &zo, &zi, end);
			if (ZSTD_isError(left))
				return mdk_err(err, errlen, -EIO,
					       "%s: zstd: %s", out,
					       ZSTD_getErrorName(left));
			ret = write_all(ofd, obuf, zo.pos);
			if (ret)
				return mdk_err(err, errlen, ret,
					       "%s: write: %s", out,
					       strerror(-ret));
		} while (end == ZSTD_e_end ? left != 0 : zi.pos < zi.size);
		if (end == ZSTD_e_end)
			return 0;
	}
}

int mdk__zout_file(int in, const char *out, char *err, size_t errlen)
{
	size_t icap = ZSTD_CStreamInSize(), ocap = ZSTD_CStreamOutSize();
	uint8_t *ib = malloc(icap), *obuf = malloc(ocap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	int ofd = -1, ret;

	if (!ib || !obuf || !cc) {
		ret = mdk_err(err, errlen, -ENOMEM, "%s: out of memory", out);
		goto out_free;
	}
	/* As the zstd tool writes: level 3, with a checksum of the content. */
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ofd < 0) {
		ret = mdk_err(err, errlen, -errno, "%s: %s", out,
			      strerror(errno));
		goto out_free;
	}
	ret = zout_copy(cc, in, ofd, ib, icap, obuf, ocap, out, err, errlen);
	if (close(ofd) && !ret)
		ret = mdk_err(err, errlen, -errno, "%s: close: %s", out,
			      strerror(errno));
	if (ret)
		unlink(out);
out_free:
	ZSTD_freeCCtx(cc);
	free(ib);
	free(obuf);
	return ret;
}
