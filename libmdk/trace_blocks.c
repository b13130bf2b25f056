// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace reader's blocks: each header checked on its own and against
 * the previous block and the index, the payload against its checksum,
 * then its varint page ids decoded (and mapped to dense indices with
 * MDK_TRACE_DENSE).  The end of the blocks is checked against the index
 * and footer, read in-line when the trace comes from a pipe.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

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
		return mdk__rd_fail(
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
			return mdk__rd_fail(
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
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: block of window %u: %u page ids use %zu of the %zu payload bytes",
			(unsigned long long)boff, r->window, count,
			(size_t)(p - start), len);
	return 0;

bad_varint:
	return mdk__rd_fail(
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
			return mdk__rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: window %u has %u page ids, the index says %u",
				(unsigned long long)r->pos, r->window,
				r->win_count, r->idx[r->next_idx - 1].count);
		if (r->next_idx != r->nidx)
			return mdk__rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: the index lists %u windows, the data has %u",
				(unsigned long long)r->pos, r->nidx,
				r->next_idx);
		if (r->records != r->info.records)
			return mdk__rd_fail(
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

	got = mdk__rd_get(r, 4, &p);
	if (got < 4)
		goto truncated;
	n = mdk__get32(p);
	mdk__put32(e, IDX_MAGIC);
	mdk__put32(e + 4, n);
	c = crc(0, e, 8);
	r->info.records = 0;
	for (i = 0; i < n; i++) {
		got = mdk__rd_get(r, IDX_ENTRY_BYTES, &p);
		if (got < IDX_ENTRY_BYTES)
			goto truncated;
		c = crc(c, p, IDX_ENTRY_BYTES);
		r->info.records += mdk__get32(p + 12);
	}
	got = mdk__rd_get(r, 4 + FTR_BYTES, &p);
	if (got < 4 + FTR_BYTES)
		goto truncated;
	if (c != mdk__get32(p) || mdk__get32(p + 4) != FTR_MAGIC ||
	    crc(0, p + 4, 28) != mdk__get32(p + 32) ||
	    mdk__get64(p + 12) != ioff)
		return mdk__rd_fail(r, err, errlen, -EBADMSG,
				    "offset %llu: bad index or footer checksum",
				    (unsigned long long)ioff);
	r->info.windows = mdk__get32(p + 8);
	if (n != r->next_idx || r->info.records != r->records ||
	    (r->started && r->info.windows <= r->window) ||
	    (r->started && r->info.windows - r->window > MAX_GAP) ||
	    (!r->started && r->info.windows))
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: index (%u windows, %llu ids) disagrees with the data (%u, %llu)",
			(unsigned long long)ioff, n,
			(unsigned long long)r->info.records, r->next_idx,
			(unsigned long long)r->records);
	r->total_windows = r->info.windows;
	r->info.indexed = true;
	return 0;

truncated:
	return mdk__rd_fail(
		r, err, errlen, -EBADMSG,
		"offset %llu: truncated index (expected %u entries and the footer)",
		(unsigned long long)ioff, n);
}

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
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: expected a block (\"MDKB\"), found 0x%08x",
			(unsigned long long)boff, bh->magic);
	if (bh->flags & ~BLK_F_CONT)
		return mdk__rd_fail(r, err, errlen, -EBADMSG,
				    "offset %llu: unknown block flags 0x%x",
				    (unsigned long long)boff + 16, bh->flags);
	if (bh->count > MAX_BLOCK_IDS || bh->bytes > MAX_PAYLOAD ||
	    bh->bytes < bh->count || bh->bytes > 10ull * bh->count)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: block of window %u: %u page ids in %u bytes is impossible (expected 1 to 10 bytes an id, at most %u ids)",
			(unsigned long long)boff, bh->window, bh->count,
			bh->bytes, MAX_BLOCK_IDS);
	if (bh->window > MDK_TRACE_MAX_WINDOW)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
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
			return mdk__rd_fail(
				r, err, errlen, -EBADMSG,
				"offset %llu: block continues window %u but the previous block was %s%u",
				(unsigned long long)boff, window,
				r->started ? "of window " : "none, ",
				r->started ? r->window : 0);
	} else if (r->started && window <= r->window) {
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u after window %u: windows out of order (expected a window above %u)",
			(unsigned long long)boff, window, r->window, r->window);
	} else if (window - (r->started ? r->window : 0) > MAX_GAP) {
		return mdk__rd_fail(
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
	ssize_t n = mdk__rd_get(r, bh->bytes, p);
	uint32_t c;

	if (n < 0)
		return mdk__rd_fail(r, err, errlen, (int)n,
				    "offset %llu: read: %s",
				    (unsigned long long)boff,
				    strerror((int)-n));
	if ((uint32_t)n < bh->bytes)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: truncated block of window %u: payload needs %u bytes, file has %zd",
			(unsigned long long)boff, bh->window, bh->bytes, n);
	c = crc(crc(0, bh->raw, sizeof(bh->raw)), *p, bh->bytes);
	if (c != bh->stored)
		return mdk__rd_fail(
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
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: window %u is not where the index puts its entry %u",
			(unsigned long long)boff, window, r->next_idx);
	if (r->info.indexed && r->next_idx &&
	    r->idx[r->next_idx - 1].count != r->win_count)
		return mdk__rd_fail(
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
	if (r->lent)
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"window %u: a block of %u page ids, %zu more than the index says",
			r->window, count, count - r->idcap);
	if (mdk_grow((void **)&r->ids, &c1, count, sizeof(*r->ids)) ||
	    (r->pm &&
	     mdk_grow((void **)&r->pages, &c2, count, sizeof(*r->pages))))
		return mdk__rd_fail(r, err, errlen, -ENOMEM, "out of memory");
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
			return mdk__rd_fail(
				r, err, errlen, ret,
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
 * a header follows, else what mdk__rd_block() returns.
 */
static int rd_blocks_end(struct mdk_trace_reader *r, uint64_t boff,
			 const uint8_t *h, ssize_t n, char *err, size_t errlen)
{
	if (n < 0)
		return mdk__rd_fail(r, err, errlen, (int)n,
				    "offset %llu: read: %s",
				    (unsigned long long)boff,
				    strerror((int)-n));
	if (n == 0 && (r->flags & MDK_TRACE_PARTIAL) && !r->info.indexed) {
		r->blocks_done = true;
		return rd_check_end(r, err, errlen);
	}
	if (n >= 4 && mdk__get32(h) == IDX_MAGIC && !r->seekable) {
		/* Pipe: step back over what mdk__rd_get() consumed past the magic. */
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
		return mdk__rd_fail(
			r, err, errlen, -EBADMSG,
			"offset %llu: truncated: expected a %u-byte block header%s, found %zd bytes",
			(unsigned long long)boff, BLK_BYTES,
			r->info.indexed || r->seekable ? "" : " or the index",
			n);
	return 1;
}

int mdk__rd_block(struct mdk_trace_reader *r, char *err, size_t errlen)
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
	n = mdk__rd_get(r, BLK_BYTES, &h);
	ret = rd_blocks_end(r, boff, h, n, err, errlen);
	if (ret != 1)
		return ret;
	/* Copy what the checksum covers before mdk__rd_get() moves the buffer. */
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
