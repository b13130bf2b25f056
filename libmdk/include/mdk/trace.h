/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_TRACE_H
#define MDK_TRACE_H

/*
 * Access-bit traces (.mdkt): for every window of a run, the sorted set of
 * page ids whose Accessed bit was found set.  The byte layout is in
 * Documentation/trace-format.rst.
 *
 * Writer and reader both stream: the writer holds one block (at most
 * MDK_TRACE_BLOCK_IDS ids) and the index (16 bytes a window), the reader
 * one block and, with MDK_TRACE_DENSE, the page map (a few bytes a page).
 *
 * Every function that can fail returns 0 (or a count) on success and a
 * negative errno on failure, with a message naming the file, the offset or
 * line, and what was expected in @err (at most @errlen bytes, always
 * NUL-terminated; @err may be NULL).  Nothing here prints or exits.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Format version written by this library. */
#define MDK_TRACE_VERSION_MAJOR 1
#define MDK_TRACE_VERSION_MINOR 0

/* The writer cuts a window into blocks of at most this many ids. */
#define MDK_TRACE_BLOCK_IDS 16384

/* Header flags (struct mdk_trace_info.flags). */
#define MDK_TRACE_F_PHYS 0x1u /* page ids are physical frame numbers */

/* Largest window number a trace may hold (windows are 32-bit). */
#define MDK_TRACE_MAX_WINDOW 0xfffffffeu

/*
 * Most empty windows between two stored windows (and before the first):
 * 2^20, a year of 30-second windows.  Readers take larger jumps for
 * corruption; writers refuse them.
 */
#define MDK_TRACE_MAX_GAP (1u << 20)

/* What a trace's header and index say. */
struct mdk_trace_info {
	uint16_t version_major;
	uint16_t version_minor;
	uint64_t window_us; /* window length, microseconds (0: unknown) */
	uint32_t page_size; /* bytes (0: unknown) */
	uint32_t flags; /* MDK_TRACE_F_* */
	uint64_t start_us; /* start of window 0, Unix time in us (0: unknown) */
	const char *desc; /* source description, NUL-terminated, never NULL */
	bool indexed; /* the index was present and valid */
	uint32_t windows; /* W, from the index (0 when not indexed) */
	uint64_t records; /* total page ids, from the index (0 when not) */
};

/* Options of a new trace; zeroed fields mean "unknown". */
struct mdk_trace_writer_opts {
	uint64_t window_us;
	uint32_t page_size;
	uint32_t flags; /* MDK_TRACE_F_* */
	uint64_t start_us;
	const char *desc; /* may be NULL; at most 65535 bytes */
};

struct mdk_trace_writer;

/*
 * mdk_trace_writer_open() - create (or truncate) @path and write the header.
 * Returns 0 with *@out set, or -errno.  The caller owns the writer and must
 * finish it with mdk_trace_writer_close() or mdk_trace_writer_abort().
 */
int mdk_trace_writer_open(const char *path,
			  const struct mdk_trace_writer_opts *opts,
			  struct mdk_trace_writer **out, char *err,
			  size_t errlen);

/*
 * mdk_trace_writer_begin() - start window @window, ending the previous
 * one.  Windows must increase; skipped windows are empty.  Returns 0 or
 * -EINVAL (window not after the previous one) or a write error.
 */
int mdk_trace_writer_begin(struct mdk_trace_writer *w, uint32_t window,
			   char *err, size_t errlen);

/*
 * mdk_trace_writer_add() - append @n page ids to the current window.  The
 * ids of a window must strictly increase across all calls (the order a
 * page-table walk produces).  Returns 0, -EINVAL (no window begun, ids not
 * increasing) or a write error.
 */
int mdk_trace_writer_add(struct mdk_trace_writer *w, const uint64_t *ids,
			 size_t n, char *err, size_t errlen);

/* mdk_trace_writer_put() flags */
#define MDK_TRACE_UNSORTED 0x1u /* sort @ids and drop duplicates first */

/*
 * mdk_trace_writer_put() - begin @window and add its @n ids in one call.
 * With MDK_TRACE_UNSORTED the ids may come in any order with duplicates
 * (the writer sorts a copy: memory grows with the window).
 */
int mdk_trace_writer_put(struct mdk_trace_writer *w, uint32_t window,
			 const uint64_t *ids, size_t n, unsigned int flags,
			 char *err, size_t errlen);

/*
 * mdk_trace_writer_close() - end the last window, write the index and
 * footer, close the file and free @w (also on failure).  Returns 0, or
 * -errno when any write, including an earlier one, failed.
 */
int mdk_trace_writer_close(struct mdk_trace_writer *w, char *err,
			   size_t errlen);

/*
 * mdk_trace_writer_abort() - close the file without an index and free @w.
 * The file is left as a partial trace (readable with MDK_TRACE_PARTIAL).
 */
void mdk_trace_writer_abort(struct mdk_trace_writer *w);

/*
 * Reader flags.  MDK_TRACE_DENSE also maps page ids to compact indices
 * for callers that keep per-page state in arrays: a page keeps its index
 * for the reader's life; the 64 ids sharing id >> 6 get 64 consecutive
 * indices when the first of them is seen, so indices are below 64 x the
 * distinct pages and, for clustered ids, about as many as the pages and
 * increasing with the id within a window (arrays are then walked in order).
 */
#define MDK_TRACE_DENSE 0x1u
#define MDK_TRACE_PARTIAL 0x2u /* accept a trace without index/footer */

/*
 * A piece of one window.  A window comes as one or more chunks; the last
 * has @window_end set.  Windows without pages (including gaps between
 * stored windows and empty windows at the end) come as one empty chunk, so
 * a reader sees every window 0..W-1 in order.
 */
struct mdk_trace_chunk {
	uint32_t window;
	bool window_end;
	size_t n;
	const uint64_t *ids; /* strictly increasing within the window */
	const uint32_t *pages; /* compact page indices (MDK_TRACE_DENSE
				* only, else NULL), see below */
	uint64_t offset; /* file offset of the block (0 for gaps) */
};

struct mdk_trace_reader;

/*
 * mdk_trace_reader_open() - open @path (regular file or pipe) and check
 * its header and, when the file is seekable, its footer and index.  A
 * zstd-compressed trace (told by the magic number) is decompressed as it
 * is read; from a file it is decompressed once more here, for its footer
 * and index, and seeking decompresses again from the start.
 * Returns 0 with *@out set, or -errno: -ENOENT..., -EINVAL for a file that
 * is not a trace, -EBADMSG for corruption, -EPROTONOSUPPORT for a newer
 * major version.
 */
int mdk_trace_reader_open(const char *path, unsigned int flags,
			  struct mdk_trace_reader **out, char *err,
			  size_t errlen);

/*
 * mdk_trace_reader_open_mem() - the same over @len bytes at @buf, which
 * must stay valid until the reader is closed.  @name is used in messages.
 */
int mdk_trace_reader_open_mem(const void *buf, size_t len, const char *name,
			      unsigned int flags, struct mdk_trace_reader **out,
			      char *err, size_t errlen);

/* mdk_trace_reader_info() - header and index of the open trace. */
const struct mdk_trace_info *
mdk_trace_reader_info(const struct mdk_trace_reader *r);

/*
 * mdk_trace_reader_next() - the next chunk.  Returns 1 with *@c filled, 0
 * at the end of the trace, or -errno (-EBADMSG: bad checksum, truncated
 * block, windows out of order, ids not increasing...).  @c's arrays stay
 * valid until the next call.  After an error the reader stays failed.
 */
int mdk_trace_reader_next(struct mdk_trace_reader *r, struct mdk_trace_chunk *c,
			  char *err, size_t errlen);

/*
 * mdk_trace_reader_seek() - position before window @window so that the
 * next chunk is its first.  Needs the index; the page map is kept.
 * Returns 0, -ENOTSUP (no index, or a pipe) or -ERANGE (past the end).
 */
int mdk_trace_reader_seek(struct mdk_trace_reader *r, uint32_t window,
			  char *err, size_t errlen);

/*
 * mdk_trace_reader_windows() - windows read so far (W once the end was
 * reached); mdk_trace_reader_pages() - distinct pages mapped so far
 * (MDK_TRACE_DENSE), mdk_trace_reader_records() - ids read so far.
 * mdk_trace_reader_slots() - 1 + the largest index handed out so far
 * could be (MDK_TRACE_DENSE): the size of a per-page array.
 */
uint32_t mdk_trace_reader_windows(const struct mdk_trace_reader *r);
uint64_t mdk_trace_reader_pages(const struct mdk_trace_reader *r);
uint64_t mdk_trace_reader_records(const struct mdk_trace_reader *r);
uint64_t mdk_trace_reader_slots(const struct mdk_trace_reader *r);

/* mdk_trace_reader_close() - close and free; NULL is a no-op. */
void mdk_trace_reader_close(struct mdk_trace_reader *r);

/*
 * CSV: one "window,page" row per access, window and page unsigned integers
 * (decimal, or hexadecimal with 0x), an optional first line that is not
 * numeric (a header), blank lines and lines starting with '#' ignored.
 */
struct mdk_csv_reader;

/* mdk_csv_reader_open() - open @path ("-" for standard input). */
int mdk_csv_reader_open(const char *path, struct mdk_csv_reader **out,
			char *err, size_t errlen);

/*
 * mdk_csv_reader_next() - the next row.  Returns 1 with *@window and
 * *@page set, 0 at the end, or -EINVAL naming "file:line" and what was
 * expected.  Order is not checked here.
 */
int mdk_csv_reader_next(struct mdk_csv_reader *c, uint64_t *window,
			uint64_t *page, char *err, size_t errlen);

/* mdk_csv_reader_line() - line number of the last row returned. */
uint64_t mdk_csv_reader_line(const struct mdk_csv_reader *c);

/* mdk_csv_reader_close() - close and free; NULL is a no-op. */
void mdk_csv_reader_close(struct mdk_csv_reader *c);

/*
 * mdk_trace_import_csv() - convert @csv ("-": standard input) into the
 * trace @out.  Windows must be non-decreasing (error naming the line
 * otherwise); pages within a window may come in any order, duplicates are
 * collapsed.  Memory grows with the largest window.  On failure @out is
 * removed.  Returns 0 or -errno.
 */
int mdk_trace_import_csv(const char *csv, const char *out,
			 const struct mdk_trace_writer_opts *opts, char *err,
			 size_t errlen);

/*
 * mdk_trace_export_csv() - write the trace @path to @out as "window,page"
 * rows (page ids in decimal) after a "window,page" header line.  Returns
 * 0 or -errno.
 */
int mdk_trace_export_csv(const char *path, FILE *out, char *err, size_t errlen);

/*
 * libCacheSim's oracleGeneral traces: packed 24-byte little-endian
 * records, one a request, { uint32 clock_time (seconds); uint64 obj_id;
 * uint32 obj_size; int64 next_access_vtime (index of the object's next
 * request, -1 for none) }.  Either may be zstd-compressed on input (told
 * by the magic number, whatever the name), as may a .mdkt trace anywhere
 * one is read.  Documentation/trace-format.rst, "Interchange".
 */
#define MDK_ORACLE_RECORD_BYTES 24

/*
 * mdk_trace_import_oracle() flags: obj_id is a byte offset (block
 * traces), and a request covers the pages obj_id / page_size to
 * (obj_id + obj_size - 1) / page_size; without it obj_id is the page id.
 */
#define MDK_ORACLE_OFFSETS 0x1u

/*
 * mdk_trace_import_oracle() - convert the oracleGeneral trace @in ("-":
 * standard input) into the trace @out, with windows of @opts->window_us
 * (required) counted from the first request's clock_time: window =
 * (clock_time - first) / window.  Time may go back within a window, not
 * past its start (an error naming the offset).  A window's repeated pages
 * collapse; next_access_vtime is not used.  Memory grows with the largest
 * window.  On failure @out is removed.  Returns 0 or -errno.
 */
int mdk_trace_import_oracle(const char *in, const char *out,
			    const struct mdk_trace_writer_opts *opts,
			    unsigned int flags, char *err, size_t errlen);

/*
 * mdk_trace_export_oracle() - write the trace @trace as the oracleGeneral
 * trace @out (a regular file): each window's pages in id order, as
 * requests with clock_time the seconds from window 0 to the window's
 * start, obj_id the page id, obj_size the page size (4096 when unknown)
 * and next_access_vtime the index of the page's next request (from 0), or
 * -1.  One pass; memory: at most 15.5 MiB of buffers and 8 bytes a page.  An
 * @out ending in .zst is zstd-compressed (written plain to an unnamed file
 * beside it first).  On failure @out is removed.  Returns 0 or -errno.
 */
int mdk_trace_export_oracle(const char *trace, const char *out, char *err,
			    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MDK_TRACE_H */
