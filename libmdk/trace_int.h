/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The .mdkt trace's internals, shared by the writer (trace_write.c) and
 * the reader (trace_source.c: the bytes; trace_open.c: header, footer and
 * index; trace_blocks.c: checking and decoding blocks; trace_read.c: the
 * chunks handed out).  The layout is documented byte by byte in
 * Documentation/trace-format.rst; the constants below are its single
 * definition in code.
 */
#ifndef MDK_TRACE_INT_H
#define MDK_TRACE_INT_H

#include <sys/types.h>
#include <zlib.h>

#include <mdk/trace.h>

#include "internal.h"

#pragma GCC visibility push(hidden)

#define FILE_MAGIC "\x89MDKT\r\n\x1a" /* 8 bytes */
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

static inline uint32_t crc(uint32_t c, const void *p, size_t n)
{
	return (uint32_t)crc32_z(c, p, n);
}

/* One entry of the index: where a stored window starts, its ids. */
struct idx_entry {
	uint64_t offset;
	uint32_t window;
	uint32_t count;
};

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
	struct mdk__zin *z; /* zstd-compressed source (read in order), or NULL */

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
	bool lent; /* ids is the caller's (mdk__rd_window_into()) */
	struct mdk_pagemap *pm;
};

/*
 * The byte source (trace_source.c), a file, a pipe or memory.
 * mdk__rd_get() makes @len bytes at the current position contiguous and
 * points *@p to them; it returns the number available (less than @len
 * only at the end of the data) or -errno.  mdk__rd_seek() moves the
 * position; mdk__rd_pread() reads exactly @len bytes at @off of a
 * seekable source (-ENODATA past its end).
 */
ssize_t mdk__rd_get(struct mdk_trace_reader *r, size_t len, const uint8_t **p);
int mdk__rd_seek(struct mdk_trace_reader *r, uint64_t off);
int mdk__rd_pread(struct mdk_trace_reader *r, uint64_t off, void *dst,
		  size_t len);

/*
 * zstd input (trace_zstd.c): mdk__is_zstd() tells a zstd stream by its
 * first four bytes (a frame or a skippable frame).  mdk__zin_new() reads
 * from @fd, after the @npre bytes at @pre already read from it, or from
 * the @memlen bytes at @mem when @fd is -1; with @partial a stream cut
 * inside a frame ends where it was cut instead of failing.
 * mdk__zin_read() decompresses up to @len bytes into @dst and returns how
 * many (0 at the end) or -errno, after which mdk__zin_msg() says what
 * went wrong at which compressed offset, and every later call fails too.
 */
struct mdk__zin;

bool mdk__is_zstd(const uint8_t *p, size_t n);
struct mdk__zin *mdk__zin_new(int fd, const void *mem, size_t memlen,
			      const uint8_t *pre, size_t npre, bool partial);
ssize_t mdk__zin_read(struct mdk__zin *z, void *dst, size_t len);
const char *mdk__zin_msg(const struct mdk__zin *z);

/*
 * A compressed regular file or memory can be seeked, by decompressing it
 * again from the start and skipping (forward from where it is, when it
 * can).  mdk__zin_size() decompresses the whole stream once for its
 * length, keeping its last 1 MiB (a trace's footer and index) for
 * mdk__zin_pread(), which serves from that copy or else seeks and reads
 * (moving the stream: a seek must follow).  All return 0 or -errno
 * (-ENODATA: past the end).
 */
int mdk__zin_size(struct mdk__zin *z, uint64_t *size);
int mdk__zin_seek(struct mdk__zin *z, uint64_t off);
int mdk__zin_pread(struct mdk__zin *z, uint64_t off, void *dst, size_t len);
void mdk__zin_free(struct mdk__zin *z);

/*
 * Compress the whole of the file @in (read with pread() from offset 0)
 * into the new file @out, as zstd's tool does: 0, or -errno with @out
 * removed.
 */
int mdk__zout_file(int in, const char *out, char *err, size_t errlen);

/*
 * Record a failure ("NAME: " + message), keep the reader failed: @ret.
 * When the zstd source failed, its message (the compressed offset and
 * what libzstd found) replaces the caller's.
 */
int mdk__rd_fail(struct mdk_trace_reader *r, char *err, size_t errlen, int ret,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Read the next block into r->pend (trace_blocks.c): 1, 0 when the
 * blocks ended (r->blocks_done), or -errno.
 */
int mdk__rd_block(struct mdk_trace_reader *r, char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* MDK_TRACE_INT_H */
